//! The `postgres://` backend: stacks' state in a PostgreSQL database shared by operators on
//! many machines, and with `pulumi`.
//!
//! # Tables
//!
//! ```text
//! pulumi_state (key, data, updated_at)   Pulumi's DIY table (`?table=NAME` names another),
//!              keys "<db>/" (the URL's path, none in `postgres://`) + the DIY layout
//!              (`diy`): .pulumi/meta.yaml, .pulumi/stacks/<project>/<stack>.json (the
//!              checkpoint, the file backend's document; .json.gz with
//!              PULUMI_DIY_BACKEND_GZIP), .json.bak, .json.<nanos> (retained checkpoints),
//!              .pulumi-tags, .pulumi/history/..., .pulumi/backups/...,
//!              .pulumi/locks/organization/<project>/<stack>/<id>.json; data {"data": base64}
//! <p>_schema   (version)                                  the schema version, see `schema`
//! <p>_journal  (project, stack, epoch, seq, entry)        one row per journal entry
//! <p>_locks    (project, stack, id, pid, host, username, operation, acquired, expires,
//!               generation)                               generation from <p>_lock_generation
//! <p>_history  (project, stack, version, events)          each update's events, gzipped
//! <p>_current  (project, stack)                           the selected stack
//! ```
//!
//! `<p>` is `stepdeck`, or `NAME` with `?table=NAME`. Pulumi never reads stepdeck's tables. A
//! stack's state is its stack key plus the journal rows of the checkpoint's epoch, read in one
//! repeatable-read transaction; a stack key `pulumi` wrote (no `stepdeck` epoch) is continued
//! by no journal row. Compaction writes the next epoch's checkpoint to the stack key and
//! deletes the journal rows it absorbed in one transaction. Every write names the lock's
//! holder and generation and locks its row `FOR SHARE` in the same statement (journal rows)
//! or transaction (checkpoints, compactions, history, tags, renames, removals), so a
//! deployment whose lease was taken over cannot add to, or overwrite, the new holder's state
//! (see `lease`). While stepdeck holds a stack, its Pulumi lock key exists, so `pulumi`
//! refuses the stack; a Pulumi lock key stepdeck did not write refuses stepdeck.

mod bucket;
mod checkpoint;
mod db;
mod epoch;
mod held_transaction;
mod journal;
mod lease;
mod load;
mod lock_keys;
mod removal;
mod rename;
mod schema;
mod stack_list;
pub(crate) mod url;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use crate::engine::{Journal, Snapshot};

use super::backend::{Backend, StackState, StackSummary};
use super::backend_url::{BackendUrl, Scheme};
use super::codec::checkpoint::SecretsProviderState;
use super::codec::document::corrupt;
use super::codec::update_events;
use super::diy::{self, compression, tags_file};
use super::error::StateError;
use super::lock_info::LockInfo;
use super::passphrase::Crypter;
use super::stack_lock::StackLock;
use super::stack_ref::{StackRef, validate_name};
use super::update_record::UpdateRecord;

pub use journal::PgJournal;
pub use url::{DEFAULT_PREFIX, DEFAULT_TABLE, PgUrl, SslMode};

use bucket::Bucket;
use db::{Db, describe};
use epoch::{epoch_sql, next_epoch};
use lease::Held;

/// A `postgres://` backend.
pub struct PgBackend {
    url: BackendUrl,
    db: Arc<Db>,
    /// The prefix of stepdeck's tables.
    t: String,
    /// Pulumi's table, where the state is.
    bucket: Bucket,
}

impl PgBackend {
    /// Connects, creates or migrates the tables, and checks (or writes) Pulumi's `meta.yaml`;
    /// a database of a newer schema version, an unreachable server or refused credentials are
    /// errors naming the URL.
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
            t: pg.prefix.clone(),
            bucket: Bucket {
                table: pg.table.clone(),
                prefix: pg.key_prefix(),
            },
        };
        backend.run(async {
            let mut conn = backend.db.get().await?;
            schema::migrate(&mut conn, &backend.t, &backend.bucket).await
        })?;
        backend.ensure_meta()?;
        Ok(backend)
    }

    /// Checks `.pulumi/meta.yaml`, writing it (`version: 1`) when it is missing and the table
    /// holds no stack of Pulumi's older layout (`stacks/<stack>.json`, no project).
    fn ensure_meta(&self) -> Result<(), StateError> {
        let b = &self.bucket;
        let (meta, stacks) = self.run(async {
            let conn = self.db.get().await?;
            let meta = b.get(&*conn, diy::META_KEY).await?;
            let stacks = match meta {
                Some(_) => Vec::new(),
                None => {
                    b.list(&*conn, &format!("{}/stacks/", diy::PULUMI_DIR))
                        .await?
                }
            };
            Ok((meta, stacks))
        })?;
        if let Some(bytes) = meta {
            return diy::check_meta(&self.key_location(diy::META_KEY), &bytes);
        }
        let top = format!("{}/stacks/", diy::PULUMI_DIR);
        if let Some(legacy) = stacks
            .iter()
            .find(|k| k.strip_prefix(&top).is_some_and(|rest| !rest.contains('/')))
        {
            return Err(diy::legacy_layout(&self.key_location(legacy)));
        }
        self.run(async {
            let conn = self.db.get().await?;
            b.put_new(&*conn, diy::META_KEY, diy::META_TEXT.as_bytes())
                .await
                .map(drop)
        })
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

    /// The key of the stack's file: the newest of its variants (`diy::stack_keys`), as
    /// Pulumi picks it; `None`: no such stack.
    fn stack_file_key(&self, stack: &StackRef) -> Result<Option<String>, StateError> {
        self.run(async {
            let conn = self.db.get().await?;
            self.bucket.newest(&*conn, &diy::stack_keys(stack)).await
        })
    }

    /// The stack file's JSON, read from `key`: gunzipped if `pulumi` wrote it compressed; a
    /// zstd-compressed one is refused (never shadowed by a new stack).
    fn decode_stack_file(&self, key: &str, bytes: Vec<u8>) -> Result<Vec<u8>, StateError> {
        let location = self.key_location(key);
        if key.ends_with(compression::ZSTD_EXT) {
            return Err(compression::zstd_refused(&location));
        }
        compression::decode(&location, bytes)
    }

    /// The stack file's key and JSON.
    fn stack_file(&self, stack: &StackRef) -> Result<(String, Vec<u8>), StateError> {
        let key = self
            .stack_file_key(stack)?
            .ok_or_else(|| no_such_stack(stack))?;
        let bytes = self.get(&key)?.ok_or_else(|| no_such_stack(stack))?;
        let bytes = self.decode_stack_file(&key, bytes)?;
        Ok((key, bytes))
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

    /// Where a key of Pulumi's table is, named in errors: URL, table and key.
    fn key_location(&self, key: &str) -> PathBuf {
        PathBuf::from(format!(
            "{}#{}/{}{key}",
            self.url, self.bucket.table, self.bucket.prefix
        ))
    }

    /// The blob at `key` of Pulumi's table.
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StateError> {
        self.run(async {
            let conn = self.db.get().await?;
            self.bucket.get(&*conn, key).await
        })
    }
}

/// Pulumi's table as the bucket of the DIY keys.
impl diy::Bucket for PgBackend {
    fn read(&self, key: &str) -> Result<Option<Vec<u8>>, StateError> {
        self.get(key)
    }

    fn read_dir(&self, dir: &str, suffix: &str) -> Result<Vec<(String, Vec<u8>)>, StateError> {
        self.run(async {
            let conn = self.db.get().await?;
            self.bucket.get_dir(&*conn, dir, suffix).await
        })
    }

    fn location(&self, key: &str) -> PathBuf {
        self.key_location(key)
    }
}

/// The error of a stack without a stack file.
fn no_such_stack(stack: &StackRef) -> StateError {
    StateError::NoSuchStack {
        stack: stack.to_string(),
    }
}

impl Backend for PgBackend {
    fn url(&self) -> &BackendUrl {
        &self.url
    }

    fn kind(&self) -> &'static str {
        "postgres"
    }

    fn location(&self, stack: &StackRef) -> PathBuf {
        self.key_location(&diy::stack_key(stack))
    }

    fn check_exists(&self, stack: &StackRef) -> Result<bool, StateError> {
        match self.stack_file_key(stack)? {
            Some(key) if key.ends_with(compression::ZSTD_EXT) => {
                Err(compression::zstd_refused(&self.key_location(&key)))
            }
            found => Ok(found.is_some()),
        }
    }

    fn lock_or_create(
        &self,
        stack: &StackRef,
        operation: &str,
    ) -> Result<(StackLock, bool), StateError> {
        self.check_exists(stack)?;
        let lock = self.take_lock(stack, operation)?;
        let (key, bytes) = self.checkpoint_blob(stack, &Snapshot::default(), 0, None, None)?;
        let b = &self.bucket;
        let keys = diy::stack_keys(stack);
        let created = self.held_transaction(&lock, async |tx| {
            let created =
                b.newest(tx, &keys).await?.is_none() && b.put_new(tx, &key, &bytes).await?;
            Ok(created)
        })?;
        Ok((lock, created))
    }

    fn list_stacks(&self, project: &str) -> Result<Vec<StackSummary>, StateError> {
        validate_name("project", project)?;
        self.stack_summaries(project)
    }

    fn projects(&self) -> Result<Vec<String>, StateError> {
        let top = format!("{}/stacks/", diy::PULUMI_DIR);
        let keys = self.run(async {
            let conn = self.db.get().await?;
            self.bucket.list(&*conn, &top).await
        })?;
        let mut out: Vec<String> = keys
            .iter()
            .filter_map(|k| k.strip_prefix(&top)?.split_once('/').map(|(p, _)| p))
            .filter(|p| validate_name("project", p).is_ok())
            .map(str::to_string)
            .collect();
        out.sort();
        out.dedup();
        Ok(out)
    }

    fn remove_stack(&self, stack: &StackRef, force: bool) -> Result<(), StateError> {
        self.remove(stack, force)
    }

    fn current_stack(&self, project: &str) -> Result<Option<String>, StateError> {
        validate_name("project", project)?;
        let t = &self.t;
        let Some(name) = self
            .query(
                &format!("SELECT stack FROM {t}_current WHERE project = $1"),
                &[&project],
            )?
            .first()
            .map(|r| r.get::<_, String>(0))
        else {
            return Ok(None);
        };
        let exists = StackRef::new(project, &name).is_ok_and(|s| self.stack_exists(&s));
        Ok(exists.then_some(name))
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
        self.break_lock(stack, force)
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
        let state = if loaded.journal.entries != 0 || !current || loaded.foreign {
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
        record.version = self.history(stack)?.first().map_or(0, |r| r.version) + 1;
        let nanos = chrono::Utc::now().timestamp_nanos_opt().unwrap_or_default();
        let base = format!("{}{}-{nanos}", diy::history_dir(stack), stack.stack());
        let (history, text) = diy::history_file(&base, &record)?;
        let keys = diy::stack_keys(stack);
        let plain = diy::stack_key(stack);
        let backups = diy::backups_enabled();
        let b = &self.bucket;
        self.held_transaction(lock, async |tx| {
            b.put(tx, &history, &text).await?;
            // The copies keep the stack file's compression in their names, as Pulumi's do.
            let key = b.newest(tx, &keys).await?.unwrap_or_else(|| plain.clone());
            let ext = key.strip_prefix(&plain).unwrap_or_default();
            b.copy(tx, &key, &format!("{base}.checkpoint.json{ext}"))
                .await?;
            if backups {
                let backup = format!(
                    "{}{}.{nanos}.json{ext}",
                    diy::backups_dir(stack),
                    stack.stack()
                );
                b.copy(tx, &key, &backup).await?;
            }
            Ok(())
        })?;
        Ok(record)
    }

    fn history(&self, stack: &StackRef) -> Result<Vec<UpdateRecord>, StateError> {
        diy::history(self, stack)
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
                "WITH dropped AS (DELETE FROM {t}_history \
                   WHERE project = $1 AND stack = $2 AND version < $5) \
                 INSERT INTO {t}_history (project, stack, version, events) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (project, stack, version) DO UPDATE SET events = EXCLUDED.events"
            ),
            &[
                &stack.project(),
                &stack.stack(),
                &version,
                &bytes,
                &oldest_kept,
            ],
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
        diy::user_tags(self, stack)
    }

    fn save_user_tags(
        &self,
        lock: &StackLock,
        tags: &BTreeMap<String, String>,
    ) -> Result<(), StateError> {
        let key = diy::tags_key(lock.stack());
        let text = tags_file::encode(tags);
        let b = &self.bucket;
        self.held_transaction(lock, async |tx| {
            if tags.is_empty() {
                b.delete(tx, &key).await?;
            } else {
                b.put(tx, &key, &text).await?;
            }
            Ok(())
        })
    }

    fn rename_stack(
        &self,
        lock: StackLock,
        new: &StackRef,
        crypter: Option<&Crypter>,
    ) -> Result<(), StateError> {
        self.rename(lock, new, crypter)
    }
}
