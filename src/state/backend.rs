//! The `Backend` trait: everything the commands do with stacks' state, whatever stores it.
//! `file://` ([`super::FileBackend`]) and `postgres://` ([`super::PgBackend`]) implement it;
//! [`open`] picks one from a URL. Both keep the same rules: a checkpoint plus an append-only
//! journal whose `Begin` entry is durable before the provider runs, compaction that loads to
//! the same state at every instant, writes only under a leased lock.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{Value, json};

use crate::engine::{Journal, Snapshot};

use super::backend_url::BackendUrl;
use super::codec::checkpoint::{CHECKPOINT_VERSION, SecretsProviderState, deployment_json};
use super::codec::update_events::Compressed;
use super::error::StateError;
use super::export::validate_export;
use super::lock_info::LockInfo;
use super::passphrase::Crypter;
use super::stack_lock::StackLock;
use super::stack_ref::StackRef;
use super::update_record::UpdateRecord;

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

impl StackSummary {
    /// The summary of stack `name` whose checkpoint's `latest` deployment is `latest`.
    pub(crate) fn of(
        name: String,
        current: bool,
        latest: Option<&serde_json::Value>,
        lock: Option<LockInfo>,
    ) -> StackSummary {
        StackSummary {
            current,
            resource_count: latest
                .and_then(|l| l.get("resources"))
                .and_then(serde_json::Value::as_array)
                .map_or(0, Vec::len),
            last_update: latest
                .and_then(|l| l.pointer("/manifest/time"))
                .and_then(serde_json::Value::as_str)
                .map(str::to_string),
            lock,
            name,
        }
    }
}

/// Where stacks' state lives. Writes take a [`StackLock`] from [`Backend::lock`]; reads need
/// none (a compaction running meanwhile is never seen half done).
pub trait Backend: Send + Sync {
    /// The URL this backend was opened with, for messages.
    fn url(&self) -> &BackendUrl;

    /// `file` or `postgres`, as `about` reports it.
    fn kind(&self) -> &'static str;

    /// Where the stack's state is kept, named in errors about it.
    fn location(&self, stack: &StackRef) -> PathBuf;

    /// Whether the stack exists (`Ok(false)`: it can be created); a journal without its
    /// checkpoint is an error, never a stack to start afresh.
    fn check_exists(&self, stack: &StackRef) -> Result<bool, StateError>;

    /// Whether the stack exists, an unreadable one counting as absent.
    fn stack_exists(&self, stack: &StackRef) -> bool {
        self.check_exists(stack).unwrap_or(false)
    }

    /// Takes the stack's lock, creating the stack under it when it does not exist (`true`):
    /// concurrent first uses see one creation, and whatever the creator sets up under the lock
    /// (its secrets settings) before any other process can start on the stack.
    fn lock_or_create(
        &self,
        stack: &StackRef,
        operation: &str,
    ) -> Result<(StackLock, bool), StateError>;

    /// Creates a stack with an empty state; fails if it exists.
    fn create_stack(&self, stack: &StackRef) -> Result<(), StateError> {
        let (lock, created) = self.lock_or_create(stack, "create")?;
        drop(lock);
        if created {
            Ok(())
        } else {
            Err(StateError::StackExists {
                stack: stack.to_string(),
            })
        }
    }

    /// The stacks of a project, by name.
    fn list_stacks(&self, project: &str) -> Result<Vec<StackSummary>, StateError>;

    /// The projects that have stacks here, by name (`stack ls --all`).
    fn projects(&self) -> Result<Vec<String>, StateError>;

    /// Removes a stack; refuses while it is locked, or unless `force` while it may have
    /// resources (in its checkpoint or in an unfinished deployment's journal).
    fn remove_stack(&self, stack: &StackRef, force: bool) -> Result<(), StateError>;

    /// The project's selected stack, if one is selected and still exists.
    fn current_stack(&self, project: &str) -> Result<Option<String>, StateError>;

    /// Makes `stack` the project's current stack; it must exist.
    fn select_stack(&self, stack: &StackRef) -> Result<(), StateError>;

    /// Takes the stack's update lock; every write of state needs it. A lock whose lease
    /// expired is taken over ([`StackLock::broke_stale`] tells); a live one is refused naming
    /// its holder.
    fn lock(&self, stack: &StackRef, operation: &str) -> Result<StackLock, StateError>;

    /// `stack unlock`: removes the lock if its holder is gone, or whatever holds it with
    /// `force`; returns the lock removed.
    fn unlock(&self, stack: &StackRef, force: bool) -> Result<Option<LockInfo>, StateError>;

    /// Who holds the stack's lock, if anyone.
    fn lock_holder(&self, stack: &StackRef) -> Result<Option<LockInfo>, StateError>;

    /// Loads a stack: the checkpoint, plus its journal replayed, integrity checked. `crypter`
    /// decrypts secrets; without one, a stack with secrets fails.
    fn load(&self, stack: &StackRef, crypter: Option<&Crypter>) -> Result<StackState, StateError>;

    /// [`Backend::load`] without the integrity check: for `state repair`, the one reader that
    /// must see a state that fails it.
    fn load_unchecked(
        &self,
        stack: &StackRef,
        crypter: Option<&Crypter>,
    ) -> Result<StackState, StateError>;

    /// Starts a deployment: folds an earlier run's journal into the checkpoint when there is
    /// one, then opens this run's journal. Pass the snapshot to the engine as its base and the
    /// journal as its journal.
    fn begin_deployment(
        &self,
        lock: &StackLock,
        crypter: Option<&Crypter>,
    ) -> Result<(Snapshot, Box<dyn Journal>), StateError>;

    /// Ends a deployment (after the engine dropped the journal): folds the journal into the
    /// stack's state (the engine's result already holds the final snapshot).
    fn finish_deployment(
        &self,
        lock: &StackLock,
        crypter: Option<&Crypter>,
    ) -> Result<(), StateError>;

    /// [`Backend::finish_deployment`] given the engine's final snapshot (the state the journal
    /// replays to), which a backend may store instead of reading its journal back.
    fn finish_deployment_from(
        &self,
        lock: &StackLock,
        crypter: Option<&Crypter>,
        _snapshot: &Snapshot,
    ) -> Result<(), StateError> {
        self.finish_deployment(lock, crypter)
    }

    /// The passphrase salt the stack's checkpoint was last written with, read without
    /// decrypting anything: it tells a rotation that was interrupted after the state moved.
    fn recorded_salt(&self, stack: &StackRef) -> Result<Option<String>, StateError>;

    /// Replaces the stack's state with `snapshot` (a new checkpoint, journal cleared).
    fn save(
        &self,
        lock: &StackLock,
        snapshot: &Snapshot,
        crypter: Option<&Crypter>,
    ) -> Result<(), StateError>;

    /// Appends an update to the history of the locked stack, numbering it after the last one.
    fn record_update(
        &self,
        lock: &StackLock,
        record: UpdateRecord,
    ) -> Result<UpdateRecord, StateError>;

    /// The stack's updates, newest first.
    fn history(&self, stack: &StackRef) -> Result<Vec<UpdateRecord>, StateError>;

    /// Keeps the engine events of the locked stack's update `version` (an engine-event stream,
    /// compressed) for `stack history --open`; drops those of updates beyond the last
    /// `codec::update_events::KEPT_UPDATES`.
    fn record_update_events(
        &self,
        lock: &StackLock,
        version: u64,
        events: &Compressed,
    ) -> Result<(), StateError>;

    /// The engine events kept with update `version`; none when it kept none (too old, or
    /// recorded before events were kept).
    fn update_events(&self, stack: &StackRef, version: u64) -> Result<Option<Vec<u8>>, StateError>;

    /// The tags the user set on the stack.
    fn user_tags(&self, stack: &StackRef) -> Result<BTreeMap<String, String>, StateError>;

    /// Replaces the user's tags of the locked stack.
    fn save_user_tags(
        &self,
        lock: &StackLock,
        tags: &BTreeMap<String, String>,
    ) -> Result<(), StateError>;

    /// Moves the locked stack's state to `new` (which must not exist), with its history and
    /// tags, and makes `new` the current stack if the old one was.
    fn rename_stack(
        &self,
        lock: StackLock,
        new: &StackRef,
        crypter: Option<&Crypter>,
    ) -> Result<(), StateError>;

    /// The stack's state as an export document; `crypter` decrypts the stored secrets and
    /// re-encrypts them for the document (it names the stack's salt in `secrets_providers`).
    fn export(&self, stack: &StackRef, crypter: Option<&Crypter>) -> Result<Value, StateError> {
        let state = self.load(stack, crypter)?;
        let providers = crypter
            .map(SecretsProviderState::passphrase)
            .or(state.secrets_providers);
        let deployment =
            deployment_json(&state.snapshot, providers.as_ref(), crypter).map_err(|source| {
                StateError::Secrets {
                    path: self.location(stack),
                    source,
                }
            })?;
        Ok(json!({ "version": CHECKPOINT_VERSION, "deployment": deployment }))
    }

    /// Replaces the stack's state with an export document after validating it: version,
    /// shape, every resource's URN (of this stack) and type, secrets, integrity. `decrypt`
    /// opens the document's secrets (see [`super::export_salt`]); `encrypt` seals them in state.
    fn import(
        &self,
        lock: &StackLock,
        document: &Value,
        decrypt: Option<&Crypter>,
        encrypt: Option<&Crypter>,
    ) -> Result<Snapshot, StateError> {
        let snapshot = validate_export(lock.stack(), document, decrypt)?;
        self.save(lock, &snapshot, encrypt)?;
        Ok(snapshot)
    }
}
