//! Renaming a stack on the file backend (Pulumi's DIY `renameStack`): every URN in the state
//! is rewritten for the new name, the state is saved as the new stack, its history (each file
//! renamed for the new stack, as Pulumi renames them) and tags move with it, and only then is
//! the old stack removed (its file kept as `.bak`, as Pulumi keeps it). A crash in between
//! leaves the state under both names, never under none.

use std::fs;
use std::io;

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
        let was_current = self.current_stack(old.project())?.as_deref() == Some(old.stack());
        let from = self.stack_dir(&old);
        file_lock::fenced(&lock, &from, || {
            self.move_history(&old, new)?;
            let tags = self.tags_path(&old);
            if tags.exists() {
                fs::rename(&tags, self.tags_path(new)).map_err(StateError::io(&tags))?;
            }
            for (_, journal) in self.journals(&old)? {
                fs::remove_file(&journal).map_err(StateError::io(&journal))?;
            }
            let path = self.checkpoint_path(&old);
            fs::rename(&path, self.backup_path(&old)).map_err(StateError::io(&path))?;
            fs::remove_dir_all(&from).map_err(StateError::io(&from))?;
            self.pulumi_locks(&old).remove(&lock.info().id);
            Ok(())
        })?;
        drop(lock);
        drop(new_lock);
        if was_current {
            self.select_stack(new)?;
        }
        Ok(())
    }

    /// Moves the old stack's history files to the new stack's history, each renamed from
    /// `<old>-<rest>` to `<new>-<rest>`.
    fn move_history(&self, old: &StackRef, new: &StackRef) -> Result<(), StateError> {
        let (from, to) = (self.history_dir(old), self.history_dir(new));
        let entries = match fs::read_dir(&from) {
            Ok(e) => e,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(StateError::io(&from)(e)),
        };
        fs::create_dir_all(&to).map_err(StateError::io(&to))?;
        let prefix = format!("{}-", old.stack());
        for entry in entries {
            let entry = entry.map_err(StateError::io(&from))?;
            let name = entry.file_name();
            let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(&prefix)) else {
                continue;
            };
            let target = to.join(format!("{}-{rest}", new.stack()));
            fs::rename(entry.path(), &target).map_err(StateError::io(&target))?;
        }
        let _ = fs::remove_dir(&from);
        Ok(())
    }
}
