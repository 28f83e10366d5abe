//! The `postgres://` backend: stacks' state in a PostgreSQL database shared by operators on
//! many machines.
//!
//! # Tables (prefix `stepdeck`, or `?table=PREFIX`)
//!
//! ```text
//! <p>_schema   (version)                                  the schema version, see `schema`
//! <p>_stacks   (project, stack, epoch, checkpoint, resource_count, last_update, tags)
//!              checkpoint: the same document as a file backend's checkpoint.json
//! <p>_journal  (project, stack, epoch, seq, entry)        one row per journal entry
//! <p>_locks    (project, stack, id, pid, host, username, operation, acquired, expires,
//!               generation)                               generation from <p>_lock_generation
//! <p>_history  (project, stack, version, record, events)  one row per update, its events gzipped
//! <p>_current  (project, stack)                           the selected stack
//! ```
//!
//! A stack's state is its checkpoint row plus the journal rows of the checkpoint's epoch,
//! read in one repeatable-read transaction. Compaction writes the next epoch's checkpoint and
//! deletes the journal rows it absorbed in one transaction. Every write names the lock's
//! holder and generation and locks its row `FOR SHARE` in the same statement (journal rows)
//! or transaction (checkpoints, compactions, history, tags, renames, removals), so a
//! deployment whose lease was taken over cannot add to, or overwrite, the new holder's state
//! (see `lease`).

mod db;
mod journal;
mod lease;
mod schema;
pub(crate) mod url;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use futures::StreamExt;
use serde_json::Value;
use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use crate::engine::{Journal, Snapshot};
use crate::fault::{FaultPoint, reached};

use super::backend::{Backend, StackState, StackSummary};
use super::backend_url::{BackendUrl, Scheme};
use super::codec::checkpoint::{
    CheckpointFile, SecretsProviderState, check_encryptable, write_checkpoint_file,
};
use super::codec::document::{corrupt, decode_state, last_epoch, parse_checkpoint};
use super::codec::journal_reader::{JournalReader, JournalSummary};
use super::codec::update_events;
use super::error::StateError;
use super::lock_info::{self, LockInfo, StackLocked};
use super::lock_lost::LostReason;
use super::passphrase::Crypter;
use super::stack_lock::StackLock;
use super::stack_ref::{StackRef, validate_name};
use super::stack_rename::rename_snapshot;
use super::update_record::UpdateRecord;

pub use journal::PgJournal;
pub use url::{DEFAULT_TABLE, PgUrl, SslMode};

use db::{Db, describe};
use lease::{Held, PgRecord, Taken, still_held};

/// A `postgres://` backend.
pub struct PgBackend {
    url: BackendUrl,
    db: Arc<Db>,
    t: String,
}

/// A stack's state as read, with what the journal rows replayed into it held.
struct Loaded {
    state: StackState,
    journal: JournalSummary,
}

impl PgBackend {
    /// Connects, and creates or migrates the tables; a database of a newer schema version, an
    /// unreachable server or refused credentials are errors naming the URL.
    pub fn open(url: &BackendUrl) -> Result<PgBackend, StateError> {
        let Scheme::Postgres(pg) = url.scheme() else {
            return Err(StateError::BadUrl {
                url: url.to_string(),
                reason: "not a postgres:// URL".into(),
            });
        };
        let db = Db::new(pg).map_err(|message| StateError::Database {
            url: url.to_string(),
            message,
        })?;
        let backend = PgBackend {
            url: url.clone(),
            db,
            t: pg.table.clone(),
        };
        backend.run(async {
            let mut conn = backend.db.get().await?;
            schema::migrate(&mut conn, &backend.t).await
        })?;
        Ok(backend)
    }

    /// Runs database work, its failure a [`StateError::Database`] naming the URL.
    fn run<T>(
        &self,
        fut: impl std::future::Future<Output = Result<T, String>>,
    ) -> Result<T, StateError> {
        self.db
            .block_on(fut)
            .map_err(|message| StateError::Database {
                url: self.url.to_string(),
                message,
            })
    }

    /// Runs one statement and returns its rows.
    fn query(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Vec<Row>, StateError> {
        self.run(async {
            let conn = self.db.get().await?;
            conn.query(sql, params).await.map_err(|e| describe(&e))
        })
    }

    /// Runs one statement and returns how many rows it changed.
    fn execute(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<u64, StateError> {
        self.run(async {
            let conn = self.db.get().await?;
            conn.execute(sql, params).await.map_err(|e| describe(&e))
        })
    }

    fn require(&self, stack: &StackRef) -> Result<(), StateError> {
        if self.check_exists(stack)? {
            Ok(())
        } else {
            Err(StateError::NoSuchStack {
                stack: stack.to_string(),
            })
        }
    }

    fn load_rows(
        &self,
        stack: &StackRef,
        crypter: Option<&Crypter>,
        verify: bool,
    ) -> Result<Loaded, StateError> {
        let t = &self.t;
        let (checkpoint, lines) = self.run(async {
            let mut conn = self.db.get().await?;
            let tx = conn
                .build_transaction()
                .isolation_level(tokio_postgres::IsolationLevel::RepeatableRead)
                .read_only(true)
                .start()
                .await
                .map_err(|e| describe(&e))?;
            let Some(row) = tx
                .query_opt(
                    &format!(
                        "SELECT checkpoint, epoch FROM {t}_stacks WHERE project = $1 AND stack = $2"
                    ),
                    &[&stack.project(), &stack.stack()],
                )
                .await
                .map_err(|e| describe(&e))?
            else {
                return Ok((None, Vec::new()));
            };
            let epoch: i64 = row.get(1);
            // Rows are appended to the text as they arrive and dropped: a large journal is in
            // memory once, not as rows and again as text.
            let params: [&(dyn ToSql + Sync); 3] = [&stack.project(), &stack.stack(), &epoch];
            let rows = tx
                .query_raw(
                    &format!(
                        "SELECT entry FROM {t}_journal WHERE project = $1 AND stack = $2 AND epoch = $3 ORDER BY seq"
                    ),
                    params,
                )
                .await
                .map_err(|e| describe(&e))?;
            let mut rows = std::pin::pin!(rows);
            let mut lines = Vec::new();
            while let Some(r) = rows.next().await {
                let r = r.map_err(|e| describe(&e))?;
                let line: &str = r.get(0);
                lines.extend_from_slice(line.as_bytes());
                lines.push(b'\n');
            }
            tx.commit().await.map_err(|e| describe(&e))?;
            Ok((Some(row.get::<_, String>(0)), lines))
        })?;
        let Some(checkpoint) = checkpoint else {
            return Err(StateError::NoSuchStack {
                stack: stack.to_string(),
            });
        };
        let location = self.location(stack);
        let journal = self.rows_location("journal", stack);
        let file = parse_checkpoint(&location, checkpoint.as_bytes())?;
        let (state, journal) = decode_state(
            &location,
            &file,
            |c| Ok(JournalReader::new(&journal, &lines[..], c.cloned())),
            crypter,
            verify,
        )?;
        Ok(Loaded { state, journal })
    }

    /// Where a stack's rows of `table` are, named in errors: URL, table, project and stack.
    fn rows_location(&self, table: &str, stack: &StackRef) -> PathBuf {
        PathBuf::from(format!(
            "{}#{}_{table}/{}/{}",
            self.url,
            self.t,
            stack.project(),
            stack.stack()
        ))
    }

    /// A text column of the stack's row; `None` when there is no such stack.
    fn stack_column(&self, stack: &StackRef, column: &str) -> Result<Option<String>, StateError> {
        let t = &self.t;
        Ok(self
            .query(
                &format!("SELECT {column} FROM {t}_stacks WHERE project = $1 AND stack = $2"),
                &[&stack.project(), &stack.stack()],
            )?
            .first()
            .map(|r| r.get(0)))
    }

    /// The stack's checkpoint document, as stored.
    fn checkpoint_doc(&self, stack: &StackRef) -> Result<CheckpointFile, StateError> {
        let text =
            self.stack_column(stack, "checkpoint")?
                .ok_or_else(|| StateError::NoSuchStack {
                    stack: stack.to_string(),
                })?;
        let location = self.location(stack);
        parse_checkpoint(&location, text.as_bytes())?;
        serde_json::from_str(&text).map_err(|e| corrupt(&location, e.to_string()))
    }

    /// The checkpoint document of `snapshot` at `epoch`, checked as the file backend checks it.
    fn checkpoint_text(
        &self,
        stack: &StackRef,
        snapshot: &Snapshot,
        epoch: u64,
        providers: Option<&SecretsProviderState>,
        crypter: Option<&Crypter>,
    ) -> Result<String, StateError> {
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
        String::from_utf8(out).map_err(|e| corrupt(&location, e.to_string()))
    }

    /// Writes the checkpoint of `epoch` and deletes the journal rows it absorbed, in one
    /// transaction of the lock's holder. Rows of epochs older than the one folded in (written
    /// by hand, or by another tool) are reported before they go.
    fn write_checkpoint(
        &self,
        lock: &StackLock,
        snapshot: &Snapshot,
        epoch: u64,
        providers: Option<&SecretsProviderState>,
        crypter: Option<&Crypter>,
    ) -> Result<(), StateError> {
        let stack = lock.stack();
        let text = self.checkpoint_text(stack, snapshot, epoch, providers, crypter)?;
        let epoch = epoch_sql(epoch)?;
        let count = snapshot.resources.len() as i64;
        let time = snapshot.manifest.time.clone();
        let t = &self.t;
        let held = Held::of(lock);
        let older = self.fenced(lock, async {
            let mut conn = self.db.get().await?;
            let tx = conn.transaction().await.map_err(|e| describe(&e))?;
            if !still_held(&tx, t, &held).await? {
                return Ok(None);
            }
            tx.execute(
                &format!(
                    "UPDATE {t}_stacks SET checkpoint = $3, epoch = $4, resource_count = $5, last_update = $6
                     WHERE project = $1 AND stack = $2"
                ),
                &[&stack.project(), &stack.stack(), &text, &epoch, &count, &time],
            )
            .await
            .map_err(|e| describe(&e))?;
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
            tx.commit().await.map_err(|e| describe(&e))?;
            Ok(Some(older))
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

    /// Runs a transaction of the lock's holder: `work` returns `None` when [`still_held`]
    /// found the lock row no longer this holder's, which is refused as the lock lost.
    fn fenced<T>(
        &self,
        lock: &StackLock,
        work: impl std::future::Future<Output = Result<Option<T>, String>>,
    ) -> Result<T, StateError> {
        match self.run(work)? {
            Some(done) => Ok(done),
            None => Err(self.lost(lock)),
        }
    }

    /// Runs one statement in a transaction of the lock's holder; returns the rows it changed.
    fn execute_held(
        &self,
        lock: &StackLock,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<u64, StateError> {
        let t = &self.t;
        let held = Held::of(lock);
        self.fenced(lock, async {
            let mut conn = self.db.get().await?;
            let tx = conn.transaction().await.map_err(|e| describe(&e))?;
            if !still_held(&tx, t, &held).await? {
                return Ok(None);
            }
            let changed = tx.execute(sql, params).await.map_err(|e| describe(&e))?;
            tx.commit().await.map_err(|e| describe(&e))?;
            Ok(Some(changed))
        })
    }

    /// The error of a holder whose write found the lock row not its own.
    fn lost(&self, lock: &StackLock) -> StateError {
        match lock.fence().verify() {
            Err(lost) => lost.into(),
            Ok(()) => lock
                .fence()
                .lose(LostReason::TakenOver, lock.fence().successor())
                .into(),
        }
    }

    fn compact(
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

    fn take_lock(&self, stack: &StackRef, operation: &str) -> Result<StackLock, StateError> {
        let lease = lock_info::lease()?;
        let taken = self.run(lease::acquire(
            &self.db,
            &self.t,
            stack.project(),
            stack.stack(),
            operation,
            lease,
        ))?;
        match taken {
            Taken::Held(held) => {
                let (info, broke, taken) = *held;
                let record = PgRecord {
                    db: self.db.clone(),
                    table: self.t.clone(),
                    held: Held {
                        project: stack.project().to_string(),
                        stack: stack.stack().to_string(),
                        id: info.id.clone(),
                        generation: i64::try_from(info.generation).unwrap_or(i64::MAX),
                    },
                };
                StackLock::hold(stack.clone(), info, broke, lease, taken, Box::new(record))
            }
            Taken::Refused(info) => Err(Box::new(StackLocked {
                stack: stack.to_string(),
                info,
            })
            .into()),
        }
    }
}

fn epoch_sql(epoch: u64) -> Result<i64, StateError> {
    i64::try_from(epoch).map_err(|_| StateError::Database {
        url: String::new(),
        message: format!("epoch {epoch} does not fit the epoch column"),
    })
}

/// The epoch after `epoch`; it must fit the epoch column.
fn next_epoch(epoch: u64, location: &std::path::Path) -> Result<u64, StateError> {
    epoch
        .checked_add(1)
        .filter(|e| i64::try_from(*e).is_ok())
        .ok_or_else(|| last_epoch(location, epoch))
}

impl Backend for PgBackend {
    fn url(&self) -> &BackendUrl {
        &self.url
    }

    fn kind(&self) -> &'static str {
        "postgres"
    }

    fn location(&self, stack: &StackRef) -> PathBuf {
        self.rows_location("stacks", stack)
    }

    fn check_exists(&self, stack: &StackRef) -> Result<bool, StateError> {
        let t = &self.t;
        Ok(!self
            .query(
                &format!("SELECT 1 FROM {t}_stacks WHERE project = $1 AND stack = $2"),
                &[&stack.project(), &stack.stack()],
            )?
            .is_empty())
    }

    fn lock_or_create(
        &self,
        stack: &StackRef,
        operation: &str,
    ) -> Result<(StackLock, bool), StateError> {
        let lock = self.take_lock(stack, operation)?;
        let text = self.checkpoint_text(stack, &Snapshot::default(), 0, None, None)?;
        let t = &self.t;
        let created = self.execute_held(
            &lock,
            &format!(
                "INSERT INTO {t}_stacks (project, stack, epoch, checkpoint, resource_count)
                 VALUES ($1, $2, 0, $3, 0) ON CONFLICT DO NOTHING"
            ),
            &[&stack.project(), &stack.stack(), &text],
        )?;
        Ok((lock, created == 1))
    }

    fn list_stacks(&self, project: &str) -> Result<Vec<StackSummary>, StateError> {
        validate_name("project", project)?;
        let current = self.current_stack(project)?;
        let t = &self.t;
        let rows = self.query(
            &format!(
                "SELECT s.stack, s.resource_count, s.last_update, l.id IS NOT NULL
                 FROM {t}_stacks s LEFT JOIN {t}_locks l USING (project, stack)
                 WHERE s.project = $1 ORDER BY s.stack"
            ),
            &[&project],
        )?;
        let mut out = Vec::new();
        for row in rows {
            let name: String = row.get(0);
            let locked: bool = row.get(3);
            let lock = if locked {
                self.run(lease::read(&self.db, t, project, &name))?
                    .map(|(info, _)| info)
            } else {
                None
            };
            let count: i64 = row.get(1);
            out.push(StackSummary {
                current: current.as_deref() == Some(name.as_str()),
                resource_count: usize::try_from(count).unwrap_or(0),
                last_update: row.get(2),
                lock,
                name,
            });
        }
        Ok(out)
    }

    fn projects(&self) -> Result<Vec<String>, StateError> {
        let t = &self.t;
        let rows = self.query(
            &format!("SELECT DISTINCT project FROM {t}_stacks ORDER BY project"),
            &[],
        )?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    fn remove_stack(&self, stack: &StackRef, force: bool) -> Result<(), StateError> {
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
        let t = &self.t;
        let held = Held::of(&lock);
        self.fenced(&lock, async {
            let mut conn = self.db.get().await?;
            let tx = conn.transaction().await.map_err(|e| describe(&e))?;
            if !still_held(&tx, t, &held).await? {
                return Ok(None);
            }
            for table in ["stacks", "journal", "history", "current"] {
                tx.execute(
                    &format!("DELETE FROM {t}_{table} WHERE project = $1 AND stack = $2"),
                    &[&stack.project(), &stack.stack()],
                )
                .await
                .map_err(|e| describe(&e))?;
            }
            tx.commit().await.map_err(|e| describe(&e))?;
            Ok(Some(()))
        })?;
        drop(lock);
        Ok(())
    }

    fn current_stack(&self, project: &str) -> Result<Option<String>, StateError> {
        validate_name("project", project)?;
        let t = &self.t;
        Ok(self
            .query(
                &format!(
                    "SELECT c.stack FROM {t}_current c JOIN {t}_stacks s USING (project, stack)
                     WHERE c.project = $1"
                ),
                &[&project],
            )?
            .first()
            .map(|r| r.get(0)))
    }

    fn select_stack(&self, stack: &StackRef) -> Result<(), StateError> {
        self.require(stack)?;
        let t = &self.t;
        self.execute(
            &format!(
                "INSERT INTO {t}_current (project, stack) VALUES ($1, $2)
                 ON CONFLICT (project) DO UPDATE SET stack = $2"
            ),
            &[&stack.project(), &stack.stack()],
        )
        .map(|_| ())
    }

    fn lock(&self, stack: &StackRef, operation: &str) -> Result<StackLock, StateError> {
        self.require(stack)?;
        self.take_lock(stack, operation)
    }

    fn unlock(&self, stack: &StackRef, force: bool) -> Result<Option<LockInfo>, StateError> {
        self.require(stack)?;
        self.run(lease::unlock(
            &self.db,
            &self.t,
            stack.project(),
            stack.stack(),
            force,
        ))?
        .map_err(|held| StateError::LockHeldByLiveProcess {
            stack: stack.to_string(),
            pid: held.pid,
            host: held.hostname,
        })
    }

    fn lock_holder(&self, stack: &StackRef) -> Result<Option<LockInfo>, StateError> {
        self.require(stack)?;
        Ok(self
            .run(lease::read(
                &self.db,
                &self.t,
                stack.project(),
                stack.stack(),
            ))?
            .map(|(info, _)| info))
    }

    fn load(&self, stack: &StackRef, crypter: Option<&Crypter>) -> Result<StackState, StateError> {
        Ok(self.load_rows(stack, crypter, true)?.state)
    }

    fn load_unchecked(
        &self,
        stack: &StackRef,
        crypter: Option<&Crypter>,
    ) -> Result<StackState, StateError> {
        Ok(self.load_rows(stack, crypter, false)?.state)
    }

    fn begin_deployment(
        &self,
        lock: &StackLock,
        crypter: Option<&Crypter>,
    ) -> Result<(Snapshot, Box<dyn Journal>), StateError> {
        let loaded = self.load_rows(lock.stack(), crypter, true)?;
        let current =
            SecretsProviderState::written_under(loaded.state.secrets_providers.as_ref(), crypter);
        let state = if loaded.journal.entries != 0 || !current {
            self.compact(lock, crypter)?
        } else {
            loaded.state
        };
        // The run ends by folding its rows into the next epoch: refused now if there is none,
        // before anything runs.
        next_epoch(state.epoch, &self.location(lock.stack()))?;
        let journal = PgJournal::start(
            journal::Target {
                db: self.db.clone(),
                table: self.t.clone(),
                epoch: epoch_sql(state.epoch)?,
                held: Held::of(lock),
                fence: lock.fence().clone(),
            },
            crypter.cloned(),
        );
        Ok((state.snapshot, Box::new(journal)))
    }

    fn finish_deployment(
        &self,
        lock: &StackLock,
        crypter: Option<&Crypter>,
    ) -> Result<(), StateError> {
        let stack = lock.stack();
        let loaded = self.load_rows(stack, crypter, true)?;
        if loaded.journal.keeps_only {
            let epoch = epoch_sql(loaded.state.epoch)?;
            let t = &self.t;
            self.execute_held(
                lock,
                &format!(
                    "DELETE FROM {t}_journal WHERE project = $1 AND stack = $2 AND epoch = $3"
                ),
                &[&stack.project(), &stack.stack(), &epoch],
            )?;
            return Ok(());
        }
        self.compact(lock, crypter).map(drop)
    }

    fn recorded_salt(&self, stack: &StackRef) -> Result<Option<String>, StateError> {
        Ok(self
            .checkpoint_doc(stack)?
            .secrets_providers()
            .and_then(|p| p.salt().map(str::to_string)))
    }

    fn save(
        &self,
        lock: &StackLock,
        snapshot: &Snapshot,
        crypter: Option<&Crypter>,
    ) -> Result<(), StateError> {
        let stack = lock.stack();
        let doc = self.checkpoint_doc(stack)?;
        let providers = doc.providers_for(crypter);
        let epoch = next_epoch(doc.stepdeck.journal_epoch, &self.location(stack))?;
        self.write_checkpoint(lock, snapshot, epoch, providers.as_ref(), crypter)
    }

    fn record_update(
        &self,
        lock: &StackLock,
        mut record: UpdateRecord,
    ) -> Result<UpdateRecord, StateError> {
        let stack = lock.stack();
        let t = &self.t;
        let last: i64 = self.query(
            &format!(
                "SELECT coalesce(max(version), 0) FROM {t}_history WHERE project = $1 AND stack = $2"
            ),
            &[&stack.project(), &stack.stack()],
        )?[0]
            .get(0);
        record.version = u64::try_from(last).unwrap_or(0) + 1;
        let text = serde_json::to_string(&record).expect("an update record serializes");
        let version = last + 1;
        self.execute_held(
            lock,
            &format!(
                "INSERT INTO {t}_history (project, stack, version, record) VALUES ($1, $2, $3, $4)"
            ),
            &[&stack.project(), &stack.stack(), &version, &text],
        )?;
        Ok(record)
    }

    fn history(&self, stack: &StackRef) -> Result<Vec<UpdateRecord>, StateError> {
        let t = &self.t;
        let rows = self.query(
            &format!(
                "SELECT version, record FROM {t}_history WHERE project = $1 AND stack = $2 ORDER BY version DESC"
            ),
            &[&stack.project(), &stack.stack()],
        )?;
        let location = self.location(stack);
        rows.iter()
            .map(|row| {
                let (version, text): (i64, &str) = (row.get(0), row.get(1));
                serde_json::from_str(text)
                    .map_err(|e| corrupt(&location, format!("history version {version}: {e}")))
            })
            .collect()
    }

    fn record_update_events(
        &self,
        lock: &StackLock,
        version: u64,
        events: &update_events::Compressed,
    ) -> Result<(), StateError> {
        let stack = lock.stack();
        let t = &self.t;
        let bytes = events.bytes();
        let version = i64::try_from(version).unwrap_or(i64::MAX);
        let oldest_kept = version.saturating_sub(update_events::KEPT_UPDATES as i64 - 1);
        self.execute_held(
            lock,
            &format!(
                "UPDATE {t}_history SET events = CASE WHEN version = $3 THEN $4::bytea ELSE NULL END \
                 WHERE project = $1 AND stack = $2 AND (version = $3 OR (version < $5 AND events IS NOT NULL))"
            ),
            &[&stack.project(), &stack.stack(), &version, &bytes, &oldest_kept],
        )
        .map(|_| ())
    }

    fn update_events(&self, stack: &StackRef, version: u64) -> Result<Option<Vec<u8>>, StateError> {
        let t = &self.t;
        let version = i64::try_from(version).unwrap_or(i64::MAX);
        let rows = self.query(
            &format!(
                "SELECT events FROM {t}_history WHERE project = $1 AND stack = $2 AND version = $3"
            ),
            &[&stack.project(), &stack.stack(), &version],
        )?;
        let Some(bytes) = rows.first().and_then(|r| r.get::<_, Option<Vec<u8>>>(0)) else {
            return Ok(None);
        };
        update_events::decompress(&update_events::stored(bytes))
            .map(Some)
            .map_err(|m| {
                corrupt(
                    &self.location(stack),
                    format!("history version {version}: {m}"),
                )
            })
    }

    fn user_tags(&self, stack: &StackRef) -> Result<BTreeMap<String, String>, StateError> {
        match self.stack_column(stack, "tags")? {
            None => Ok(BTreeMap::new()),
            Some(text) => serde_json::from_str(&text)
                .map_err(|e| corrupt(&self.location(stack), format!("tags: {e}"))),
        }
    }

    fn save_user_tags(
        &self,
        lock: &StackLock,
        tags: &BTreeMap<String, String>,
    ) -> Result<(), StateError> {
        let stack = lock.stack();
        let text = serde_json::to_string(tags).expect("tags serialize");
        let t = &self.t;
        self.execute_held(
            lock,
            &format!("UPDATE {t}_stacks SET tags = $3 WHERE project = $1 AND stack = $2"),
            &[&stack.project(), &stack.stack(), &text],
        )
        .map(|_| ())
    }

    fn rename_stack(
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
        let text = self.checkpoint_text(new, &snapshot, epoch, providers.as_ref(), crypter)?;
        let (epoch, count, time) = (
            epoch_sql(epoch)?,
            snapshot.resources.len() as i64,
            snapshot.manifest.time.clone(),
        );
        let t = &self.t;
        let held = Held::of(&lock);
        let renamed = self.fenced(&lock, async {
            let mut conn = self.db.get().await?;
            let tx = conn.transaction().await.map_err(|e| describe(&e))?;
            if !still_held(&tx, t, &held).await? {
                return Ok(None);
            }
            let inserted = tx
                .execute(
                    &format!(
                        "INSERT INTO {t}_stacks (project, stack, epoch, checkpoint, resource_count, last_update, tags)
                         SELECT project, $3, $4, $5, $6, $7, tags FROM {t}_stacks
                         WHERE project = $1 AND stack = $2 ON CONFLICT DO NOTHING"
                    ),
                    &[&old.project(), &old.stack(), &new.stack(), &epoch, &text, &count, &time],
                )
                .await
                .map_err(|e| describe(&e))?;
            if inserted == 0 {
                return Ok(Some(false));
            }
            for table in ["history", "current"] {
                tx.execute(
                    &format!("UPDATE {t}_{table} SET stack = $3 WHERE project = $1 AND stack = $2"),
                    &[&old.project(), &old.stack(), &new.stack()],
                )
                .await
                .map_err(|e| describe(&e))?;
            }
            for table in ["journal", "stacks"] {
                tx.execute(
                    &format!("DELETE FROM {t}_{table} WHERE project = $1 AND stack = $2"),
                    &[&old.project(), &old.stack()],
                )
                .await
                .map_err(|e| describe(&e))?;
            }
            tx.commit().await.map_err(|e| describe(&e))?;
            Ok(Some(true))
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
