//! Renaming a stack on the file backend (Pulumi's DIY `renameStack`): every URN in the state
//! is rewritten for the new name, the state is saved as the new stack, its history and tags
//! move with it, and only then is the old stack removed. A crash in between leaves the state
//! under both names, never under none.

use std::fs;

use crate::state::error::StateError;
use crate::state::passphrase::Crypter;
use crate::state::stack_lock::StackLock;
use crate::state::stack_ref::StackRef;
use crate::state::stack_rename::rename_snapshot;

use super::FileBackend;
use super::lock as file_lock;

impl FileBackend {
    /// Moves the locked stack's state to `new` (which must not exist), with its history and
    /// tags, and makes `new` the current stack if the old one was. The old stack is removed
    /// last.
    pub fn rename_stack(
        &self,
        lock: StackLock,
        new: &StackRef,
        crypter: Option<&Crypter>,
    ) -> Result<(), StateError> {
        let old = lock.stack().clone();
        let mut snapshot = self.load(&old, crypter)?.snapshot;
        let (new_lock, created) = self.lock_or_create(new, "rename")?;
        if !created {
            return Err(StateError::StackExists {
                stack: new.to_string(),
            });
        }
        rename_snapshot(&mut snapshot, new.stack());
        self.save(&new_lock, &snapshot, crypter)?;
        let (from, to) = (self.stack_dir(&old), self.stack_dir(new));
        let was_current = self.current_stack(old.project())?.as_deref() == Some(old.stack());
        file_lock::fenced(&lock, &from, || {
            for part in ["history", "tags.json"] {
                let source = from.join(part);
                if source.exists() {
                    fs::rename(&source, to.join(part)).map_err(StateError::io(&source))?;
                }
            }
            fs::remove_dir_all(&from).map_err(StateError::io(&from))
        })?;
        drop(lock);
        drop(new_lock);
        if was_current {
            self.select_stack(new)?;
        }
        Ok(())
    }
}
