//! The console's model: everything the screen shows, reduced from the engine's event stream so
//! that the views stay pure functions of it. One struct per concern, each in its file: the
//! resource rows (`resources`, the table every other concern points into), `chains`,
//! `approvals` (cascades and gates), what a preview planned `behind` a cascade (shown while it
//! waits), the `log`, `counts` and progress, `diffs`, the
//! `run_status`, the `clock` and the run's `policies`. `Model` composes them and reduces each event by telling every
//! concern it touches what happened. Every event costs O(1) amortised (hash indexes into
//! vectors, no scans over all resources), so a 100,000-resource deployment does not slow it
//! down.

mod approvals;
mod behind;
mod chains;
mod clock;
mod counts;
mod diffs;
mod graph_index;
mod history;
mod log;
mod policies;
mod resource;
mod resources;
mod run_status;
mod timed;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::time::Duration;

use crate::engine::refresh_result;
use crate::engine::run::approval::ApprovalKind;
use crate::engine::run::events::{
    APPROVAL_TIMEOUT_NOTE, CascadeId, CascadeMember, ChainId, Decider, PAUSED_BY_NOTE,
    RESUMED_BY_NOTE, StepInfo,
};
use crate::engine::run::policy::EnforcementLevel;
use crate::engine::{EngineEvent, Operation, Outcome, PropertyMap, Severity, StepOp, Urn};

pub use approvals::{Approvals, Cascade};
pub use behind::{Behind, Planned, PlannedBehind, planned_behind};
pub use chains::{Chain, ChainState, Chains};
pub use clock::Clock;
pub use counts::Counts;
pub use diffs::DiffProgress;
pub use graph_index::GraphIndex;
pub use history::HistoryEntry;
pub use log::{Log, LogEntry};
pub use policies::{PackEntry, PolicyModel};
pub use resource::{Changes, Resource, Status, label};
pub use resources::Resources;
pub use run_status::{CancelSeen, RunState, RunStatus, SummaryInfo};
pub use timed::Timed;

use history::HistoryLine;

/// The console's model; see the module documentation. A new concern is a file here and a
/// field below, told of the events it cares about in [`Model::apply`].
#[derive(Clone, Debug, Default)]
pub struct Model {
    /// What the run is and where it stands.
    pub run: RunStatus,
    pub clock: Clock,
    pub chains: Chains,
    pub approvals: Approvals,
    pub log: Log,
    pub counts: Counts,
    pub diffs: DiffProgress,
    /// The run's policy packs, their violations and remediations.
    pub policies: PolicyModel,
    /// Rows the preview planned behind a cascade, shown until they register.
    pub behind: Behind,
    /// The rows, read through the methods below.
    rows: Resources,
    /// Bumped by every event: the key of layouts that depend on statuses or times.
    version: u64,
    /// When the event being applied happened (console clock): now, or for a watcher's
    /// replay of what came before it attached, when the served run saw it.
    at: Duration,
    /// How many of the approvals' gates [`Model::log_new_waits`] has looked at.
    waits_logged: usize,
}

impl Model {
    pub fn new() -> Model {
        Model::default()
    }

    /// Advances the console clock; events applied afterwards are stamped with it.
    pub fn set_now(&mut self, now: Duration) {
        self.clock.set_now(now);
    }

    /// Elapsed deployment time without pauses: the summary's duration (less pauses) once over.
    pub fn elapsed(&self) -> Duration {
        match &self.run.summary {
            Some(s) => s.duration.saturating_sub(self.clock.paused_time()),
            None => self.clock.since_start(),
        }
    }

    /// Wall time since the run started, pauses included (the header's clock, as the Log's):
    /// the summary's duration once over.
    pub fn wall_elapsed(&self) -> Duration {
        match &self.run.summary {
            Some(s) => s.duration,
            None => self.clock.since_start_wall(),
        }
    }

    /// Estimated time left, from the pace so far (None until a step settled).
    pub fn eta(&self) -> Option<Duration> {
        let (done, total) = self.counts.progress();
        // Waiting for the operator (a pause, a cascade) has no pace to extrapolate.
        if done == 0
            || done >= total
            || self.run.summary.is_some()
            || self.run.paused
            || self.approvals.undecided() > 0
        {
            return None;
        }
        let per_step = self.elapsed().as_secs_f64() / done as f64;
        Some(Duration::from_secs_f64(per_step * (total - done) as f64))
    }

    /// The state the top bar shows: over > cancelling > paused > awaiting approval > running.
    pub fn run_state(&self) -> RunState {
        let run = &self.run;
        if let Some(s) = &run.summary {
            return match s.outcome {
                Outcome::Succeeded => RunState::Done,
                Outcome::Failed(_) => RunState::Failed,
                Outcome::Cancelled | Outcome::Terminated => RunState::Cancelled,
            };
        }
        if run.operation.is_none() {
            return RunState::Starting;
        }
        if run.cancel != CancelSeen::None {
            RunState::Cancelling
        } else if run.paused {
            RunState::Paused
        } else if self.approvals.undecided() > 0 {
            RunState::AwaitingApproval
        } else if run.preview {
            RunState::Preview
        } else {
            RunState::Running
        }
    }

    /// Workers running a step now: a chain paused between its steps (or held at a gate)
    /// keeps its worker but busies it with nothing.
    pub fn workers_busy(&self) -> usize {
        if self.run.summary.is_some() {
            return 0;
        }
        self.rows.running_count()
    }

    /// Every resource row, indexable by the indexes the tree and the graph hold.
    pub fn resources(&self) -> &[Box<Resource>] {
        self.rows.all()
    }

    /// The row at `idx` (an index from this model).
    pub fn resource(&self, idx: usize) -> &Resource {
        self.rows.row(idx)
    }

    /// The row index of `urn`, in O(1).
    pub fn index_of(&self, urn: &Urn) -> Option<usize> {
        self.rows.index_of(urn)
    }

    /// The row of `urn`, in O(1).
    pub fn get(&self, urn: &Urn) -> Option<&Resource> {
        self.rows.get(urn)
    }

    /// Top-level rows (the root stack, and orphans whose parent is not known yet).
    pub fn roots(&self) -> impl Iterator<Item = usize> + '_ {
        self.rows.roots()
    }

    /// The dependency graph, with its layers.
    pub fn graph(&self) -> &GraphIndex {
        self.rows.graph()
    }

    /// Changes whenever rows or dependencies are added: the key of derived layouts.
    pub fn structure_version(&self) -> u64 {
        self.rows.structure_version()
    }

    /// Changes with every event applied.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The rows whose status is `status` now, in index order, among those ever failed or
    /// skipped (the only statuses asked for this way): O(those), not O(every row).
    pub fn troubled(&self, status: Status) -> impl Iterator<Item = &Resource> + '_ {
        self.rows.with_status(self.counts.troubled(), status)
    }

    /// The steps the preview before this run planned: the progress counts against them.
    pub fn expect_steps(&mut self, steps: Option<usize>) {
        self.counts.expected = steps;
    }

    /// The steps the preview before this run planned by resource: a decline takes its
    /// resources' steps out of the total at once.
    pub fn expect_steps_of(&mut self, steps: BTreeMap<Urn, usize>) {
        self.counts.expected_by_urn = steps;
    }

    /// What the preview before this run planned behind each cascade's root: shown while the
    /// cascade waits, as the program registers them only after it.
    pub fn expect_behind(&mut self, planned: PlannedBehind) {
        self.behind.expect(planned);
    }

    /// An operator or console note in the log, stamped now.
    pub fn note(&mut self, severity: Severity, message: &str) {
        self.at = self.clock.now();
        self.noted(severity, message);
    }

    /// A note about the event being applied.
    fn noted(&mut self, severity: Severity, message: &str) {
        self.log_line(severity, None, message.to_string());
    }

    /// Applies one event as happening now; O(1) amortised apart from the sizes of the event's
    /// own lists.
    pub fn apply(&mut self, e: &EngineEvent) {
        self.apply_at(e, None);
    }

    /// Applies one event that happened `at` on the console clock (`None`: now), so that what
    /// it starts (a step, a gate's countdown, a pause) counts from then.
    pub fn apply_at(&mut self, e: &EngineEvent, at: Option<Duration>) {
        self.at = at.unwrap_or(self.clock.now());
        let now = self.at;
        let live = !self.run.preview;
        self.version += 1;
        match e {
            EngineEvent::Prelude {
                operation,
                preview,
                stack,
                project,
                parallel,
                parallel_diff,
            } => {
                let run = &mut self.run;
                run.operation = Some(*operation);
                run.preview = *preview;
                run.stack.clone_from(stack);
                run.project.clone_from(project);
                run.parallel = *parallel;
                run.parallel_diff = *parallel_diff;
                self.clock.start(now);
            }
            EngineEvent::RegistrationReceived {
                urn,
                parent,
                custom,
                dependencies,
                ..
            } => {
                let i = self.rows.ensure(urn);
                self.arrived(i);
                self.rows.set_parent(i, parent.as_ref());
                self.rows.set_dependencies(i, dependencies);
                self.rows.set_custom(i, *custom);
                self.rows.row_mut(i).log(now, HistoryLine::Registered);
            }
            EngineEvent::ResourceOutputs { urn, outputs } => {
                let i = self.rows.ensure(urn);
                self.rows.row_mut(i).outputs = Some(outputs.clone());
            }
            EngineEvent::PendingCreates { creates } => {
                for c in creates {
                    let message = format!(
                        "pending create of {} {} left by an interrupted run",
                        c.type_,
                        c.urn.as_str()
                    );
                    self.log_line(Severity::Warning, Some(&c.urn), message);
                }
                self.run.set_pending_creates(creates);
            }
            EngineEvent::PendingCreatesCleared { count } => {
                self.run.set_pending_creates(&[]);
                self.noted(
                    Severity::Info,
                    &format!("cleared {count} pending create(s) (--clear-pending-creates)"),
                );
            }
            EngineEvent::Diagnostic {
                urn,
                severity,
                message,
                ephemeral,
            } => {
                // The serving side notes a watcher's pause just before the run pauses.
                if let Some(who) = message.strip_prefix(PAUSED_BY_NOTE) {
                    self.run.pause_cause = Some(format!("by {who}"));
                }
                if let Some(who) = message.strip_prefix(RESUMED_BY_NOTE) {
                    self.run.resume_cause = Some(who.to_string());
                }
                let timeout = message
                    .strip_prefix(APPROVAL_TIMEOUT_NOTE)
                    .and_then(|s| s.strip_suffix('s')?.parse().ok());
                if let (Some(secs), Some(root)) = (timeout, urn) {
                    let at = now + Duration::from_secs(secs);
                    self.approvals.set_deadline(root, at);
                    return;
                }
                self.diagnostic(urn.as_ref(), *severity, message, *ephemeral);
            }
            EngineEvent::StartDebugging { message, .. } => {
                self.noted(
                    Severity::Info,
                    &crate::engine::waiting_for_debugger(message),
                );
            }
            EngineEvent::Summary {
                counts,
                declined,
                duration,
                outcome,
                preview,
                ..
            } => {
                self.stop(outcome);
                self.run.summary = Some(SummaryInfo {
                    counts: counts.clone(),
                    declined: *declined,
                    duration: *duration,
                    outcome: outcome.clone(),
                    preview: *preview,
                });
            }
            EngineEvent::PolicyLoad { path } => self.policies.loading(path),
            EngineEvent::PolicyViolation(v) => {
                self.policies.violation(v);
                let severity = match v.level {
                    EnforcementLevel::Advisory => Severity::Warning,
                    _ => Severity::Error,
                };
                let what = v.message.lines().last().unwrap_or_default();
                let message = format!(
                    "[{}] {} ({}@v{}): {what}",
                    v.level.as_str(),
                    v.policy_name,
                    v.pack_name,
                    v.pack_version
                );
                self.log_line(severity, Some(&v.urn), message);
            }
            EngineEvent::PolicyRemediation(r) => {
                self.policies.remediation(r);
                let message = format!(
                    "remediated by {} ({}@v{})",
                    r.policy_name, r.pack_name, r.pack_version
                );
                self.log_line(Severity::Info, Some(&r.urn), message);
            }
            EngineEvent::PolicySummary(s) => self.policies.summary(s),
            EngineEvent::StepPlanned(info) => self.step_planned(info),
            EngineEvent::ChainQueued { chain, steps } => {
                self.chains.queue(*chain, steps);
                for (_, urn) in steps.iter() {
                    let i = self.rows.ensure(urn);
                    self.rows.row_mut(i).chain = Some(*chain);
                }
            }
            EngineEvent::ChainStarted { chain, worker } => {
                self.chains.start(*chain, *worker, now);
            }
            EngineEvent::ChainFinished { chain, ok } => self.chain_finished(*chain, *ok, now),
            EngineEvent::StepStarted {
                chain,
                op,
                urn,
                worker,
            } => {
                self.chains.start_step(*chain, (*op, urn), *worker, now);
                let i = self.rows.ensure(urn);
                self.rows.set_running(i, true);
                self.rows
                    .row_mut(i)
                    .start_step(*op, *worker, *chain, now, !live);
                if live {
                    let message = format!("{} started on worker {worker}", op.as_str());
                    self.log_line(Severity::Info, Some(urn), message);
                }
            }
            EngineEvent::StepFinished {
                chain,
                op,
                urn,
                id,
                outputs,
                duration,
            } => {
                self.chains.finish_step(*chain, false, *duration);
                let i = self.rows.ensure(urn);
                self.rows.set_running(i, false);
                if *op == StepOp::Refresh && self.run.operation == Some(Operation::Refresh) {
                    // The stack and components have no ID: a refresh leaves them as they are.
                    let found = id.is_some() || !self.rows.row(i).custom;
                    self.drift(i, found.then_some(outputs), live);
                }
                let counted = self
                    .rows
                    .row_mut(i)
                    .finish_step(*op, outputs, *duration, now, !live);
                if let Some(op) = counted {
                    self.counts.done_step(op);
                }
                if live {
                    self.counts.settle(1);
                    let message = format!("{} finished", op.as_str());
                    self.log_line(Severity::Info, Some(urn), message);
                }
            }
            EngineEvent::StepFailed {
                chain,
                op,
                urn,
                error,
                duration,
            } => {
                self.chains.finish_step(*chain, true, *duration);
                if live {
                    self.counts.settle(1);
                }
                let i = self.rows.ensure(urn);
                self.rows.set_running(i, false);
                self.counts.fail(i);
                self.rows.row_mut(i).fail_step(*op, error, *duration, now);
                let message = format!("{} failed: {error}", op.as_str());
                self.log_line(Severity::Error, Some(urn), message);
            }
            EngineEvent::StepSkipped { op, urn, reason } => {
                let i = self.rows.ensure(urn);
                if self.rows.row_mut(i).skip_step(*op, reason, now) {
                    self.counts.skip(i);
                }
            }
            EngineEvent::DiffQueued { urn } => {
                self.diffs.queue();
                let i = self.rows.ensure(urn);
                self.rows.row_mut(i).log(now, HistoryLine::DiffQueued);
            }
            EngineEvent::DiffStarted { urn, worker } => {
                self.diffs.start(urn, *worker);
                let i = self.rows.ensure(urn);
                self.rows.row_mut(i).diffing = true;
            }
            EngineEvent::DiffFinished {
                urn,
                changes,
                replace,
            } => {
                self.diffs.finish(urn, *replace);
                let i = self.rows.ensure(urn);
                let r = self.rows.row_mut(i);
                r.diffing = false;
                let (replace, changes) = (*replace, *changes);
                r.log(now, HistoryLine::Diffed { replace, changes });
            }
            EngineEvent::PendingReplacement {
                cascade,
                chain,
                root,
                members,
            } => self.hold(*cascade, *chain, root, members),
            EngineEvent::GateOpened {
                gate,
                chain,
                op,
                urn,
                kind,
                asked,
            } => {
                self.hold(*gate, *chain, urn, &[]);
                self.approvals.set_step(*gate, (*op, *kind, *asked));
                // A run's gate is logged once it is known to wait (`log_new_waits`).
                if *asked && self.run.preview {
                    let message = format!(
                        "{} of {} will wait for a decision ({}=ask)",
                        op.as_str(),
                        urn,
                        kind.as_str()
                    );
                    self.noted(Severity::Warning, &message);
                }
            }
            EngineEvent::Decision {
                cascade,
                approved,
                by,
                ..
            } => self.decision(*cascade, *approved, by),
            EngineEvent::Stepped => {
                self.noted(Severity::Info, "stepped: one waiting step may start");
            }
            EngineEvent::Breakpoint { op, urn } => {
                let message = format!("breakpoint: paused before {} of {urn}", op.as_str());
                self.noted(Severity::Warning, &message);
                self.run.pause_cause = Some(format!("at the breakpoint before {}", urn.name()));
            }
            EngineEvent::Paused => {
                self.run.paused = true;
                self.clock.pause(now);
                let by = self
                    .run
                    .pause_cause
                    .take()
                    .unwrap_or_else(|| "by the operator".to_string());
                let message = format!("paused {by}: running steps finish, no new step starts");
                self.noted(Severity::Warning, &message);
                self.run.paused_by = Some(by);
            }
            EngineEvent::Resumed => {
                self.run.paused = false;
                self.clock.resume(now);
                let by = self
                    .run
                    .resume_cause
                    .take()
                    .unwrap_or_else(|| "the operator".to_string());
                self.noted(Severity::Info, &format!("resumed by {by}"));
            }
            EngineEvent::CancelRequested { terminate } => {
                self.run.cancel = if *terminate {
                    CancelSeen::Terminating
                } else {
                    CancelSeen::Cancelling
                };
                self.run.paused = false;
                self.clock.resume(now);
                self.abandon_undecided("the deployment was cancelled");
                let message = if *terminate {
                    "terminating: in-flight operations stay pending"
                } else {
                    "cancelling: running steps finish, no new steps start"
                };
                self.noted(Severity::Warning, message);
            }
        }
        self.rows.place_new_rows();
    }

    /// A diagnostic: the resource's latest message, and a log line unless ephemeral. A failed
    /// step's error is logged with the failure already.
    fn diagnostic(
        &mut self,
        urn: Option<&Urn>,
        severity: Severity,
        message: &str,
        ephemeral: bool,
    ) {
        let repeat = urn.is_some_and(|u| {
            self.rows
                .get(u)
                .is_some_and(|r| r.error.as_deref() == Some(message))
        });
        if repeat {
            return;
        }
        if let Some(u) = urn {
            let i = self.rows.ensure(u);
            let r = self.rows.row_mut(i);
            // An error on a registration that got no step (refused, say by the plan) fails
            // its row, so the row, `e` and the summary show it.
            if severity == Severity::Error
                && !ephemeral
                && r.op.is_none()
                && r.status != Status::Failed
            {
                r.status = Status::Failed;
                r.error = Some(message.into());
                self.counts.fail(i);
            } else {
                r.message = Some(message.into());
            }
        }
        if !ephemeral {
            self.log_line(severity, urn, message.to_string());
        }
    }

    /// The run ended with `outcome`: the pause and the workers end, nothing waits any more,
    /// and what was running when it failed or was cancelled is interrupted.
    fn stop(&mut self, outcome: &Outcome) {
        let now = self.at;
        self.clock.resume(now);
        self.counts.over();
        let why = match outcome {
            Outcome::Succeeded => "the deployment ended",
            Outcome::Failed(_) => "the deployment failed",
            Outcome::Cancelled | Outcome::Terminated => "the deployment was cancelled",
        };
        self.abandon_undecided(why);
        for urn in self.behind.take_waiting() {
            let i = self.rows.ensure(&urn);
            if self.rows.row_mut(i).skip_unstarted(why, now) {
                self.counts.skip(i);
            }
        }
        if !matches!(outcome, Outcome::Succeeded) {
            for i in self.rows.take_running() {
                self.rows.row_mut(i).interrupt(now);
            }
        }
        if let Outcome::Failed(why) = outcome {
            // A program error has no resource row to show it: the log carries it.
            self.log_line(Severity::Error, None, why.to_string());
        }
    }

    fn step_planned(&mut self, info: &StepInfo) {
        let now = self.at;
        let i = self.rows.ensure(&info.urn);
        self.arrived(i);
        let counted = !self.rows.row(i).is_default_provider();
        self.counts
            .plan(info.op, &info.urn, counted, !self.run.preview);
        self.rows.set_parent(i, info.parent.as_ref());
        self.rows.set_custom(i, info.custom);
        self.rows.row_mut(i).plan(info, now);
        if !info.dependencies.is_empty() || self.rows.row(i).dependencies.is_empty() {
            self.rows.set_dependencies(i, &info.dependencies);
        }
    }

    /// A standalone refresh of row `i` read `found` (`None`: gone): the row shows what the
    /// refresh found as Pulumi does (`~ update` with the diff, `- delete`, `same`), and the
    /// counts move its step from `refresh` to that op.
    fn drift(&mut self, i: usize, found: Option<&PropertyMap>, live: bool) {
        let r = self.rows.row_mut(i);
        let old = r.changes().old_outputs.clone().unwrap_or_default();
        let (op, diff) = refresh_result(&old, found);
        r.op = Some(op);
        if !diff.changed_keys.is_empty() {
            r.changes_mut().diffs = diff.changed_keys;
            r.changes_mut().detailed_diff = diff.detailed_diff;
        }
        self.counts.refreshed(op, live);
    }

    /// A chain ended: its worker is free, and when it stopped short, the steps it did not
    /// reach are skipped.
    fn chain_finished(&mut self, chain: ChainId, ok: bool, now: Duration) {
        let Some(ended) = self.chains.finish(chain, ok, now) else {
            return;
        };
        if ok {
            return;
        }
        let why = if ended.failed {
            "an earlier step of its chain failed"
        } else if self.run.cancel != CancelSeen::None {
            "the deployment was cancelled"
        } else {
            "another step failed"
        };
        let now = self.at;
        for urn in self.chains.unfinished(chain) {
            let i = self.rows.ensure(&urn);
            if self.rows.row_mut(i).skip_unstarted(why, now) {
                self.counts.skip(i);
            }
            if !self.run.preview {
                self.counts.settle(1);
            }
        }
    }

    /// A cascade (or a single step's gate) is held in `chain` for a decision.
    fn hold(&mut self, cascade: CascadeId, chain: ChainId, root: &Urn, members: &[CascadeMember]) {
        let now = self.at;
        let preview = self.run.preview;
        self.approvals
            .open((cascade, chain), root, members, now, preview);
        self.chains.hold(chain, cascade, preview);
        for urn in std::iter::once(root).chain(members.iter().map(|m| &m.urn)) {
            let i = self.rows.ensure(urn);
            if self.rows.row_mut(i).join_cascade(cascade, now, preview) {
                self.counts.wait(true);
            }
        }
        for p in self.behind.take(root) {
            if self.rows.index_of(&p.urn).is_some() {
                continue;
            }
            let i = self.rows.ensure(&p.urn);
            self.rows.set_parent(i, p.parent.as_ref());
            self.rows.set_dependencies(i, &p.dependencies);
            self.rows.set_custom(i, p.custom);
            self.rows.row_mut(i).op = p.op;
            self.behind.wait(p.urn, root.clone());
        }
    }

    /// Row `i` registered: a row shown from the preview's plan drops the preview's op (its
    /// steps now say what it does).
    fn arrived(&mut self, i: usize) {
        if self.behind.arrived(&self.rows.row(i).urn) {
            self.rows.row_mut(i).op = None;
        }
    }

    fn decision(&mut self, cascade: CascadeId, approved: bool, by: &Decider) {
        let now = self.at;
        let preview = self.run.preview;
        let Some(c) = self.approvals.decide(cascade, approved, by) else {
            return;
        };
        let (chain, root, urns) = (c.chain, c.root.clone(), c.urns());
        let what = match c.step {
            Some((op, ..)) => op.as_str(),
            None => "replacement",
        };
        let state = if approved {
            ChainState::Queued
        } else {
            ChainState::Declined
        };
        self.chains.release(chain, state);
        let cascade_declined = !preview && !approved && c.step.is_none();
        if cascade_declined {
            self.counts.decline_cascade();
        }
        let who = by.to_string();
        for urn in &urns {
            if cascade_declined {
                self.counts.unexpect(urn, *urn == root);
            }
            let i = self.rows.ensure(urn);
            // A preview's decline (by policy) keeps the row: its op leaves the plan's counts.
            if preview
                && !approved
                && let Some(op) = self.rows.row(i).op
            {
                self.counts.unplan(op);
            }
            if preview && !approved && c.step.is_none() {
                self.counts.unpreview(urn);
            }
            let (settled, waited) =
                self.rows
                    .row_mut(i)
                    .decided(approved, (what, &who), now, preview);
            if waited {
                self.counts.wait(false);
            }
            // A cascade a preview declines keeps its rows, as the apply's decline will.
            if !approved && (waited || (preview && c.step.is_none())) {
                self.counts.decline(settled);
            }
        }
        let message = format!(
            "{what} of {}{} {} by {who}",
            root.name(),
            match urns.iter().filter(|u| **u != root).count() {
                0 => String::new(),
                1 => " and 1 dependent".to_string(),
                n => format!(" and {n} dependents"),
            },
            if approved { "approved" } else { "declined" }
        );
        self.log_line(Severity::Info, Some(&root), message);
    }

    /// Cascades nobody decided when the run stopped will not run: nothing waits any more.
    fn abandon_undecided(&mut self, why: &str) {
        let now = self.at;
        for (chain, urns) in self.approvals.abandon_waiting() {
            self.chains.release(chain, ChainState::Skipped);
            for urn in urns {
                let i = self.rows.ensure(&urn);
                if self.rows.row_mut(i).abandon(why, now) {
                    self.counts.wait(false);
                    self.counts.skip(i);
                }
            }
        }
    }

    /// Logs each gate opened since the last call that still waits for a decision, at the
    /// instant it opened. The console calls it after each batch of events, so a gate that its
    /// policy or a decision file settled at once is not said to have waited; nor is one that
    /// `decided_before` says was decided already (in the preview).
    pub fn log_new_waits(&mut self, decided_before: impl Fn(&Cascade) -> bool) {
        let opened = self
            .approvals
            .all()
            .get(self.waits_logged..)
            .unwrap_or_default();
        let waiting: Vec<LogEntry> = opened
            .iter()
            .filter(|c| c.waiting() && !decided_before(c))
            .map(|c| {
                let kind = c.step.map_or(ApprovalKind::Replacements, |(_, k, _)| k);
                LogEntry {
                    at: c.at,
                    severity: Severity::Warning,
                    urn: Some(c.root.clone()),
                    message: format!("waiting for approval: {} ({})", c.root, kind.as_str()),
                }
            })
            .collect();
        self.waits_logged = self.approvals.all().len();
        for entry in waiting {
            self.log.push(entry);
        }
    }

    /// A line in the log, stamped with the instant of the event being applied.
    fn log_line(&mut self, severity: Severity, urn: Option<&Urn>, message: String) {
        self.log.push(LogEntry {
            at: self.at,
            severity,
            urn: urn.cloned(),
            message,
        });
    }
}
