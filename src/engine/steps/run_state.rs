//! What the deployment loop learns while the run goes on, from the executor's reports and the
//! generator's refusals: failed and skipped resources, old copies left for deletion, counts,
//! refresh results and the run's first error. The loop owns it; nothing else writes it.

use std::collections::{BTreeMap, HashSet};

use tokio::sync::watch;

use super::run_error::RunError;
use crate::engine::model::resource::{ResourceState, is_default_provider};
use crate::engine::model::urn::{Urn, UrnSet};
use crate::engine::step::{Step, StepOp};

/// The run's bookkeeping, owned by the deployment loop.
pub(crate) struct RunState {
    failed: UrnSet,
    skipped: UrnSet,
    /// Base positions of old copies a create-before-delete replacement left behind.
    marked_delete: HashSet<usize>,
    /// Base positions a delete-before-replace deleted in this run (now pending replacement).
    pending_replaced: HashSet<usize>,
    counts: BTreeMap<StepOp, usize>,
    /// What refresh steps found, by base position (`None`: gone), for `up --refresh`.
    refreshed: Vec<(usize, Option<ResourceState>)>,
    first_error: Option<RunError>,
    /// URNs whose old copies the run deletes: a delete whose `deletedWith` target is among
    /// them skips its provider call.
    condemned: UrnSet,
    /// Resources a policy pack reported advisory violations on: the `violations` approval
    /// kind governs their steps.
    violated: UrnSet,
    /// A mandatory violation the run went on from: it fails at its end.
    policy_failed: bool,
    /// Raised at the first error that stops the run; the executor's gates watch it (a failing
    /// worker raises it too, before its report reaches the loop, so no step starts after it).
    halt: watch::Sender<bool>,
}

impl RunState {
    pub(in crate::engine) fn new(halt: watch::Sender<bool>) -> RunState {
        RunState {
            failed: UrnSet::default(),
            skipped: UrnSet::default(),
            marked_delete: HashSet::new(),
            pending_replaced: HashSet::new(),
            counts: BTreeMap::new(),
            refreshed: Vec::new(),
            first_error: None,
            condemned: UrnSet::default(),
            violated: UrnSet::default(),
            policy_failed: false,
            halt,
        }
    }

    /// The run deletes these URNs' old copies.
    pub(in crate::engine) fn condemn(&mut self, urns: impl IntoIterator<Item = Urn>) {
        self.condemned.extend(urns);
    }

    /// The deletes among `steps` whose `deletedWith` target the run deletes too.
    pub(in crate::engine) fn target_deleted(&self, steps: &[Step]) -> HashSet<Urn> {
        steps
            .iter()
            .filter_map(|s| match s {
                Step::Delete { old }
                | Step::DeleteRewritten { old }
                | Step::DeleteReplaced { old }
                | Step::DeleteBeforeReplace { old, .. } => old
                    .state
                    .deleted_with
                    .as_ref()
                    .filter(|d| self.condemned.contains(*d))
                    .map(|_| old.state.urn.clone()),
                _ => None,
            })
            .collect()
    }

    /// A resource whose step (or chain) failed: nothing depending on it runs.
    pub(in crate::engine) fn mark_failed(&mut self, urn: &Urn) {
        self.failed.insert(urn.clone());
        self.halt.send_replace(true);
    }

    /// A refused delete of a protected resource: the run fails at the end, but nothing is
    /// cancelled, so every protected delete is reported in one run.
    pub(in crate::engine) fn mark_refused(&mut self, urn: &Urn, error: RunError) {
        self.failed.insert(urn.clone());
        self.record_error(error);
    }

    /// A policy pack reported an advisory violation on `urn`.
    pub(in crate::engine) fn flag_violation(&mut self, urn: &Urn) {
        self.violated.insert(urn.clone());
    }

    pub(in crate::engine) fn has_violations(&self, urn: &Urn) -> bool {
        self.violated.contains(urn)
    }

    /// A mandatory violation the run reports and goes on from (a preview's, or a stack
    /// policy's): the `kind` of run ("preview", "update") fails at its end.
    pub(in crate::engine) fn fail_policy_at_end(&mut self, kind: &'static str) {
        if !self.policy_failed {
            self.policy_failed = true;
            self.record_error(RunError::PolicyViolations(kind));
        }
    }

    pub(in crate::engine) fn policy_failed(&self) -> bool {
        self.policy_failed
    }

    pub(in crate::engine) fn mark_skipped(&mut self, urn: &Urn) {
        self.skipped.insert(urn.clone());
    }

    pub(in crate::engine) fn is_failed_or_skipped(&self, urn: &Urn) -> bool {
        self.failed.contains(urn) || self.skipped.contains(urn)
    }

    pub(in crate::engine) fn saw_error(&self) -> bool {
        *self.halt.borrow()
    }

    /// Records an error that stops the run (a refused registration's, a delete the targets
    /// forbid).
    pub(in crate::engine) fn fail(&mut self, error: RunError) {
        self.halt.send_replace(true);
        self.record_error(error);
    }

    /// Records an error that fails the run at the end without stopping anything now (a
    /// preview reporting every problem, a target that names nothing).
    pub(in crate::engine) fn record_error(&mut self, error: RunError) {
        self.first_error.get_or_insert(error);
    }

    pub(in crate::engine) fn has_error(&self) -> bool {
        self.first_error.is_some()
    }

    /// The first error the run met, taken once the run is over.
    pub(in crate::engine) fn take_first_error(&mut self) -> Option<RunError> {
        self.first_error.take()
    }

    pub(in crate::engine) fn mark_delete(&mut self, index: usize) {
        self.marked_delete.insert(index);
    }

    pub(in crate::engine) fn marked_delete(&self) -> &HashSet<usize> {
        &self.marked_delete
    }

    /// Records an old copy whose delete-before-replace delete succeeded: if the program does
    /// not declare it again, it leaves the state at the end of the run.
    pub(in crate::engine) fn mark_pending_replacement(&mut self, index: usize) {
        self.pending_replaced.insert(index);
    }

    pub(in crate::engine) fn pending_replaced(&self) -> &HashSet<usize> {
        &self.pending_replaced
    }

    /// Counts a logical step for the summary; default providers are not counted (Pulumi's
    /// `resourceChanges` leaves them out).
    pub(in crate::engine) fn count(&mut self, op: StepOp, urn: &Urn) {
        if is_default_provider(urn) {
            return;
        }
        *self.counts.entry(op).or_default() += 1;
    }

    pub(in crate::engine) fn record_refresh(&mut self, index: usize, state: Option<ResourceState>) {
        self.refreshed.push((index, state));
    }

    pub(in crate::engine) fn take_refreshed(&mut self) -> Vec<(usize, Option<ResourceState>)> {
        std::mem::take(&mut self.refreshed)
    }

    pub(in crate::engine) fn counts(&self) -> &BTreeMap<StepOp, usize> {
        &self.counts
    }
}
