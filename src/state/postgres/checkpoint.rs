//! Checkpoints: the stack file read as a document, written (checked first, as the file
//! backend checks it) by the lock's holder together with the removal of the journal rows it
//! absorbs, and compaction, which folds a stack's journal into the next epoch's checkpoint.

use crate::engine::Snapshot;
use crate::fault::{FaultPoint, reached};

use super::super::backend::{Backend, StackState};
use super::super::codec::checkpoint::{
    CheckpointFile, SecretsProviderState, check_encryptable, write_checkpoint_file,
};
use super::super::codec::document::{corrupt, parse_checkpoint};
use super::super::diy::{self, compression};
use super::super::error::StateError;
use super::super::passphrase::Crypter;
use super::super::stack_lock::StackLock;
use super::super::stack_ref::StackRef;
use super::PgBackend;
use super::db::describe;
use super::epoch::{after_journals, epoch_sql, next_epoch};

impl PgBackend {
    /// The stack's checkpoint document, as stored; one `pulumi` wrote gets the epoch after
    /// every journal row there is, so that none replays onto it.
    pub(super) fn checkpoint_doc(&self, stack: &StackRef) -> Result<CheckpointFile, StateError> {
        let (key, bytes) = self.stack_file(stack)?;
        let location = self.key_location(&key);
        parse_checkpoint(&location, &bytes)?;
        let mut doc: CheckpointFile =
            serde_json::from_slice(&bytes).map_err(|e| corrupt(&location, e.to_string()))?;
        if doc.stepdeck.foreign {
            let t = &self.t;
            let last: Option<i64> = self.query(
                &format!("SELECT max(epoch) FROM {t}_journal WHERE project = $1 AND stack = $2"),
                &[&stack.project(), &stack.stack()],
            )?[0]
                .get(0);
            doc.stepdeck.journal_epoch = after_journals(last, &location)?;
        }
        Ok(doc)
    }

    /// The checkpoint document of `snapshot` at `epoch`, checked as the file backend checks
    /// it, and the key it goes to: compressed as Pulumi's switch says, as `pulumi` writes it.
    pub(super) fn checkpoint_blob(
        &self,
        stack: &StackRef,
        snapshot: &Snapshot,
        epoch: u64,
        providers: Option<&SecretsProviderState>,
        crypter: Option<&Crypter>,
    ) -> Result<(String, Vec<u8>), StateError> {
        let location = self.location(stack);
        snapshot
            .verify_integrity()
            .map_err(|source| StateError::Integrity {
                path: location.clone(),
                source,
            })?;
        check_encryptable(snapshot, crypter).map_err(|source| StateError::Secrets {
            path: location.clone(),
            source,
        })?;
        let mut out = Vec::new();
        write_checkpoint_file(
            &mut out,
            &stack.qualified(),
            snapshot,
            epoch,
            providers,
            crypter,
        )
        .map_err(|e| corrupt(&location, e.to_string()))?;
        let compression = compression::Compression::from_env()?;
        Ok((
            format!("{}{}", diy::stack_key(stack), compression.ext()),
            compression.encode(out),
        ))
    }

    /// Writes the checkpoint of `epoch` to the stack key (the previous one kept as `.json.bak`,
    /// the key of the other compression replaced, and with Pulumi's switch a copy retained at
    /// `<key>.<nanos>`, all as Pulumi does) and deletes the journal rows it absorbed, in one
    /// transaction of the lock's holder. Rows of epochs older than the one folded in (written by hand, or by
    /// another tool) are reported before they go.
    pub(super) fn write_checkpoint(
        &self,
        lock: &StackLock,
        snapshot: &Snapshot,
        epoch: u64,
        providers: Option<&SecretsProviderState>,
        crypter: Option<&Crypter>,
    ) -> Result<(), StateError> {
        let stack = lock.stack();
        let (key, bytes) = self.checkpoint_blob(stack, snapshot, epoch, providers, crypter)?;
        let epoch = epoch_sql(epoch)?;
        let t = &self.t;
        let b = &self.bucket;
        let keys = diy::stack_keys(stack);
        let retained = diy::retained_key(&key);
        let older = self.held_transaction(lock, async |tx| {
            let other = b.newest(tx, &keys).await?.filter(|k| *k != key);
            for k in std::iter::once(&key).chain(&other) {
                b.copy(tx, k, &format!("{k}.bak")).await?;
            }
            b.put(tx, &key, &bytes).await?;
            if let Some(other) = &other {
                b.delete(tx, other).await?;
            }
            if let Some(retained) = &retained {
                b.put(tx, retained, &bytes).await?;
            }
            let older: i64 = tx
                .query_one(
                    &format!(
                        "WITH gone AS (DELETE FROM {t}_journal
                           WHERE project = $1 AND stack = $2 AND epoch < $3 RETURNING epoch)
                         SELECT count(*) FILTER (WHERE epoch < $3 - 1) FROM gone"
                    ),
                    &[&stack.project(), &stack.stack(), &epoch],
                )
                .await
                .map_err(|e| describe(&e))?
                .get(0);
            reached(FaultPoint::InCheckpointWrite);
            Ok(older)
        })?;
        if older > 0 {
            lock.notify(format!(
                "removed {older} row(s) of {} of epochs older than {}, which the checkpoint does \
                 not replay",
                self.rows_location("journal", stack).display(),
                epoch - 1
            ));
        }
        Ok(())
    }

    pub(super) fn compact(
        &self,
        lock: &StackLock,
        crypter: Option<&Crypter>,
    ) -> Result<StackState, StateError> {
        let stack = lock.stack();
        let mut state = self.load_rows(stack, crypter, true)?.state;
        let providers = crypter
            .map(SecretsProviderState::passphrase)
            .or(state.secrets_providers.take());
        state.epoch = next_epoch(state.epoch, &self.location(stack))?;
        self.write_checkpoint(
            lock,
            &state.snapshot,
            state.epoch,
            providers.as_ref(),
            crypter,
        )?;
        state.secrets_providers = providers;
        Ok(state)
    }
}
