//! The stack's update history, as Pulumi's DIY backend keeps it: one
//! `history/<stack>-<start nanos>.history.json` file per update (Pulumi's `UpdateInfo`), written
//! under the stack's lock once the update ends, whatever its result.

use std::fs;
use std::path::PathBuf;

use super::atomic::write_atomic;
use super::error::StateError;
use super::file_backend::FileBackend;
use super::file_lock;
use super::stack_lock::StackLock;
use super::stack_ref::StackRef;
use super::update_record::UpdateRecord;

const SUFFIX: &str = ".history.json";

impl FileBackend {
    fn history_dir(&self, stack: &StackRef) -> PathBuf {
        self.stack_dir(stack).join("history")
    }

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
        let path = dir.join(format!("{}-{nanos}{SUFFIX}", stack.stack()));
        let text = serde_json::to_vec_pretty(&record).expect("an update record serializes");
        file_lock::fenced(lock, &self.stack_dir(stack), || {
            write_atomic(&path, &text).map_err(StateError::io(&path))
        })?;
        Ok(record)
    }

    /// The stack's updates, newest first.
    pub fn history(&self, stack: &StackRef) -> Result<Vec<UpdateRecord>, StateError> {
        let dir = self.history_dir(stack);
        let entries = match fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(StateError::io(&dir)(e)),
        };
        let mut records = Vec::new();
        for entry in entries {
            let path = entry.map_err(StateError::io(&dir))?.path();
            if !path.to_string_lossy().ends_with(SUFFIX) {
                continue;
            }
            let text = fs::read(&path).map_err(StateError::io(&path))?;
            let record: UpdateRecord =
                serde_json::from_slice(&text).map_err(|e| StateError::Corrupt {
                    path: path.clone(),
                    line: Some(e.line()),
                    message: e.to_string(),
                })?;
            records.push(record);
        }
        records.sort_by_key(|r| std::cmp::Reverse(r.version));
        Ok(records)
    }
}
