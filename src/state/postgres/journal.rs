//! The journal of one deployment on PostgreSQL: rows of `<prefix>_journal` keyed by
//! (project, stack, epoch, seq). `append` hands the encrypted entry to a writer task and
//! returns; the writer INSERTs whatever is queued in one statement (one round trip however
//! many steps wait: the database's group commit) and only while this process still holds the
//! stack's lock: the statement locks the lock row `FOR SHARE` and names its holder and
//! generation, so a takeover waits for it and it is refused after one. A step waits for its
//! `Begin` row to commit before its provider call, so a holder that lost the lock stops
//! before its next provider call. A lost
//! connection is retried with backoff; then the journal fails for good, naming the operations
//! that began and are not recorded as finished, and nothing more is written.

use std::collections::BTreeMap;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio_postgres::Statement;

use crate::engine::journal::{Durability, SyncPoint};
use crate::engine::{Journal, JournalEntry, JournalError};
use crate::fault::{FaultPoint, reached};

use super::super::file_journal::encode_entry;
use super::super::lock_lost::LockLost;
use super::super::passphrase::Crypter;
use super::super::stack_lock::Fence;
use super::db::{Conn, Db, describe};
use super::lease::{Held, lock_from_row};

/// Waits between attempts to write a batch after a failure (about 4 s in all).
const BACKOFF: [Duration; 5] = [
    Duration::from_millis(100),
    Duration::from_millis(250),
    Duration::from_millis(500),
    Duration::from_secs(1),
    Duration::from_secs(2),
];

/// Where one deployment's rows go.
pub(crate) struct Target {
    pub db: Arc<Db>,
    pub table: String,
    pub epoch: i64,
    /// The lock row this deployment holds: rows are written only while it names this
    /// deployment's generation.
    pub held: Held,
    pub fence: Arc<Fence>,
}

/// One queued row, and what it opens or closes (to name unfinished operations on failure).
struct Queued {
    line: String,
    begins: Option<(u64, String)>,
    ends: Option<u64>,
}

/// Why the writer stopped: the database failed for good, or the lock was lost.
#[derive(Clone, Debug)]
enum Stopped {
    Failed(Arc<str>),
    Lost(LockLost),
}

impl From<Stopped> for JournalError {
    fn from(stopped: Stopped) -> JournalError {
        match stopped {
            Stopped::Failed(e) => {
                JournalError::Io(io::Error::other(format!("{e}; nothing more is recorded")))
            }
            Stopped::Lost(lost) => lost.into(),
        }
    }
}

/// Rows committed so far, or why writing stopped.
struct Committed(watch::Sender<Result<u64, Stopped>>);

#[async_trait::async_trait]
impl Durability for Committed {
    async fn wait(&self, upto: u64) -> Result<(), JournalError> {
        let mut rx = self.0.subscribe();
        let reached = rx
            .wait_for(|s| !matches!(s, Ok(n) if *n < upto))
            .await
            .map_err(|_| io::Error::other("the journal's writer stopped"))?;
        match &*reached {
            Ok(_) => Ok(()),
            Err(Stopped::Failed(e)) => Err(JournalError::Io(io::Error::other(e.to_string()))),
            Err(Stopped::Lost(lost)) => Err(lost.clone().into()),
        }
    }
}

/// A deployment's journal in the database.
pub struct PgJournal {
    queue: Option<mpsc::UnboundedSender<Queued>>,
    appended: u64,
    crypter: Option<Crypter>,
    line: Vec<u8>,
    committed: Arc<Committed>,
    finished: Option<std::sync::mpsc::Receiver<()>>,
    fence: Arc<Fence>,
}

impl PgJournal {
    /// Starts the writer task for `target`.
    pub(crate) fn start(target: Target, crypter: Option<Crypter>) -> PgJournal {
        let (queue, rx) = mpsc::unbounded_channel();
        let committed = Arc::new(Committed(watch::Sender::new(Ok(0))));
        let (done, finished) = std::sync::mpsc::channel();
        let db = target.db.clone();
        let fence = target.fence.clone();
        let state = committed.clone();
        db.spawn(async move {
            writer(target, rx, state).await;
            let _ = done.send(());
        });
        PgJournal {
            queue: Some(queue),
            appended: 0,
            crypter,
            line: Vec::new(),
            committed,
            finished: Some(finished),
            fence,
        }
    }
}

impl Journal for PgJournal {
    fn append(&mut self, entry: &JournalEntry) -> Result<(), JournalError> {
        if let Err(stopped) = &*self.committed.0.borrow() {
            return Err(stopped.clone().into());
        }
        encode_entry(entry, self.crypter.as_ref(), &mut self.line).map_err(io::Error::other)?;
        self.line.pop();
        let line = String::from_utf8(std::mem::take(&mut self.line))
            .map_err(|e| JournalError::Io(io::Error::other(e)))?;
        let (begins, ends) = match entry {
            JournalEntry::Begin {
                op,
                operation,
                state,
            } => (Some((*op, format!("{operation:?} {}", state.urn))), None),
            JournalEntry::Success { op: Some(op), .. } | JournalEntry::Failure { op } => {
                (None, Some(*op))
            }
            _ => (None, None),
        };
        reached(FaultPoint::BeforeJournal);
        let queue = self.queue.as_ref().ok_or(JournalError::Closed)?;
        queue
            .send(Queued { line, begins, ends })
            .map_err(|_| JournalError::Io(io::Error::other("the journal's writer stopped")))?;
        self.appended += 1;
        reached(FaultPoint::AfterJournal);
        Ok(())
    }

    fn sync_point(&self) -> Option<SyncPoint> {
        Some(SyncPoint {
            durability: self.committed.clone(),
            upto: self.appended,
        })
    }

    fn fenced(&self) -> Result<(), JournalError> {
        if let Err(Stopped::Lost(lost)) = &*self.committed.0.borrow() {
            return Err(lost.clone().into());
        }
        Ok(self.fence.check()?)
    }
}

impl Drop for PgJournal {
    /// Waits until every appended row is written (or writing failed for good).
    fn drop(&mut self) {
        drop(self.queue.take());
        if let Some(finished) = self.finished.take() {
            let _ = finished.recv();
        }
    }
}

async fn writer(
    target: Target,
    mut rx: mpsc::UnboundedReceiver<Queued>,
    committed: Arc<Committed>,
) {
    let t = &target.table;
    let sql = format!(
        "INSERT INTO {t}_journal (project, stack, epoch, seq, entry)
         SELECT $1, $2, $3, s, e FROM unnest($4::int8[], $5::text[]) AS u(s, e)
         WHERE EXISTS (SELECT 1 FROM {t}_locks WHERE project = $1 AND stack = $2 AND id = $6
                       AND generation = $7 FOR SHARE)
         ON CONFLICT DO NOTHING"
    );
    let mut next: i64 = 1;
    let mut open: BTreeMap<u64, String> = BTreeMap::new();
    let mut session = None;
    while let Some(first) = rx.recv().await {
        let mut batch = vec![first];
        while let Ok(more) = rx.try_recv() {
            batch.push(more);
        }
        let seqs: Vec<i64> = (next..next + batch.len() as i64).collect();
        let lines: Vec<&str> = batch.iter().map(|q| q.line.as_str()).collect();
        let mut attempt = 0;
        let outcome = loop {
            match write(&target, &mut session, &sql, &seqs, &lines).await {
                Ok(()) => break Ok(()),
                Err(Failure::Lost(lost)) => {
                    let _ = committed.0.send_replace(Err(Stopped::Lost(lost)));
                    return;
                }
                Err(Failure::Db(_, true)) if attempt < BACKOFF.len() => {
                    tokio::time::sleep(BACKOFF[attempt]).await;
                    attempt += 1;
                }
                Err(Failure::Db(message, _)) => break Err(message),
            }
        };
        if let Err(message) = outcome {
            let unfinished: Vec<&str> = open.values().map(String::as_str).collect();
            let text = format!(
                "{}: {message}; {} operation(s) began and are not recorded as finished{}{}",
                target.db.url,
                unfinished.len(),
                if unfinished.is_empty() { "" } else { ": " },
                unfinished.join(", ")
            );
            let _ = committed.0.send_replace(Err(Stopped::Failed(text.into())));
            return;
        }
        for q in batch {
            if let Some((op, what)) = q.begins {
                open.insert(op, what);
            }
            if let Some(op) = q.ends {
                open.remove(&op);
            }
        }
        next += seqs.len() as i64;
        let total = u64::try_from(next - 1).unwrap_or(0);
        let _ = committed.0.send_replace(Ok(total));
    }
}

/// Why a batch was not written.
enum Failure {
    /// The database's error, and whether trying again may help.
    Db(String, bool),
    /// The lock row no longer names this deployment's generation.
    Lost(LockLost),
}

/// Writes one batch on the writer's connection with its INSERT prepared (one round trip;
/// both made again after a failure).
async fn write(
    target: &Target,
    session: &mut Option<(Conn, Statement)>,
    sql: &str,
    seqs: &[i64],
    lines: &[&str],
) -> Result<(), Failure> {
    let written = write_on(target, session, sql, seqs, lines).await;
    if written.is_err() {
        *session = None;
    }
    written
}

async fn write_on(
    target: &Target,
    session: &mut Option<(Conn, Statement)>,
    sql: &str,
    seqs: &[i64],
    lines: &[&str],
) -> Result<(), Failure> {
    let retryable = |e: tokio_postgres::Error| Failure::Db(describe(&e), e.as_db_error().is_none());
    if session.is_none() {
        let conn = target.db.get().await.map_err(|e| Failure::Db(e, true))?;
        let insert = conn.prepare(sql).await.map_err(retryable)?;
        *session = Some((conn, insert));
    }
    let (conn, insert) = session.as_ref().expect("a session was just made");
    let inserted = conn
        .execute(
            insert,
            &[
                &target.held.project,
                &target.held.stack,
                &target.epoch,
                &seqs,
                &lines,
                &target.held.id,
                &target.held.generation,
            ],
        )
        .await
        .map_err(retryable)?;
    if inserted == seqs.len() as u64 {
        return Ok(());
    }
    // Fewer rows: a retry of rows already committed, or the lock is no longer ours.
    let t = &target.table;
    let found = conn
        .query_opt(
            &format!(
                "SELECT {} FROM {t}_locks WHERE project = $1 AND stack = $2",
                super::lease::COLUMNS
            ),
            &[&target.held.project, &target.held.stack],
        )
        .await
        .map_err(retryable)?
        .map(|row| lock_from_row(&row).0);
    match found {
        Some(info) if target.held.is(&info) => Ok(()),
        found => {
            let superseded = target.held.superseded(found);
            Err(Failure::Lost(
                target.fence.lose(superseded.reason, superseded.successor),
            ))
        }
    }
}
