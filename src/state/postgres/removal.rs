//! Removing a stack as Pulumi removes one: refused while it has resources (unless forced), its
//! stack file kept as `.json.bak`, its tags, history, journal rows, events and selection gone,
//! in one transaction of the lock's holder.

use serde_json::Value;

use super::super::backend::Backend;
use super::super::diy;
use super::super::error::StateError;
use super::super::stack_ref::StackRef;
use super::PgBackend;
use super::db::describe;

impl PgBackend {
    /// Removes `stack`; with `force`, even with resources.
    pub(super) fn remove(&self, stack: &StackRef, force: bool) -> Result<(), StateError> {
        let lock = self.lock(stack, "remove")?;
        if !force {
            let loaded = self.load_rows(stack, None, false);
            let count = match &loaded {
                Ok(l) => {
                    l.state.snapshot.resources.len() + l.state.snapshot.pending_operations.len()
                }
                // Secrets this command cannot open: count from the stored document.
                Err(_) => {
                    let doc = self.checkpoint_doc(stack)?;
                    let latest = doc.checkpoint.latest.unwrap_or(Value::Null);
                    ["resources", "pending_operations"]
                        .iter()
                        .filter_map(|k| latest.get(k).and_then(Value::as_array))
                        .map(Vec::len)
                        .sum()
                }
            };
            if count > 0 {
                return Err(StateError::HasResources {
                    stack: stack.to_string(),
                    count,
                });
            }
        }
        let (t, b) = (&self.t, &self.bucket);
        self.held_transaction(&lock, async |tx| {
            // As Pulumi removes a stack: its file kept as `.bak`, its history and tags gone.
            if let Some(key) = b.newest(tx, &diy::stack_keys(stack)).await? {
                b.copy(tx, &key, &format!("{key}.bak")).await?;
                b.delete(tx, &key).await?;
            }
            b.delete(tx, &diy::tags_key(stack)).await?;
            b.delete_under(tx, &diy::history_dir(stack)).await?;
            for table in ["journal", "history", "current"] {
                tx.execute(
                    &format!("DELETE FROM {t}_{table} WHERE project = $1 AND stack = $2"),
                    &[&stack.project(), &stack.stack()],
                )
                .await
                .map_err(|e| describe(&e))?;
            }
            Ok(())
        })?;
        drop(lock);
        Ok(())
    }
}
