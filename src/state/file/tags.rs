//! The user's stack tags on the file backend, where Pulumi's DIY backend keeps them:
//! `stacks/<project>/<stack>.pulumi-tags`, `{"version": 1, "tags": {...}}`, removed when the
//! last tag goes.

use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;

use crate::state::diy::{self, tags_file};
use crate::state::error::StateError;
use crate::state::stack_lock::StackLock;
use crate::state::stack_ref::StackRef;

use super::FileBackend;
use super::atomic::write_atomic;
use super::lock as file_lock;

impl FileBackend {
    pub(super) fn tags_path(&self, stack: &StackRef) -> PathBuf {
        self.at(&diy::tags_key(stack))
    }

    /// The tags the user set on the stack.
    pub fn user_tags(&self, stack: &StackRef) -> Result<BTreeMap<String, String>, StateError> {
        diy::user_tags(self, stack)
    }

    /// Replaces the user's tags of the locked stack.
    pub fn save_user_tags(
        &self,
        lock: &StackLock,
        tags: &BTreeMap<String, String>,
    ) -> Result<(), StateError> {
        let path = self.tags_path(lock.stack());
        let text = tags_file::encode(tags);
        file_lock::fenced(lock, &self.stack_dir(lock.stack()), || {
            if tags.is_empty() {
                return match fs::remove_file(&path) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        Err(StateError::io(&path)(e))
                    }
                    _ => Ok(()),
                };
            }
            write_atomic(&path, &text).map_err(StateError::io(&path))
        })
    }
}
