//! The per-stack update lock: a `lock.json` that only one process can create, naming who holds
//! it. A lock left by a process that died on this host (kill -9, power loss) is stale and is
//! broken automatically by the next locker, which is told about it; a lock from another host
//! or from a process still running is never broken without `stack unlock --force`.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::atomic::sync_dir;
use super::error::StateError;
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
    fn mine(operation: &str) -> LockInfo {
        LockInfo {
            pid: std::process::id(),
            hostname: hostname(),
            user: std::env::var("USER")
                .or_else(|_| std::env::var("USERNAME"))
                .unwrap_or_else(|_| "unknown".into()),
            time: chrono::Utc::now().to_rfc3339(),
            operation: operation.to_string(),
            id: uuid::Uuid::new_v4().to_string(),
        }
    }

    /// Checks the holder's pid on this host (`/proc`); other hosts cannot be checked.
    pub fn holder(&self) -> Holder {
        if self.hostname != hostname() || !Path::new("/proc/self").exists() {
            Holder::Unknown
        } else if Path::new("/proc").join(self.pid.to_string()).exists() {
            Holder::Alive
        } else {
            Holder::Gone
        }
    }
}

/// A second locker's error: who holds the stack.
#[derive(Debug, thiserror::Error)]
#[error(
    "the stack {stack} is locked by pid {pid} on host {host} since {time} ({operation}, user {user}); \
     if that process is gone, run `stepdeck stack unlock`",
    pid = info.pid, host = info.hostname, time = info.time, operation = info.operation, user = info.user
)]
pub struct StackLocked {
    pub stack: String,
    pub info: LockInfo,
}

/// The held lock; dropping it releases the lock (if it is still ours).
#[derive(Debug)]
pub struct StackLock {
    stack: StackRef,
    path: PathBuf,
    info: LockInfo,
    broke_stale: Option<LockInfo>,
}

impl StackLock {
    /// The stack this lock protects; writes take it from here.
    pub fn stack(&self) -> &StackRef {
        &self.stack
    }

    /// What this process wrote into the lock file.
    pub fn info(&self) -> &LockInfo {
        &self.info
    }

    /// The stale lock of a dead process that was broken to take this one (tell the user).
    pub fn broke_stale(&self) -> Option<&LockInfo> {
        self.broke_stale.as_ref()
    }
}

impl Drop for StackLock {
    fn drop(&mut self) {
        if read_lock(&self.path)
            .ok()
            .flatten()
            .is_some_and(|l| l.id == self.info.id)
        {
            let _ = fs::remove_file(&self.path);
        }
    }
}

fn hostname() -> String {
    fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .ok()
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "localhost".into())
}

/// The lock in `path`, if any; an unreadable lock is reported as corrupt.
pub(crate) fn read_lock(path: &Path) -> Result<Option<LockInfo>, StateError> {
    match fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| StateError::Corrupt {
                path: path.to_path_buf(),
                line: None,
                message: format!(
                    "not a lock file ({e}); remove it with `stepdeck stack unlock --force`"
                ),
            }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(StateError::io(path)(e)),
    }
}

/// Creates the lock file with its content in one step: written to a temporary name, then
/// hard-linked into place, which fails if a lock exists.
fn try_create(path: &Path, info: &LockInfo) -> Result<bool, StateError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let tmp = dir.join(format!(".lock.{}.tmp", info.id));
    let result = (|| {
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(&serde_json::to_vec(info).map_err(io::Error::other)?)?;
        f.sync_all()?;
        match fs::hard_link(&tmp, path) {
            Ok(()) => {
                sync_dir(dir)?;
                Ok(true)
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(e),
        }
    })();
    let _ = fs::remove_file(&tmp);
    result.map_err(StateError::io(path))
}

/// Takes the lock in `path` for `operation`, breaking it first if its holder is gone.
pub(crate) fn acquire(
    stack: &StackRef,
    path: &Path,
    operation: &str,
) -> Result<StackLock, StateError> {
    let info = LockInfo::mine(operation);
    let mut broke_stale = None;
    for _ in 0..2 {
        if try_create(path, &info)? {
            return Ok(StackLock {
                stack: stack.clone(),
                path: path.to_path_buf(),
                info,
                broke_stale,
            });
        }
        match read_lock(path)? {
            // Released between our attempt and the read: try again.
            None => continue,
            Some(held) if held.holder() == Holder::Gone => {
                break_lock(path, &held)?;
                broke_stale = Some(held);
            }
            Some(held) => {
                return Err(Box::new(StackLocked {
                    stack: stack.to_string(),
                    info: held,
                })
                .into());
            }
        }
    }
    match read_lock(path)? {
        Some(held) => Err(Box::new(StackLocked {
            stack: stack.to_string(),
            info: held,
        })
        .into()),
        None => Err(StateError::io(path)(io::Error::other(
            "the lock kept changing hands; try again",
        ))),
    }
}

/// Removes exactly the lock `expected`: it is moved aside first, and put back if another
/// locker replaced it in the meantime.
fn break_lock(path: &Path, expected: &LockInfo) -> Result<(), StateError> {
    let aside = path.with_extension(format!("broken-{}", uuid::Uuid::new_v4().simple()));
    match fs::rename(path, &aside) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(StateError::io(path)(e)),
    }
    let moved = read_lock(&aside).ok().flatten();
    if moved.as_ref().is_some_and(|m| m.id != expected.id) {
        let _ = fs::hard_link(&aside, path);
    }
    fs::remove_file(&aside).map_err(StateError::io(&aside))
}

/// `stack unlock`: removes a stale lock, or any lock with `force`; returns what was removed.
pub(crate) fn unlock(
    stack: &StackRef,
    path: &Path,
    force: bool,
) -> Result<Option<LockInfo>, StateError> {
    let held = match read_lock(path) {
        Ok(None) => return Ok(None),
        Ok(Some(held)) => held,
        Err(StateError::Corrupt { .. }) if force => {
            fs::remove_file(path).map_err(StateError::io(path))?;
            return Ok(None);
        }
        Err(e) => return Err(e),
    };
    if !force && held.holder() != Holder::Gone {
        return Err(StateError::LockHeldByLiveProcess {
            stack: stack.to_string(),
            pid: held.pid,
            host: held.hostname,
        });
    }
    if force {
        fs::remove_file(path).map_err(StateError::io(path))?;
    } else {
        break_lock(path, &held)?;
    }
    Ok(Some(held))
}
