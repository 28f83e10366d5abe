//! The journal: every mutation of a stack's state as a small entry appended as it happens, and
//! the replay that turns a base snapshot plus entries back into a snapshot. Writing an entry
//! costs the same whatever the stack's size.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use parking_lot::Mutex;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use super::model::property::PropertyMap;
use super::model::resource::{OperationType, PendingOperation, ResourceState};
use super::model::snapshot::{BaseStates, Manifest, Snapshot, share_states};
use super::model::urn::{Urn, UrnMap};

/// Identifies one begun operation within a deployment.
pub type OpId = u64;

/// One recorded mutation. Base resources are named by their position in the base snapshot,
/// resources written during this deployment by the order they were written in.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum JournalEntry {
    /// An operation is about to run; until it ends it is a pending operation.
    Begin {
        op: OpId,
        operation: OperationType,
        state: ResourceState,
    },
    /// An operation (or a step without one) finished.
    #[serde(rename_all = "camelCase")]
    Success {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        op: Option<OpId>,
        /// A new state to append.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        new: Option<ResourceState>,
        /// Keep a base state verbatim as a new state (an unchanged resource).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        keep_old: Option<usize>,
        /// A base state this replaces or deletes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        remove_old: Option<usize>,
        /// A base state left behind by create-before-delete, to delete later.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mark_delete_old: Option<usize>,
        /// A base state deleted ahead of its replacement (delete-before-replace).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pending_replacement_old: Option<usize>,
        /// A state written earlier in this deployment that this one supersedes (an imported
        /// resource updated right after its import).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        supersede_new: Option<usize>,
    },
    /// An operation failed; the resource keeps its previous state.
    Failure { op: OpId },
    /// Outputs registered for a resource written in this deployment.
    Outputs { new: usize, outputs: PropertyMap },
    /// A base state refreshed in place (`None`: it no longer exists).
    Refresh {
        old: usize,
        state: Option<ResourceState>,
    },
    /// A pending operation of the base (by position) resolved: cleared, or, with `state`, its
    /// resource found and recorded (after the base states, which it may depend on).
    Resolve {
        pending: usize,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        state: Option<ResourceState>,
    },
}

impl JournalEntry {
    /// Whether the entry only keeps a base state as it was (an unchanged resource): a journal
    /// of nothing else leaves the stack's state as its base.
    pub fn keeps_only(&self) -> bool {
        matches!(
            self,
            JournalEntry::Success {
                op: None,
                new: None,
                keep_old: Some(_),
                remove_old: None,
                mark_delete_old: None,
                pending_replacement_old: None,
                supersede_new: None,
            }
        )
    }
}

/// Where entries go: a file, or memory.
pub trait Journal: Send {
    fn append(&mut self, entry: &JournalEntry) -> Result<(), JournalError>;

    /// What to wait on for everything appended so far to be on stable storage; `None` when
    /// the journal has nothing to make durable (memory, previews).
    fn sync_point(&self) -> Option<SyncPoint> {
        None
    }

    /// Whether entries may still be appended: [`JournalError::LockLost`] once the stack's lock
    /// this journal writes under is no longer held (its lease ran out, or another process took
    /// it over), so that nothing is recorded, and no provider called, after that. A cheap
    /// check, made before every entry; the thorough one is part of [`Durability::wait`].
    fn fenced(&self) -> Result<(), JournalError> {
        Ok(())
    }
}

/// Group commit: one sync makes every entry written before it durable, so waiters share it.
#[async_trait::async_trait]
pub trait Durability: Send + Sync {
    /// Returns once the first `upto` entries appended are on stable storage and were written
    /// while this process still held the stack's lock (checked after they were written), so
    /// that a step may call its provider.
    async fn wait(&self, upto: u64) -> Result<(), JournalError>;
}

/// A position in a journal to wait for (see [`SnapshotManager::durable`]).
pub struct SyncPoint {
    pub durability: Arc<dyn Durability>,
    /// Entries appended when the point was taken.
    pub upto: u64,
}

/// A journal write or replay that failed.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("writing the journal failed: {0}")]
    Io(#[from] std::io::Error),
    #[error("journal entry {entry}: {reason}")]
    Replay { entry: usize, reason: String },
    #[error("the deployment was terminated; no more state is written")]
    Closed,
    /// The stack's lock was lost while the deployment ran: the backend's error says to whom.
    /// Nothing more is recorded, and no step calls its provider after this.
    #[error("{0}")]
    LockLost(Arc<dyn std::error::Error + Send + Sync>),
}

/// A journal that keeps nothing (previews).
pub struct NullJournal;

impl Journal for NullJournal {
    fn append(&mut self, _entry: &JournalEntry) -> Result<(), JournalError> {
        Ok(())
    }
}

/// A state written in this deployment: its own, or a base state kept verbatim (by position,
/// so that an unchanged resource costs no copy until the snapshot is taken).
#[derive(Debug)]
enum NewState {
    /// Position in `Replayer::owned`.
    Owned(usize),
    Kept(usize),
}

/// Rebuilds a snapshot from a base and entries; the same code runs live and on load.
#[derive(Debug, Default)]
pub struct Replayer {
    /// Shared with the step generator during a deployment; a state is copied only if an entry
    /// changes it in place.
    base: BaseStates,
    base_pending: Vec<PendingOperation>,
    done: Vec<bool>,
    news: Vec<Option<NewState>>,
    /// The states written in this deployment, in the order written. When nothing was kept or
    /// superseded (an up of creates) this vector becomes the snapshot's as it is: moving a
    /// million states into a second vector doubled their memory at the end of a run.
    owned: Vec<ResourceState>,
    /// By base position, the new state keeping that base state.
    kept: Vec<Option<usize>>,
    pending: IndexMap<OpId, PendingOperation>,
    applied: usize,
    /// A refresh found a resource gone: references to it are pruned from the snapshot.
    vanished: bool,
    /// Base pending operations resolved, by position.
    resolved: HashSet<usize>,
    /// Resources interrupted creates turned out to have made, recorded after the base.
    found: Vec<ResourceState>,
}

impl Replayer {
    pub fn new(base: &Snapshot) -> Replayer {
        Replayer::shared(
            share_states(base.resources.clone()),
            base.pending_operations.clone(),
        )
    }

    /// A replayer over base states shared with their other reader (no copy of the stack).
    pub fn shared(resources: BaseStates, pending_operations: Vec<PendingOperation>) -> Replayer {
        Replayer {
            done: vec![false; resources.len()],
            kept: vec![None; resources.len()],
            base: resources,
            base_pending: pending_operations,
            ..Replayer::default()
        }
    }

    /// A base state about to change in place: a new state keeping it gets its own copy first.
    fn base_mut(&mut self, i: usize) -> &mut ResourceState {
        if let Some(j) = self.kept[i].take() {
            self.owned.push(ResourceState::clone(&self.base[i]));
            self.news[j] = Some(NewState::Owned(self.owned.len() - 1));
        }
        Arc::make_mut(&mut Arc::make_mut(&mut self.base)[i])
    }

    fn new_state(&self, s: &NewState) -> ResourceState {
        match s {
            NewState::Owned(j) => ResourceState::clone(&self.owned[*j]),
            NewState::Kept(i) => ResourceState::clone(&self.base[*i]),
        }
    }

    /// The URN of a new state.
    fn new_urn(&self, i: usize) -> Option<&Urn> {
        match self.news.get(i)?.as_ref()? {
            NewState::Owned(j) => Some(&self.owned[*j].urn),
            NewState::Kept(b) => Some(&self.base[*b].urn),
        }
    }

    /// Applies one entry; returns the index of a new state it appended.
    pub fn apply(&mut self, entry: &JournalEntry) -> Result<Option<usize>, JournalError> {
        self.apply_owned(entry.clone())
    }

    /// [`Replayer::apply`] of an entry given up (a live deployment's): its states move in.
    pub fn apply_owned(&mut self, entry: JournalEntry) -> Result<Option<usize>, JournalError> {
        let n = self.applied;
        self.applied += 1;
        let bad = |reason: String| JournalError::Replay { entry: n, reason };
        let base_len = self.base.len();
        let check = |i: usize| {
            if i < base_len {
                Ok(i)
            } else {
                Err(bad(format!("base index {i} out of range ({base_len})")))
            }
        };
        match entry {
            JournalEntry::Begin {
                op,
                operation,
                state,
            } => {
                self.pending.insert(
                    op,
                    PendingOperation {
                        resource: state,
                        kind: operation,
                    },
                );
                Ok(None)
            }
            JournalEntry::Failure { op } => {
                self.pending.shift_remove(&op);
                Ok(None)
            }
            JournalEntry::Success {
                op,
                new,
                keep_old,
                remove_old,
                mark_delete_old,
                pending_replacement_old,
                supersede_new,
            } => {
                if let Some(op) = op {
                    self.pending.shift_remove(&op);
                }
                if let Some(i) = supersede_new {
                    let slot = self
                        .news
                        .get_mut(i)
                        .ok_or_else(|| bad(format!("no new resource #{i}")))?;
                    if let Some(NewState::Kept(b)) = slot.take() {
                        self.kept[b] = None;
                    }
                }
                if let Some(i) = remove_old {
                    self.done[check(i)?] = true;
                }
                if let Some(i) = mark_delete_old {
                    self.base_mut(check(i)?).delete = true;
                }
                if let Some(i) = pending_replacement_old {
                    self.base_mut(check(i)?).pending_replacement = true;
                }
                let appended = match (new, keep_old) {
                    (Some(s), _) => {
                        self.owned.push(s);
                        Some(NewState::Owned(self.owned.len() - 1))
                    }
                    (None, Some(i)) => {
                        let i = check(i)?;
                        self.done[i] = true;
                        self.kept[i] = Some(self.news.len());
                        Some(NewState::Kept(i))
                    }
                    (None, None) => None,
                };
                Ok(appended.map(|s| {
                    self.news.push(Some(s));
                    self.news.len() - 1
                }))
            }
            JournalEntry::Refresh { old, state } => {
                let i = check(old)?;
                match state {
                    Some(s) => *self.base_mut(i) = s,
                    None => {
                        self.done[i] = true;
                        self.vanished = true;
                    }
                }
                Ok(None)
            }
            JournalEntry::Resolve { pending, state } => {
                if pending >= self.base_pending.len() {
                    return Err(bad(format!(
                        "pending operation {pending} out of range ({})",
                        self.base_pending.len()
                    )));
                }
                self.resolved.insert(pending);
                self.found.extend(state);
                Ok(None)
            }
            JournalEntry::Outputs { new, outputs } => {
                let slot = self
                    .news
                    .get_mut(new)
                    .and_then(Option::as_mut)
                    .ok_or_else(|| bad(format!("no new resource #{new}")))?;
                if let NewState::Kept(b) = *slot {
                    self.kept[b] = None;
                    self.owned.push(ResourceState::clone(&self.base[b]));
                    *slot = NewState::Owned(self.owned.len() - 1);
                }
                if let NewState::Owned(j) = *slot {
                    self.owned[j].outputs = outputs;
                }
                Ok(None)
            }
        }
    }

    /// The snapshot as of the entries applied: new states in the order written, then base
    /// states not superseded, then what is still in flight.
    pub fn snapshot(&self) -> Snapshot {
        let resources: Vec<ResourceState> = self
            .news
            .iter()
            .flatten()
            .map(|s| self.new_state(s))
            .chain(
                self.base
                    .iter()
                    .zip(&self.done)
                    .filter(|(_, done)| !**done)
                    .map(|(r, _)| ResourceState::clone(r)),
            )
            .chain(self.found.iter().cloned())
            .collect();
        self.finish(resources)
    }

    /// [`Replayer::snapshot`] that moves out every state nothing else shares any more (a stack
    /// loaded from disk, a deployment over): only the states still shared are copied.
    pub fn into_snapshot(mut self) -> Snapshot {
        let base = std::mem::take(&mut self.base);
        let base = Arc::try_unwrap(base).unwrap_or_else(|shared| shared.as_ref().clone());
        let mut refs = vec![0usize; base.len()];
        for s in self.news.iter().flatten() {
            if let NewState::Kept(i) = s {
                refs[*i] += 1;
            }
        }
        let mut base: Vec<Option<Arc<ResourceState>>> = base.into_iter().map(Some).collect();
        let mut take = |i: usize, last: bool| -> ResourceState {
            if last {
                Arc::unwrap_or_clone(base[i].take().expect("a base state is moved out once"))
            } else {
                ResourceState::clone(base[i].as_ref().expect("a base state is moved out last"))
            }
        };
        let news = std::mem::take(&mut self.news);
        let owned = std::mem::take(&mut self.owned);
        let in_order = news.len() == owned.len()
            && news
                .iter()
                .enumerate()
                .all(|(i, s)| matches!(s, Some(NewState::Owned(j)) if *j == i));
        let mut resources = if in_order {
            owned
        } else {
            let mut owned = owned;
            let mut resources = Vec::with_capacity(news.len() + refs.len());
            for s in news.into_iter().flatten() {
                resources.push(match s {
                    NewState::Owned(j) => std::mem::take(&mut owned[j]),
                    NewState::Kept(i) => {
                        refs[i] -= 1;
                        take(i, refs[i] == 0 && self.done[i])
                    }
                });
            }
            resources
        };
        for i in 0..self.done.len() {
            if !self.done[i] {
                resources.push(take(i, true));
            }
        }
        resources.extend(std::mem::take(&mut self.found));
        self.finish(resources)
    }

    fn finish(&self, resources: Vec<ResourceState>) -> Snapshot {
        let mut resources = if self.vanished {
            prune_dangling(resources)
        } else {
            resources
        };
        normalize_aliases(&mut resources);
        // Only the base's pending creates carry over (Pulumi's `Snap`): an interrupted create
        // may have made something nobody tracks; the other kinds are resolved by refresh.
        let pending_operations = self
            .base_pending
            .iter()
            .enumerate()
            .filter(|(i, p)| p.kind == OperationType::Creating && !self.resolved.contains(i))
            .map(|(_, p)| p)
            .cloned()
            .chain(self.pending.values().cloned())
            .collect();
        Snapshot {
            manifest: Manifest::now(),
            resources,
            pending_operations,
        }
    }
}

/// Drops references to resources no longer in the snapshot, as Pulumi's rebuildBaseState does
/// after a refresh; an orphaned child is left without a parent.
fn prune_dangling(mut resources: Vec<ResourceState>) -> Vec<ResourceState> {
    let mut seen: HashSet<Urn> = HashSet::with_capacity(resources.len());
    for r in &mut resources {
        let present = |u: &Urn| seen.contains(u);
        if r.parent.as_ref().is_some_and(|p| !present(p)) {
            r.parent = None;
        }
        r.dependencies.retain(present);
        for deps in r.property_dependencies.values_mut() {
            deps.retain(present);
        }
        if r.deleted_with.as_ref().is_some_and(|d| !present(d)) {
            r.deleted_with = None;
        }
        r.replace_with.retain(present);
        seen.insert(r.urn.clone());
    }
    resources
}

/// Rewrites every reference to an old URN a resource took over through an alias (URN, parent,
/// provider reference, dependencies, property dependencies, deletedWith, replaceWith) to its
/// new URN and drops the recorded aliases, as Pulumi's `NormalizeURNReferences` does on every
/// write.
fn normalize_aliases(resources: &mut [ResourceState]) {
    let mut renamed: HashMap<Urn, Urn> = HashMap::new();
    for r in resources.iter_mut() {
        for a in std::mem::take(&mut r.aliases) {
            renamed.insert(a, r.urn.clone());
        }
    }
    if renamed.is_empty() {
        return;
    }
    let fix = |u: &mut Urn| {
        if let Some(n) = renamed.get(u) {
            *u = n.clone();
        }
    };
    for r in resources.iter_mut() {
        fix(&mut r.urn);
        r.parent.iter_mut().for_each(fix);
        r.dependencies.iter_mut().for_each(fix);
        r.property_dependencies.values_mut().flatten().for_each(fix);
        r.deleted_with.iter_mut().for_each(fix);
        r.replace_with.iter_mut().for_each(fix);
        if let Some(p) = &mut r.provider {
            fix(&mut p.urn);
        }
    }
}

/// Replays a whole journal onto a base snapshot (loading a stack).
pub fn replay(base: &Snapshot, entries: &[JournalEntry]) -> Result<Snapshot, JournalError> {
    let mut r = Replayer::new(base);
    for e in entries {
        r.apply(e)?;
    }
    Ok(r.snapshot())
}

struct ManagerState {
    replayer: Replayer,
    journal: Box<dyn Journal>,
    next_op: OpId,
    new_by_urn: UrnMap<usize>,
    closed: bool,
    /// The lock was lost: every later entry is refused with this error.
    lost: Option<Arc<dyn std::error::Error + Send + Sync>>,
}

impl ManagerState {
    /// Passes a journal error through; a lost lock also closes the manager for good.
    fn lose(&mut self, e: JournalError) -> JournalError {
        if let JournalError::LockLost(lost) = &e {
            self.lost = Some(lost.clone());
        }
        e
    }
}

/// Serialises the executor's mutations into the journal and keeps the live snapshot.
pub struct SnapshotManager {
    state: Mutex<ManagerState>,
}

impl SnapshotManager {
    pub fn new(base: &Snapshot, journal: Box<dyn Journal>) -> SnapshotManager {
        SnapshotManager::with_replayer(Replayer::new(base), journal)
    }

    /// A manager over base states shared with the step generator (no copy of the stack).
    pub fn shared(
        resources: BaseStates,
        pending_operations: Vec<PendingOperation>,
        journal: Box<dyn Journal>,
    ) -> SnapshotManager {
        SnapshotManager::with_replayer(Replayer::shared(resources, pending_operations), journal)
    }

    fn with_replayer(replayer: Replayer, journal: Box<dyn Journal>) -> SnapshotManager {
        // Most deployments write about as many states as the base holds: sized once, the map
        // is not rehashed as it fills.
        let new_by_urn = UrnMap::with_capacity_and_hasher(replayer.base.len(), Default::default());
        SnapshotManager {
            state: Mutex::new(ManagerState {
                replayer,
                journal,
                next_op: 1,
                new_by_urn,
                closed: false,
                lost: None,
            }),
        }
    }

    fn record(
        &self,
        make: impl FnOnce(&mut ManagerState) -> JournalEntry,
    ) -> Result<(), JournalError> {
        let mut st = self.state.lock();
        if let Some(lost) = &st.lost {
            return Err(JournalError::LockLost(lost.clone()));
        }
        if st.closed {
            return Err(JournalError::Closed);
        }
        if let Err(e) = st.journal.fenced() {
            return Err(st.lose(e));
        }
        let entry = make(&mut st);
        st.journal.append(&entry)?;
        if let Some(i) = st.replayer.apply_owned(entry)? {
            let urn = st
                .replayer
                .new_urn(i)
                .expect("the state just appended")
                .clone();
            st.new_by_urn.insert(urn, i);
        }
        Ok(())
    }

    /// Records that an operation is about to run.
    pub fn begin(
        &self,
        operation: OperationType,
        state: &ResourceState,
    ) -> Result<OpId, JournalError> {
        let mut id = 0;
        self.record(|st| {
            id = st.next_op;
            st.next_op += 1;
            JournalEntry::Begin {
                op: id,
                operation,
                state: state.clone(),
            }
        })?;
        Ok(id)
    }

    /// Waits until every entry recorded so far is on stable storage. A step calls it after its
    /// `Begin` and before the provider, so that the record of an operation in flight survives a
    /// power cut. Only the wait is outside the lock: steps that begin while a sync runs share
    /// the next one.
    ///
    /// `Success`/`Failure` entries are not waited for: they are written before any `Begin`
    /// that follows them in the file, and a sync covers everything written before it, so a
    /// dependent's durable `Begin` implies its dependency's durable `Success`. A power cut can
    /// lose only a tail of entries whose operations then read as pending operations: exactly
    /// what a kill right after the provider call leaves, which refresh resolves (a pending
    /// create by looking the resource up). Pulumi's journaling likewise saves each
    /// `BeginMutation` before the step and batches the rest.
    ///
    /// The wait also fails once the stack's lock is lost ([`JournalError::LockLost`]): the
    /// step then fails before its provider call, its `Begin` left as a pending operation for
    /// whoever holds the lock now, and the manager records nothing more.
    pub async fn durable(&self) -> Result<(), JournalError> {
        let point = self.state.lock().journal.sync_point();
        let Some(point) = point else {
            return Ok(());
        };
        let waited = point.durability.wait(point.upto).await;
        let mut st = self.state.lock();
        match waited.and_then(|()| st.journal.fenced()) {
            Ok(()) => Ok(()),
            Err(e) => Err(st.lose(e)),
        }
    }

    /// Records the end of a step.
    pub fn success(&self, entry: SuccessEntry) -> Result<(), JournalError> {
        self.record(|st| JournalEntry::Success {
            op: entry.op,
            supersede_new: entry
                .supersede_new
                .as_ref()
                .and_then(|u| st.new_by_urn.get(u).copied()),
            new: entry.new,
            keep_old: entry.keep_old,
            remove_old: entry.remove_old,
            mark_delete_old: entry.mark_delete_old,
            pending_replacement_old: entry.pending_replacement_old,
        })?;
        Ok(())
    }

    pub fn failure(&self, op: OpId) -> Result<(), JournalError> {
        self.record(|_| JournalEntry::Failure { op })?;
        Ok(())
    }

    /// Records outputs registered for a resource written in this deployment.
    pub fn outputs(&self, urn: &Urn, outputs: &PropertyMap) -> Result<(), JournalError> {
        let new = {
            let st = self.state.lock();
            st.new_by_urn.get(urn).copied()
        };
        let Some(new) = new else {
            return Ok(());
        };
        self.record(|_| JournalEntry::Outputs {
            new,
            outputs: outputs.clone(),
        })?;
        Ok(())
    }

    /// Records a base state refreshed in place (`None`: it is gone).
    pub fn refresh(&self, old: usize, state: Option<ResourceState>) -> Result<(), JournalError> {
        self.record(|_| JournalEntry::Refresh { old, state })
    }

    /// Records a base pending operation resolved (`state`: the resource it made, found).
    pub fn resolve(
        &self,
        pending: usize,
        state: Option<ResourceState>,
    ) -> Result<(), JournalError> {
        self.record(|_| JournalEntry::Resolve { pending, state })
    }

    /// Stops all further writes (terminate): what is in flight stays pending.
    pub fn close(&self) {
        self.state.lock().closed = true;
    }

    pub fn snapshot(&self) -> Snapshot {
        self.state.lock().replayer.snapshot()
    }

    /// The deployment's final snapshot, moving out the states nothing else holds any more
    /// (an unchanged resource is not copied). The manager records nothing after it.
    pub fn take_snapshot(&self) -> Snapshot {
        let mut st = self.state.lock();
        st.closed = true;
        std::mem::take(&mut st.replayer).into_snapshot()
    }
}

/// The parts of a success entry; see [`JournalEntry::Success`].
#[derive(Debug, Default)]
pub struct SuccessEntry {
    pub op: Option<OpId>,
    pub new: Option<ResourceState>,
    pub keep_old: Option<usize>,
    pub remove_old: Option<usize>,
    pub mark_delete_old: Option<usize>,
    pub pending_replacement_old: Option<usize>,
    /// The URN of a state written earlier in this deployment that the new one supersedes.
    pub supersede_new: Option<Urn>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(name: &str) -> ResourceState {
        ResourceState {
            urn: Urn::new("s", "p", None, "t:i:R", name),
            type_: "t:i:R".into(),
            custom: true,
            id: Some(name.into()),
            ..ResourceState::default()
        }
    }

    #[test]
    fn a_deployment_shares_the_base_states_and_copies_only_one_it_changes() {
        let base = share_states(vec![state("a"), state("b"), state("c")]);
        let manager = SnapshotManager::shared(base.clone(), Vec::new(), Box::new(NullJournal));
        let keep = SuccessEntry {
            keep_old: Some(0),
            ..SuccessEntry::default()
        };
        manager.success(keep).unwrap();
        let mark = SuccessEntry {
            mark_delete_old: Some(1),
            ..SuccessEntry::default()
        };
        manager.success(mark).unwrap();
        {
            let st = manager.state.lock();
            let live = &st.replayer.base;
            assert!(Arc::ptr_eq(&live[0], &base[0]), "kept, not copied");
            assert!(Arc::ptr_eq(&live[2], &base[2]), "untouched, not copied");
            assert!(live[1].delete);
        }
        assert!(!base[1].delete, "the generator's base stays as it was");
        drop(base);
        let snap = manager.take_snapshot();
        let names: Vec<(&str, bool)> = snap
            .resources
            .iter()
            .map(|r| (r.urn.name(), r.delete))
            .collect();
        assert_eq!(names, [("a", false), ("b", true), ("c", false)]);
        assert!(matches!(
            manager.success(SuccessEntry::default()),
            Err(JournalError::Closed)
        ));
    }

    #[test]
    fn created_states_become_the_snapshot_without_moving() {
        let base = share_states(vec![state("old")]);
        let manager = SnapshotManager::shared(base, Vec::new(), Box::new(NullJournal));
        for name in ["a", "b", "c"] {
            let created = SuccessEntry {
                new: Some(state(name)),
                ..SuccessEntry::default()
            };
            manager.success(created).unwrap();
        }
        let written = manager.state.lock().replayer.owned.as_ptr();
        let snap = manager.take_snapshot();
        assert!(
            std::ptr::eq(snap.resources.as_ptr(), written),
            "no second vector"
        );
        let names: Vec<&str> = snap.resources.iter().map(|r| r.urn.name()).collect();
        assert_eq!(names, ["a", "b", "c", "old"]);
    }

    #[test]
    fn a_superseded_or_kept_state_keeps_the_written_order() {
        let base = share_states(vec![state("old")]);
        let manager = SnapshotManager::shared(base, Vec::new(), Box::new(NullJournal));
        let first = SuccessEntry {
            new: Some(state("a")),
            ..SuccessEntry::default()
        };
        manager.success(first).unwrap();
        let keep = SuccessEntry {
            keep_old: Some(0),
            ..SuccessEntry::default()
        };
        manager.success(keep).unwrap();
        let replacing = SuccessEntry {
            new: Some(state("a")),
            supersede_new: Some(state("a").urn),
            ..SuccessEntry::default()
        };
        manager.success(replacing).unwrap();
        let snap = manager.take_snapshot();
        let names: Vec<&str> = snap.resources.iter().map(|r| r.urn.name()).collect();
        assert_eq!(names, ["old", "a"]);
    }
}
