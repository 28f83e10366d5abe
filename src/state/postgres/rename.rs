//! Renaming a stack as Pulumi renames one: the new stack file written at the next epoch, tags
//! and history moved (each history file renamed for the new stack), the old stack file kept as
//! `.json.bak`, in one transaction of the lock's holder.

use super::super::backend::Backend;
use super::super::codec::checkpoint::SecretsProviderState;
use super::super::diy;
use super::super::error::StateError;
use super::super::passphrase::Crypter;
use super::super::stack_lock::StackLock;
use super::super::stack_ref::StackRef;
use super::super::stack_rename::rename_snapshot;
use super::PgBackend;
use super::db::describe;
use super::epoch::next_epoch;

impl PgBackend {
    /// Renames the stack `lock` holds to `new`; refused when `new` exists.
    pub(super) fn rename(
        &self,
        lock: StackLock,
        new: &StackRef,
        crypter: Option<&Crypter>,
    ) -> Result<(), StateError> {
        let old = lock.stack().clone();
        let state = self.load_rows(&old, crypter, true)?.state;
        let mut snapshot = state.snapshot;
        rename_snapshot(&mut snapshot, new.stack());
        let providers = crypter
            .map(SecretsProviderState::passphrase)
            .or(state.secrets_providers);
        let epoch = next_epoch(state.epoch, &self.location(&old))?;
        let (new_key, bytes) =
            self.checkpoint_blob(new, &snapshot, epoch, providers.as_ref(), crypter)?;
        let (t, b) = (&self.t, &self.bucket);
        let renamed = self.held_transaction(&lock, async |tx| {
            if b.newest(tx, &diy::stack_keys(new)).await?.is_some()
                || !b.put_new(tx, &new_key, &bytes).await?
            {
                return Ok(false);
            }
            // As Pulumi renames: tags and history move (each history file renamed for the new
            // stack), the old stack file is kept as `.json.bak`.
            let (old_tags, new_tags) = (diy::tags_key(&old), diy::tags_key(new));
            b.copy(tx, &old_tags, &new_tags).await?;
            b.delete(tx, &old_tags).await?;
            let (from, to) = (diy::history_dir(&old), diy::history_dir(new));
            let prefix = format!("{}-", old.stack());
            for (key, bytes) in b.get_under(tx, &from).await? {
                if let Some(rest) = key
                    .strip_prefix(&from)
                    .and_then(|n| n.strip_prefix(&prefix))
                {
                    b.put(tx, &format!("{to}{}-{rest}", new.stack()), &bytes)
                        .await?;
                }
            }
            b.delete_under(tx, &from).await?;
            if let Some(key) = b.newest(tx, &diy::stack_keys(&old)).await? {
                b.copy(tx, &key, &format!("{key}.bak")).await?;
                b.delete(tx, &key).await?;
            }
            for table in ["history", "current"] {
                tx.execute(
                    &format!("UPDATE {t}_{table} SET stack = $3 WHERE project = $1 AND stack = $2"),
                    &[&old.project(), &old.stack(), &new.stack()],
                )
                .await
                .map_err(|e| describe(&e))?;
            }
            tx.execute(
                &format!("DELETE FROM {t}_journal WHERE project = $1 AND stack = $2"),
                &[&old.project(), &old.stack()],
            )
            .await
            .map_err(|e| describe(&e))?;
            Ok(true)
        })?;
        drop(lock);
        if renamed {
            Ok(())
        } else {
            Err(StateError::StackExists {
                stack: new.to_string(),
            })
        }
    }
}
