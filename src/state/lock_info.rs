//! Who holds a stack's lock and until when: the record every backend keeps for its lock
//! (a file, a database row), its generation (the fencing token), how long a lease lasts and
//! how a holder is judged gone. The held lock and the protocol around it are in the
//! sibling module `stack_lock`.

use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Who holds a lock, as written into the lock record.
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
    /// The fencing token: strictly greater for every acquisition or takeover of the stack's
    /// lock than for any before it, so a write made under an older generation is refused.
    /// 0 in locks written before generations.
    #[serde(default)]
    pub generation: u64,
}

/// Overrides the host name recorded in locks.
pub const HOST_ENV: &str = "STEPDECK_HOST";

/// How long a lease lasts: `STEPDECK_LOCK_LEASE_SECS`, else 30 s. The holder renews it every
/// third of that, so a holder that stopped is detected within one lease.
pub const LEASE_ENV: &str = "STEPDECK_LOCK_LEASE_SECS";
const DEFAULT_LEASE: Duration = Duration::from_secs(30);
/// The longest lease: an hour. A holder that dies keeps the stack locked for up to a lease,
/// and Pulumi Cloud's update leases last five minutes; a lease beyond an hour is a typo.
pub const MAX_LEASE: Duration = Duration::from_secs(3600);

/// A lease length the environment asks for that no lock can take.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{LEASE_ENV}={value:?} is not a lease length: give a whole number of seconds from 1 to {} \
     (unset, the lease is {} s)",
    MAX_LEASE.as_secs(), DEFAULT_LEASE.as_secs()
)]
pub struct BadLease {
    pub value: String,
}

/// The lease length in force for this process. A value that is not a whole number of seconds
/// from 1 to [`MAX_LEASE`] is an error, not a fallback: Pulumi reports such a variable as
/// invalid (`pulumi about env`), and a lock silently given another lease than the operator
/// set (an expired one, or an endless one) is the failure leases exist to prevent.
pub fn lease() -> Result<Duration, BadLease> {
    lease_from(std::env::var_os(LEASE_ENV).map(|v| v.to_string_lossy().into_owned()))
}

fn lease_from(value: Option<String>) -> Result<Duration, BadLease> {
    let Some(value) = value else {
        return Ok(DEFAULT_LEASE);
    };
    value
        .trim()
        .parse::<u64>()
        .ok()
        .map(Duration::from_secs)
        .filter(|l| !l.is_zero() && *l <= MAX_LEASE)
        .ok_or(BadLease { value })
}

/// When a lease taken now ends (RFC 3339), saturating at the end of year 9999 (the last time
/// RFC 3339 can write): never earlier than now.
pub fn expiry(lease: Duration) -> String {
    let latest = chrono::NaiveDate::from_ymd_opt(9999, 12, 31)
        .and_then(|d| d.and_hms_opt(23, 59, 59))
        .map(|t| t.and_utc())
        .unwrap_or(chrono::DateTime::<chrono::Utc>::MAX_UTC);
    chrono::Duration::from_std(lease)
        .ok()
        .and_then(|lease| chrono::Utc::now().checked_add_signed(lease))
        .filter(|t| *t <= latest)
        .unwrap_or(latest)
        .to_rfc3339()
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

/// The user this process runs as (`USER`, else `USERNAME`), as locks record it and as a
/// self-managed backend's `whoami` names it.
pub fn os_user() -> String {
    std::env::var("USER")
        .or_else(|_| std::env::var("USERNAME"))
        .unwrap_or_else(|_| "unknown".into())
}

impl LockInfo {
    /// The lock this process writes for `operation`, its lease of `lease` starting now; the
    /// backend gives it its generation.
    pub fn mine(operation: &str, lease: Duration) -> LockInfo {
        LockInfo {
            pid: std::process::id(),
            hostname: hostname(),
            user: os_user(),
            time: chrono::Utc::now().to_rfc3339(),
            operation: operation.to_string(),
            id: uuid::Uuid::new_v4().to_string(),
            expires: Some(expiry(lease)),
            generation: 0,
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
        if self.pid_gone_here() {
            Holder::Gone
        } else if self.runs_here() || lease.is_some() {
            Holder::Alive
        } else {
            Holder::Unknown
        }
    }

    /// Whether the holder ran on this host (as far as `/proc` tells).
    pub fn runs_here(&self) -> bool {
        self.hostname == hostname() && Path::new("/proc/self").exists()
    }

    /// Whether the holder ran on this host and its pid no longer runs.
    pub fn pid_gone_here(&self) -> bool {
        self.runs_here() && !Path::new("/proc").join(self.pid.to_string()).exists()
    }

    /// "pid P on host H (operation, user U, lock generation G)", for messages.
    pub fn describe(&self) -> String {
        format!(
            "pid {} on host {} ({}, user {}, lock generation {})",
            self.pid, self.hostname, self.operation, self.user, self.generation
        )
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lease_is_a_whole_number_of_seconds_up_to_an_hour() {
        assert_eq!(lease_from(None), Ok(DEFAULT_LEASE));
        assert_eq!(lease_from(Some("3".into())), Ok(Duration::from_secs(3)));
        assert_eq!(lease_from(Some(" 3600 ".into())), Ok(MAX_LEASE));
        for bad in [
            "0",
            "3601",
            "9999999999999",
            "99999999999999999999999",
            "-1",
            "1.5",
            "ten",
            "",
        ] {
            let e = lease_from(Some(bad.into())).unwrap_err();
            assert!(
                e.to_string().contains(LEASE_ENV) && e.to_string().contains("from 1 to 3600"),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn an_expiry_never_falls_before_now() {
        let now = chrono::Utc::now();
        for lease in [Duration::ZERO, Duration::from_secs(30), Duration::MAX] {
            let at = chrono::DateTime::parse_from_rfc3339(&expiry(lease)).unwrap();
            assert!(at >= now, "{lease:?}: {at}");
        }
        let far = chrono::DateTime::parse_from_rfc3339(&expiry(Duration::MAX)).unwrap();
        assert_eq!(far.to_rfc3339(), "9999-12-31T23:59:59+00:00");
    }
}
