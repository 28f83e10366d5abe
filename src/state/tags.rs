//! Stack tags (`stack tag`): the user's tags in `tags.json` beside the checkpoint, and
//! Pulumi's built-in `pulumi:` tags, derived from the project and read-only.

use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;

use super::atomic::write_atomic;
use super::error::StateError;
use super::file_backend::FileBackend;
use super::file_lock;
use super::stack_lock::StackLock;
use super::stack_ref::StackRef;

/// The prefix of the tags the backend derives itself; users may not set or remove them.
pub const BUILTIN_TAG_PREFIX: &str = "pulumi:";

impl FileBackend {
    fn tags_path(&self, stack: &StackRef) -> PathBuf {
        self.stack_dir(stack).join("tags.json")
    }

    /// The tags the user set on the stack.
    pub fn user_tags(&self, stack: &StackRef) -> Result<BTreeMap<String, String>, StateError> {
        let path = self.tags_path(stack);
        match fs::read(&path) {
            Ok(text) => serde_json::from_slice(&text).map_err(|e| StateError::Corrupt {
                path: path.clone(),
                line: Some(e.line()),
                message: e.to_string(),
            }),
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
        let text = serde_json::to_vec_pretty(tags).expect("tags serialize");
        file_lock::fenced(lock, &self.stack_dir(lock.stack()), || {
            write_atomic(&path, &text).map_err(StateError::io(&path))
        })
    }
}
