//! Pulumi's DIY lock files: `DIR/.pulumi/locks/organization/<project>/<stack>/<id>.json`
//! (`{pid, username, hostname, timestamp}`), any of which means to `pulumi` that the stack is
//! being updated. stepdeck refuses a stack that has one it did not write, in Pulumi's words,
//! and writes one of its own (named by its lease's id) while it holds the stack, so that
//! `pulumi` refuses it meanwhile. They stand beside stepdeck's fenced lease (`lock`), which
//! stays what orders stepdeck's own writers.

use std::fs;
use std::io::{self, Write};
use std::path::PathBuf;

use crate::state::diy::lock_file;
use crate::state::error::StateError;
use crate::state::lock_info::LockInfo;

/// The Pulumi lock files of one stack.
#[derive(Clone, Debug)]
pub(crate) struct PulumiLocks {
    dir: PathBuf,
    /// Where a lock file is written before it is renamed into place: our bookkeeping
    /// directory, so that `pulumi` never reads one half written.
    scratch: PathBuf,
}

impl PulumiLocks {
    pub(crate) fn new(dir: PathBuf, scratch: PathBuf) -> PulumiLocks {
        PulumiLocks { dir, scratch }
    }

    fn path(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{id}.json"))
    }

    /// Refuses, in Pulumi's words, if a lock file other than those named by `ours` is there.
    pub(crate) fn check(&self, ours: &[&str]) -> Result<(), StateError> {
        let entries = match fs::read_dir(&self.dir) {
            Ok(e) => e,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(StateError::io(&self.dir)(e)),
        };
        let mut others = Vec::new();
        for entry in entries {
            let entry = entry.map_err(StateError::io(&self.dir))?;
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if entry.path().is_dir() || ours.iter().any(|id| name == format!("{id}.json")) {
                continue;
            }
            others.push(entry.path());
        }
        if others.is_empty() {
            return Ok(());
        }
        others.sort();
        let found: Vec<(String, Option<Vec<u8>>)> = others
            .iter()
            .map(|path| (format!("file://{}", path.display()), fs::read(path).ok()))
            .collect();
        Err(lock_file::locked(&found))
    }

    /// Writes the lock file named by `id`, as Pulumi writes its own.
    pub(crate) fn write(&self, id: &str) -> Result<(), StateError> {
        let path = self.path(id);
        fs::create_dir_all(&self.dir).map_err(StateError::io(&self.dir))?;
        let tmp = self.scratch.join(format!(
            ".pulumi-lock.{id}.tmp-{}",
            uuid::Uuid::new_v4().simple()
        ));
        let written = fs::File::create(&tmp)
            .and_then(|mut f| {
                f.write_all(&lock_file::ours())?;
                f.sync_all()
            })
            .and_then(|()| fs::rename(&tmp, &path));
        if written.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        written.map_err(StateError::io(&path))
    }

    /// `stack unlock` of Pulumi's lock files: each one whose process is gone from this host is
    /// removed, any other only with `force`; returns the last one removed, as a lock record.
    pub(crate) fn unlock(&self, stack: &str, force: bool) -> Result<Option<LockInfo>, StateError> {
        let entries = match fs::read_dir(&self.dir) {
            Ok(e) => e,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(StateError::io(&self.dir)(e)),
        };
        let mut removed = None;
        for entry in entries {
            let path = entry.map_err(StateError::io(&self.dir))?.path();
            if path.is_dir() {
                continue;
            }
            let id = path
                .file_stem()
                .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
            let (info, readable) = lock_file::info(&id, fs::read(&path).ok().as_deref());
            if !force && (!readable || !info.pid_gone_here()) {
                return Err(StateError::LockHeldByLiveProcess {
                    stack: stack.to_string(),
                    pid: info.pid,
                    host: info.hostname,
                });
            }
            match fs::remove_file(&path) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => {
                    return Err(StateError::io(&path)(e));
                }
                _ => removed = Some(info),
            }
        }
        Ok(removed)
    }

    /// Removes the lock file named by `id`, if it is there.
    pub(crate) fn remove(&self, id: &str) {
        let _ = fs::remove_file(self.path(id));
    }
}
