//! Who holds a stack's lock and until when: the record every backend keeps for its lock
//! (a file, a database row), how a holder is judged gone, and [`StackLock`], the held lock,
//! whose backend-specific [`Lease`] renews and releases it.

use std::fmt;
use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::stack_ref::StackRef;

/// Who holds a lock, as written into the lock file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockInfo {
    pub pid: u32,
    pub hostname: String,
    pub user: String,
    /// RFC 3339.
    pub time: String,
    /// What the holder is doing (`up`, `destroy`, `import`, …).
    pub operation: String,
    /// Distinguishes this lock from a later one by the same pid.
    pub id: String,
    /// When the lease ends unless the holder renews it (RFC 3339); absent in locks written
    /// before leases, which are judged by their pid alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<String>,
}

/// Overrides the host name recorded in locks.
pub const HOST_ENV: &str = "STEPDECK_HOST";

/// How long a lease lasts: `STEPDECK_LOCK_LEASE_SECS`, else 30 s. The holder renews it every
/// third of that, so a holder that stopped is detected within one lease.
pub const LEASE_ENV: &str = "STEPDECK_LOCK_LEASE_SECS";
const DEFAULT_LEASE: Duration = Duration::from_secs(30);

/// The lease length in force for this process.
pub fn lease() -> Duration {
    std::env::var(LEASE_ENV)
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .filter(|s| *s > 0)
        .map_or(DEFAULT_LEASE, Duration::from_secs)
}

/// When a lease taken now ends (RFC 3339).
pub fn expiry(lease: Duration) -> String {
    let lease = chrono::Duration::from_std(lease).unwrap_or(chrono::Duration::MAX);
    let now = chrono::Utc::now();
    now.checked_add_signed(lease).unwrap_or(now).to_rfc3339()
}

/// Whether a lock's holder is still there, as far as this host can tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holder {
    /// The process runs on this host (or its pid was reused: we err on the safe side).
    Alive,
    /// The pid does not run on this host: the lock is stale.
    Gone,
    /// Another host, or a platform where we cannot tell.
    Unknown,
}

impl LockInfo {
    /// The lock this process writes for `operation`, its lease starting now.
    pub fn mine(operation: &str) -> LockInfo {
        LockInfo {
            pid: std::process::id(),
            hostname: hostname(),
            user: std::env::var("USER")
                .or_else(|_| std::env::var("USERNAME"))
                .unwrap_or_else(|_| "unknown".into()),
            time: chrono::Utc::now().to_rfc3339(),
            operation: operation.to_string(),
            id: uuid::Uuid::new_v4().to_string(),
            expires: Some(expiry(lease())),
        }
    }

    /// Judges the holder by its lease (any host): expired is gone, renewed is alive. On this
    /// host a pid that no longer runs is gone at once; a lock without a lease from another
    /// host cannot be judged.
    pub fn holder(&self) -> Holder {
        let lease = self
            .expires
            .as_deref()
            .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok());
        if lease.is_some_and(|t| t < chrono::Utc::now()) {
            return Holder::Gone;
        }
        if self.hostname == hostname() && Path::new("/proc/self").exists() {
            if Path::new("/proc").join(self.pid.to_string()).exists() {
                Holder::Alive
            } else {
                Holder::Gone
            }
        } else if lease.is_some() {
            Holder::Alive
        } else {
            Holder::Unknown
        }
    }
}

/// A second locker's error: who holds the stack.
#[derive(Debug, thiserror::Error)]
#[error(
    "the stack {stack} is locked by pid {pid} on host {host} since {time} ({operation}, user {user}, \
     lease until {expires}); if that process is gone, run `stepdeck stack unlock`",
    pid = info.pid, host = info.hostname, time = info.time, operation = info.operation, user = info.user,
    expires = info.expires.as_deref().unwrap_or("unknown")
)]
pub struct StackLocked {
    pub stack: String,
    pub info: LockInfo,
}

/// Keeps a lock held: renews its lease while it lives and releases the lock when dropped
/// (if it is still ours). Each backend has its own.
pub trait Lease: Send + Sync + fmt::Debug {}

/// The held lock; dropping it stops the heartbeat and releases the lock (if it is still ours).
#[derive(Debug)]
pub struct StackLock {
    stack: StackRef,
    info: LockInfo,
    broke_stale: Option<LockInfo>,
    /// Dropped before anything else of the lock goes.
    lease: Box<dyn Lease>,
}

impl StackLock {
    /// A lock a backend took: `broke_stale` is the expired lock it replaced, if any.
    pub fn new(
        stack: StackRef,
        info: LockInfo,
        broke_stale: Option<LockInfo>,
        lease: Box<dyn Lease>,
    ) -> StackLock {
        StackLock {
            stack,
            info,
            broke_stale,
            lease,
        }
    }

    /// The stack this lock protects; writes take it from here.
    pub fn stack(&self) -> &StackRef {
        &self.stack
    }

    /// What this process recorded as the lock's holder.
    pub fn info(&self) -> &LockInfo {
        &self.info
    }

    /// The stale lock of a dead process that was broken to take this one (tell the user).
    pub fn broke_stale(&self) -> Option<&LockInfo> {
        self.broke_stale.as_ref()
    }

    /// The backend's lease behind this lock.
    pub fn lease(&self) -> &dyn Lease {
        self.lease.as_ref()
    }
}

/// This host's name as locks record it: `STEPDECK_HOST` if set (tests run two "hosts" on one
/// machine with it), else the kernel's hostname.
pub fn hostname() -> String {
    if let Some(host) = std::env::var(HOST_ENV).ok().filter(|h| !h.is_empty()) {
        return host;
    }
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .ok()
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "localhost".into())
}
