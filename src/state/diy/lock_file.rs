//! Pulumi's DIY lock file, `locks/organization/<project>/<stack>/<id>.json` holding
//! `{pid, username, hostname, timestamp}` (Pulumi's `lockContent`): any of them means to `pulumi`
//! that the stack is being updated. stepdeck writes one while it holds a stack, and refuses a
//! stack that has one it did not write, in Pulumi's words.

use serde::{Deserialize, Serialize};

use crate::state::error::StateError;
use crate::state::lock_info::{LockInfo, hostname, os_user};

#[derive(Serialize, Deserialize)]
struct LockContent {
    pid: i64,
    username: String,
    hostname: String,
    /// RFC 3339 with nanoseconds, as Go writes a `time.Time`.
    timestamp: String,
}

/// The lock file this process writes, as Pulumi writes its own.
pub fn ours() -> Vec<u8> {
    let content = LockContent {
        pid: i64::from(std::process::id()),
        username: os_user(),
        hostname: hostname(),
        timestamp: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Nanos, true),
    };
    serde_json::to_vec(&content).expect("a lock file serializes")
}

/// The refusal of a stack locked by the lock files `found` (where each is, and its bytes when
/// readable), in Pulumi's words.
pub fn locked(found: &[(String, Option<Vec<u8>>)]) -> StateError {
    let mut message = format!(
        "the stack is currently locked by {} lock(s). Either wait for the other \
         process(es) to end or delete the lock file with `pulumi cancel`.",
        found.len()
    );
    for (location, bytes) in found {
        message.push_str(&format!("\n  {location}: {}", describe(bytes.as_deref())));
    }
    StateError::PulumiLocked { message }
}

/// A lock file `id` as a lock record, and whether it could be read as one.
pub fn info(id: &str, bytes: Option<&[u8]>) -> (LockInfo, bool) {
    let content = bytes.and_then(|b| serde_json::from_slice::<LockContent>(b).ok());
    let info = LockInfo {
        pid: content
            .as_ref()
            .and_then(|c| u32::try_from(c.pid).ok())
            .unwrap_or(0),
        hostname: content
            .as_ref()
            .map_or_else(String::new, |c| c.hostname.clone()),
        user: content
            .as_ref()
            .map_or_else(String::new, |c| c.username.clone()),
        time: content
            .as_ref()
            .map_or_else(String::new, |c| c.timestamp.clone()),
        operation: "pulumi".into(),
        id: id.to_string(),
        expires: None,
        generation: 0,
    };
    (info, content.is_some())
}

/// "created by user@host (pid N) at time", as Pulumi describes a lock file.
fn describe(bytes: Option<&[u8]>) -> String {
    match bytes.and_then(|b| serde_json::from_slice::<LockContent>(b).ok()) {
        Some(c) => {
            let at = chrono::DateTime::parse_from_rfc3339(&c.timestamp)
                .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
                .unwrap_or(c.timestamp);
            format!(
                "created by {}@{} (pid {}) at {at}",
                c.username, c.hostname, c.pid
            )
        }
        None => "not a lock file Pulumi wrote (unreadable)".into(),
    }
}
