//! The file backend ([`Backend`] on a directory): stacks, the current-stack selection, crash-safe loading and saving of
//! a stack's state (checkpoint plus journal), compaction, and the stack lock.

use std::fs;
use std::io::{self, BufRead};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::engine::Snapshot;

use super::atomic::{Prepared, is_leftover_temp, sync_dir, write_atomic};
use super::backend::{Backend, StackState, StackSummary};
use super::backend_url::BackendUrl;
use super::checkpoint::{
    CHECKPOINT_VERSION, CheckpointFile, SecretsProviderState, StepdeckMeta, check_encryptable,
    parse_deployment_text, recorded_secrets_providers, write_checkpoint_file,
};
use super::error::StateError;
use super::file_journal::{FileJournal, journal_keeps_only, read_journal};
use super::file_lock as lock;
use super::journal_reader::{JournalReader, JournalSummary};
use super::lock_info::LockInfo;
use super::passphrase::{Crypter, SecretsError};
use super::secrets::has_ciphertext;
use super::stack_lock::StackLock;
use super::stack_ref::{StackRef, validate_name};
use super::update_record::UpdateRecord;
use crate::engine::Journal;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

const CHECKPOINT: &str = "checkpoint.json";

#[derive(Serialize, Deserialize)]
struct Workspace {
    stack: String,
}

/// A `file://` backend rooted at `DIR/.stepdeck`.
#[derive(Clone, Debug)]
pub struct FileBackend {
    url: BackendUrl,
    root: PathBuf,
    /// The journal epoch each stack's deployment began on, so that its finish need not read
    /// the checkpoint again; forgotten whenever this backend (or a clone) writes a checkpoint.
    begun: Arc<parking_lot::Mutex<HashMap<StackRef, u64>>>,
}

impl FileBackend {
    /// Opens (and creates if needed) the backend directory.
    pub fn open(url: &BackendUrl) -> Result<FileBackend, StateError> {
        let dir = url.dir().ok_or_else(|| StateError::BadUrl {
            url: url.to_string(),
            reason: "not a file:// URL".into(),
        })?;
        let root = dir.join(".stepdeck");
        fs::create_dir_all(root.join("stacks")).map_err(StateError::io(&root))?;
        Ok(FileBackend {
            url: url.clone(),
            root,
            begun: Arc::default(),
        })
    }

    /// The URL this backend was opened with, for messages.
    pub fn url(&self) -> &BackendUrl {
        &self.url
    }

    /// `DIR/.stepdeck`: where everything of this backend lives.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The directory holding one stack's checkpoint, journal and lock.
    pub fn stack_dir(&self, stack: &StackRef) -> PathBuf {
        self.root
            .join("stacks")
            .join(stack.project())
            .join(stack.stack())
    }

    /// The stack's checkpoint file, named in errors about its state.
    pub fn checkpoint_path(&self, stack: &StackRef) -> PathBuf {
        self.stack_dir(stack).join(CHECKPOINT)
    }

    /// The journal file that continues the checkpoint of epoch `epoch`.
    pub fn journal_path(&self, stack: &StackRef, epoch: u64) -> PathBuf {
        self.stack_dir(stack).join(format!("journal.{epoch}.jsonl"))
    }

    fn workspace_path(&self, project: &str) -> PathBuf {
        self.root.join("workspaces").join(format!("{project}.json"))
    }

    /// Whether the stack was created (its checkpoint exists).
    pub fn stack_exists(&self, stack: &StackRef) -> bool {
        self.checkpoint_path(stack).is_file()
    }

    fn require(&self, stack: &StackRef) -> Result<(), StateError> {
        if self.stack_exists(stack) {
            Ok(())
        } else {
            Err(self.missing(stack))
        }
    }

    /// The error for a stack without a checkpoint: no such stack, or, when a journal is
    /// there, a state that lost its checkpoint (starting over would create its resources twice).
    fn missing(&self, stack: &StackRef) -> StateError {
        match self.journals(stack) {
            Ok(journals) if !journals.is_empty() => StateError::OrphanJournal {
                stack: stack.to_string(),
                checkpoint: self.checkpoint_path(stack),
                journal: journals[journals.len() - 1].1.clone(),
            },
            Ok(_) => StateError::NoSuchStack {
                stack: stack.to_string(),
            },
            Err(e) => e,
        }
    }

    /// Whether the stack exists (`Ok(false)`: it can be created); a journal without its
    /// checkpoint is an error, never a stack to start afresh.
    pub fn check_exists(&self, stack: &StackRef) -> Result<bool, StateError> {
        match self.require(stack) {
            Ok(()) => Ok(true),
            Err(StateError::NoSuchStack { .. }) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// The journal files of a stack's directory, by epoch (names that are not
    /// `journal.<u64>.jsonl` are not ours and are left alone).
    fn journals(&self, stack: &StackRef) -> Result<Vec<(u64, PathBuf)>, StateError> {
        let dir = self.stack_dir(stack);
        let entries = match fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(StateError::io(&dir)(e)),
        };
        let mut out = Vec::new();
        for entry in entries {
            let entry = entry.map_err(StateError::io(&dir))?;
            let name = entry.file_name();
            let epoch = name
                .to_str()
                .and_then(|n| n.strip_prefix("journal."))
                .and_then(|n| n.strip_suffix(".jsonl"))
                .and_then(|n| n.parse::<u64>().ok());
            if let Some(epoch) = epoch {
                out.push((epoch, entry.path()));
            }
        }
        out.sort();
        Ok(out)
    }

    /// Takes the stack's lock, creating the stack under it when it does not exist (`true`):
    /// concurrent first uses see one creation, and whatever the creator sets up under the lock
    /// (its secrets settings) before any other process can start on the stack.
    pub fn lock_or_create(
        &self,
        stack: &StackRef,
        operation: &str,
    ) -> Result<(StackLock, bool), StateError> {
        let dir = self.stack_dir(stack);
        fs::create_dir_all(&dir).map_err(StateError::io(&dir))?;
        let lock = lock::acquire(stack, &dir, operation)?;
        if self.check_exists(stack)? {
            return Ok((lock, false));
        }
        self.write_checkpoint(&lock, &Snapshot::default(), 0, None, None)?;
        Ok((lock, true))
    }

    /// The stacks of a project, by name.
    pub fn list_stacks(&self, project: &str) -> Result<Vec<StackSummary>, StateError> {
        validate_name("project", project)?;
        let dir = self.root.join("stacks").join(project);
        let entries = match fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(StateError::io(&dir)(e)),
        };
        let current = self.current_stack(project)?;
        let mut out = Vec::new();
        for entry in entries {
            let entry = entry.map_err(StateError::io(&dir))?;
            let Some(name) = entry.file_name().to_str().map(str::to_string) else {
                continue;
            };
            let Ok(stack) = StackRef::new(project, &name) else {
                continue;
            };
            if !self.stack_exists(&stack) {
                continue;
            }
            let file = self.read_checkpoint(&stack)?;
            let latest = file.checkpoint.latest.as_ref();
            out.push(StackSummary {
                current: current.as_deref() == Some(name.as_str()),
                resource_count: latest
                    .and_then(|l| l.get("resources"))
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len),
                last_update: latest
                    .and_then(|l| l.pointer("/manifest/time"))
                    .and_then(Value::as_str)
                    .map(str::to_string),
                // A corrupt lock file is reported by `lock` and `unlock`, not here.
                lock: lock::read_lock(&self.stack_dir(&stack)).ok().flatten(),
                name,
            });
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    /// Removes a stack; refuses while it is locked, or unless `force` while it may have
    /// resources: in its checkpoint, in a journal of an unfinished deployment, or in a
    /// checkpoint too damaged to tell.
    pub fn remove_stack(&self, stack: &StackRef, force: bool) -> Result<(), StateError> {
        let dir = self.stack_dir(stack);
        let held = if force && !self.stack_exists(stack) && dir.is_dir() {
            lock::acquire(stack, &dir, "remove")?
        } else {
            self.lock(stack, "remove")?
        };
        if !force {
            self.check_empty(stack)?;
        }
        lock::fenced(&held, &dir, || {
            fs::remove_dir_all(&dir).map_err(StateError::io(&dir))
        })?;
        drop(held);
        if self.current_stack(stack.project())?.as_deref() == Some(stack.stack()) {
            let ws = self.workspace_path(stack.project());
            fs::remove_file(&ws).map_err(StateError::io(&ws))?;
        }
        Ok(())
    }

    /// Refuses unless the stack's state certainly holds no resource.
    fn check_empty(&self, stack: &StackRef) -> Result<(), StateError> {
        let (path, bytes) = self.checkpoint_bytes(stack)?;
        let file: RawCheckpointFile<'_> =
            serde_json::from_slice(&bytes).map_err(|e| corrupt(&path, e.to_string()))?;
        check_version(&path, file.version, &file.features)?;
        let mut count = 0;
        if let Some(latest) = file.checkpoint.latest {
            let latest: Value =
                serde_json::from_str(latest.get()).map_err(|e| corrupt(&path, e.to_string()))?;
            for key in ["resources", "pending_operations"] {
                match latest.get(key) {
                    None | Some(Value::Null) => {}
                    Some(Value::Array(items)) => count += items.len(),
                    Some(_) => {
                        return Err(corrupt(
                            &path,
                            format!(
                                "checkpoint.latest.{key} is not an array: the stack may still have \
                                 resources; remove it with --force only if you are sure it has none"
                            ),
                        ));
                    }
                }
            }
            if !latest.is_object() && !latest.is_null() {
                return Err(corrupt(&path, "checkpoint.latest is not an object".into()));
            }
        }
        if count > 0 {
            return Err(StateError::HasResources {
                stack: stack.to_string(),
                count,
            });
        }
        let epoch = file.stepdeck.journal_epoch;
        for (e, journal) in self.journals(stack)? {
            let recorded = fs::read(&journal)
                .map_err(StateError::io(&journal))?
                .contains(&b'\n');
            if e >= epoch && recorded {
                return Err(StateError::UnfinishedJournal {
                    stack: stack.to_string(),
                    journal,
                });
            }
        }
        Ok(())
    }

    /// The project's selected stack, if one is selected and still exists.
    pub fn current_stack(&self, project: &str) -> Result<Option<String>, StateError> {
        validate_name("project", project)?;
        let path = self.workspace_path(project);
        let bytes = match fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(StateError::io(&path)(e)),
        };
        let ws: Workspace = serde_json::from_slice(&bytes).map_err(|e| StateError::Corrupt {
            path: path.clone(),
            line: None,
            message: e.to_string(),
        })?;
        let exists = StackRef::new(project, &ws.stack).is_ok_and(|s| self.stack_exists(&s));
        Ok(exists.then_some(ws.stack))
    }

    /// Makes `stack` the project's current stack; it must exist.
    pub fn select_stack(&self, stack: &StackRef) -> Result<(), StateError> {
        self.require(stack)?;
        let path = self.workspace_path(stack.project());
        let dir = self.root.join("workspaces");
        fs::create_dir_all(&dir).map_err(StateError::io(&dir))?;
        let ws = Workspace {
            stack: stack.stack().to_string(),
        };
        write_atomic(
            &path,
            &serde_json::to_vec(&ws).expect("workspace serializes"),
        )
        .map_err(StateError::io(&path))
    }

    /// Takes the stack's update lock (see [`StackLock`]); every write of state needs it.
    pub fn lock(&self, stack: &StackRef, operation: &str) -> Result<StackLock, StateError> {
        self.require(stack)?;
        lock::acquire(stack, &self.stack_dir(stack), operation)
    }

    /// `stack unlock`: removes the lock if its holder is gone, or whatever holds it with
    /// `force`; returns the lock removed.
    pub fn unlock(&self, stack: &StackRef, force: bool) -> Result<Option<LockInfo>, StateError> {
        self.require(stack)?;
        lock::unlock(stack, &self.stack_dir(stack), force)
    }

    /// Who holds the stack's lock, if anyone.
    pub fn lock_holder(&self, stack: &StackRef) -> Result<Option<LockInfo>, StateError> {
        self.require(stack)?;
        lock::read_lock(&self.stack_dir(stack))
    }

    pub(crate) fn read_checkpoint(&self, stack: &StackRef) -> Result<CheckpointFile, StateError> {
        let (path, bytes) = self.checkpoint_bytes(stack)?;
        let file: CheckpointFile =
            serde_json::from_slice(&bytes).map_err(|e| corrupt(&path, e.to_string()))?;
        check_version(&path, file.version, &file.features)?;
        Ok(file)
    }

    fn checkpoint_bytes(&self, stack: &StackRef) -> Result<(PathBuf, Vec<u8>), StateError> {
        let path = self.checkpoint_path(stack);
        match fs::read(&path) {
            Ok(b) => Ok((path, b)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Err(self.missing(stack)),
            Err(e) => Err(StateError::io(&path)(e)),
        }
    }

    /// Loads a stack: the checkpoint, plus its journal replayed (a torn last line ignored),
    /// integrity checked. `crypter` decrypts secrets; without one, a stack with secrets fails.
    /// Needs no lock: a compaction running meanwhile is detected and the read retried.
    pub fn load(
        &self,
        stack: &StackRef,
        crypter: Option<&Crypter>,
    ) -> Result<StackState, StateError> {
        self.load_verified(stack, crypter, true)
    }

    /// [`Backend::load`] without the integrity check: for `state repair`, the one reader that
    /// must see a state that fails it.
    pub fn load_unchecked(
        &self,
        stack: &StackRef,
        crypter: Option<&Crypter>,
    ) -> Result<StackState, StateError> {
        self.load_verified(stack, crypter, false)
    }

    fn load_verified(
        &self,
        stack: &StackRef,
        crypter: Option<&Crypter>,
        verify: bool,
    ) -> Result<StackState, StateError> {
        let path = self.checkpoint_path(stack);
        loop {
            let before = file_version(&path);
            let state = self.load_once(stack, crypter, verify);
            if file_version(&path) == before {
                return state;
            }
        }
    }

    fn load_once(
        &self,
        stack: &StackRef,
        crypter: Option<&Crypter>,
        verify: bool,
    ) -> Result<StackState, StateError> {
        let (path, bytes) = self.checkpoint_bytes(stack)?;
        let file = parse_checkpoint(&path, &bytes)?;
        let journal = self.journal_path(stack, file.stepdeck.journal_epoch);
        let (state, _) =
            decode_state(&path, &file, |c| read_journal(&journal, c), crypter, verify)?;
        Ok(state)
    }

    /// Folds the journal into a new checkpoint (epoch + 1) and removes the old journal. At
    /// every instant the files on disk load to the same state: the old journal is ignored as
    /// soon as the new checkpoint names a newer epoch.
    pub fn compact(
        &self,
        lock: &StackLock,
        crypter: Option<&Crypter>,
    ) -> Result<StackState, StateError> {
        let stack = lock.stack();
        let mut state = self.load(stack, crypter)?;
        let providers = crypter
            .map(SecretsProviderState::passphrase)
            .or(state.secrets_providers.take());
        state.epoch = self.next_epoch(stack, state.epoch)?;
        // `load` checked the snapshot's integrity: checking it again costs a fifth of the
        // compaction of a large first deployment.
        self.write_verified_checkpoint(
            lock,
            &state.snapshot,
            state.epoch,
            providers.as_ref(),
            crypter,
        )?;
        state.secrets_providers = providers;
        Ok(state)
    }

    /// Starts a deployment: compacts when an earlier run left a journal (or the checkpoint
    /// must record this crypter's secrets provider first, its journal being encrypted under
    /// it), then opens the epoch's journal (under the stack's write guard, as the lock's
    /// holder). Pass the snapshot to the engine as its base and the journal as its journal. A
    /// checkpoint at the last epoch is refused here, before anything runs: the run could not
    /// fold its journal in at its end.
    pub fn begin_deployment(
        &self,
        lock: &StackLock,
        crypter: Option<&Crypter>,
    ) -> Result<(Snapshot, FileJournal), StateError> {
        let stack = lock.stack();
        let loaded = self.load(stack, crypter)?;
        let journal_left = self.journal_path(stack, loaded.epoch).exists();
        let current =
            SecretsProviderState::written_under(loaded.secrets_providers.as_ref(), crypter);
        let state = if journal_left || !current {
            self.compact(lock, crypter)?
        } else {
            // The checkpoint already is the whole state: rewriting it would only cost time.
            loaded
        };
        self.following(stack, state.epoch)?;
        let path = self.journal_path(stack, state.epoch);
        let journal = lock::fenced(lock, &self.stack_dir(stack), || {
            self.remove_old_journals(lock, state.epoch, None)?;
            FileJournal::create(path.clone(), crypter.cloned(), lock.fence().clone())
                .map_err(StateError::io(&path))
        })?;
        self.begun.lock().insert(stack.clone(), state.epoch);
        Ok((state.snapshot, journal))
    }

    /// Ends a deployment (after the engine dropped the journal): folds the journal into the
    /// checkpoint. A journal that only kept resources as they were changes nothing, so the
    /// checkpoint stays (not even decoded: only its epoch is read) and the journal goes.
    pub fn finish_deployment(
        &self,
        lock: &StackLock,
        crypter: Option<&Crypter>,
    ) -> Result<(), StateError> {
        let stack = lock.stack();
        let epoch = {
            let (path, bytes) = self.checkpoint_bytes(stack)?;
            parse_checkpoint(&path, &bytes)?.stepdeck.journal_epoch
        };
        if self.journal_kept_only(lock, epoch, crypter)? {
            return Ok(());
        }
        self.compact(lock, crypter).map(drop)
    }

    /// [`FileBackend::finish_deployment`] given the engine's final snapshot, which is the state
    /// its journal replays to (the engine applies each entry as it appends it): the checkpoint
    /// is written from it, so the journal is never read back and replayed. Until the new
    /// checkpoint is in place the journal stays the record, as it does for a run that died.
    pub fn finish_deployment_from(
        &self,
        lock: &StackLock,
        crypter: Option<&Crypter>,
        snapshot: &Snapshot,
    ) -> Result<(), StateError> {
        let stack = lock.stack();
        // The lock was held since the deployment began, so its epoch is still the checkpoint's.
        let begun = self.begun.lock().remove(stack);
        if let Some(epoch) = begun
            && self.journal_kept_only(lock, epoch, crypter)?
        {
            return Ok(());
        }
        let (path, bytes) = self.checkpoint_bytes(stack)?;
        let file = parse_checkpoint(&path, &bytes)?;
        let epoch = file.stepdeck.journal_epoch;
        if begun.is_none() && self.journal_kept_only(lock, epoch, crypter)? {
            return Ok(());
        }
        let providers = match (crypter, file.checkpoint.latest) {
            (Some(c), _) => Some(SecretsProviderState::passphrase(c)),
            (None, None) => None,
            (None, Some(latest)) => {
                recorded_secrets_providers(latest.get(), "checkpoint.latest")
                    .map_err(|e| corrupt(&path, format!("{}: {}", e.field, e.message)))?
            }
        };
        let epoch = self.next_epoch(stack, epoch)?;
        self.write_checkpoint(lock, snapshot, epoch, providers.as_ref(), crypter)
    }

    /// Whether the journal of `epoch` only kept resources as they were; it is removed then
    /// (by the lock's holder only), since the checkpoint already is the stack's state.
    fn journal_kept_only(
        &self,
        lock: &StackLock,
        epoch: u64,
        crypter: Option<&Crypter>,
    ) -> Result<bool, StateError> {
        let stack = lock.stack();
        let journal = self.journal_path(stack, epoch);
        if !journal_keeps_only(&journal, crypter)? {
            return Ok(false);
        }
        lock::fenced(
            lock,
            &self.stack_dir(stack),
            || match std::fs::remove_file(&journal) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => Err(StateError::io(&journal)(e)),
                _ => Ok(true),
            },
        )
    }

    /// The passphrase salt the stack's checkpoint was last written with, read without
    /// decrypting anything: it tells a rotation that was interrupted after the state moved.
    pub fn recorded_salt(&self, stack: &StackRef) -> Result<Option<String>, StateError> {
        let providers = self.read_checkpoint(stack)?.secrets_providers();
        Ok(providers.and_then(|p| p.salt().map(str::to_string)))
    }

    /// Replaces the stack's state with `snapshot` (a new checkpoint, journal cleared).
    pub fn save(
        &self,
        lock: &StackLock,
        snapshot: &Snapshot,
        crypter: Option<&Crypter>,
    ) -> Result<(), StateError> {
        let stack = lock.stack();
        let file = self.read_checkpoint(stack)?;
        let providers = file.providers_for(crypter);
        let epoch = self.next_epoch(stack, file.stepdeck.journal_epoch)?;
        self.write_checkpoint(lock, snapshot, epoch, providers.as_ref(), crypter)
    }

    /// The epoch after `epoch`, which must not wrap: a checkpoint at the last epoch cannot be
    /// compacted, and is refused with the way out.
    fn following(&self, stack: &StackRef, epoch: u64) -> Result<u64, StateError> {
        epoch
            .checked_add(1)
            .ok_or_else(|| last_epoch(&self.checkpoint_path(stack), epoch))
    }

    /// The epoch after `epoch` ([`FileBackend::following`]). No journal of it or later may
    /// exist yet: such a journal was not written by the deployments of this checkpoint, and
    /// adopting it would replay entries against the wrong state.
    fn next_epoch(&self, stack: &StackRef, epoch: u64) -> Result<u64, StateError> {
        let next = self.following(stack, epoch)?;
        for (e, journal) in self.journals(stack)? {
            let empty = fs::metadata(&journal)
                .map_err(StateError::io(&journal))?
                .len()
                == 0;
            if e >= next && !empty {
                return Err(StateError::StrayJournal {
                    journal,
                    epoch: next,
                });
            }
        }
        Ok(next)
    }

    /// Writes the checkpoint of `epoch` atomically, then removes the journals it absorbed
    /// (earlier epochs) and temporaries left by interrupted writes.
    fn write_checkpoint(
        &self,
        lock: &StackLock,
        snapshot: &Snapshot,
        epoch: u64,
        providers: Option<&SecretsProviderState>,
        crypter: Option<&Crypter>,
    ) -> Result<(), StateError> {
        snapshot
            .verify_integrity()
            .map_err(|source| StateError::Integrity {
                path: self.checkpoint_path(lock.stack()),
                source,
            })?;
        self.write_verified_checkpoint(lock, snapshot, epoch, providers, crypter)
    }

    /// [`FileBackend::write_checkpoint`] of a snapshot whose integrity the caller checked. The
    /// file is written and synced under a temporary name; only the rename and the removal of
    /// the journals it absorbed happen under the stack's write guard, as the lock's holder.
    fn write_verified_checkpoint(
        &self,
        lock: &StackLock,
        snapshot: &Snapshot,
        epoch: u64,
        providers: Option<&SecretsProviderState>,
        crypter: Option<&Crypter>,
    ) -> Result<(), StateError> {
        let stack = lock.stack();
        self.begun.lock().remove(stack);
        let path = self.checkpoint_path(stack);
        check_encryptable(snapshot, crypter).map_err(|source| StateError::Secrets {
            path: path.clone(),
            source,
        })?;
        let qualified = stack.qualified();
        let prepared = Prepared::write(&path, |out| {
            write_checkpoint_file(out, &qualified, snapshot, epoch, providers, crypter)
        })
        .map_err(StateError::io(&path))?;
        lock::fenced(lock, &self.stack_dir(stack), || {
            prepared.commit().map_err(StateError::io(&path))?;
            self.remove_stale_files(lock, epoch)
        })
    }

    /// Removes the journals of epochs before `epoch` (the checkpoint's, just written) and
    /// leftover temporaries.
    fn remove_stale_files(&self, lock: &StackLock, epoch: u64) -> Result<(), StateError> {
        let dir = self.stack_dir(lock.stack());
        self.remove_old_journals(lock, epoch, epoch.checked_sub(1))?;
        for entry in fs::read_dir(&dir).map_err(StateError::io(&dir))? {
            let entry = entry.map_err(StateError::io(&dir))?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            if is_leftover_temp(name) && name.contains(CHECKPOINT) {
                let p = entry.path();
                fs::remove_file(&p).map_err(StateError::io(&p))?;
            }
        }
        sync_dir(&dir).map_err(StateError::io(&dir))
    }

    /// Removes the journals of epochs before `epoch`, under the write guard. The journal of
    /// epoch `folded` (the one a compaction just absorbed) goes without a word; any other that
    /// holds entries is reported first: the checkpoint does not replay it (its entries were
    /// folded in by a compaction interrupted before it removed the journal, or written after
    /// their deployment lost the stack's lock).
    fn remove_old_journals(
        &self,
        lock: &StackLock,
        epoch: u64,
        folded: Option<u64>,
    ) -> Result<(), StateError> {
        for (e, journal) in self.journals(lock.stack())? {
            if e >= epoch {
                continue;
            }
            if Some(e) != folded && holds_entries(&journal)? {
                lock.notify(format!(
                    "removed {}: a journal of epoch {e}, older than the checkpoint's epoch {epoch}, \
                     which does not replay it (its entries were folded in by a compaction \
                     interrupted before it removed the journal, or written after its deployment \
                     lost the stack's lock)",
                    journal.display()
                ));
            }
            fs::remove_file(&journal).map_err(StateError::io(&journal))?;
        }
        Ok(())
    }
}

/// Whether a journal file holds an entry (its first line begins one; a journal of a run
/// killed before its first entry holds nothing or zeros).
fn holds_entries(journal: &Path) -> Result<bool, StateError> {
    let mut first = [0u8; 1];
    let read = fs::File::open(journal)
        .and_then(|mut f| io::Read::read(&mut f, &mut first))
        .map_err(StateError::io(journal))?;
    Ok(read == 1 && first[0] == b'{')
}

impl Backend for FileBackend {
    fn url(&self) -> &BackendUrl {
        &self.url
    }

    fn kind(&self) -> &'static str {
        "file"
    }

    fn location(&self, stack: &StackRef) -> PathBuf {
        self.checkpoint_path(stack)
    }

    fn check_exists(&self, stack: &StackRef) -> Result<bool, StateError> {
        FileBackend::check_exists(self, stack)
    }

    fn stack_exists(&self, stack: &StackRef) -> bool {
        FileBackend::stack_exists(self, stack)
    }

    fn lock_or_create(
        &self,
        stack: &StackRef,
        operation: &str,
    ) -> Result<(StackLock, bool), StateError> {
        FileBackend::lock_or_create(self, stack, operation)
    }

    fn list_stacks(&self, project: &str) -> Result<Vec<StackSummary>, StateError> {
        FileBackend::list_stacks(self, project)
    }

    fn remove_stack(&self, stack: &StackRef, force: bool) -> Result<(), StateError> {
        FileBackend::remove_stack(self, stack, force)
    }

    fn current_stack(&self, project: &str) -> Result<Option<String>, StateError> {
        FileBackend::current_stack(self, project)
    }

    fn select_stack(&self, stack: &StackRef) -> Result<(), StateError> {
        FileBackend::select_stack(self, stack)
    }

    fn lock(&self, stack: &StackRef, operation: &str) -> Result<StackLock, StateError> {
        FileBackend::lock(self, stack, operation)
    }

    fn unlock(&self, stack: &StackRef, force: bool) -> Result<Option<LockInfo>, StateError> {
        FileBackend::unlock(self, stack, force)
    }

    fn lock_holder(&self, stack: &StackRef) -> Result<Option<LockInfo>, StateError> {
        FileBackend::lock_holder(self, stack)
    }

    fn load(&self, stack: &StackRef, crypter: Option<&Crypter>) -> Result<StackState, StateError> {
        FileBackend::load(self, stack, crypter)
    }

    fn load_unchecked(
        &self,
        stack: &StackRef,
        crypter: Option<&Crypter>,
    ) -> Result<StackState, StateError> {
        FileBackend::load_unchecked(self, stack, crypter)
    }

    fn begin_deployment(
        &self,
        lock: &StackLock,
        crypter: Option<&Crypter>,
    ) -> Result<(Snapshot, Box<dyn Journal>), StateError> {
        let (base, journal) = FileBackend::begin_deployment(self, lock, crypter)?;
        Ok((base, Box::new(journal)))
    }

    fn finish_deployment(
        &self,
        lock: &StackLock,
        crypter: Option<&Crypter>,
    ) -> Result<(), StateError> {
        FileBackend::finish_deployment(self, lock, crypter)
    }

    fn finish_deployment_from(
        &self,
        lock: &StackLock,
        crypter: Option<&Crypter>,
        snapshot: &Snapshot,
    ) -> Result<(), StateError> {
        FileBackend::finish_deployment_from(self, lock, crypter, snapshot)
    }

    fn recorded_salt(&self, stack: &StackRef) -> Result<Option<String>, StateError> {
        FileBackend::recorded_salt(self, stack)
    }

    fn save(
        &self,
        lock: &StackLock,
        snapshot: &Snapshot,
        crypter: Option<&Crypter>,
    ) -> Result<(), StateError> {
        FileBackend::save(self, lock, snapshot, crypter)
    }

    fn record_update(
        &self,
        lock: &StackLock,
        record: UpdateRecord,
    ) -> Result<UpdateRecord, StateError> {
        FileBackend::record_update(self, lock, record)
    }

    fn history(&self, stack: &StackRef) -> Result<Vec<UpdateRecord>, StateError> {
        FileBackend::history(self, stack)
    }

    fn user_tags(&self, stack: &StackRef) -> Result<BTreeMap<String, String>, StateError> {
        FileBackend::user_tags(self, stack)
    }

    fn save_user_tags(
        &self,
        lock: &StackLock,
        tags: &BTreeMap<String, String>,
    ) -> Result<(), StateError> {
        FileBackend::save_user_tags(self, lock, tags)
    }

    fn rename_stack(
        &self,
        lock: StackLock,
        new: &StackRef,
        crypter: Option<&Crypter>,
    ) -> Result<(), StateError> {
        FileBackend::rename_stack(self, lock, new, crypter)
    }
}

/// A checkpoint file as loaded: `latest` stays text until it is decoded resource by resource.
#[derive(Deserialize)]
pub(crate) struct RawCheckpointFile<'a> {
    version: u64,
    #[serde(default)]
    features: Vec<String>,
    #[serde(borrow)]
    pub(crate) checkpoint: RawCheckpointBody<'a>,
    #[serde(default)]
    pub(crate) stepdeck: StepdeckMeta,
}

#[derive(Deserialize)]
pub(crate) struct RawCheckpointBody<'a> {
    #[serde(borrow, default)]
    pub(crate) latest: Option<&'a RawValue>,
}

/// The checkpoint's deployment as a snapshot, with its secrets provider.
fn decode_base(
    path: &Path,
    latest: Option<&RawValue>,
    crypter: Option<&Crypter>,
) -> Result<(Snapshot, Option<SecretsProviderState>), StateError> {
    let Some(latest) = latest else {
        return Ok((Snapshot::default(), None));
    };
    let text = latest.get();
    if crypter.is_none()
        && text.contains("ciphertext")
        && serde_json::from_str::<Value>(text).is_ok_and(|v| has_ciphertext(&v))
    {
        return Err(StateError::Secrets {
            path: path.to_path_buf(),
            source: SecretsError::NoPassphrase,
        });
    }
    let d = parse_deployment_text(text, "checkpoint.latest", crypter)
        .map_err(|e| corrupt(path, format!("{}: {}", e.field, e.message)))?;
    Ok((d.snapshot, d.secrets_providers))
}

/// Parses a checkpoint document (the file's bytes, or a database row) and checks its version;
/// `latest` stays text until it is decoded resource by resource, since a JSON tree of a large
/// stack costs several times the document in memory and time.
pub(crate) fn parse_checkpoint<'a>(
    path: &Path,
    bytes: &'a [u8],
) -> Result<RawCheckpointFile<'a>, StateError> {
    let file: RawCheckpointFile<'_> =
        serde_json::from_slice(bytes).map_err(|e| corrupt(path, e.to_string()))?;
    check_version(path, file.version, &file.features)?;
    Ok(file)
}

/// A stack's state from its checkpoint (`path`) and its journal (opened by `journal` once
/// the checkpoint decoded), replayed line by line and, with `verify`, integrity checked, an
/// integrity fault blamed on the checkpoint when the checkpoint alone has it. Returns what the
/// journal held too.
pub(crate) fn decode_state<'a, R: BufRead>(
    path: &Path,
    file: &RawCheckpointFile<'_>,
    journal: impl FnOnce(Option<&Crypter>) -> Result<JournalReader<'a, R>, StateError>,
    crypter: Option<&Crypter>,
    verify: bool,
) -> Result<(StackState, JournalSummary), StateError> {
    let epoch = file.stepdeck.journal_epoch;
    let (base, secrets_providers) = decode_base(path, file.checkpoint.latest, crypter)?;
    // The journal continues the checkpoint, under the salt the checkpoint records.
    let reader =
        SecretsProviderState::reader(secrets_providers.as_ref(), crypter).map_err(|source| {
            StateError::Secrets {
                path: path.to_path_buf(),
                source,
            }
        })?;
    let journal = journal(reader.as_ref())?;
    let journal_path = journal.path().to_path_buf();
    let (snapshot, summary) = journal.replay_onto(base)?;
    let checked = if summary.entries == 0 {
        path.to_path_buf()
    } else {
        journal_path
    };
    if verify && let Err(source) = snapshot.verify_integrity() {
        let base = decode_base(path, file.checkpoint.latest, crypter)?.0;
        return Err(match base.verify_integrity() {
            Err(source) => StateError::Integrity {
                path: path.to_path_buf(),
                source,
            },
            Ok(()) => StateError::Integrity {
                path: checked,
                source,
            },
        });
    }
    Ok((
        StackState {
            snapshot,
            epoch,
            secrets_providers,
        },
        summary,
    ))
}

/// The refusal of a checkpoint (at `path`) whose epoch `epoch` is the last there is, with the
/// way out: the state moved to a fresh stack, whose epochs start again.
pub(crate) fn last_epoch(path: &Path, epoch: u64) -> StateError {
    corrupt(
        path,
        format!(
            "stepdeck.journalEpoch is {epoch}, the last epoch there is: the state cannot be \
             compacted; move it to a fresh stack with `stepdeck stack export --file state.json`, \
             `stepdeck stack rm --force --yes`, `stepdeck stack init` and \
             `stepdeck stack import --file state.json`"
        ),
    )
}

pub(crate) fn corrupt(path: &Path, message: String) -> StateError {
    StateError::Corrupt {
        path: path.to_path_buf(),
        line: None,
        message,
    }
}

fn check_version(path: &Path, version: u64, features: &[String]) -> Result<(), StateError> {
    if version != CHECKPOINT_VERSION || !features.is_empty() {
        return Err(corrupt(
            path,
            format!(
                "checkpoint version {version} with features {features:?} is not supported (expected version {CHECKPOINT_VERSION})"
            ),
        ));
    }
    Ok(())
}

/// Identifies one version of a file: an atomic rename gives the path a new inode.
fn file_version(path: &Path) -> Option<(u64, std::time::SystemTime)> {
    let meta = fs::metadata(path).ok()?;
    #[cfg(unix)]
    let ino = std::os::unix::fs::MetadataExt::ino(&meta);
    #[cfg(not(unix))]
    let ino = meta.len();
    Some((ino, meta.modified().ok()?))
}
