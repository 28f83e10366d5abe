//! The per-stack update lock: a `lock.json` that only one process can create, naming who holds
//! it and until when: the holder renews a lease on it (a heartbeat thread) while it runs. A
//! lock whose lease expired (a holder killed, hung, or a zombie, on any host) or whose pid is
//! gone from this host is stale and is broken by the next locker, which is told about it; a
//! lock with a live lease is never broken without `stack unlock --force`.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread::JoinHandle;

use super::atomic::sync_dir;
use super::error::StateError;
use super::lock_info::{Holder, Lease, LockInfo, StackLock, StackLocked, lease};
use super::stack_ref::StackRef;

/// The file lock's lease: a heartbeat thread renewing `lock.json`; dropping it stops the
/// thread and removes the file if it still holds our lock.
#[derive(Debug)]
struct FileLease {
    path: PathBuf,
    id: String,
    heartbeat: Option<(mpsc::Sender<()>, JoinHandle<()>)>,
}

impl Lease for FileLease {}

impl Drop for FileLease {
    fn drop(&mut self) {
        if let Some((stop, thread)) = self.heartbeat.take() {
            drop(stop);
            let _ = thread.join();
        }
        if read_lock(&self.path)
            .ok()
            .flatten()
            .is_some_and(|l| l.id == self.id)
        {
            let _ = fs::remove_file(&self.path);
        }
    }
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

/// Writes `info` to a new temporary file beside `path` (created exclusively) and returns it.
fn write_temp(path: &Path, info: &LockInfo) -> io::Result<PathBuf> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let tmp = dir.join(format!(
        ".lock.{}.{}.tmp",
        info.id,
        uuid::Uuid::new_v4().simple()
    ));
    let written = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .and_then(|mut f| {
            f.write_all(&serde_json::to_vec(info).map_err(io::Error::other)?)?;
            f.sync_all()
        });
    match written {
        Ok(()) => Ok(tmp),
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// Renews the lease every third of it until `stop` is dropped; stops renewing once the
/// lock is no longer ours (broken by someone who found the lease expired).
fn heartbeat(path: PathBuf, mut info: LockInfo, stop: mpsc::Receiver<()>) {
    let lease = lease();
    while let Err(mpsc::RecvTimeoutError::Timeout) = stop.recv_timeout(lease / 3) {
        match read_lock(&path) {
            Ok(Some(held)) if held.id == info.id => {}
            Ok(Some(_)) => {
                eprintln!(
                    "warning: {}: this process's lock was taken over after its lease expired",
                    path.display()
                );
                return;
            }
            // Removed with its stack, or unreadable: nothing of ours to renew.
            Ok(None) | Err(_) => return,
        }
        info.expires = Some(super::lock_info::expiry(lease));
        let Ok(tmp) = write_temp(&path, &info) else {
            continue;
        };
        if fs::rename(&tmp, &path).is_err() {
            let _ = fs::remove_file(&tmp);
        }
    }
}

/// Creates the lock file with its content in one step: written to a temporary name, then
/// hard-linked into place, which fails if a lock exists.
fn try_create(path: &Path, info: &LockInfo) -> Result<bool, StateError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = None;
    let result = (|| {
        let t = tmp.insert(write_temp(path, info)?);
        match fs::hard_link(t, path) {
            Ok(()) => {
                sync_dir(dir)?;
                Ok(true)
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(e),
        }
    })();
    if let Some(tmp) = tmp {
        let _ = fs::remove_file(tmp);
    }
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
            let (stop, stopped) = mpsc::channel();
            let (renewed, renewing) = (path.to_path_buf(), info.clone());
            let thread = std::thread::Builder::new()
                .name("stack-lock-lease".into())
                .spawn(move || heartbeat(renewed, renewing, stopped))
                .map_err(StateError::io(path))?;
            let lease = FileLease {
                path: path.to_path_buf(),
                id: info.id.clone(),
                heartbeat: Some((stop, thread)),
            };
            return Ok(StackLock::new(
                stack.clone(),
                info,
                broke_stale,
                Box::new(lease),
            ));
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
