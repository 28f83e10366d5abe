//! The fenced transaction every write of a lock's holder runs in: it first locks the holder's
//! lock row `FOR SHARE` ([`still_held`]), so a holder whose lease was taken over writes
//! nothing, and a takeover waits for a write in flight to commit.

use tokio_postgres::Transaction;
use tokio_postgres::types::ToSql;

use super::super::error::StateError;
use super::super::lock_lost::LostReason;
use super::super::stack_lock::StackLock;
use super::PgBackend;
use super::db::describe;
use super::lease::{Held, still_held};

impl PgBackend {
    /// Runs `work` in a transaction of `lock`'s holder and commits what it wrote; refused as
    /// the lock lost, with nothing written, when the lock row no longer names this holder.
    pub(super) fn held_transaction<T>(
        &self,
        lock: &StackLock,
        work: impl AsyncFnOnce(&Transaction<'_>) -> Result<T, String>,
    ) -> Result<T, StateError> {
        let held = Held::of(lock);
        let done = self.run(async {
            let mut conn = self.db.get().await?;
            let tx = conn.transaction().await.map_err(|e| describe(&e))?;
            if !still_held(&tx, &self.t, &held).await? {
                return Ok(None);
            }
            let done = work(&tx).await?;
            tx.commit().await.map_err(|e| describe(&e))?;
            Ok(Some(done))
        })?;
        done.ok_or_else(|| lost(lock))
    }

    /// Runs one statement in a transaction of the lock's holder; returns the rows it changed.
    pub(super) fn execute_held(
        &self,
        lock: &StackLock,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<u64, StateError> {
        self.held_transaction(lock, async |tx| {
            tx.execute(sql, params).await.map_err(|e| describe(&e))
        })
    }
}

/// The error of a holder whose write found the lock row not its own.
fn lost(lock: &StackLock) -> StateError {
    match lock.fence().verify() {
        Err(lost) => lost.into(),
        Ok(()) => lock
            .fence()
            .lose(LostReason::TakenOver, lock.fence().successor())
            .into(),
    }
}
