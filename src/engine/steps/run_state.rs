//! What the deployment loop learns while the run goes on, from the executor's reports and the
//! generator's refusals: failed and skipped resources, old copies left for deletion, counts,
//! refresh results and the run's first error. The loop owns it; nothing else writes it.

use std::collections::BTreeMap;

use tokio::sync::watch;

use super::run_error::RunError;
use crate::engine::model::resource::{ResourceState, is_default_provider};
use crate::engine::model::urn::{Urn, UrnSet};
use crate::engine::step::StepOp;

/// The run's bookkeeping, owned by the deployment loop.
pub(crate) struct RunState {
    failed: UrnSet,
    skipped: UrnSet,
    counts: BTreeMap<StepOp, usize>,
    /// What refresh steps found, by base position (`None`: gone), for `up --refresh`.
    refreshed: Vec<(usize, Option<ResourceState>)>,
    first_error: Option<RunError>,
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
            counts: BTreeMap::new(),
            refreshed: Vec::new(),
            first_error: None,
            violated: UrnSet::default(),
            policy_failed: false,
            halt,
        }
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
