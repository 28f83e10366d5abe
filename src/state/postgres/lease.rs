//! Lease locks in `<prefix>_locks`, in the protocol of `stack_lock`: one row per locked stack
//! naming its holder (id, host, pid, user, operation, since when), the lease's end and the
//! lock's generation, drawn from the sequence `<prefix>_lock_generation`, so that no
//! generation is given out twice, even after a released lock's row is deleted. Expiry is
//! judged by the server's clock, so operators' clocks need not agree.
//!
//! Taking the lock is one statement: an `INSERT`, or on conflict an `UPDATE` whose `WHERE`
//! admits only a lease that ran out or the holder this process judged gone (a pid gone from
//! this host, compared by id), returning the new generation; nothing is read and then
//! written. Every write of state names the row's holder and generation and locks it
//! `FOR SHARE` in the same statement or transaction ([`still_held`], the journal's `INSERT`):
//! a takeover waits for a write in flight, and a write after a takeover is refused.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio_postgres::Row;

use super::super::lock_info::{Holder, LockInfo};
use super::super::lock_lost::{LostReason, Successor};
use super::super::stack_lock::{LockRecord, Renewal, StackLock, Superseded};
use super::bucket::Bucket;
use super::db::{Db, describe};

/// The columns a lock is read with, `expired` judged by the server.
pub(crate) const COLUMNS: &str = "id, pid, host, username, operation, acquired, \
    to_char(expires AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), expires < now(), generation";

/// A lock row as [`LockInfo`], and whether its lease ended by the server's clock.
pub(crate) fn lock_from_row(row: &Row) -> (LockInfo, bool) {
    let pid: i64 = row.get(1);
    let generation: i64 = row.get(8);
    (
        LockInfo {
            id: row.get(0),
            pid: u32::try_from(pid).unwrap_or(0),
            hostname: row.get(2),
            user: row.get(3),
            operation: row.get(4),
            time: row.get(5),
            expires: Some(row.get(6)),
            generation: u64::try_from(generation).unwrap_or(0),
        },
        row.get(7),
    )
}

/// Whether a lock's holder is gone: its lease ended, or it ran on this host and its pid no
/// longer does.
pub(crate) fn holder(info: &LockInfo, expired: bool) -> Holder {
    if expired || info.pid_gone_here() {
        Holder::Gone
    } else {
        Holder::Alive
    }
}

/// The stack's lock, if any.
pub(crate) async fn read(
    db: &Arc<Db>,
    t: &str,
    project: &str,
    stack: &str,
) -> Result<Option<(LockInfo, bool)>, String> {
    let conn = db.get().await?;
    let row = conn
        .query_opt(
            &format!("SELECT {COLUMNS} FROM {t}_locks WHERE project = $1 AND stack = $2"),
            &[&project, &stack],
        )
        .await
        .map_err(|e| describe(&e))?;
    Ok(row.as_ref().map(lock_from_row))
}

/// The lock row a holder writes under: what every fenced write names.
#[derive(Clone, Debug)]
pub(crate) struct Held {
    pub project: String,
    pub stack: String,
    pub id: String,
    pub generation: i64,
}

impl Held {
    /// The row `lock` holds.
    pub(crate) fn of(lock: &StackLock) -> Held {
        Held {
            project: lock.stack().project().to_string(),
            stack: lock.stack().stack().to_string(),
            id: lock.info().id.clone(),
            generation: i64::try_from(lock.info().generation).unwrap_or(i64::MAX),
        }
    }

    /// Whether `info` is this holder's lock (same id and generation).
    pub(crate) fn is(&self, info: &LockInfo) -> bool {
        info.id == self.id && i64::try_from(info.generation).ok() == Some(self.generation)
    }

    /// How this holder lost the lock, given the row found instead (if any).
    pub(crate) fn superseded(&self, found: Option<LockInfo>) -> Superseded {
        Superseded {
            reason: if found.is_some() {
                LostReason::TakenOver
            } else {
                LostReason::Removed
            },
            successor: found.map(|holder| {
                Box::new(Successor {
                    holder,
                    released: false,
                })
            }),
        }
    }
}

/// In transaction `tx`, locks the row of `held` against a takeover until the transaction
/// ends; `false` when the row no longer names this holder's generation (write nothing then).
pub(crate) async fn still_held(
    tx: &tokio_postgres::Transaction<'_>,
    t: &str,
    held: &Held,
) -> Result<bool, String> {
    let row = tx
        .query_opt(
            &format!(
                "SELECT 1 FROM {t}_locks WHERE project = $1 AND stack = $2 AND id = $3 \
                 AND generation = $4 FOR SHARE"
            ),
            &[&held.project, &held.stack, &held.id, &held.generation],
        )
        .await
        .map_err(|e| describe(&e))?;
    Ok(row.is_some())
}

/// What taking a lock found.
pub(crate) enum Taken {
    /// Ours (with its generation), taken at the instant given, having replaced the expired
    /// lock, if any.
    Held(Box<(LockInfo, Option<LockInfo>, Instant)>),
    /// Someone else's, alive.
    Refused(LockInfo),
}

/// Takes the stack's lock for `operation` with a lease of `lease`, in one statement; a
/// second statement only when the live lease belongs to a pid gone from this host.
pub(crate) async fn acquire(
    db: &Arc<Db>,
    t: &str,
    project: &str,
    stack: &str,
    operation: &str,
    lease: Duration,
) -> Result<Taken, String> {
    let sql = format!(
        "WITH prior AS (SELECT {COLUMNS} FROM {t}_locks WHERE project = $1 AND stack = $2),
         taken AS (
           INSERT INTO {t}_locks AS held
             (project, stack, id, pid, host, username, operation, acquired, expires, generation)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now() + make_interval(secs => $9),
                   nextval('{t}_lock_generation'))
           ON CONFLICT (project, stack) DO UPDATE SET id = excluded.id, pid = excluded.pid,
             host = excluded.host, username = excluded.username, operation = excluded.operation,
             acquired = excluded.acquired, expires = excluded.expires,
             generation = excluded.generation
           WHERE held.expires < now() OR held.id = $10
           RETURNING generation,
             to_char(expires AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'))
         SELECT taken.generation, taken.to_char, prior.* FROM taken LEFT JOIN prior ON true"
    );
    let mut gone: Option<LockInfo> = None;
    for _ in 0..4 {
        let mut mine = LockInfo::mine(operation, lease);
        let pid = i64::from(mine.pid);
        let judged_gone = gone.as_ref().map(|g| g.id.as_str());
        let taken = Instant::now();
        let conn = db.get().await?;
        let row = conn
            .query_opt(
                &sql,
                &[
                    &project,
                    &stack,
                    &mine.id,
                    &pid,
                    &mine.hostname,
                    &mine.user,
                    &mine.operation,
                    &mine.time,
                    &lease.as_secs_f64(),
                    &judged_gone,
                ],
            )
            .await
            .map_err(|e| describe(&e))?;
        if let Some(row) = row {
            let generation: i64 = row.get(0);
            mine.generation = u64::try_from(generation).unwrap_or(0);
            mine.expires = Some(row.get(1));
            // The lock replaced, as the statement's snapshot saw it (for the warning only).
            let prior: Option<String> = row.get(2);
            let broke = prior.map(|_| prior_from_row(&row));
            return Ok(Taken::Held(Box::new((mine, broke, taken))));
        }
        match read(db, t, project, stack).await? {
            // Released since: try again.
            None => {}
            Some((info, expired)) if holder(&info, expired) == Holder::Gone => {
                if gone.as_ref() == Some(&info) {
                    return Ok(Taken::Refused(info));
                }
                gone = Some(info);
            }
            Some((info, _)) => return Ok(Taken::Refused(info)),
        }
    }
    Err("the stack's lock kept changing hands; try again".into())
}

/// The `prior` columns of the acquiring statement (from the third on) as a lock.
fn prior_from_row(row: &Row) -> LockInfo {
    let pid: i64 = row.get(3);
    let generation: i64 = row.get(10);
    LockInfo {
        id: row.get(2),
        pid: u32::try_from(pid).unwrap_or(0),
        hostname: row.get(4),
        user: row.get(5),
        operation: row.get(6),
        time: row.get(7),
        expires: Some(row.get(8)),
        generation: u64::try_from(generation).unwrap_or(0),
    }
}

/// The row of one generation of the lock, held by this process, and the Pulumi lock file
/// (`pulumi_lock`, a key of `bucket`) written beside it so that `pulumi` refuses the stack.
pub(crate) struct PgRecord {
    pub db: Arc<Db>,
    pub table: String,
    pub held: Held,
    pub bucket: Bucket,
    pub pulumi_lock: String,
}

impl std::fmt::Debug for PgRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let h = &self.held;
        write!(
            f,
            "PgRecord({}/{} {} #{})",
            h.project, h.stack, h.id, h.generation
        )
    }
}

impl PgRecord {
    /// The row now, read on the backend's runtime with a bound on the wait.
    fn current(&self, within: Duration) -> Result<Option<LockInfo>, String> {
        let (db, t, h) = (self.db.clone(), self.table.clone(), self.held.clone());
        let read = self.db.spawn(async move {
            tokio::time::timeout(within, read(&db, &t, &h.project, &h.stack))
                .await
                .map_err(|_| "the database did not answer in time".to_string())?
        });
        self.db
            .block_on(read)
            .map_err(|e| e.to_string())?
            .map(|row| row.map(|(info, _)| info))
    }
}

impl LockRecord for PgRecord {
    fn renew(&self, lease: Duration) -> Result<(), Renewal> {
        let (db, t, h) = (self.db.clone(), self.table.clone(), self.held.clone());
        let renewed = self.db.spawn(async move {
            let update = async {
                let conn = db.get().await?;
                conn.execute(
                    &format!(
                        "UPDATE {t}_locks SET expires = now() + make_interval(secs => $5)
                         WHERE project = $1 AND stack = $2 AND id = $3 AND generation = $4"
                    ),
                    &[
                        &h.project,
                        &h.stack,
                        &h.id,
                        &h.generation,
                        &lease.as_secs_f64(),
                    ],
                )
                .await
                .map_err(|e| describe(&e))
            };
            tokio::time::timeout(Duration::from_secs(5).min(lease / 3), update).await
        });
        match self.db.block_on(renewed) {
            Ok(Ok(Ok(1))) => Ok(()),
            Ok(Ok(Ok(_))) => Err(match self.verify() {
                Err(superseded) => Renewal::Superseded(superseded),
                Ok(()) => Renewal::Failed,
            }),
            _ => Err(Renewal::Failed),
        }
    }

    fn verify(&self) -> Result<(), Superseded> {
        match self.current(Duration::from_secs(5)) {
            Ok(Some(info)) if self.held.is(&info) => Ok(()),
            Ok(found) => Err(self.held.superseded(found)),
            // Not known to be lost: the writes themselves are fenced in the database.
            Err(_) => Ok(()),
        }
    }

    fn successor(&self) -> Option<Box<Successor>> {
        let found = self.current(Duration::from_secs(5)).ok().flatten()?;
        (!self.held.is(&found)).then(|| {
            Box::new(Successor {
                holder: found,
                released: false,
            })
        })
    }

    fn release(&self) {
        let (db, t, h) = (self.db.clone(), self.table.clone(), self.held.clone());
        let (bucket, key) = (self.bucket.clone(), self.pulumi_lock.clone());
        let _ = self.db.block_on(self.db.spawn(async move {
            let conn = db.get().await?;
            // Named by this lock's id, the key is this holder's whoever holds the stack now.
            bucket.delete(&*conn, &key).await?;
            conn.execute(
                &format!(
                    "DELETE FROM {t}_locks WHERE project = $1 AND stack = $2 AND id = $3 \
                     AND generation = $4"
                ),
                &[&h.project, &h.stack, &h.id, &h.generation],
            )
            .await
            .map_err(|e| describe(&e))
        }));
    }
}

/// `stack unlock`: removes a stale lock, or any lock with `force` (the row it judged, by id:
/// a holder that took the lock meanwhile keeps it); returns what was removed and, when
/// refused, the live holder.
pub(crate) async fn unlock(
    db: &Arc<Db>,
    t: &str,
    project: &str,
    stack: &str,
    force: bool,
) -> Result<Result<Option<LockInfo>, LockInfo>, String> {
    let Some((info, expired)) = read(db, t, project, stack).await? else {
        return Ok(Ok(None));
    };
    if !force && holder(&info, expired) != Holder::Gone {
        return Ok(Err(info));
    }
    let conn = db.get().await?;
    conn.execute(
        &format!("DELETE FROM {t}_locks WHERE project = $1 AND stack = $2 AND id = $3"),
        &[&project, &stack, &info.id],
    )
    .await
    .map_err(|e| describe(&e))?;
    Ok(Ok(Some(info)))
}
