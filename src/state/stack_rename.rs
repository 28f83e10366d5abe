//! Renaming a stack on the file backend (Pulumi's DIY `renameStack`): every URN in the state
//! is rewritten for the new name, the state is saved as the new stack, its history and tags
//! move with it, and only then is the old stack removed. A crash in between leaves the state
//! under both names, never under none.

use std::fs;

use crate::engine::model::provider_ref::ProviderRef;
use crate::engine::model::urn::ROOT_STACK_TYPE;
use crate::engine::{ResourceState, Snapshot, Urn};

use super::error::StateError;
use super::file_backend::FileBackend;
use super::file_lock;
use super::passphrase::Crypter;
use super::stack_lock::StackLock;
use super::stack_ref::StackRef;

/// The URN under the new stack name; the root stack's own name `<project>-<stack>` changes
/// with it, as Pulumi's `edit.RenameStack` does.
fn renamed(urn: &Urn, stack: &str) -> Urn {
    let name = if urn.qualified_type() == ROOT_STACK_TYPE {
        format!("{}-{stack}", urn.project())
    } else {
        urn.name().to_string()
    };
    Urn::parse(&format!(
        "urn:pulumi:{stack}::{}::{}::{name}",
        urn.project(),
        urn.qualified_type()
    ))
    .unwrap_or_else(|_| urn.clone())
}

fn rename_state(r: &mut ResourceState, stack: &str) {
    r.urn = renamed(&r.urn, stack);
    r.for_each_reference(|u| *u = renamed(u, stack));
    r.aliases.iter_mut().for_each(|u| *u = renamed(u, stack));
    if let Some(reference) = &mut r.provider
        && let Some(mut parsed) = ProviderRef::parse(reference)
    {
        parsed.urn = renamed(&parsed.urn, stack);
        *reference = parsed.to_string();
    }
}

/// Rewrites every URN of the snapshot (resources and pending operations) for `stack`.
pub fn rename_snapshot(snapshot: &mut Snapshot, stack: &str) {
    for r in &mut snapshot.resources {
        rename_state(r, stack);
    }
    for op in &mut snapshot.pending_operations {
        rename_state(&mut op.resource, stack);
    }
}

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
