//! The file backend's lock, in the protocol of [`crate::state::stack_lock`]:
//!
//! - **One file per generation**: `lock.<generation>.json` in the stack's directory, naming
//!   its holder and until when its lease runs. The lock's current record is the file of the
//!   highest generation; lower ones are history, removed by the next holder. A released lock
//!   keeps its file (marked `released`), so its generation is never given out again.
//! - **Acquisition** reads the current record and, when it is released or its holder is gone
//!   (lease expired on any host, or a pid gone from this host), creates the next generation's
//!   file exclusively (written under a temporary name, then hard-linked into place): of any
//!   number of contenders, exactly one creates it, and the stale lock is never overwritten or
//!   moved. A creator that finds a higher generation than its own (it read an old listing)
//!   removes its file and looks again.
//! - **The write guard**: an exclusive `flock` on the stack's directory, held for a few system
//!   calls. Every write that could make another holder lose data (the checkpoint's rename, a
//!   journal's creation or removal, history, tags, a rename or removal of the stack) is done
//!   under it, after checking that the lock's highest generation is still the writer's; and a
//!   new holder takes it once right after creating its file. So a stale holder's write either
//!   finished before the new holder read anything, or is refused.
//! - **Journal lines** are appended without the guard, to the journal file the holder created
//!   under it: after a step's `Begin` line is written and synced, the journal checks the lock
//!   files again before the provider is called. A new holder creates its file before it reads
//!   the journal, so either the check sees the new generation (and the step stops) or the new
//!   holder reads the `Begin` (and the operation is its pending operation). Lines a stale
//!   holder writes later go to a journal the new holder has folded and removed.
//! - **Renewals and release** rewrite the holder's own file (temporary file, rename) only
//!   while it is the highest; one that races a takeover rewrites a file that no longer counts.
//!   `stack unlock` creates the next generation's file, released, which fences the old holder.
//!
//! - **Pulumi's lock files** (`pulumi_lock`): a stack with one stepdeck did not write is
//!   refused before a generation is created; the holder writes its own (named by its lock's
//!   id) once it holds the stack, looks again, and removes it on release. One left by a holder
//!   that died or was fenced off is removed by the next holder, or by `stack unlock`.
//!
//! The files live in stepdeck's bookkeeping directory and a released lock keeps one, so they
//! cannot be Pulumi's DIY lock files (any of which means "locked" to Pulumi).

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::state::error::StateError;
use crate::state::lock_info::{Holder, LockInfo, StackLocked, lease};
use crate::state::lock_lost::{LostReason, Successor};
use crate::state::stack_lock::{LockRecord, Renewal, StackLock, Superseded};
use crate::state::stack_ref::StackRef;

use super::atomic::sync_dir;
use super::pulumi_lock::PulumiLocks;

/// How long a write waits for the stack's write guard, which is only ever held for a few
/// system calls, before it gives up.
const GUARD_WAIT: Duration = Duration::from_secs(30);

/// The operation a lock file written by `stack unlock` records.
const UNLOCK: &str = "unlock";

/// A lock file's content: its holder, and when the holder released it, if it did.
#[derive(Serialize, Deserialize)]
struct LockFile {
    #[serde(flatten)]
    holder: LockInfo,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    released: Option<String>,
}

/// The lock file of `generation` in the stack directory `dir`.
pub(crate) fn lock_path(dir: &Path, generation: u64) -> PathBuf {
    dir.join(format!("lock.{generation}.json"))
}

fn generation_of(name: &str) -> Option<u64> {
    name.strip_prefix("lock.")?
        .strip_suffix(".json")?
        .parse()
        .ok()
}

/// The highest generation of the lock files in `dir`, if there are any.
fn highest(dir: &Path) -> Result<Option<u64>, StateError> {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(StateError::io(dir)(e)),
    };
    let mut top = None;
    for entry in entries {
        let entry = entry.map_err(StateError::io(dir))?;
        if let Some(g) = entry.file_name().to_str().and_then(generation_of) {
            top = top.max(Some(g));
        }
    }
    Ok(top)
}

/// The lock file at `path`; `None` if it is gone; an unreadable one is corrupt.
fn read_file(path: &Path) -> Result<Option<LockFile>, StateError> {
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

/// A lock's generation and its file, or why the file cannot be read.
type Generation = (u64, Result<LockFile, StateError>);

/// The lock's current record: the highest generation, if there is one.
fn current(dir: &Path) -> Result<Option<Generation>, StateError> {
    loop {
        let Some(generation) = highest(dir)? else {
            return Ok(None);
        };
        match read_file(&lock_path(dir, generation)) {
            Ok(Some(file)) => return Ok(Some((generation, Ok(file)))),
            // Removed by a newer holder since the listing: a higher generation exists now.
            Ok(None) => continue,
            Err(e) => return Ok(Some((generation, Err(e)))),
        }
    }
}

/// Who holds the lock of the stack directory `dir`, if anyone.
pub(crate) fn read_lock(dir: &Path) -> Result<Option<LockInfo>, StateError> {
    match current(dir)? {
        None => Ok(None),
        Some((_, file)) => {
            let file = file?;
            Ok(file.released.is_none().then_some(file.holder))
        }
    }
}

/// Writes `file` to a new temporary file in `dir` (created exclusively) and returns it.
fn write_temp(dir: &Path, file: &LockFile) -> io::Result<PathBuf> {
    let tmp = dir.join(format!(
        ".lock.{}.{}.tmp",
        file.holder.id,
        uuid::Uuid::new_v4().simple()
    ));
    let written = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .and_then(|mut f| {
            f.write_all(&serde_json::to_vec(file).map_err(io::Error::other)?)?;
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

/// Creates `path` with `file` as its content in one step: written to a temporary name, then
/// hard-linked into place, which fails (`false`) if the path exists.
fn try_create(path: &Path, file: &LockFile) -> Result<bool, StateError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = None;
    let result = (|| {
        let t = tmp.insert(write_temp(dir, file)?);
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

/// Replaces the content of `path` in one step (a temporary file renamed over it).
fn replace(path: &Path, file: &LockFile) -> io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let tmp = write_temp(dir, file)?;
    fs::rename(&tmp, path).inspect_err(|_| {
        let _ = fs::remove_file(&tmp);
    })
}

/// Removes the lock files of generations below `generation` (history no one reads).
fn collect(dir: &Path, generation: u64) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if entry
            .file_name()
            .to_str()
            .and_then(generation_of)
            .is_some_and(|g| g < generation)
        {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// The stack's write guard: an exclusive `flock` on its directory, released when dropped
/// (or when its process dies, by the kernel).
pub(crate) struct Guard {
    _dir: File,
}

impl Guard {
    /// Takes the guard of the stack directory `dir`, waiting up to [`GUARD_WAIT`].
    pub(crate) fn take(dir: &Path) -> Result<Guard, StateError> {
        let file = File::open(dir).map_err(StateError::io(dir))?;
        let deadline = Instant::now() + GUARD_WAIT;
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(Guard { _dir: file }),
                Err(fs::TryLockError::WouldBlock) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(2));
                }
                Err(fs::TryLockError::WouldBlock) => {
                    return Err(StateError::io(dir)(io::Error::other(format!(
                        "another process has held this stack's write guard for more than {} s \
                         (a process paused while it wrote the stack's state?)",
                        GUARD_WAIT.as_secs()
                    ))));
                }
                Err(fs::TryLockError::Error(e)) => return Err(StateError::io(dir)(e)),
            }
        }
    }
}

/// Runs `write` under the write guard of the stack directory `dir`, once `lock` is checked to
/// still be the stack's lock: a holder that lost it writes nothing.
pub(crate) fn fenced<T>(
    lock: &StackLock,
    dir: &Path,
    write: impl FnOnce() -> Result<T, StateError>,
) -> Result<T, StateError> {
    let guard = Guard::take(dir);
    lock.fence().verify()?;
    let _guard = guard?;
    write()
}

/// One generation of the lock, held by this process.
#[derive(Debug)]
struct FileRecord {
    dir: PathBuf,
    holder: LockInfo,
    pulumi: PulumiLocks,
}

impl FileRecord {
    fn path(&self) -> PathBuf {
        lock_path(&self.dir, self.holder.generation)
    }
}

impl LockRecord for FileRecord {
    fn renew(&self, lease: Duration) -> Result<(), Renewal> {
        self.verify().map_err(Renewal::Superseded)?;
        let mut holder = self.holder.clone();
        holder.expires = Some(crate::state::lock_info::expiry(lease));
        let file = LockFile {
            holder,
            released: None,
        };
        replace(&self.path(), &file).map_err(|_| Renewal::Failed)
    }

    fn verify(&self) -> Result<(), Superseded> {
        match highest(&self.dir) {
            Ok(Some(g)) if g == self.holder.generation => Ok(()),
            Ok(Some(g)) if g > self.holder.generation => {
                let successor = self.successor();
                let reason = match &successor {
                    Some(s) if s.holder.operation == UNLOCK && s.released => LostReason::Removed,
                    _ => LostReason::TakenOver,
                };
                Err(Superseded { reason, successor })
            }
            // No lock file of this generation or later: the stack (or its lock) was removed.
            _ => Err(Superseded {
                reason: LostReason::Removed,
                successor: None,
            }),
        }
    }

    fn successor(&self) -> Option<Box<Successor>> {
        match current(&self.dir) {
            Ok(Some((g, Ok(file)))) if g > self.holder.generation => Some(Box::new(Successor {
                holder: file.holder,
                released: file.released.is_some(),
            })),
            _ => None,
        }
    }

    fn release(&self) {
        if self.verify().is_ok() {
            let file = LockFile {
                holder: self.holder.clone(),
                released: Some(chrono::Utc::now().to_rfc3339()),
            };
            let _ = replace(&self.path(), &file);
        }
        // Named by this lock's id, the file is this holder's whoever holds the stack now.
        self.pulumi.remove(&self.holder.id);
    }
}

/// Takes the lock of the stack directory `dir` for `operation`, taking it over if its holder
/// is gone.
pub(crate) fn acquire(
    stack: &StackRef,
    dir: &Path,
    operation: &str,
    pulumi: PulumiLocks,
) -> Result<StackLock, StateError> {
    let lease = lease()?;
    for _ in 0..8 {
        let (generation, broke_stale, before) = match current(dir)? {
            None => (0, None, None),
            Some((g, file)) => {
                let file = file?;
                let id = Some(file.holder.id.clone());
                if file.released.is_some() {
                    (g, None, id)
                } else if file.holder.holder() == Holder::Gone {
                    (g, Some(file.holder), id)
                } else {
                    return Err(Box::new(StackLocked {
                        stack: stack.to_string(),
                        info: file.holder,
                    })
                    .into());
                }
            }
        };
        // Pulumi holds the stack: refused before anything is written. A Pulumi lock file of
        // the previous holder (released, or gone) is its leftover, not Pulumi's.
        let before = before.unwrap_or_default();
        pulumi.check(&[&before])?;
        let next = generation
            .checked_add(1)
            .ok_or_else(|| StateError::Corrupt {
                path: lock_path(dir, generation),
                line: None,
                message: "the lock's generation cannot advance; remove the stack's lock files"
                    .into(),
            })?;
        let taken = Instant::now();
        let mut info = LockInfo::mine(operation, lease);
        info.generation = next;
        let path = lock_path(dir, next);
        let file = LockFile {
            holder: info.clone(),
            released: None,
        };
        if !try_create(&path, &file)? {
            // Another contender created this generation first: look again.
            continue;
        }
        // The barrier: a stale holder's guarded write finished before this, or is refused.
        let guard = Guard::take(dir)?;
        if highest(dir)? != Some(next) {
            // Created from an old listing, below the current generation: not a lock.
            let _ = fs::remove_file(&path);
            continue;
        }
        collect(dir, next);
        drop(guard);
        let record = FileRecord {
            dir: dir.to_path_buf(),
            holder: info.clone(),
            pulumi: pulumi.clone(),
        };
        let id = info.id.clone();
        let held = StackLock::hold(
            stack.clone(),
            info,
            broke_stale,
            lease,
            taken,
            Box::new(record),
        )?;
        // As Pulumi locks: its own file written, then a look for any other (a `pulumi` that
        // locked meanwhile); on finding one, this lock is released (and its file removed).
        pulumi.write(&id)?;
        pulumi.check(&[&id, &before])?;
        if !before.is_empty() {
            pulumi.remove(&before);
        }
        return Ok(held);
    }
    Err(StateError::io(dir)(io::Error::other(
        "the stack's lock kept changing hands; try again",
    )))
}

/// `stack unlock`: ends a stale lock, or any lock with `force`, by creating the next
/// generation's file as released (its holder, if it still runs, is fenced off); returns
/// the lock ended.
pub(crate) fn unlock(
    stack: &StackRef,
    dir: &Path,
    force: bool,
    pulumi: &PulumiLocks,
) -> Result<Option<LockInfo>, StateError> {
    for _ in 0..8 {
        let Some((generation, file)) = current(dir)? else {
            return Ok(None);
        };
        let held = match file {
            Ok(file) if file.released.is_some() => return Ok(None),
            Ok(file) => Some(file.holder),
            Err(StateError::Corrupt { .. }) if force => None,
            Err(e) => return Err(e),
        };
        if let Some(held) = &held
            && !force
            && held.holder() != Holder::Gone
        {
            return Err(StateError::LockHeldByLiveProcess {
                stack: stack.to_string(),
                pid: held.pid,
                host: held.hostname.clone(),
            });
        }
        let next = generation.saturating_add(1);
        let mut ender = LockInfo::mine(UNLOCK, Duration::ZERO);
        ender.generation = next;
        let released = LockFile {
            holder: ender,
            released: Some(chrono::Utc::now().to_rfc3339()),
        };
        if try_create(&lock_path(dir, next), &released)? {
            collect(dir, next);
            if let Some(held) = &held {
                pulumi.remove(&held.id);
            }
            return Ok(held);
        }
    }
    Err(StateError::io(dir)(io::Error::other(
        "the stack's lock kept changing hands; try again",
    )))
}
