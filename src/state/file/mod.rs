//! The file backend ([`Backend`] on a directory): stacks, the current-stack selection, crash-safe loading and saving of
//! a stack's state (checkpoint plus journal), compaction, and the stack lock.
//!
//! # Layout of a `file://DIR` backend
//!
//! Pulumi's DIY ("self-managed") project-scoped layout, so that `pulumi` reads and writes the
//! same stacks (see `layout`), with stepdeck's own records where Pulumi never looks:
//!
//! ```text
//! DIR/.pulumi/
//!   meta.yaml                 version: 1
//!   stacks/<project>/<stack>.json
//!                             {"version": 3, "checkpoint": {"stack": "organization/<project>/<stack>",
//!                              "latest": DeploymentV3}, "stepdeck": {"journalEpoch": E}}
//!                             (rewritten atomically; the previous one kept as <stack>.json.bak;
//!                              <stack>.json.gz instead with PULUMI_DIY_BACKEND_GZIP, as pulumi
//!                              writes it; the newest of the two is read)
//!   stacks/<project>/<stack>.pulumi-tags   {"version": 1, "tags": {...}}: the user's stack tags
//!   history/<project>/<stack>/<stack>-<nanos>.history.json     one per update (UpdateInfo)
//!   history/<project>/<stack>/<stack>-<nanos>.checkpoint.json  the checkpoint it left
//!   backups/<project>/<stack>/<stack>.<nanos>.json             likewise, unless disabled
//!   locks/organization/<project>/<stack>/<id>.json             Pulumi's lock file, while held
//!   .stepdeck/stacks/<project>/<stack>/
//!     journal.<E>.jsonl       one JournalEntry per line, appended during a deployment
//!     lock.<G>.json           {pid, hostname, user, time, operation, id, expires, generation,
//!                              released?}: the lock of generation G, the highest is current
//!   .stepdeck/workspaces/<project>.json {"stack": "<current stack>"}
//! ```
//!
//! A backend in stepdeck's earlier layout (`DIR/.stepdeck/stacks/...`) is moved into this one
//! when it is opened (`migrate`).

mod atomic;
mod history;
mod journal;
mod layout;
mod lock;
mod migrate;
mod pulumi_lock;
mod rename;
mod tags;

pub use journal::FileJournal;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::engine::Snapshot;

use crate::engine::Journal;
use crate::state::backend::{Backend, StackState, StackSummary};
use crate::state::backend_url::BackendUrl;
use crate::state::codec::checkpoint::{
    CheckpointFile, SecretsProviderState, StepdeckMeta, check_encryptable,
    recorded_secrets_providers, write_checkpoint_file,
};
use crate::state::codec::document::{
    RawCheckpointFile, check_version, corrupt, decode_state, last_epoch, parse_checkpoint,
};
use crate::state::codec::update_events::Compressed;
use crate::state::diy;
use crate::state::error::StateError;
use crate::state::lock_info::LockInfo;
use crate::state::passphrase::Crypter;
use crate::state::stack_lock::StackLock;
use crate::state::stack_ref::{StackRef, validate_name};
use crate::state::update_record::UpdateRecord;

use atomic::{Prepared, is_leftover_temp, sync_dir, write_atomic};
use journal::{journal_keeps_only, read_journal};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

#[derive(Serialize, Deserialize)]
struct Workspace {
    stack: String,
}

/// A `file://` backend rooted at `DIR/.pulumi`.
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
        let root = dir.join(crate::state::diy::PULUMI_DIR);
        layout::ensure_meta(&root)?;
        fs::create_dir_all(root.join("stacks")).map_err(StateError::io(&root))?;
        migrate::from_stepdeck_layout(&dir.join(".stepdeck"), &root)?;
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

    /// `DIR/.pulumi`: where everything of this backend lives.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The journal file that continues the checkpoint of epoch `epoch`.
    pub fn journal_path(&self, stack: &StackRef, epoch: u64) -> PathBuf {
        self.stack_dir(stack).join(format!("journal.{epoch}.jsonl"))
    }

    fn workspace_path(&self, project: &str) -> PathBuf {
        self.ours()
            .join("workspaces")
            .join(format!("{project}.json"))
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
        if let Some(path) = self.compressed_path(stack) {
            return diy::compression::zstd_refused(&path);
        }
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
        let stacks = self.stacks_root().join(stack.project());
        fs::create_dir_all(&stacks).map_err(StateError::io(&stacks))?;
        let lock = self.acquire(stack, operation)?;
        if self.check_exists(stack)? {
            return Ok((lock, false));
        }
        self.write_checkpoint(&lock, &Snapshot::default(), 0, None, None)?;
        Ok((lock, true))
    }

    /// The stacks of a project, by name.
    pub fn list_stacks(&self, project: &str) -> Result<Vec<StackSummary>, StateError> {
        validate_name("project", project)?;
        let dir = self.stacks_root().join(project);
        let entries = match fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(StateError::io(&dir)(e)),
        };
        let current = self.current_stack(project)?;
        let mut out = Vec::new();
        for entry in entries {
            let entry = entry.map_err(StateError::io(&dir))?;
            let Some(name) = entry
                .file_name()
                .to_str()
                .filter(|n| !n.starts_with('.'))
                .map(|n| n.strip_suffix(layout::GZ_EXT).unwrap_or(n))
                .and_then(|n| n.strip_suffix(layout::STACK_EXT))
                .map(str::to_string)
            else {
                continue;
            };
            if out.iter().any(|s: &StackSummary| s.name == name) {
                continue;
            }
            let Ok(stack) = StackRef::new(project, &name) else {
                continue;
            };
            if !self.stack_exists(&stack) {
                continue;
            }
            let file = self.read_checkpoint(&stack)?;
            let latest = file.checkpoint.latest.as_ref();
            let current = current.as_deref() == Some(name.as_str());
            // A corrupt lock file is reported by `lock` and `unlock`, not here.
            let lock = lock::read_lock(&self.stack_dir(&stack)).ok().flatten();
            out.push(StackSummary::of(name, current, latest, lock));
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
            self.acquire(stack, "remove")?
        } else {
            self.lock(stack, "remove")?
        };
        if !force {
            self.check_empty(stack)?;
        }
        lock::fenced(&held, &dir, || {
            // The journals first: a checkpoint left by a crash here is a stack still there,
            // a journal left without its checkpoint would be an orphan.
            for (_, journal) in self.journals(stack)? {
                fs::remove_file(&journal).map_err(StateError::io(&journal))?;
            }
            // As Pulumi removes a stack: its file kept as `.bak`, its tags and history gone.
            let path = self.checkpoint_path(stack);
            match fs::rename(&path, self.backup_path(stack)) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => {
                    return Err(StateError::io(&path)(e));
                }
                _ => {}
            }
            for gone in [self.tags_path(stack), self.history_dir(stack)] {
                let removed = if gone.is_dir() {
                    fs::remove_dir_all(&gone)
                } else {
                    fs::remove_file(&gone)
                };
                match removed {
                    Err(e) if e.kind() != io::ErrorKind::NotFound => {
                        return Err(StateError::io(&gone)(e));
                    }
                    _ => {}
                }
            }
            fs::remove_dir_all(&dir).map_err(StateError::io(&dir))?;
            self.pulumi_locks(stack).remove(&held.info().id);
            Ok(())
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
        let mut file: RawCheckpointFile<'_> =
            serde_json::from_slice(&bytes).map_err(|e| corrupt(&path, e.to_string()))?;
        check_version(&path, file.version, &file.features)?;
        self.resolve_epoch(stack, &mut file.stepdeck)?;
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
        let dir = self.ours().join("workspaces");
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
        self.acquire(stack, operation)
    }

    /// Takes the stack's lock: stepdeck's fenced lease, refused while Pulumi holds the stack
    /// (a lock file of its own), and Pulumi's lock file written beside it while it is held.
    fn acquire(&self, stack: &StackRef, operation: &str) -> Result<StackLock, StateError> {
        let dir = self.stack_dir(stack);
        fs::create_dir_all(&dir).map_err(StateError::io(&dir))?;
        lock::acquire(stack, &dir, operation, self.pulumi_locks(stack))
    }

    /// Pulumi's lock files of the stack, written through our bookkeeping directory.
    pub(super) fn pulumi_locks(&self, stack: &StackRef) -> pulumi_lock::PulumiLocks {
        pulumi_lock::PulumiLocks::new(self.pulumi_lock_dir(stack), self.stack_dir(stack))
    }

    /// `stack unlock`: removes the lock if its holder is gone, or whatever holds it with
    /// `force` (stepdeck's lease and Pulumi's lock files alike); returns the lock removed.
    pub fn unlock(&self, stack: &StackRef, force: bool) -> Result<Option<LockInfo>, StateError> {
        self.require(stack)?;
        let pulumi = self.pulumi_locks(stack);
        let ours = lock::unlock(stack, &self.stack_dir(stack), force, &pulumi)?;
        // Pulumi's own lock files too: a `pulumi` that died leaves one behind.
        let theirs = pulumi.unlock(&stack.to_string(), force)?;
        Ok(ours.or(theirs))
    }

    /// Who holds the stack's lock, if anyone.
    pub fn lock_holder(&self, stack: &StackRef) -> Result<Option<LockInfo>, StateError> {
        self.require(stack)?;
        lock::read_lock(&self.stack_dir(stack))
    }

    pub(crate) fn read_checkpoint(&self, stack: &StackRef) -> Result<CheckpointFile, StateError> {
        let (path, bytes) = self.checkpoint_bytes(stack)?;
        let mut file: CheckpointFile =
            serde_json::from_slice(&bytes).map_err(|e| corrupt(&path, e.to_string()))?;
        check_version(&path, file.version, &file.features)?;
        self.resolve_epoch(stack, &mut file.stepdeck)?;
        Ok(file)
    }

    /// A checkpoint written by `pulumi` has no `stepdeck` key, so no epoch: it is given the
    /// epoch after every journal there is, so that none replays onto it (a journal left by a
    /// run of ours that died was overtaken by Pulumi's write, which did not see it) and the
    /// next checkpoint of ours removes them.
    fn resolve_epoch(&self, stack: &StackRef, meta: &mut StepdeckMeta) -> Result<(), StateError> {
        if meta.foreign {
            meta.journal_epoch = match self.journals(stack)?.last() {
                Some((e, _)) => self.following(stack, *e)?,
                None => 0,
            };
        }
        Ok(())
    }

    /// [`parse_checkpoint`] with the epoch of a checkpoint `pulumi` wrote resolved.
    fn parse<'a>(
        &self,
        stack: &StackRef,
        path: &Path,
        bytes: &'a [u8],
    ) -> Result<RawCheckpointFile<'a>, StateError> {
        let mut file = parse_checkpoint(path, bytes)?;
        self.resolve_epoch(stack, &mut file.stepdeck)?;
        Ok(file)
    }

    fn checkpoint_bytes(&self, stack: &StackRef) -> Result<(PathBuf, Vec<u8>), StateError> {
        let path = self.checkpoint_path(stack);
        match fs::read(&path) {
            Ok(b) => Ok((path.clone(), diy::compression::decode(&path, b)?)),
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
            .map(|(state, _)| state)
    }

    /// [`Backend::load`] without the integrity check: for `state repair`, the one reader that
    /// must see a state that fails it.
    pub fn load_unchecked(
        &self,
        stack: &StackRef,
        crypter: Option<&Crypter>,
    ) -> Result<StackState, StateError> {
        self.load_verified(stack, crypter, false)
            .map(|(state, _)| state)
    }

    fn load_verified(
        &self,
        stack: &StackRef,
        crypter: Option<&Crypter>,
        verify: bool,
    ) -> Result<(StackState, bool), StateError> {
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
    ) -> Result<(StackState, bool), StateError> {
        let (path, bytes) = self.checkpoint_bytes(stack)?;
        let file = self.parse(stack, &path, &bytes)?;
        let journal = self.journal_path(stack, file.stepdeck.journal_epoch);
        let (state, _) =
            decode_state(&path, &file, |c| read_journal(&journal, c), crypter, verify)?;
        Ok((state, file.stepdeck.foreign))
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
        let (loaded, foreign) = self.load_verified(stack, crypter, true)?;
        let journal_left = self.journal_path(stack, loaded.epoch).exists();
        let current =
            SecretsProviderState::written_under(loaded.secrets_providers.as_ref(), crypter);
        // A checkpoint `pulumi` wrote names no epoch: it is rewritten with ours first, so that
        // this run's journal continues it.
        let state = if journal_left || !current || foreign {
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
            self.parse(stack, &path, &bytes)?.stepdeck.journal_epoch
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
        let file = self.parse(stack, &path, &bytes)?;
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
        let existing = self.checkpoint_path(stack);
        check_encryptable(snapshot, crypter).map_err(|source| StateError::Secrets {
            path: existing.clone(),
            source,
        })?;
        let qualified = stack.qualified();
        // Compressed as Pulumi's switch says (`PULUMI_DIY_BACKEND_GZIP`), as `pulumi` writes it.
        let path = self.at(&diy::stack_key_to_write(stack)?);
        let gzip = path.extension().is_some_and(|e| e == "gz");
        let prepared = Prepared::write(&path, |out| {
            if !gzip {
                return write_checkpoint_file(out, &qualified, snapshot, epoch, providers, crypter);
            }
            let mut gz = flate2::write::GzEncoder::new(out, flate2::Compression::default());
            write_checkpoint_file(&mut gz, &qualified, snapshot, epoch, providers, crypter)?;
            gz.finish().map(drop)
        })
        .map_err(StateError::io(&path))?;
        lock::fenced(lock, &self.stack_dir(stack), || {
            self.keep_backup(stack)?;
            prepared.commit().map_err(StateError::io(&path))?;
            // The stack file of the other compression goes once this one is whole, as
            // Pulumi removes it (its `.bak` stays).
            if existing != path {
                match fs::remove_file(&existing) {
                    Err(e) if e.kind() != io::ErrorKind::NotFound => {
                        return Err(StateError::io(&existing)(e));
                    }
                    _ => {}
                }
            }
            self.retain(&path)?;
            self.remove_stale_files(lock, epoch)
        })
    }

    /// Keeps the checkpoint about to be replaced as `<stack>.json.bak`, as Pulumi does: a hard
    /// link to it (a checkpoint is only ever replaced, never written in place), put there by
    /// a rename so that the `.bak` is always whole.
    fn keep_backup(&self, stack: &StackRef) -> Result<(), StateError> {
        let path = self.checkpoint_path(stack);
        let bak = self.backup_path(stack);
        let tmp = path.with_file_name(format!(
            ".{}{}.bak.tmp-{}",
            stack.stack(),
            layout::STACK_EXT,
            uuid::Uuid::new_v4().simple()
        ));
        match fs::hard_link(&path, &tmp) {
            Ok(()) => fs::rename(&tmp, &bak).map_err(StateError::io(&bak)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(StateError::io(&bak)(e)),
        }
    }

    /// With `PULUMI_DIY_BACKEND_RETAIN_CHECKPOINTS` (or `PULUMI_RETAIN_CHECKPOINTS`), every
    /// checkpoint is kept beside the stack file as `<stack>.json.<nanos>`, as Pulumi keeps them.
    fn retain(&self, path: &Path) -> Result<(), StateError> {
        let Some(kept) = diy::retained_key(&path.to_string_lossy()) else {
            return Ok(());
        };
        let kept = PathBuf::from(kept);
        fs::hard_link(path, &kept).map_err(StateError::io(&kept))
    }

    /// Removes the journals of epochs before `epoch` (the checkpoint's, just written) and
    /// leftover temporaries.
    fn remove_stale_files(&self, lock: &StackLock, epoch: u64) -> Result<(), StateError> {
        let stack = lock.stack();
        self.remove_old_journals(lock, epoch, epoch.checked_sub(1))?;
        let dir = self.stacks_root().join(stack.project());
        let ours = format!(".{}{}.", stack.stack(), layout::STACK_EXT);
        for entry in fs::read_dir(&dir).map_err(StateError::io(&dir))? {
            let entry = entry.map_err(StateError::io(&dir))?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            if is_leftover_temp(name) && name.starts_with(&ours) {
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

    fn projects(&self) -> Result<Vec<String>, StateError> {
        let dir = self.stacks_root();
        let entries = match fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(StateError::io(&dir)(e)),
        };
        let mut out = Vec::new();
        for entry in entries {
            let entry = entry.map_err(StateError::io(&dir))?;
            if let Some(name) = entry.file_name().to_str()
                && !name.starts_with('.')
                && validate_name("project", name).is_ok()
                && entry.path().is_dir()
            {
                out.push(name.to_string());
            }
        }
        out.sort();
        Ok(out)
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

    fn record_update_events(
        &self,
        lock: &StackLock,
        version: u64,
        events: &Compressed,
    ) -> Result<(), StateError> {
        FileBackend::record_update_events(self, lock, version, events)
    }

    fn update_events(&self, stack: &StackRef, version: u64) -> Result<Option<Vec<u8>>, StateError> {
        FileBackend::update_events(self, stack, version)
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

/// Identifies one version of a file: an atomic rename gives the path a new inode.
fn file_version(path: &Path) -> Option<(u64, std::time::SystemTime)> {
    let meta = fs::metadata(path).ok()?;
    #[cfg(unix)]
    let ino = std::os::unix::fs::MetadataExt::ino(&meta);
    #[cfg(not(unix))]
    let ino = meta.len();
    Some((ino, meta.modified().ok()?))
}
