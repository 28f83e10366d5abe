//! The on-disk journal: one JSON line per [`JournalEntry`], appended with a single `write` so
//! that a kill at any instant leaves at most a torn last line, which loading ignores. Secrets
//! are encrypted before a line is written. A step waits for its `Begin` line to be synced
//! (group commit: [`GroupSync`]); the file is synced again when the journal is dropped, and
//! the checkpoint that absorbs it is synced before the journal is removed.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use serde_json::Value;

use crate::engine::journal::{Durability, Journal, JournalEntry, JournalError, SyncPoint};
use crate::fault::{FaultPoint, reached};

use super::error::StateError;
use super::passphrase::Crypter;
use super::secrets::{decrypt_secrets, encrypt_secrets};

/// An append-only journal file for one deployment of one stack.
pub struct FileJournal {
    file: File,
    path: PathBuf,
    crypter: Option<Crypter>,
    len: u64,
    broken: bool,
    line: Vec<u8>,
    sync: Arc<GroupSync>,
}

/// Group commit over the journal file: whoever needs a sync while none runs does one for
/// every line written so far; those who arrive during it wait and then share the next one. So
/// `n` steps beginning at once cost about two `fdatasync`s, not `n`.
struct GroupSync {
    file: File,
    /// Lines written to the file.
    written: AtomicU64,
    state: Mutex<SyncState>,
    synced_cv: Condvar,
}

#[derive(Default)]
struct SyncState {
    /// Lines known to be on stable storage.
    synced: u64,
    syncing: bool,
}

impl Durability for GroupSync {
    fn wait(&self, upto: u64) -> io::Result<()> {
        let mut st = self.state.lock().expect("journal sync lock");
        loop {
            if st.synced >= upto {
                return Ok(());
            }
            if st.syncing {
                st = self.synced_cv.wait(st).expect("journal sync lock");
                continue;
            }
            st.syncing = true;
            let target = self.written.load(Ordering::Acquire);
            drop(st);
            let result = self.file.sync_data();
            st = self.state.lock().expect("journal sync lock");
            st.syncing = false;
            if result.is_ok() {
                st.synced = st.synced.max(target);
            }
            self.synced_cv.notify_all();
            result?;
        }
    }
}

impl FileJournal {
    /// Creates a new, empty journal file; fails if it already exists.
    pub(crate) fn create(path: PathBuf, crypter: Option<Crypter>) -> io::Result<FileJournal> {
        let file = OpenOptions::new()
            .append(true)
            .create_new(true)
            .open(&path)?;
        if let Some(dir) = path.parent() {
            super::atomic::sync_dir(dir)?;
        }
        let sync = Arc::new(GroupSync {
            file: file.try_clone()?,
            written: AtomicU64::new(0),
            state: Mutex::new(SyncState::default()),
            synced_cv: Condvar::new(),
        });
        Ok(FileJournal {
            file,
            path,
            crypter,
            len: 0,
            broken: false,
            line: Vec::new(),
            sync,
        })
    }

    /// Where the entries go (`journal.<epoch>.jsonl`), for messages.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Forces what was appended to stable storage.
    pub fn sync(&mut self) -> io::Result<()> {
        self.file.sync_data()
    }
}

impl Journal for FileJournal {
    fn append(&mut self, entry: &JournalEntry) -> Result<(), JournalError> {
        if self.broken {
            return Err(JournalError::Io(io::Error::other(format!(
                "{}: an earlier write failed; nothing more is appended",
                self.path.display()
            ))));
        }
        let mut value = serde_json::to_value(entry).map_err(io::Error::other)?;
        encrypt_secrets(&mut value, self.crypter.as_ref())
            .map_err(|e| io::Error::other(format!("{}: {e}", self.path.display())))?;
        self.line.clear();
        serde_json::to_writer(&mut self.line, &value).map_err(io::Error::other)?;
        self.line.push(b'\n');
        reached(FaultPoint::BeforeJournal);
        if let Err(e) = self.file.write_all(&self.line) {
            // A partial line in the middle would make the file unreadable: cut it off and
            // refuse further entries, so that what was recorded before stays loadable.
            self.broken = true;
            let _ = self.file.set_len(self.len);
            return Err(JournalError::Io(io::Error::new(
                e.kind(),
                format!("{}: {e}", self.path.display()),
            )));
        }
        self.len += self.line.len() as u64;
        self.sync.written.fetch_add(1, Ordering::Release);
        reached(FaultPoint::AfterJournal);
        Ok(())
    }

    fn sync_point(&self) -> Option<SyncPoint> {
        Some(SyncPoint {
            durability: self.sync.clone(),
            upto: self.sync.written.load(Ordering::Acquire),
        })
    }
}

impl Drop for FileJournal {
    fn drop(&mut self) {
        let _ = self.file.sync_data();
    }
}

/// Reads a journal file: every complete line must be an entry; a last line without its
/// newline is the torn write of a killed process and is ignored.
pub(crate) fn read_journal(
    path: &Path,
    crypter: Option<&Crypter>,
) -> Result<Vec<JournalEntry>, StateError> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(StateError::io(path)(e)),
    };
    let complete = match bytes.iter().rposition(|b| *b == b'\n') {
        Some(i) => &bytes[..=i],
        None => &[][..],
    };
    let corrupt = |line: usize, message: String| StateError::Corrupt {
        path: path.to_path_buf(),
        line: Some(line),
        message,
    };
    complete
        .split_inclusive(|b| *b == b'\n')
        .enumerate()
        .map(|(i, line)| {
            let n = i + 1;
            let mut value: Value = serde_json::from_slice(line)
                .map_err(|e| corrupt(n, format!("not a JSON journal entry: {e}")))?;
            decrypt_secrets(&mut value, crypter).map_err(|e| corrupt(n, e.to_string()))?;
            serde_json::from_value(value)
                .map_err(|e| corrupt(n, format!("not a journal entry: {e}")))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::journal::JournalEntry;

    #[test]
    fn waiters_of_a_group_commit_all_return_once_their_lines_are_synced() {
        let dir = tempfile::tempdir().unwrap();
        let mut journal = FileJournal::create(dir.path().join("journal.1.jsonl"), None).unwrap();
        let mut points = Vec::new();
        for op in 0..16 {
            journal.append(&JournalEntry::Failure { op }).unwrap();
            points.push(journal.sync_point().expect("a file journal syncs"));
        }
        assert_eq!(points.last().unwrap().upto, 16);
        let waiters: Vec<_> = points
            .into_iter()
            .map(|p| std::thread::spawn(move || p.durability.wait(p.upto)))
            .collect();
        for w in waiters {
            w.join().unwrap().unwrap();
        }
        let st = journal.sync.state.lock().unwrap();
        assert_eq!(st.synced, 16);
        assert!(!st.syncing);
    }
}
