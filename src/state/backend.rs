//! The file backend: stacks, the current-stack selection, crash-safe loading and saving of
//! a stack's state (checkpoint plus journal), compaction, and the stack lock.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::engine::journal::{JournalEntry, JournalError, replay_owned};
use crate::engine::snapshot::Snapshot;

use super::atomic::{is_leftover_temp, sync_dir, write_atomic, write_atomic_with};
use super::backend_url::BackendUrl;
use super::checkpoint::{
    CHECKPOINT_VERSION, CheckpointFile, SecretsProviderState, StepdeckMeta, check_encryptable,
    parse_deployment_text, write_checkpoint_file,
};
use super::error::StateError;
use super::file_journal::{FileJournal, read_journal};
use super::lock::{self, LockInfo, StackLock};
use super::passphrase::{Crypter, SecretsError};
use super::secrets::has_ciphertext;
use super::stack_ref::{StackRef, validate_name};

const CHECKPOINT: &str = "checkpoint.json";
const LOCK: &str = "lock.json";

/// A stack's state as loaded: the snapshot (journal replayed, integrity checked), the epoch
/// of the checkpoint it came from, and the secrets provider recorded with it.
#[derive(Clone, Debug)]
pub struct StackState {
    pub snapshot: Snapshot,
    pub epoch: u64,
    pub secrets_providers: Option<SecretsProviderState>,
}

/// One line of `stack ls`, read without decrypting anything.
#[derive(Clone, Debug, PartialEq)]
pub struct StackSummary {
    pub name: String,
    pub current: bool,
    /// Resources in the last checkpoint (an interrupted update's journal is not counted).
    pub resource_count: usize,
    /// The checkpoint's manifest time (RFC 3339).
    pub last_update: Option<String>,
    pub lock: Option<LockInfo>,
}

#[derive(Serialize, Deserialize)]
struct Workspace {
    stack: String,
}

/// A `file://` backend rooted at `DIR/.stepdeck`.
#[derive(Clone, Debug)]
pub struct Backend {
    url: BackendUrl,
    root: PathBuf,
}

impl Backend {
    /// Opens (and creates if needed) the backend directory.
    pub fn open(url: &BackendUrl) -> Result<Backend, StateError> {
        let root = url.dir().join(".stepdeck");
        fs::create_dir_all(root.join("stacks")).map_err(StateError::io(&root))?;
        Ok(Backend {
            url: url.clone(),
            root,
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
            Err(StateError::NoSuchStack {
                stack: stack.to_string(),
            })
        }
    }

    /// Creates a stack with an empty state; fails if it exists.
    pub fn create_stack(&self, stack: &StackRef) -> Result<(), StateError> {
        if self.stack_exists(stack) {
            return Err(StateError::StackExists {
                stack: stack.to_string(),
            });
        }
        let dir = self.stack_dir(stack);
        fs::create_dir_all(&dir).map_err(StateError::io(&dir))?;
        self.write_checkpoint(stack, &Snapshot::default(), 0, None, None)
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
                lock: lock::read_lock(&self.stack_dir(&stack).join(LOCK))
                    .ok()
                    .flatten(),
                name,
            });
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    /// Removes a stack; refuses while it is locked, or while it has resources unless `force`.
    pub fn remove_stack(&self, stack: &StackRef, force: bool) -> Result<(), StateError> {
        let held = self.lock(stack, "remove")?;
        let count = self
            .read_checkpoint(stack)?
            .checkpoint
            .latest
            .as_ref()
            .and_then(|l| l.get("resources"))
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        if count > 0 && !force {
            return Err(StateError::HasResources {
                stack: stack.to_string(),
                count,
            });
        }
        let dir = self.stack_dir(stack);
        fs::remove_dir_all(&dir).map_err(StateError::io(&dir))?;
        drop(held);
        if self.current_stack(stack.project())?.as_deref() == Some(stack.stack()) {
            let ws = self.workspace_path(stack.project());
            fs::remove_file(&ws).map_err(StateError::io(&ws))?;
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
        lock::acquire(stack, &self.stack_dir(stack).join(LOCK), operation)
    }

    /// `stack unlock`: removes the lock if its holder is gone, or whatever holds it with
    /// `force`; returns the lock removed.
    pub fn unlock(&self, stack: &StackRef, force: bool) -> Result<Option<LockInfo>, StateError> {
        self.require(stack)?;
        lock::unlock(stack, &self.stack_dir(stack).join(LOCK), force)
    }

    /// Who holds the stack's lock, if anyone.
    pub fn lock_holder(&self, stack: &StackRef) -> Result<Option<LockInfo>, StateError> {
        self.require(stack)?;
        lock::read_lock(&self.stack_dir(stack).join(LOCK))
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
            Err(e) if e.kind() == io::ErrorKind::NotFound => Err(StateError::NoSuchStack {
                stack: stack.to_string(),
            }),
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
        // The checkpoint is decoded from its text resource by resource: a JSON tree of a
        // large stack costs several times the file in memory and time.
        let (path, bytes) = self.checkpoint_bytes(stack)?;
        let file: RawCheckpointFile<'_> =
            serde_json::from_slice(&bytes).map_err(|e| corrupt(&path, e.to_string()))?;
        check_version(&path, file.version, &file.features)?;
        let epoch = file.stepdeck.journal_epoch;
        let (base, secrets_providers) = match file.checkpoint.latest {
            None => (Snapshot::default(), None),
            Some(latest) => {
                let text = latest.get();
                if crypter.is_none()
                    && text.contains("ciphertext")
                    && serde_json::from_str::<Value>(text).is_ok_and(|v| has_ciphertext(&v))
                {
                    return Err(StateError::Secrets {
                        path,
                        source: SecretsError::NoPassphrase,
                    });
                }
                let d = parse_deployment_text(text, "checkpoint.latest", crypter)
                    .map_err(|e| corrupt(&path, format!("{}: {}", e.field, e.message)))?;
                (d.snapshot, d.secrets_providers)
            }
        };
        let journal = self.journal_path(stack, epoch);
        let entries = read_journal(&journal, crypter)?;
        let (snapshot, checked) = if entries.is_empty() {
            (base, path)
        } else {
            let snap = replay_owned(base, &entries).map_err(|e| match e {
                JournalError::Replay { entry, reason } => StateError::Corrupt {
                    path: journal.clone(),
                    line: Some(entry + 1),
                    message: reason,
                },
                other => StateError::Corrupt {
                    path: journal.clone(),
                    line: None,
                    message: other.to_string(),
                },
            })?;
            (snap, journal)
        };
        if verify {
            snapshot
                .verify_integrity()
                .map_err(|source| StateError::Integrity {
                    path: checked,
                    source,
                })?;
        }
        Ok(StackState {
            snapshot,
            epoch,
            secrets_providers,
        })
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
        state.epoch += 1;
        self.write_checkpoint(
            stack,
            &state.snapshot,
            state.epoch,
            providers.as_ref(),
            crypter,
        )?;
        state.secrets_providers = providers;
        Ok(state)
    }

    /// Starts a deployment: compacts when an earlier run left a journal (or the checkpoint
    /// must record the secrets provider first), then opens the epoch's journal. Pass the
    /// snapshot to the engine as its base and the journal as its journal.
    pub fn begin_deployment(
        &self,
        lock: &StackLock,
        crypter: Option<&Crypter>,
    ) -> Result<(Snapshot, FileJournal), StateError> {
        let loaded = self.load(lock.stack(), crypter)?;
        let journal_left = self.journal_path(lock.stack(), loaded.epoch).exists();
        let providers_recorded = crypter.is_none() || loaded.secrets_providers.is_some();
        let state = if journal_left || !providers_recorded {
            self.compact(lock, crypter)?
        } else {
            // The checkpoint already is the whole state: rewriting it would only cost time.
            loaded
        };
        let path = self.journal_path(lock.stack(), state.epoch);
        let journal =
            FileJournal::create(path.clone(), crypter.cloned()).map_err(StateError::io(&path))?;
        Ok((state.snapshot, journal))
    }

    /// Ends a deployment (after the engine dropped the journal): compacts and returns the
    /// stack's final snapshot. A journal that only kept resources as they were changes
    /// nothing, so the checkpoint stays and the journal goes: both load to the same state.
    pub fn finish_deployment(
        &self,
        lock: &StackLock,
        crypter: Option<&Crypter>,
    ) -> Result<Snapshot, StateError> {
        let stack = lock.stack();
        let loaded = self.load(stack, crypter)?;
        let journal = self.journal_path(stack, loaded.epoch);
        let entries = read_journal(&journal, crypter)?;
        if entries.iter().all(JournalEntry::keeps_only) {
            match std::fs::remove_file(&journal) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => {
                    return Err(StateError::io(&journal)(e));
                }
                _ => return Ok(loaded.snapshot),
            }
        }
        Ok(self.compact(lock, crypter)?.snapshot)
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
        let recorded = file
            .checkpoint
            .latest
            .as_ref()
            .and_then(|l| l.get("secrets_providers"))
            .and_then(|v| serde_json::from_value(v.clone()).ok());
        let providers = crypter.map(SecretsProviderState::passphrase).or(recorded);
        self.write_checkpoint(
            stack,
            snapshot,
            file.stepdeck.journal_epoch + 1,
            providers.as_ref(),
            crypter,
        )
    }

    /// Writes the checkpoint of `epoch` atomically, then removes every journal of another
    /// epoch and temporaries left by interrupted writes.
    fn write_checkpoint(
        &self,
        stack: &StackRef,
        snapshot: &Snapshot,
        epoch: u64,
        providers: Option<&SecretsProviderState>,
        crypter: Option<&Crypter>,
    ) -> Result<(), StateError> {
        let path = self.checkpoint_path(stack);
        snapshot
            .verify_integrity()
            .map_err(|source| StateError::Integrity {
                path: path.clone(),
                source,
            })?;
        check_encryptable(snapshot, crypter).map_err(|source| StateError::Secrets {
            path: path.clone(),
            source,
        })?;
        let qualified = stack.qualified();
        write_atomic_with(&path, |out| {
            write_checkpoint_file(out, &qualified, snapshot, epoch, providers, crypter)
        })
        .map_err(StateError::io(&path))?;
        self.remove_stale_files(stack, epoch)
    }

    fn remove_stale_files(&self, stack: &StackRef, epoch: u64) -> Result<(), StateError> {
        let dir = self.stack_dir(stack);
        let live = format!("journal.{epoch}.jsonl");
        for entry in fs::read_dir(&dir).map_err(StateError::io(&dir))? {
            let entry = entry.map_err(StateError::io(&dir))?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            let stale_journal = name.starts_with("journal.") && name != live;
            if stale_journal || (is_leftover_temp(name) && name.contains(CHECKPOINT)) {
                let p = entry.path();
                fs::remove_file(&p).map_err(StateError::io(&p))?;
            }
        }
        sync_dir(&dir).map_err(StateError::io(&dir))
    }
}

/// A checkpoint file as loaded: `latest` stays text until it is decoded resource by resource.
#[derive(Deserialize)]
struct RawCheckpointFile<'a> {
    version: u64,
    #[serde(default)]
    features: Vec<String>,
    #[serde(borrow)]
    checkpoint: RawCheckpointBody<'a>,
    #[serde(default)]
    stepdeck: StepdeckMeta,
}

#[derive(Deserialize)]
struct RawCheckpointBody<'a> {
    #[serde(borrow, default)]
    latest: Option<&'a RawValue>,
}

fn corrupt(path: &Path, message: String) -> StateError {
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
