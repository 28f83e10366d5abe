//! The user's stack tags on the file backend, where Pulumi's DIY backend keeps them:
//! `stacks/<project>/<stack>.pulumi-tags`, `{"version": 1, "tags": {...}}`, removed when the
//! last tag goes.

use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::state::error::StateError;
use crate::state::stack_lock::StackLock;
use crate::state::stack_ref::StackRef;

use super::FileBackend;
use super::atomic::write_atomic;
use super::lock as file_lock;

/// The version of the tags file Pulumi writes and reads.
const TAGS_VERSION: u64 = 1;

#[derive(Serialize, Deserialize)]
struct TagsFile {
    version: u64,
    #[serde(default)]
    tags: Option<BTreeMap<String, String>>,
}

impl FileBackend {
    pub(super) fn tags_path(&self, stack: &StackRef) -> PathBuf {
        self.stacks_root()
            .join(stack.project())
            .join(format!("{}.pulumi-tags", stack.stack()))
    }

    /// The tags the user set on the stack.
    pub fn user_tags(&self, stack: &StackRef) -> Result<BTreeMap<String, String>, StateError> {
        let path = self.tags_path(stack);
        let corrupt = |line, message| StateError::Corrupt {
            path: path.clone(),
            line,
            message,
        };
        match fs::read(&path) {
            Ok(text) => {
                let file: TagsFile = serde_json::from_slice(&text)
                    .map_err(|e| corrupt(Some(e.line()), e.to_string()))?;
                if file.version != TAGS_VERSION {
                    return Err(corrupt(
                        None,
                        format!(
                            "unsupported stack tags version: {} (expected {TAGS_VERSION})",
                            file.version
                        ),
                    ));
                }
                Ok(file.tags.unwrap_or_default())
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
            Err(e) => Err(StateError::io(&path)(e)),
        }
    }

    /// Replaces the user's tags of the locked stack.
    pub fn save_user_tags(
        &self,
        lock: &StackLock,
        tags: &BTreeMap<String, String>,
    ) -> Result<(), StateError> {
        let path = self.tags_path(lock.stack());
        let file = TagsFile {
            version: TAGS_VERSION,
            tags: Some(tags.clone()),
        };
        let text = serde_json::to_vec(&file).expect("tags serialize");
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
