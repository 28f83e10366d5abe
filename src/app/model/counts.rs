//! What the top bar and the summary count: steps planned and done per op, failures and skips
//! (and which rows they were), and a live run's progress (steps planned against settled).

use std::collections::{BTreeMap, BTreeSet};

use crate::engine::{StepOp, Urn};

const OPS: usize = StepOp::ALL.len();

/// The run's counts, kept as events arrive.
#[derive(Clone, Debug, Default)]
pub struct Counts {
    planned: [usize; OPS],
    done: [usize; OPS],
    failed: usize,
    skipped: usize,
    /// Every row ever marked failed or skipped, in index order: the summary lists them from
    /// here (filtered by their status now) instead of walking every row each frame.
    troubled: BTreeSet<usize>,
    /// Steps planned so far in a live run, and those settled (finished, failed or skipped).
    steps_total: usize,
    steps_settled: usize,
    /// Steps a decline settled (they will never run), and the rows declined.
    steps_declined: usize,
    declined: usize,
    /// Replacement cascades declined in a live run (what the summary counts).
    cascades_declined: usize,
    /// The run ended: the total is what it planned.
    over: bool,
    /// Rows waiting at a gate or in a cascade for a decision: not done, whatever was planned.
    waiting: usize,
    /// Steps a preview planned: what the apply after it expects to run.
    steps_previewed: usize,
    /// The same by resource: what a decline in the apply takes out of what it expects.
    previewed_by_urn: BTreeMap<Urn, usize>,
    /// The steps the preview before this live run planned, when there was one.
    pub(super) expected: Option<usize>,
    /// The same by resource (those a decline has not yet taken out).
    pub(super) expected_by_urn: BTreeMap<Urn, usize>,
}

impl Counts {
    /// Steps planned per op (what a preview shows).
    pub fn planned(&self, op: StepOp) -> usize {
        self.planned[op as usize]
    }

    /// Logical steps finished per op (what an update has done so far).
    pub fn done(&self, op: StepOp) -> usize {
        self.done[op as usize]
    }

    /// Steps that failed.
    pub fn failed(&self) -> usize {
        self.failed
    }

    /// Resources skipped (not run).
    pub fn skipped(&self) -> usize {
        self.skipped
    }

    /// Steps done and to run in a live run: the header's progress. The total is the
    /// preview's when one came before (so it does not grow as registrations arrive), or what
    /// was planned so far; declined steps leave it (they never run), and each row waiting for
    /// a decision keeps at least one step to do, so a run held at a gate never reads 100%.
    pub fn progress(&self) -> (usize, usize) {
        let planned = match self.expected {
            Some(e) if !self.over => e.max(self.steps_total),
            _ => self.steps_total,
        };
        let total = planned
            .saturating_sub(self.steps_declined)
            .max(self.steps_settled + self.waiting);
        (self.steps_settled, total)
    }

    /// Rows declined (kept as they are): shown beside the progress, never counted done.
    pub fn declined(&self) -> usize {
        self.declined
    }

    /// Replacement cascades declined: the unit the summary counts, the rows kept beside it.
    pub fn cascades_declined(&self) -> usize {
        self.cascades_declined
    }

    /// Steps planned beyond what the preview before this run planned (the program registered
    /// more than it did then).
    pub fn beyond_preview(&self) -> usize {
        self.expected.map_or(0, |e| {
            self.steps_total
                .saturating_sub(self.steps_declined)
                .saturating_sub(e)
        })
    }

    /// Steps this preview planned.
    pub fn previewed_steps(&self) -> usize {
        self.steps_previewed
    }

    /// Steps this preview planned, by resource.
    pub fn previewed_by_urn(&self) -> &BTreeMap<Urn, usize> {
        &self.previewed_by_urn
    }

    /// Rows ever failed or skipped, in index order.
    pub(super) fn troubled(&self) -> impl Iterator<Item = usize> + '_ {
        self.troubled.iter().copied()
    }

    /// A step of `op` was planned; `counted` unless its resource is a default provider, and
    /// one more step to settle in a live run.
    pub(super) fn plan(&mut self, op: StepOp, urn: &Urn, counted: bool, live: bool) {
        if counted {
            self.planned[op as usize] += 1;
        }
        if live {
            self.steps_total += 1;
        } else {
            self.steps_previewed += 1;
            *self.previewed_by_urn.entry(urn.clone()).or_default() += 1;
        }
    }

    /// A planned step of `op` will not run after all (a preview's decline keeps its row).
    pub(super) fn unplan(&mut self, op: StepOp) {
        let planned = &mut self.planned[op as usize];
        *planned = planned.saturating_sub(1);
    }

    /// A preview's cascade was declined: the steps it planned for `urn` will not run in the
    /// apply (a dependent that still registers plans its own step afterwards).
    pub(super) fn unpreview(&mut self, urn: &Urn) {
        if let Some(steps) = self.previewed_by_urn.remove(urn) {
            self.steps_previewed = self.steps_previewed.saturating_sub(steps);
        }
    }

    /// A logical step of `op` finished.
    pub(super) fn done_step(&mut self, op: StepOp) {
        self.done[op as usize] += 1;
    }

    /// A standalone refresh's step found `op` (same, update or delete): it counts as that op
    /// from now on, planned and, in a live run, done.
    pub(super) fn refreshed(&mut self, op: StepOp, live: bool) {
        let refresh = &mut self.planned[StepOp::Refresh as usize];
        *refresh = refresh.saturating_sub(1);
        self.planned[op as usize] += 1;
        if live {
            self.done[op as usize] += 1;
        }
    }

    /// `steps` more steps settled in a live run.
    pub(super) fn settle(&mut self, steps: usize) {
        self.steps_settled += steps;
    }

    /// The run is over: its total is what it planned (a preview's steps of a declined or
    /// unreached resource were never planned).
    pub(super) fn over(&mut self) {
        self.over = true;
    }

    /// A row was declined in a live run, with `steps` of its planned steps that never run.
    pub(super) fn decline(&mut self, steps: usize) {
        self.declined += 1;
        self.steps_declined += steps;
    }

    /// A replacement cascade was declined in a live run.
    pub(super) fn decline_cascade(&mut self) {
        self.cascades_declined += 1;
    }

    /// A cascade of the apply was declined: the steps the preview planned for its rows will
    /// not run, so the expected total drops now; a dependent still registers, as one same step.
    pub(super) fn unexpect(&mut self, urn: &Urn, root: bool) {
        if let (Some(expected), Some(steps)) =
            (&mut self.expected, self.expected_by_urn.remove(urn))
        {
            *expected = expected.saturating_sub(steps) + usize::from(!root);
        }
    }

    /// A row started (`true`) or stopped waiting for a decision.
    pub(super) fn wait(&mut self, waiting: bool) {
        if waiting {
            self.waiting += 1;
        } else {
            self.waiting = self.waiting.saturating_sub(1);
        }
    }

    /// A step of row `row` failed.
    pub(super) fn fail(&mut self, row: usize) {
        self.failed += 1;
        self.troubled.insert(row);
    }

    /// Row `row` was skipped.
    pub(super) fn skip(&mut self, row: usize) {
        self.skipped += 1;
        self.troubled.insert(row);
    }
}
