//! The stack's update history, as Pulumi's DIY backend keeps it: for each update,
//! `history/<project>/<stack>/<stack>-<nanos>.history.json` (Pulumi's `backend.UpdateInfo`,
//! whose `config` is a `config.Map`: a plain value as its text, a secret as `{"secure": …}`, an
//! object as its JSON) and `<stack>-<nanos>.checkpoint.json` (the checkpoint the update left),
//! then a backup of that checkpoint in `backups/<project>/<stack>/<stack>.<nanos>.json` unless
//! `PULUMI_DIY_BACKEND_DISABLE_CHECKPOINT_BACKUPS` is set; written under the stack's lock once
//! the update ends, whatever its result (the file's shape: `diy::update_info`).

use std::fs;
use std::path::{Path, PathBuf};

use crate::state::codec::update_events;
use crate::state::diy;
use crate::state::error::StateError;
use crate::state::stack_lock::StackLock;
use crate::state::stack_ref::StackRef;
use crate::state::update_record::UpdateRecord;

use super::FileBackend;
use super::atomic::write_atomic;
use super::lock as file_lock;

/// An update's engine events, gzip-compressed (`codec::update_events`).
const EVENTS_SUFFIX: &str = ".events.json.gz";

impl FileBackend {
    /// Appends an update to the history of the locked stack, numbering it after the last one.
    pub fn record_update(
        &self,
        lock: &StackLock,
        mut record: UpdateRecord,
    ) -> Result<UpdateRecord, StateError> {
        let stack = lock.stack();
        let dir = self.history_dir(stack);
        fs::create_dir_all(&dir).map_err(StateError::io(&dir))?;
        record.version = self.history(stack)?.first().map_or(0, |r| r.version) + 1;
        let nanos = chrono::Utc::now().timestamp_nanos_opt().unwrap_or_default();
        let base = format!("{}-{nanos}", stack.stack());
        let (name, text) = diy::history_file(&base, &record)?;
        let path = dir.join(name);
        let checkpoint = self.checkpoint_path(stack);
        let backups = diy::backups_enabled();
        // The copies keep the stack file's compression in their names, as Pulumi's do.
        let ext = if checkpoint.extension().is_some_and(|e| e == "gz") {
            ".json.gz"
        } else {
            ".json"
        };
        file_lock::fenced(lock, &self.stack_dir(stack), || {
            write_atomic(&path, &text).map_err(StateError::io(&path))?;
            link_or_copy(&checkpoint, &dir.join(format!("{base}.checkpoint{ext}")))?;
            if backups {
                let to = self.backups_dir(stack);
                fs::create_dir_all(&to).map_err(StateError::io(&to))?;
                link_or_copy(
                    &checkpoint,
                    &to.join(format!("{}.{nanos}{ext}", stack.stack())),
                )?;
            }
            Ok(())
        })?;
        Ok(record)
    }

    /// Keeps update `version`'s engine events beside its history file, as
    /// `<stack>-v<version>.events.json.gz` (Pulumi reads only its own suffixes); drops the
    /// events of updates too old to keep.
    pub fn record_update_events(
        &self,
        lock: &StackLock,
        version: u64,
        events: &update_events::Compressed,
    ) -> Result<(), StateError> {
        let stack = lock.stack();
        let dir = self.history_dir(stack);
        fs::create_dir_all(&dir).map_err(StateError::io(&dir))?;
        let path = self.events_path(stack, version);
        file_lock::fenced(lock, &self.stack_dir(stack), || {
            write_atomic(&path, events.bytes()).map_err(StateError::io(&path))?;
            let entries = fs::read_dir(&dir).map_err(StateError::io(&dir))?;
            let prefix = format!("{}-v", stack.stack());
            for entry in entries {
                let entry = entry.map_err(StateError::io(&dir))?;
                let name = entry.file_name();
                let old = name
                    .to_str()
                    .and_then(|n| n.strip_prefix(&prefix)?.strip_suffix(EVENTS_SUFFIX))
                    .and_then(|v| v.parse::<u64>().ok());
                if old.is_some_and(|old| update_events::dropped(old, version)) {
                    let gone = entry.path();
                    fs::remove_file(&gone).map_err(StateError::io(&gone))?;
                }
            }
            Ok(())
        })
    }

    /// Update `version`'s engine events, if kept.
    pub fn update_events(
        &self,
        stack: &StackRef,
        version: u64,
    ) -> Result<Option<Vec<u8>>, StateError> {
        let path = self.events_path(stack, version);
        let bytes = match fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(StateError::io(&path)(e)),
        };
        update_events::decompress(&update_events::stored(bytes))
            .map(Some)
            .map_err(|message| StateError::Corrupt {
                path,
                line: None,
                message,
            })
    }

    fn events_path(&self, stack: &StackRef, version: u64) -> PathBuf {
        self.history_dir(stack)
            .join(format!("{}-v{version}{EVENTS_SUFFIX}", stack.stack()))
    }

    /// The stack's updates, newest first: ours and those `pulumi` recorded.
    pub fn history(&self, stack: &StackRef) -> Result<Vec<UpdateRecord>, StateError> {
        diy::history(self, stack)
    }
}

/// A hard link to `from` at `to` (a checkpoint is only ever replaced, never written in place,
/// so the link keeps this version), or a copy where links cannot be made.
fn link_or_copy(from: &Path, to: &PathBuf) -> Result<(), StateError> {
    let _ = fs::remove_file(to);
    if fs::hard_link(from, to).is_ok() {
        return Ok(());
    }
    fs::copy(from, to).map(drop).map_err(StateError::io(to))
}
