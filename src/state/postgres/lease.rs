//! Lease locks in `<prefix>_locks`: one row per locked stack naming its holder (id, host, pid,
//! user, operation, since when) and the lease's end, renewed by a heartbeat task on the
//! backend's runtime. Expiry is judged by the server's clock, so operators' clocks need not
//! agree. An expired lease (or a holder on this host whose pid is gone) is taken over, and the
//! taker is told whose lock it broke; a live one is refused naming its holder.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use tokio_postgres::Row;

use super::super::lock_info::{Holder, Lease, LockInfo, hostname, lease};
use super::db::{Db, describe};

/// The columns a lock is read with, `expired` judged by the server.
const COLUMNS: &str = "id, pid, host, username, operation, acquired, \
    to_char(expires AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), expires < now()";

/// A held lease: dropping it stops the heartbeat and deletes the row if it is still ours.
pub(crate) struct PgLease {
    db: Arc<Db>,
    table: String,
    key: (String, String),
    id: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl std::fmt::Debug for PgLease {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PgLease({}/{} {})", self.key.0, self.key.1, self.id)
    }
}

impl Lease for PgLease {}

impl Drop for PgLease {
    fn drop(&mut self) {
        drop(self.stop.take());
        let (db, t, (project, stack), id) = (&self.db, &self.table, &self.key, &self.id);
        let _ = db.block_on(async {
            let conn = db.get().await?;
            conn.execute(
                &format!("DELETE FROM {t}_locks WHERE project = $1 AND stack = $2 AND id = $3"),
                &[project, stack, id],
            )
            .await
            .map_err(|e| describe(&e))
        });
    }
}

/// A lock row as [`LockInfo`], and whether its lease ended by the server's clock.
pub(crate) fn lock_from_row(row: &Row) -> (LockInfo, bool) {
    let pid: i64 = row.get(1);
    (
        LockInfo {
            id: row.get(0),
            pid: u32::try_from(pid).unwrap_or(0),
            hostname: row.get(2),
            user: row.get(3),
            operation: row.get(4),
            time: row.get(5),
            expires: Some(row.get(6)),
        },
        row.get(7),
    )
}

/// Whether a lock's holder is gone: its lease ended, or it ran on this host and its pid no
/// longer does.
pub(crate) fn holder(info: &LockInfo, expired: bool) -> Holder {
    if expired {
        return Holder::Gone;
    }
    if info.hostname == hostname()
        && Path::new("/proc/self").exists()
        && !Path::new("/proc").join(info.pid.to_string()).exists()
    {
        return Holder::Gone;
    }
    Holder::Alive
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

/// What taking a lock found.
pub(crate) enum Taken {
    /// Ours, having replaced the expired lock, if any.
    Held(Box<(LockInfo, Option<LockInfo>, PgLease)>),
    /// Someone else's, alive.
    Refused(LockInfo),
}

/// Takes the stack's lock for `operation` in one transaction (the row locked while judged).
pub(crate) async fn acquire(
    db: &Arc<Db>,
    t: &str,
    project: &str,
    stack: &str,
    operation: &str,
) -> Result<Taken, String> {
    let mut mine = LockInfo::mine(operation);
    let lease_secs = lease().as_secs_f64();
    let mut conn = db.get().await?;
    let tx = conn.transaction().await.map_err(|e| describe(&e))?;
    let held = tx
        .query_opt(
            &format!(
                "SELECT {COLUMNS} FROM {t}_locks WHERE project = $1 AND stack = $2 FOR UPDATE"
            ),
            &[&project, &stack],
        )
        .await
        .map_err(|e| describe(&e))?
        .as_ref()
        .map(lock_from_row);
    let broke = match held {
        Some((info, expired)) if holder(&info, expired) != Holder::Gone => {
            return Ok(Taken::Refused(info));
        }
        Some((info, _)) => Some(info),
        None => None,
    };
    let pid = i64::from(mine.pid);
    let row = tx
        .query_one(
            &format!(
                "INSERT INTO {t}_locks (project, stack, id, pid, host, username, operation, acquired, expires)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now() + make_interval(secs => $9))
                 ON CONFLICT (project, stack) DO UPDATE SET id = $3, pid = $4, host = $5,
                   username = $6, operation = $7, acquired = $8, expires = excluded.expires
                 RETURNING {COLUMNS}"
            ),
            &[
                &project,
                &stack,
                &mine.id,
                &pid,
                &mine.hostname,
                &mine.user,
                &mine.operation,
                &mine.time,
                &lease_secs,
            ],
        )
        .await
        .map_err(|e| describe(&e))?;
    tx.commit().await.map_err(|e| describe(&e))?;
    mine.expires = lock_from_row(&row).0.expires;
    let (stop, stopped) = tokio::sync::oneshot::channel();
    db.spawn(heartbeat(
        db.clone(),
        t.to_string(),
        (project.to_string(), stack.to_string()),
        mine.id.clone(),
        stopped,
    ));
    let lease = PgLease {
        db: db.clone(),
        table: t.to_string(),
        key: (project.to_string(), stack.to_string()),
        id: mine.id.clone(),
        stop: Some(stop),
    };
    Ok(Taken::Held(Box::new((mine, broke, lease))))
}

/// Renews the lease every third of it until stopped; stops (with a warning) once the row is
/// no longer ours. A renewal that fails (the server unreachable) is retried at the next beat.
async fn heartbeat(
    db: Arc<Db>,
    t: String,
    (project, stack): (String, String),
    id: String,
    mut stop: tokio::sync::oneshot::Receiver<()>,
) {
    let lease = lease();
    let sql = format!(
        "UPDATE {t}_locks SET expires = now() + make_interval(secs => $4)
         WHERE project = $1 AND stack = $2 AND id = $3"
    );
    loop {
        tokio::select! {
            _ = &mut stop => return,
            _ = tokio::time::sleep(lease / 3) => {}
        }
        let renewed = async {
            let conn = db.get().await?;
            conn.execute(&sql, &[&project, &stack, &id, &lease.as_secs_f64()])
                .await
                .map_err(|e| describe(&e))
        };
        let outcome = tokio::time::timeout(Duration::from_secs(5).min(lease / 3), renewed).await;
        if let Ok(Ok(0)) = outcome {
            eprintln!(
                "warning: {}: the lock of stack {project}/{stack} was taken over after its lease expired",
                db.url
            );
            return;
        }
    }
}

/// `stack unlock`: removes a stale lock, or any lock with `force`; returns what was removed
/// and, when refused, the live holder.
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
