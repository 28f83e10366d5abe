//! Reading a stack's state: the stack file and the journal rows that continue it, seen at one
//! moment of the database, and replayed as the file backend replays its journal.

use std::collections::BTreeMap;

use futures::StreamExt;
use tokio_postgres::types::ToSql;

use super::super::backend::{Backend, StackState};
use super::super::codec::document::{decode_state, parse_checkpoint};
use super::super::codec::journal_reader::{JournalReader, JournalSummary};
use super::super::diy;
use super::super::error::StateError;
use super::super::passphrase::Crypter;
use super::super::stack_ref::StackRef;
use super::db::{describe, read_only};
use super::epoch::{after_journals, epoch_sql};
use super::{PgBackend, no_such_stack};

/// A stack's state as read, with what the journal rows replayed into it held.
pub(super) struct Loaded {
    pub(super) state: StackState,
    pub(super) journal: JournalSummary,
    /// The checkpoint has no epoch of ours (`pulumi` wrote it): no journal may continue it
    /// until it is given one.
    pub(super) foreign: bool,
}

impl PgBackend {
    /// The stack's state: its checkpoint and the journal rows of the checkpoint's epoch, read
    /// in one read-only transaction (never half a compaction); `verify` checks its integrity.
    pub(super) fn load_rows(
        &self,
        stack: &StackRef,
        crypter: Option<&Crypter>,
        verify: bool,
    ) -> Result<Loaded, StateError> {
        let t = &self.t;
        let keys = diy::stack_keys(stack);
        let (checkpoint, mut journals) = self.run(async {
            let mut conn = self.db.get().await?;
            let tx = read_only(&mut conn).await?;
            let Some(key) = self.bucket.newest(&tx, &keys).await? else {
                return Ok((None, BTreeMap::new()));
            };
            let Some(bytes) = self.bucket.get(&tx, &key).await? else {
                return Ok((None, BTreeMap::new()));
            };
            // Rows are appended to their epoch's text as they arrive and dropped: a large
            // journal is in memory once, not as rows and again as text. Only the checkpoint's
            // epoch is replayed; rows of others are stale, removed by the next compaction.
            let params: [&(dyn ToSql + Sync); 2] = [&stack.project(), &stack.stack()];
            let rows = tx
                .query_raw(
                    &format!(
                        "SELECT epoch, entry FROM {t}_journal WHERE project = $1 AND stack = $2 ORDER BY epoch, seq"
                    ),
                    params,
                )
                .await
                .map_err(|e| describe(&e))?;
            let mut rows = std::pin::pin!(rows);
            let mut journals: BTreeMap<i64, Vec<u8>> = BTreeMap::new();
            while let Some(r) = rows.next().await {
                let r = r.map_err(|e| describe(&e))?;
                let lines = journals.entry(r.get(0)).or_default();
                lines.extend_from_slice(r.get::<_, &str>(1).as_bytes());
                lines.push(b'\n');
            }
            tx.commit().await.map_err(|e| describe(&e))?;
            Ok((Some((key, bytes)), journals))
        })?;
        let Some((key, bytes)) = checkpoint else {
            return Err(no_such_stack(stack));
        };
        let checkpoint = self.decode_stack_file(&key, bytes)?;
        let location = self.location(stack);
        let journal = self.rows_location("journal", stack);
        let mut file = parse_checkpoint(&location, &checkpoint)?;
        let foreign = file.stepdeck.foreign;
        if foreign {
            file.stepdeck.journal_epoch =
                after_journals(journals.keys().next_back().copied(), &location)?;
        }
        let lines = journals
            .remove(&epoch_sql(file.stepdeck.journal_epoch)?)
            .unwrap_or_default();
        let (state, journal) = decode_state(
            &location,
            &file,
            |c| Ok(JournalReader::new(&journal, &lines[..], c.cloned())),
            crypter,
            verify,
        )?;
        Ok(Loaded {
            state,
            journal,
            foreign,
        })
    }
}
