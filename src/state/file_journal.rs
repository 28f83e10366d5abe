//! The on-disk journal: one JSON line per [`JournalEntry`], each written after the last with a
//! single `write` so that a kill at any instant leaves at most a torn last line, which loading
//! ignores. Secrets are encrypted before a line is written. A step waits for its `Begin` line
//! to be synced (group commit: [`GroupSync`]) and for the stack's lock files to be read after
//! that, showing the lock still this journal's (its [`Fence`]; see `file_lock`); the file is
//! synced again when the journal is dropped, and the checkpoint that absorbs it is synced
//! before the journal is removed.
//!
//! The file is written with zeros ahead of its lines ([`ZEROED_AHEAD`]), so that syncing a
//! line mostly writes its data alone: appending grew the file, and each sync then wrote the
//! inode's new size too (a second write to wait for). The zeros are cut off when the journal
//! is dropped; a killed run leaves them after its last line, where reading stops.
//!
//! Lines that only keep a resource as it was are held back and written with the next line
//! that does more (or once [`HELD_BYTES`] are held, or when the journal is dropped), so that
//! an unchanged stack costs a `write` per [`HELD_BYTES`], not per resource. The file is still
//! a prefix of the entries: a kill loses at most held keeps, and a journal that does not
//! mention a base state keeps it, so what loads is the state of a kill a moment earlier.

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::{Condvar, Mutex};

use crate::engine::journal::{Durability, SyncPoint};
use crate::engine::{Journal, JournalEntry, JournalError};
use crate::fault::{FaultPoint, reached};

use super::error::StateError;
use super::journal_reader::JournalReader;
use super::lock_lost::LockLost;
use super::passphrase::Crypter;
use super::secrets::{encrypt_secrets, map_may_hold_secrets, state_may_hold_secrets};
use super::stack_lock::Fence;

/// Serializes an entry as one journal line (newline included), secrets encrypted. Only an
/// entry whose states may hold a secret goes through a JSON tree to be encrypted; the others
/// (most entries) are written straight from their fields, the same bytes at a fraction of
/// the cost (the line is encoded under the deployment's journal lock).
pub(crate) fn encode_entry(
    entry: &JournalEntry,
    crypter: Option<&Crypter>,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    out.clear();
    if entry_may_hold_secrets(entry) {
        let mut value = serde_json::to_value(entry).map_err(|e| e.to_string())?;
        encrypt_secrets(&mut value, crypter).map_err(|e| e.to_string())?;
        serde_json::to_writer(&mut *out, &value).map_err(|e| e.to_string())?;
    } else {
        serde_json::to_writer(&mut *out, entry).map_err(|e| e.to_string())?;
    }
    out.push(b'\n');
    Ok(())
}

fn entry_may_hold_secrets(entry: &JournalEntry) -> bool {
    match entry {
        JournalEntry::Begin { state, .. } => state_may_hold_secrets(state),
        JournalEntry::Success { new, .. } => new.as_ref().is_some_and(state_may_hold_secrets),
        JournalEntry::Failure { .. } => false,
        JournalEntry::Outputs { outputs, .. } => map_may_hold_secrets(outputs),
        JournalEntry::Refresh { state, .. } | JournalEntry::Resolve { state, .. } => {
            state.as_ref().is_some_and(state_may_hold_secrets)
        }
    }
}

/// How many bytes of keep lines are held before they are written on their own.
const HELD_BYTES: usize = 64 * 1024;

/// How far past a line the file is written with zeros when lines reach the end of the zeros
/// written before: the first sync after that writes the zeros (and the new size) once, and
/// the syncs of the lines written over them change nothing but data. At 1.6 KB a line
/// (a `Begin` or an end of a step), about one sync in 2,500 lines is the longer one.
const ZEROED_AHEAD: u64 = 4 << 20;

/// An append-only journal file for one deployment of one stack.
pub struct FileJournal {
    file: File,
    path: PathBuf,
    crypter: Option<Crypter>,
    /// The end of the lines written.
    len: u64,
    /// The end of the file: zeros from `len` to here.
    zeroed: u64,
    /// Whether zeros are still written ahead: not once the disk had no room for them.
    zeroing: bool,
    broken: bool,
    line: Vec<u8>,
    /// Lines not yet written: keeps only, then possibly the line being appended.
    held: Vec<u8>,
    held_lines: u64,
    sync: Arc<GroupSync>,
}

/// Why the syncer stopped: a failed sync, or the lock lost (found right after a sync).
#[derive(Clone, Debug, PartialEq)]
enum Stopped {
    Sync(Arc<str>),
    Lost(LockLost),
}

/// Group commit over the journal file: one syncer thread per journal runs `fdatasync` whenever
/// a step waits for lines not yet synced, covering every line written by then, then verifies
/// that the stack's lock is still this journal's; steps that ask while a sync runs share the
/// next one. So `n` steps beginning together cost about two syncs and two looks at the lock
/// files, not `n`, and a waiting step holds no thread (it awaits a watch channel).
struct GroupSync {
    /// Lines written to the file.
    written: AtomicU64,
    /// The highest line count a step waits for.
    requested: AtomicU64,
    closed: Mutex<bool>,
    wake: Condvar,
    /// Lines known to be on stable storage and written under the lock, or why syncing stopped.
    synced: tokio::sync::watch::Sender<Result<u64, Stopped>>,
    fence: Arc<Fence>,
}

impl GroupSync {
    /// Starts the sync thread; fails as the journal's creation does when it cannot be spawned.
    fn start(file: File, fence: Arc<Fence>) -> io::Result<Arc<GroupSync>> {
        let sync = Arc::new(GroupSync {
            written: AtomicU64::new(0),
            requested: AtomicU64::new(0),
            closed: Mutex::new(false),
            wake: Condvar::new(),
            synced: tokio::sync::watch::Sender::new(Ok(0)),
            fence,
        });
        let syncer = sync.clone();
        std::thread::Builder::new()
            .name("journal-sync".into())
            .spawn(move || syncer.run(file))?;
        Ok(sync)
    }

    /// The syncer: sleeps until a step waits for unsynced lines, syncs everything written,
    /// then verifies the lock (after the lines were written: see `file_lock`).
    fn run(&self, file: File) {
        let mut synced = 0;
        loop {
            {
                let mut closed = self.closed.lock();
                while self.requested.load(Ordering::Acquire) <= synced && !*closed {
                    self.wake.wait(&mut closed);
                }
                if *closed {
                    return;
                }
            }
            let target = self.written.load(Ordering::Acquire);
            if let Err(e) = file.sync_data() {
                let _ = self
                    .synced
                    .send_replace(Err(Stopped::Sync(e.to_string().into())));
                return;
            }
            if let Err(lost) = self.fence.verify() {
                let _ = self.synced.send_replace(Err(Stopped::Lost(lost)));
                return;
            }
            synced = target;
            let _ = self.synced.send_replace(Ok(synced));
        }
    }

    fn close(&self) {
        *self.closed.lock() = true;
        self.wake.notify_one();
    }
}

#[async_trait::async_trait]
impl Durability for GroupSync {
    async fn wait(&self, upto: u64) -> Result<(), JournalError> {
        let mut synced = self.synced.subscribe();
        if matches!(*synced.borrow(), Ok(n) if n >= upto) {
            return Ok(());
        }
        self.requested.fetch_max(upto, Ordering::AcqRel);
        {
            let _closed = self.closed.lock();
            self.wake.notify_one();
        }
        let reached = synced
            .wait_for(|s| !matches!(s, Ok(n) if *n < upto))
            .await
            .map_err(|_| io::Error::other("the journal's sync thread stopped"))?;
        match &*reached {
            Ok(_) => Ok(()),
            Err(Stopped::Sync(e)) => Err(JournalError::Io(io::Error::other(format!(
                "syncing the journal failed: {e}"
            )))),
            Err(Stopped::Lost(lost)) => Err(lost.clone().into()),
        }
    }
}

impl FileJournal {
    /// Creates a new, empty journal file, written while `fence` holds; fails if it already
    /// exists.
    pub(crate) fn create(
        path: PathBuf,
        crypter: Option<Crypter>,
        fence: Arc<Fence>,
    ) -> io::Result<FileJournal> {
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)?;
        if let Some(dir) = path.parent() {
            super::atomic::sync_dir(dir)?;
        }
        let sync = GroupSync::start(file.try_clone()?, fence)?;
        Ok(FileJournal {
            file,
            path,
            crypter,
            len: 0,
            zeroed: 0,
            zeroing: true,
            broken: false,
            line: Vec::new(),
            held: Vec::new(),
            held_lines: 0,
            sync,
        })
    }

    /// Where the entries go (`journal.<epoch>.jsonl`), for messages.
    pub fn path(&self) -> &Path {
        &self.path
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
        encode_entry(entry, self.crypter.as_ref(), &mut self.line)
            .map_err(|e| io::Error::other(format!("{}: {e}", self.path.display())))?;
        reached(FaultPoint::BeforeJournal);
        self.held.extend_from_slice(&self.line);
        self.held_lines += 1;
        if !entry.keeps_only() || self.held.len() >= HELD_BYTES {
            self.write_held()?;
        }
        reached(FaultPoint::AfterJournal);
        Ok(())
    }

    fn sync_point(&self) -> Option<SyncPoint> {
        Some(SyncPoint {
            durability: self.sync.clone(),
            upto: self.sync.written.load(Ordering::Acquire),
        })
    }

    fn fenced(&self) -> Result<(), JournalError> {
        Ok(self.sync.fence.check()?)
    }
}

impl FileJournal {
    /// Writes the held lines in one `write`, over zeros written first if they run past them.
    fn write_held(&mut self) -> Result<(), JournalError> {
        let end = self.len + self.held.len() as u64;
        if end > self.zeroed && self.zeroing && self.write_zeros(end + ZEROED_AHEAD).is_err() {
            // The zeros only save time: where there is no room for them, the lines are
            // appended, and the room the zeros took is given back first.
            self.zeroing = false;
            self.zeroed = self.len;
            let _ = self.file.set_len(self.len);
        }
        if let Err(e) = self.file.write_all_at(&self.held, self.len) {
            // A partial line in the middle would make the file unreadable: cut it off and
            // refuse further entries, so that what was recorded before stays loadable.
            self.broken = true;
            let _ = self.file.set_len(self.len);
            return Err(JournalError::Io(io::Error::new(
                e.kind(),
                format!("{}: {e}", self.path.display()),
            )));
        }
        self.len = end;
        self.zeroed = self.zeroed.max(end);
        self.held.clear();
        self.sync
            .written
            .fetch_add(std::mem::take(&mut self.held_lines), Ordering::Release);
        Ok(())
    }

    /// Extends the file with zeros to `to`; the lines written so far are not touched.
    fn write_zeros(&mut self, to: u64) -> io::Result<()> {
        static BLOCK: [u8; 64 * 1024] = [0; 64 * 1024];
        while self.zeroed < to {
            let n = BLOCK.len().min((to - self.zeroed) as usize);
            self.file.write_all_at(&BLOCK[..n], self.zeroed)?;
            self.zeroed += n as u64;
        }
        Ok(())
    }
}

impl Drop for FileJournal {
    fn drop(&mut self) {
        if !self.broken && !self.held.is_empty() {
            let _ = self.write_held();
        }
        self.sync.close();
        let _ = self.file.set_len(self.len);
        let _ = self.file.sync_data();
    }
}

/// A journal file's lines to read back, buffered; no file reads as an empty journal.
pub(crate) fn read_journal<'a>(
    path: &'a Path,
    crypter: Option<&Crypter>,
) -> Result<JournalReader<'a, Box<dyn BufRead>>, StateError> {
    let input: Box<dyn BufRead> = match File::open(path) {
        Ok(file) => Box::new(BufReader::with_capacity(1 << 16, file)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Box::new(io::empty()),
        Err(e) => return Err(StateError::io(path)(e)),
    };
    Ok(JournalReader::new(path, input, crypter.cloned()))
}

/// Whether a journal file (none counts as empty) only keeps base states as they were, so
/// that the checkpoint already is the stack's state. Stops at the first entry that does
/// more (the first line of any run that changed something), without keeping the entries.
pub(crate) fn journal_keeps_only(
    path: &Path,
    crypter: Option<&Crypter>,
) -> Result<bool, StateError> {
    let mut journal = read_journal(path, crypter)?;
    while let Some(entry) = journal.next_decoded()? {
        if !entry.keeps_only() {
            return Ok(false);
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::JournalEntry;
    use crate::state::stack_lock::held_for_tests;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn waiters_of_a_group_commit_all_return_once_their_lines_are_synced() {
        let dir = tempfile::tempdir().unwrap();
        let mut journal =
            FileJournal::create(dir.path().join("journal.1.jsonl"), None, held_for_tests())
                .unwrap();
        let mut points = Vec::new();
        for op in 0..16 {
            journal.append(&JournalEntry::Failure { op }).unwrap();
            points.push(journal.sync_point().expect("a file journal syncs"));
        }
        assert_eq!(points.last().unwrap().upto, 16);
        let waiters: Vec<_> = points
            .into_iter()
            .map(|p| tokio::spawn(async move { p.durability.wait(p.upto).await }))
            .collect();
        for w in waiters {
            w.await.unwrap().unwrap();
        }
        assert_eq!(*journal.sync.synced.borrow(), Ok(16));
        // Nothing new to wait for: no sync needed.
        let point = journal.sync_point().unwrap();
        point.durability.wait(point.upto).await.unwrap();
    }

    fn keep(i: usize) -> JournalEntry {
        JournalEntry::Success {
            op: None,
            new: None,
            keep_old: Some(i),
            remove_old: None,
            mark_delete_old: None,
            pending_replacement_old: None,
            supersede_new: None,
        }
    }

    /// The file's complete lines, as loading reads them (not the zeros written ahead).
    fn lines(path: &Path) -> Vec<String> {
        let text = std::fs::read_to_string(path).unwrap();
        let complete = &text[..text.rfind('\n').map_or(0, |at| at + 1)];
        complete.lines().map(str::to_string).collect()
    }

    #[test]
    fn lines_are_written_over_zeros_ahead_that_go_when_the_journal_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.1.jsonl");
        let mut journal = FileJournal::create(path.clone(), None, held_for_tests()).unwrap();
        journal.append(&JournalEntry::Failure { op: 1 }).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let first = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
        assert_eq!(bytes.len() as u64, first as u64 + ZEROED_AHEAD);
        assert!(bytes[first..].iter().all(|&b| b == 0));
        // What a kill leaves now loads as the one line.
        let mut reader = read_journal(&path, None).unwrap();
        assert!(matches!(
            reader.next_decoded().unwrap(),
            Some(JournalEntry::Failure { op: 1 })
        ));
        assert!(reader.next_decoded().unwrap().is_none());
        // Lines that reach the end of the zeros write more ahead of them.
        let mut appended = 1;
        while std::fs::metadata(&path).unwrap().len() <= first as u64 + ZEROED_AHEAD {
            journal.append(&keep(appended)).unwrap();
            appended += 1;
        }
        drop(journal);
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes.last(), Some(&b'\n'), "the zeros are cut off");
        assert!(!bytes.contains(&0));
        assert_eq!(lines(&path).len(), appended);
    }

    #[test]
    fn keeps_are_held_until_a_line_that_does_more_and_the_file_stays_a_prefix() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.1.jsonl");
        let mut journal = FileJournal::create(path.clone(), None, held_for_tests()).unwrap();
        journal.append(&keep(0)).unwrap();
        journal.append(&keep(1)).unwrap();
        assert!(lines(&path).is_empty(), "keeps alone are held");
        assert_eq!(journal.sync_point().unwrap().upto, 0);
        journal.append(&JournalEntry::Failure { op: 4 }).unwrap();
        let written = lines(&path);
        assert_eq!(written.len(), 3, "{written:?}");
        assert!(written[0].contains("\"keepOld\":0"), "{written:?}");
        assert!(written[1].contains("\"keepOld\":1"), "{written:?}");
        assert!(written[2].contains("\"failure\""), "{written:?}");
        assert_eq!(journal.sync_point().unwrap().upto, 3);
        journal.append(&keep(2)).unwrap();
        assert_eq!(lines(&path).len(), 3);
        drop(journal);
        assert_eq!(
            lines(&path).len(),
            4,
            "the journal's drop writes what it held"
        );
    }

    #[test]
    fn held_keeps_are_written_once_they_fill_the_hold() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.1.jsonl");
        let mut journal = FileJournal::create(path.clone(), None, held_for_tests()).unwrap();
        let mut line = Vec::new();
        encode_entry(&keep(0), None, &mut line).unwrap();
        let per_write = HELD_BYTES.div_ceil(line.len());
        for i in 0..per_write {
            journal.append(&keep(i % 10)).unwrap();
        }
        assert_eq!(lines(&path).len(), per_write);
        journal.append(&keep(0)).unwrap();
        assert_eq!(lines(&path).len(), per_write);
    }

    #[test]
    fn an_entry_without_secrets_is_written_straight_and_one_with_them_is_encrypted() {
        use crate::engine::model::resource::OperationType;
        use crate::engine::{PropertyMap, PropertyValue, ResourceState, Urn};
        let mut inputs = PropertyMap::new();
        inputs.insert("size".into(), PropertyValue::Number(3.5));
        inputs.insert(
            "tags".into(),
            PropertyValue::Array(vec![
                PropertyValue::string("a\"b"),
                PropertyValue::Bool(true),
            ]),
        );
        let mut state = ResourceState {
            urn: Urn::new("s", "p", None, "t:i:R", "r"),
            type_: "t:i:R".into(),
            custom: true,
            outputs: inputs.clone(),
            inputs,
            ..ResourceState::default()
        };
        let begin = |state: &ResourceState| JournalEntry::Begin {
            op: 7,
            operation: OperationType::Creating,
            state: state.clone(),
        };
        let mut line = Vec::new();
        encode_entry(&begin(&state), None, &mut line).unwrap();
        let mut tree = serde_json::to_vec(&serde_json::to_value(begin(&state)).unwrap()).unwrap();
        tree.push(b'\n');
        assert_eq!(
            String::from_utf8(line.clone()).unwrap(),
            String::from_utf8(tree).unwrap(),
            "the same bytes as through a JSON tree"
        );

        state.outputs.insert(
            "password".into(),
            PropertyValue::Secret(Box::new(PropertyValue::string("hunter2"))),
        );
        assert!(encode_entry(&begin(&state), None, &mut line).is_err());
        let crypter = Crypter::new_salt("passphrase");
        encode_entry(&begin(&state), Some(&crypter), &mut line).unwrap();
        let text = String::from_utf8(line.clone()).unwrap();
        assert!(
            !text.contains("hunter2") && text.contains("ciphertext"),
            "{text}"
        );
        let outputs = JournalEntry::Outputs {
            new: 0,
            outputs: state.outputs.clone(),
        };
        encode_entry(&outputs, Some(&crypter), &mut line).unwrap();
        assert!(!String::from_utf8(line).unwrap().contains("hunter2"));
    }

    #[test]
    fn a_journal_that_changes_something_is_told_by_its_first_such_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.1.jsonl");
        assert!(journal_keeps_only(&path, None).unwrap(), "no journal");
        let keep = serde_json::to_string(&keep(0)).unwrap();
        let fail = serde_json::to_string(&JournalEntry::Failure { op: 1 }).unwrap();
        std::fs::write(&path, format!("{keep}\n{keep}\n{{\"torn")).unwrap();
        assert!(journal_keeps_only(&path, None).unwrap());
        // The scan stops at the failure: the line after it is never read (reading the whole
        // journal would refuse it).
        std::fs::write(&path, format!("{keep}\n{fail}\nnot json\n")).unwrap();
        assert!(!journal_keeps_only(&path, None).unwrap());
        let mut journal = read_journal(&path, None).unwrap();
        assert!(journal.next_entry().unwrap().is_some());
        assert!(journal.next_entry().is_err(), "the failure has not begun");
        std::fs::write(&path, format!("{keep}\nnot json\n")).unwrap();
        let err = journal_keeps_only(&path, None).unwrap_err();
        assert!(
            matches!(err, StateError::Corrupt { line: Some(2), .. }),
            "{err}"
        );
    }
}
