//! What the executor learns while it runs that the generator and the deployment loop need:
//! failed and skipped resources, and old copies left for deletion.

use std::collections::{BTreeMap, HashSet};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use super::resource::{ResourceState, is_default_provider};
use super::step::StepOp;
use super::urn::Urn;

/// Shared between the executor's workers and the deployment loop.
#[derive(Default)]
pub(crate) struct ExecState {
    failed: Mutex<HashSet<Urn>>,
    skipped: Mutex<HashSet<Urn>>,
    /// Base positions of old copies a create-before-delete replacement left behind.
    marked_delete: Mutex<Vec<usize>>,
    /// Base positions a delete-before-replace deleted in this run (now pending replacement).
    pending_replaced: Mutex<Vec<usize>>,
    counts: Mutex<BTreeMap<StepOp, usize>>,
    /// What refresh steps found, by base position (`None`: gone), for `up --refresh`.
    refreshed: Mutex<Vec<(usize, Option<ResourceState>)>>,
    saw_error: AtomicBool,
    first_error: Mutex<Option<String>>,
}

impl ExecState {
    pub fn mark_failed(&self, urn: &Urn, error: &str) {
        self.failed.lock().expect("exec lock").insert(urn.clone());
        self.saw_error.store(true, Ordering::SeqCst);
        self.first_error
            .lock()
            .expect("exec lock")
            .get_or_insert_with(|| error.to_string());
    }

    /// A refused delete of a protected resource: the run fails at the end, but nothing is
    /// cancelled, so every protected delete is reported in one run.
    pub fn mark_refused(&self, urn: &Urn, error: &str) {
        self.failed.lock().expect("exec lock").insert(urn.clone());
        self.first_error
            .lock()
            .expect("exec lock")
            .get_or_insert_with(|| error.to_string());
    }

    pub fn mark_skipped(&self, urn: &Urn) {
        self.skipped.lock().expect("exec lock").insert(urn.clone());
    }

    pub fn is_failed_or_skipped(&self, urn: &Urn) -> bool {
        self.failed.lock().expect("exec lock").contains(urn)
            || self.skipped.lock().expect("exec lock").contains(urn)
    }

    pub fn saw_error(&self) -> bool {
        self.saw_error.load(Ordering::SeqCst)
    }

    /// Records an error that is not a step's (the program's, a check's).
    pub fn fail(&self, error: &str) {
        self.saw_error.store(true, Ordering::SeqCst);
        self.first_error
            .lock()
            .expect("exec lock")
            .get_or_insert_with(|| error.to_string());
    }

    /// Records an error that fails the run at the end without stopping anything now (a
    /// preview reporting every problem, a target that names nothing).
    pub fn record_error(&self, error: &str) {
        self.first_error
            .lock()
            .expect("exec lock")
            .get_or_insert_with(|| error.to_string());
    }

    pub fn first_error(&self) -> Option<String> {
        self.first_error.lock().expect("exec lock").clone()
    }

    pub fn mark_delete(&self, index: usize) {
        self.marked_delete.lock().expect("exec lock").push(index);
    }

    pub fn marked_delete(&self) -> Vec<usize> {
        self.marked_delete.lock().expect("exec lock").clone()
    }

    /// Records an old copy whose delete-before-replace delete succeeded: if the program does
    /// not declare it again, it leaves the state at the end of the run.
    pub fn mark_pending_replacement(&self, index: usize) {
        self.pending_replaced.lock().expect("exec lock").push(index);
    }

    pub fn pending_replaced(&self) -> Vec<usize> {
        self.pending_replaced.lock().expect("exec lock").clone()
    }

    /// Counts a logical step for the summary; default providers are not counted (Pulumi's
    /// `resourceChanges` leaves them out).
    pub fn count(&self, op: StepOp, urn: &Urn) {
        if is_default_provider(urn) {
            return;
        }
        *self
            .counts
            .lock()
            .expect("exec lock")
            .entry(op)
            .or_default() += 1;
    }

    pub fn record_refresh(&self, index: usize, state: Option<ResourceState>) {
        self.refreshed
            .lock()
            .expect("exec lock")
            .push((index, state));
    }

    pub fn take_refreshed(&self) -> Vec<(usize, Option<ResourceState>)> {
        std::mem::take(&mut *self.refreshed.lock().expect("exec lock"))
    }

    pub fn counts(&self) -> BTreeMap<StepOp, usize> {
        self.counts.lock().expect("exec lock").clone()
    }
}
