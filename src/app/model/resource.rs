//! One resource row: where it is in its lifecycle, what its steps change, and its history. The
//! row's own transitions live here; the table of rows (indexes, parents, dependencies) is
//! `resources`.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use crate::engine::model::provider_ref::provider_type_package;
use crate::engine::model::resource::{is_default_provider_name, is_provider_type};
use crate::engine::model::urn::ROOT_STACK_TYPE;
use crate::engine::provider::PropertyDiff;
use crate::engine::run::events::{CascadeId, ChainId, StepInfo, WorkerId};
use crate::engine::{PropertyMap, StepOp, Urn};

use super::history::{HistoryEntry, HistoryLine};

/// How the console names the resource of `urn`: a default provider with its package
/// (`sim (default)`), since Pulumi names every package's default provider `default` (or
/// `default_<version>`) and only the type tells them apart.
pub fn label(urn: &Urn) -> Cow<'_, str> {
    let name = urn.name();
    match provider_type_package(urn.type_()) {
        Some(package) if is_default_provider_name(name) => {
            Cow::Owned(format!("{package} ({name})"))
        }
        _ => Cow::Borrowed(name),
    }
}

/// Where a resource is in its lifecycle, as the operator needs to tell at a glance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Registered or planned, not started yet.
    Planned,
    /// One of its steps is running.
    Running,
    /// Every planned step finished.
    Done,
    Failed,
    Skipped,
    /// Part of a DBR cascade that waits for the operator.
    WaitingForApproval,
    /// Was running when the deployment was cancelled or terminated.
    Interrupted,
    /// Part of a cascade the operator or the policy declined: kept as it is.
    Declined,
}

impl Status {
    /// Every status, as `status:` filters name them.
    const NAMES: [(Status, &'static str); 8] = [
        (Status::Planned, "planned"),
        (Status::Running, "running"),
        (Status::Done, "done"),
        (Status::Failed, "failed"),
        (Status::Skipped, "skipped"),
        (Status::WaitingForApproval, "waiting"),
        (Status::Interrupted, "interrupted"),
        (Status::Declined, "declined"),
    ];

    /// The status's name in filters and sort order.
    pub fn label(self) -> &'static str {
        Status::NAMES
            .iter()
            .find(|(s, _)| *s == self)
            .map_or("planned", |(_, n)| n)
    }

    /// The status named `name` (as [`Status::label`] spells it).
    pub fn parse(name: &str) -> Option<Status> {
        Status::NAMES
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(s, _)| *s)
    }
}

/// A row's rarely set fields: what a provider's diff found and the old state an update or
/// a replacement starts from. Boxed apart so that a million plain creates keep small rows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Changes {
    pub diffs: Vec<String>,
    pub replace_keys: Vec<String>,
    pub detailed_diff: BTreeMap<String, PropertyDiff>,
    /// `hideDiffs` paths: the details view compacts their changes.
    pub hide_diffs: Vec<String>,
    pub old_inputs: Option<PropertyMap>,
    pub old_outputs: Option<PropertyMap>,
}

/// What a row without changes reads.
static NO_CHANGES: Changes = Changes {
    diffs: Vec::new(),
    replace_keys: Vec::new(),
    detailed_diff: BTreeMap::new(),
    hide_diffs: Vec::new(),
    old_inputs: None,
    old_outputs: None,
};

/// Everything known about one resource.
#[derive(Clone, Debug)]
pub struct Resource {
    pub urn: Urn,
    /// Characters in the name, and whether the graph shows the row (neither the stack nor a
    /// provider): kept here so that a layout of a million rows reads no string.
    name_chars: u32,
    /// The name's first eight bytes, big-endian: siblings sorted by name mostly compare these
    /// and read the text (another pointer away) only on a tie.
    name_prefix: u64,
    graph_node: bool,
    pub custom: bool,
    /// Index of the parent row, when the parent is known.
    pub parent: Option<usize>,
    /// Child rows, in the order they appeared.
    pub children: Vec<usize>,
    /// The op that stands for the resource (a replacement's halves show as `+-`).
    pub op: Option<StepOp>,
    pub status: Status,
    /// The step running now.
    pub running_op: Option<StepOp>,
    /// The last step that finished.
    pub last_done_op: Option<StepOp>,
    pub steps_planned: u32,
    pub steps_finished: u32,
    pub started: Option<Duration>,
    pub ended: Option<Duration>,
    /// Time spent in finished steps.
    pub busy: Duration,
    /// What an update or a replacement changes; `None` for the common plain create.
    pub(super) changes: Option<Box<Changes>>,
    pub new_inputs: Option<PropertyMap>,
    pub outputs: Option<PropertyMap>,
    /// The engine's list, shared with its event rather than copied.
    pub dependencies: Arc<[Urn]>,
    pub delete_before_replace: bool,
    pub protect: bool,
    pub history: Vec<HistoryEntry>,
    pub worker: Option<WorkerId>,
    pub chain: Option<ChainId>,
    pub cascade: Option<CascadeId>,
    /// Boxed text, like the message: rows seldom have either, and a `String` is 8 bytes more.
    pub error: Option<Box<str>>,
    /// The latest message about the resource (ephemeral diagnostics, skip reasons).
    pub message: Option<Box<str>>,
    /// A provider diff for it is running.
    pub diffing: bool,
    /// Its original was deleted (delete-before-replace, or the old copy of a replacement).
    pub deleted_original: bool,
    /// Its replacement was created: only then is a replacement done.
    pub created_replacement: bool,
    /// The logical `replace` marker finished (counted once both halves are done).
    pub replace_marked: bool,
}

/// Whether rows of type `t` are in the dependency graph (the tree shows the rest).
fn is_graph_type(t: &str) -> bool {
    t != ROOT_STACK_TYPE && !is_provider_type(t)
}

impl Resource {
    pub(super) fn new(urn: Urn) -> Resource {
        let name = urn.name();
        let mut prefix = [0; 8];
        let head = &name.as_bytes()[..name.len().min(8)];
        prefix[..head.len()].copy_from_slice(head);
        Resource {
            name_chars: u32::try_from(name.chars().count()).unwrap_or(u32::MAX),
            name_prefix: u64::from_be_bytes(prefix),
            graph_node: is_graph_type(urn.type_()),
            urn,
            custom: true,
            parent: None,
            children: Vec::new(),
            op: None,
            status: Status::Planned,
            running_op: None,
            last_done_op: None,
            steps_planned: 0,
            steps_finished: 0,
            started: None,
            ended: None,
            busy: Duration::ZERO,
            changes: None,
            new_inputs: None,
            outputs: None,
            dependencies: Arc::default(),
            delete_before_replace: false,
            protect: false,
            history: Vec::new(),
            worker: None,
            chain: None,
            cascade: None,
            error: None,
            message: None,
            diffing: false,
            deleted_original: false,
            created_replacement: false,
            replace_marked: false,
        }
    }

    /// What its diff found and the old state it starts from (empty for a plain create).
    pub fn changes(&self) -> &Changes {
        self.changes.as_deref().unwrap_or(&NO_CHANGES)
    }

    /// Its changes, boxed on first write.
    pub(super) fn changes_mut(&mut self) -> &mut Changes {
        self.changes.get_or_insert_with(Box::default)
    }

    /// Characters in its name (what a column of names is sized by).
    pub fn name_chars(&self) -> usize {
        self.name_chars as usize
    }

    /// Whether the dependency graph shows it: the stack and providers are left out.
    pub fn graph_node(&self) -> bool {
        self.graph_node
    }

    /// The resource's type, from its URN: a copy per row would cost a million rows 70 MB.
    pub fn type_(&self) -> &str {
        self.urn.type_()
    }

    /// The resource's name (last URN segment).
    pub fn name(&self) -> &str {
        self.urn.name()
    }

    /// Its name as the console shows it (see [`label`]).
    pub fn label(&self) -> Cow<'_, str> {
        label(&self.urn)
    }

    /// What resources sort by name with: the name (its prefix first, so that most comparisons
    /// read no text), then the URN, which is unique and makes the order total.
    pub fn name_order(&self) -> (u64, &str, &str) {
        (self.name_prefix, self.name(), self.urn.as_str())
    }

    /// The wall time of its steps, as Pulumi shows a step's: the running step counts up to
    /// `now` (the console clock), a pause included.
    pub fn elapsed(&self, now: Duration) -> Option<Duration> {
        match (self.status, self.started) {
            (Status::Running, Some(s)) => Some(self.busy + now.saturating_sub(s)),
            _ if self.busy > Duration::ZERO => Some(self.busy),
            _ => None,
        }
    }

    /// Default providers are set up by the engine, not declared: counts leave them out, as
    /// Pulumi's `resourceChanges` and the plain display do.
    pub(super) fn is_default_provider(&self) -> bool {
        // Rows in the graph are neither providers nor the stack: most rows read no type.
        !self.graph_node && is_provider_type(self.type_()) && is_default_provider_name(self.name())
    }

    pub(super) fn log(&mut self, at: Duration, line: HistoryLine) {
        self.history.push(HistoryEntry::new(at, line));
    }

    fn log_text(&mut self, at: Duration, text: String) {
        self.log(at, HistoryLine::Text(Box::new(text)));
    }

    /// A step of it was planned: its op (a replacement's halves show as one `+-`), what the
    /// step changes, and one more step to finish.
    pub(super) fn plan(&mut self, info: &StepInfo, now: Duration) {
        self.op = Some(match (self.op, info.op) {
            (Some(StepOp::Replace), _)
            | (_, StepOp::Replace | StepOp::CreateReplacement | StepOp::DeleteReplaced) => {
                StepOp::Replace
            }
            (_, op) => op,
        });
        self.steps_planned += 1;
        if self.status == Status::Done {
            self.status = Status::Planned;
        }
        if let Some(c) = info.chain {
            self.chain = Some(c);
        }
        if !info.diffs.is_empty() {
            self.changes_mut().diffs.clone_from(&info.diffs);
        }
        if !info.replace_keys.is_empty() {
            self.changes_mut()
                .replace_keys
                .clone_from(&info.replace_keys);
        }
        if !info.detailed_diff.is_empty() {
            self.changes_mut()
                .detailed_diff
                .clone_from(&info.detailed_diff);
        }
        if !info.hide_diffs.is_empty() {
            self.changes_mut().hide_diffs.clone_from(&info.hide_diffs);
        } else if let Some(c) = self.changes.as_mut() {
            c.hide_diffs.clear();
        }
        if info.old_inputs.is_some() {
            self.changes_mut().old_inputs.clone_from(&info.old_inputs);
        }
        if info.old_outputs.is_some() {
            self.changes_mut().old_outputs.clone_from(&info.old_outputs);
        }
        if info.new_inputs.is_some() {
            self.new_inputs.clone_from(&info.new_inputs);
        }
        self.delete_before_replace |= info.delete_before_replace;
        self.protect = info.protect;
        self.log(now, HistoryLine::Planned(info.op));
    }

    /// One of its steps started on `worker` (logged only in a live run).
    pub(super) fn start_step(
        &mut self,
        op: StepOp,
        worker: WorkerId,
        chain: ChainId,
        now: Duration,
        preview: bool,
    ) {
        self.status = Status::Running;
        self.running_op = Some(op);
        self.started = Some(now);
        self.worker = Some(worker);
        self.chain = Some(chain);
        if !preview {
            self.log(now, HistoryLine::OnWorker(op, worker));
        }
    }

    /// One of its steps finished; the logical op this completes, to count, if any (a
    /// replacement counts once both its halves are done; default providers never count).
    pub(super) fn finish_step(
        &mut self,
        op: StepOp,
        outputs: &PropertyMap,
        duration: Duration,
        now: Duration,
        preview: bool,
    ) -> Option<StepOp> {
        self.running_op = None;
        self.last_done_op = Some(op);
        self.busy += duration;
        self.steps_finished += 1;
        self.outputs = Some(outputs.clone());
        let replacement_done = self.note_replacement_half(op);
        // A replacement is done only when its replacement exists; until then a deleted
        // original waits (for its cascade's root, or for its own create).
        let waits_for_create = self.op == Some(StepOp::Replace) && !self.created_replacement;
        self.status = if self.status == Status::Declined {
            Status::Declined
        } else if self.steps_finished >= self.steps_planned && (preview || !waits_for_create) {
            self.ended = Some(now);
            Status::Done
        } else {
            Status::Planned
        };
        self.log(now, HistoryLine::Finished { op, preview });
        let counted = match op {
            StepOp::Replace | StepOp::CreateReplacement | StepOp::ImportReplacement => {
                replacement_done.then_some(StepOp::Replace)
            }
            op if op.is_logical() => Some(op),
            _ => None,
        };
        counted.filter(|_| !self.is_default_provider())
    }

    /// One of its steps failed with `error`.
    pub(super) fn fail_step(&mut self, op: StepOp, error: &str, duration: Duration, now: Duration) {
        self.running_op = None;
        self.busy += duration;
        self.status = Status::Failed;
        self.ended = Some(now);
        self.error = Some(error.into());
        self.log_text(now, format!("{} failed: {error}", op.as_str()));
        self.message = None;
    }

    /// One of its steps was skipped, for `reason`: true when that makes it skipped (a
    /// declined row stays declined: its decision is why the step does not run).
    pub(super) fn skip_step(&mut self, op: StepOp, reason: &str, now: Duration) -> bool {
        if self.status == Status::Declined {
            self.log_text(now, format!("{} not run: {reason}", op.as_str()));
            return false;
        }
        self.op.get_or_insert(op);
        self.status = Status::Skipped;
        self.message = Some(reason.into());
        self.log_text(now, format!("{} skipped: {reason}", op.as_str()));
        true
    }

    /// It is part of `cascade`; in a live run it waits for the decision. True when it starts
    /// waiting now.
    pub(super) fn join_cascade(
        &mut self,
        cascade: CascadeId,
        now: Duration,
        preview: bool,
    ) -> bool {
        self.cascade = Some(cascade);
        if !preview && self.status != Status::WaitingForApproval {
            self.status = Status::WaitingForApproval;
            self.log(now, HistoryLine::AwaitingApproval);
            return true;
        }
        false
    }

    /// Its cascade (a `what`: replacement or gated step) was decided by `who`; the steps a
    /// decline settles in a live run (they will never run), and whether it was waiting.
    pub(super) fn decided(
        &mut self,
        approved: bool,
        (what, who): (&str, &str),
        now: Duration,
        preview: bool,
    ) -> (usize, bool) {
        let mut settled = 0;
        let waited = self.status == Status::WaitingForApproval;
        if !approved {
            // Its planned steps will never run: settled, so that a finished run reads 100%.
            if !preview {
                settled = self.steps_planned.saturating_sub(self.steps_finished) as usize;
                self.steps_finished = self.steps_planned;
            }
            // Kept as it is: no longer shown as a replacement.
            self.op = Some(StepOp::Same);
            if let Some(c) = self.changes.as_mut() {
                c.replace_keys.clear();
            }
            self.message = Some(format!("{what} declined by {who}: kept as it is").into());
        }
        if self.status == Status::WaitingForApproval {
            self.status = if approved {
                Status::Planned
            } else {
                Status::Declined
            };
            let verb = if approved { "approved" } else { "declined" };
            self.log_text(now, format!("{verb} by {who}"));
        }
        (settled, waited)
    }

    /// The run stopped (`why`) before its cascade was decided: true when it was waiting and
    /// is now skipped.
    pub(super) fn abandon(&mut self, why: &str, now: Duration) -> bool {
        if self.status != Status::WaitingForApproval {
            return false;
        }
        self.status = Status::Skipped;
        self.message = Some(format!("not run: {why} before it was approved").into());
        self.log_text(now, format!("skipped: {why} before it was approved"));
        true
    }

    /// Its chain stopped (`why`) before this step: true when it was planned and is now
    /// skipped.
    pub(super) fn skip_unstarted(&mut self, why: &str, now: Duration) -> bool {
        if self.status != Status::Planned {
            return false;
        }
        self.status = Status::Skipped;
        self.message = Some(format!("not run: {why}").into());
        self.log_text(now, format!("skipped: {why}"));
        true
    }

    /// It was running when the run stopped.
    pub(super) fn interrupt(&mut self, now: Duration) {
        self.status = Status::Interrupted;
        self.running_op = None;
        self.log(now, HistoryLine::Interrupted);
    }

    /// Records a finished half of a replacement; true when this completes the replacement
    /// (its `replace` marker and its create both finished).
    fn note_replacement_half(&mut self, op: StepOp) -> bool {
        let before = self.replace_marked && self.created_replacement;
        match op {
            StepOp::Replace => self.replace_marked = true,
            StepOp::CreateReplacement | StepOp::ImportReplacement => {
                self.created_replacement = true;
            }
            StepOp::DeleteReplaced => self.deleted_original = true,
            _ => {}
        }
        !before && self.replace_marked && self.created_replacement
    }
}
