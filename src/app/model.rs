//! The console's model: everything the screen shows, reduced from the engine's event stream so
//! that the views stay pure functions of it. Every event costs O(1) amortised (hash indexes into
//! vectors, no scans over all resources), so a 100,000-resource deployment does not slow it down.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use foldhash::fast::RandomState as FastHash;
use indexmap::IndexMap;

use crate::engine::model::resource::{is_default_provider_name, is_provider_type};
use crate::engine::model::urn::{ROOT_STACK_TYPE, UrnMap};
use crate::engine::provider::{DiffChanges, PropertyDiff};
use crate::engine::run::approval::ApprovalKind;
use crate::engine::run::events::{
    CascadeId, CascadeMember, ChainId, Decider, PendingCreate, StepInfo, WorkerId,
};
use crate::engine::{EngineEvent, Operation, Outcome, PropertyMap, Severity, StepOp, Urn};

use super::graph_index::GraphIndex;

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

/// One line of a resource's history, stamped with the console clock. A million rows log
/// three or four each, so a line is 24 bytes: the common ones are said by what they are and
/// written out only when shown.
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryEntry {
    /// The console clock in tenths of a second, the precision lines show: 13 years fit.
    at_tenths: u32,
    line: HistoryLine,
}

/// What a history line says: the common lines need no text of their own.
#[derive(Clone, Debug, PartialEq)]
enum HistoryLine {
    Registered,
    Planned(StepOp),
    DiffQueued,
    Diffed {
        replace: bool,
        changes: DiffChanges,
    },
    AwaitingApproval,
    OnWorker(StepOp, WorkerId),
    /// Finished; in a preview, what would have run.
    Finished {
        op: StepOp,
        preview: bool,
    },
    Interrupted,
    /// Failures, skips and decisions: rare, and worded with what caused them.
    #[expect(
        clippy::box_collection,
        reason = "a thin pointer keeps every line at 24 bytes; a String would make them 32"
    )]
    Text(Box<String>),
}

impl HistoryEntry {
    /// When the line was logged, to the tenth of a second.
    pub fn at(&self) -> Duration {
        Duration::from_millis(u64::from(self.at_tenths) * 100)
    }

    /// The line as the details pane shows it.
    pub fn text(&self) -> Cow<'static, str> {
        match &self.line {
            HistoryLine::Registered => "registered".into(),
            HistoryLine::Planned(op) => format!("planned {}", op.as_str()).into(),
            HistoryLine::DiffQueued => "diff queued".into(),
            HistoryLine::Diffed { replace: true, .. } => "diff: replace".into(),
            HistoryLine::Diffed { changes, .. } => {
                format!("diff: {changes:?} changes").to_lowercase().into()
            }
            HistoryLine::AwaitingApproval => "waiting for approval".into(),
            HistoryLine::OnWorker(op, worker) => {
                format!("{} on worker {worker}", op.progressive()).into()
            }
            HistoryLine::Finished { op, preview: true } => {
                format!("would {} (preview: nothing ran)", op.as_str()).into()
            }
            HistoryLine::Finished { op, preview: false } => op.past_tense().into(),
            HistoryLine::Interrupted => "interrupted".into(),
            HistoryLine::Text(text) => text.to_string().into(),
        }
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
    changes: Option<Box<Changes>>,
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

impl Resource {
    fn new(urn: Urn) -> Resource {
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
    fn changes_mut(&mut self) -> &mut Changes {
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

    /// What resources sort by name with: the name (its prefix first, so that most comparisons
    /// read no text), then the URN, which is unique and makes the order total.
    pub fn name_order(&self) -> (u64, &str, &str) {
        (self.name_prefix, self.name(), self.urn.as_str())
    }

    /// Time spent so far: the running step counts up to `now` (the model's active clock, which
    /// stands still while paused).
    pub fn elapsed(&self, now: Duration) -> Option<Duration> {
        match (self.status, self.started) {
            (Status::Running, Some(s)) => Some(self.busy + now.saturating_sub(s)),
            _ if self.busy > Duration::ZERO => Some(self.busy),
            _ => None,
        }
    }

    /// Default providers are set up by the engine, not declared: counts leave them out, as
    /// Pulumi's `resourceChanges` and the plain display do.
    fn is_default_provider(&self) -> bool {
        // Rows in the graph are neither providers nor the stack: most rows read no type.
        !self.graph_node && is_provider_type(self.type_()) && is_default_provider_name(self.name())
    }

    fn log(&mut self, at: Duration, line: HistoryLine) {
        self.history.push(HistoryEntry {
            at_tenths: u32::try_from(at.as_millis() / 100).unwrap_or(u32::MAX),
            line,
        });
    }

    fn log_text(&mut self, at: Duration, text: String) {
        self.log(at, HistoryLine::Text(Box::new(text)));
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

/// Where a chain of steps is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChainState {
    Queued,
    Running,
    Done,
    Failed,
    AwaitingApproval,
    Declined,
    /// Never ran (or stopped before its next step): cancelled, or a failure elsewhere.
    Skipped,
}

/// A chain of steps run serially on one worker.
#[derive(Clone, Debug)]
pub struct Chain {
    pub id: ChainId,
    /// The engine's list, shared with its event rather than copied.
    pub steps: Arc<[(StepOp, Urn)]>,
    pub state: ChainState,
    pub worker: Option<WorkerId>,
    /// Index into `steps` of the step running now.
    pub current: Option<usize>,
    pub finished_steps: usize,
    pub started: Option<Duration>,
    pub ended: Option<Duration>,
    pub cascade: Option<CascadeId>,
    /// One of its own steps failed (as opposed to being stopped from outside).
    pub failed: bool,
}

impl Chain {
    /// Time since the chain started, up to its end.
    pub fn elapsed(&self, now: Duration) -> Option<Duration> {
        let start = self.started?;
        Some(self.ended.unwrap_or(now).saturating_sub(start))
    }
}

/// Progress of provider diffs run in parallel with generation.
#[derive(Clone, Debug, Default)]
pub struct DiffProgress {
    pub queued: usize,
    /// Resources being diffed now, with their worker.
    pub running: IndexMap<Urn, WorkerId>,
    pub done: usize,
    /// Diffs that found a replacement.
    pub replaces: usize,
}

impl DiffProgress {
    /// Diffs seen so far, in any state (the gauge's 100%).
    pub fn total(&self) -> usize {
        self.queued + self.running.len() + self.done
    }
}

/// A delete-before-replace cascade shown to the operator.
#[derive(Clone, Debug)]
pub struct Cascade {
    pub id: CascadeId,
    pub chain: ChainId,
    pub root: Urn,
    pub members: Vec<CascadeMember>,
    /// `Some((approved, by))` once decided.
    pub decided: Option<(bool, Decider)>,
    pub at: Duration,
    /// Planned by a preview: nothing waits for a decision yet.
    pub planned: bool,
    /// The run ended (failed or cancelled) before anyone decided: it will not run.
    pub abandoned: bool,
    /// A single step's gate, with no members: its operation, kind, and whether its policy
    /// asks (else it declines). `None` for a delete-before-replace cascade.
    pub step: Option<(StepOp, ApprovalKind, bool)>,
}

impl Cascade {
    /// Whether the operator still has to decide it.
    pub fn waiting(&self) -> bool {
        self.decided.is_none() && !self.planned && !self.abandoned
    }
}

/// A diagnostic or engine message for the log view.
#[derive(Clone, Debug, PartialEq)]
pub struct LogEntry {
    pub at: Duration,
    pub severity: Severity,
    pub urn: Option<Urn>,
    pub message: String,
}

/// The deployment's state as the top bar shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunState {
    /// Waiting for the first event.
    Starting,
    Preview,
    Running,
    Paused,
    AwaitingApproval,
    Cancelling,
    Done,
    Failed,
    Cancelled,
}

impl RunState {
    /// The state as the top bar spells it.
    pub fn label(self) -> &'static str {
        match self {
            RunState::Starting => "STARTING",
            RunState::Preview => "PREVIEW",
            RunState::Running => "RUNNING",
            RunState::Paused => "PAUSED",
            RunState::AwaitingApproval => "AWAITING APPROVAL",
            RunState::Cancelling => "CANCELLING",
            RunState::Done => "DONE",
            RunState::Failed => "FAILED",
            RunState::Cancelled => "CANCELLED",
        }
    }

    /// The deployment ended (the summary arrived): quitting needs no confirmation.
    pub fn is_over(self) -> bool {
        matches!(
            self,
            RunState::Done | RunState::Failed | RunState::Cancelled
        )
    }
}

/// The engine's closing summary.
#[derive(Clone, Debug, PartialEq)]
pub struct SummaryInfo {
    pub counts: BTreeMap<StepOp, usize>,
    pub declined: usize,
    pub duration: Duration,
    pub outcome: Outcome,
    pub preview: bool,
}

/// How far cancellation has gone, as seen in events.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CancelSeen {
    #[default]
    None,
    Cancelling,
    Terminating,
}

const OPS: usize = StepOp::ALL.len();

/// The console's model; see the module documentation.
#[derive(Clone, Debug, Default)]
pub struct Model {
    pub operation: Option<Operation>,
    pub preview: bool,
    pub stack: String,
    pub project: String,
    pub parallel: usize,
    pub parallel_diff: bool,
    now: Duration,
    started_at: Option<Duration>,
    #[expect(
        clippy::vec_box,
        reason = "a row is large: growing a vector of a million of them would copy them all"
    )]
    resources: Vec<Box<Resource>>,
    index: UrnMap<usize>,
    /// The dependency graph of the rows, kept as they arrive.
    graph: GraphIndex,
    /// A dependency list's rows, kept between calls for its allocation.
    scratch_rows: Vec<usize>,
    /// Rows made without a parent; those given one later are passed over by [`Model::roots`].
    roots: Vec<usize>,
    /// Bumped whenever rows are added or re-parented or dependencies change, so that derived
    /// layouts know to rebuild.
    structure_version: u64,
    /// Rows naming a dependency that has no row yet, by its URN: linked when the row appears.
    awaiting_dependency: UrnMap<Vec<usize>>,
    #[expect(
        clippy::vec_box,
        reason = "a preview has a chain per resource: growing a million of them would copy them all"
    )]
    chains: Vec<Box<Chain>>,
    /// Chains not at `id - 1` in `chains` (see [`Model::chain_position`]).
    chain_index: FastMap<ChainId, usize>,
    awaiting_chains: BTreeSet<usize>,
    running_chains: BTreeSet<usize>,
    queued_chains: BTreeSet<usize>,
    finished_chains: Vec<usize>,
    pub diffs: DiffProgress,
    cascades: Vec<Cascade>,
    cascade_index: FastMap<CascadeId, usize>,
    undecided: usize,
    /// Creates an interrupted run left pending in the stack, until they are cleared.
    pending_creates: Vec<PendingCreate>,
    log: Vec<LogEntry>,
    planned_counts: [usize; OPS],
    done_counts: [usize; OPS],
    pub failed: usize,
    pub skipped: usize,
    /// Every resource ever marked failed or skipped, in index order: the summary lists them
    /// from here (filtered by their status now) instead of walking every resource each frame.
    troubled: BTreeSet<usize>,
    /// Resources the preview changed that the operator's selection left out of this run, as
    /// (name, type): the summary lists them as skipped.
    pub deselected: Vec<(String, String)>,
    pub paused: bool,
    pub cancel: CancelSeen,
    pub workers_busy: usize,
    running: HashSet<usize, FastHash>,
    pub summary: Option<SummaryInfo>,
    /// When the current pause began (console clock).
    paused_since: Option<Duration>,
    /// Time spent paused in earlier pauses.
    paused_total: Duration,
    /// Steps planned so far in a live run, and those settled (finished, failed or skipped).
    steps_total: usize,
    steps_settled: usize,
    /// Bumped by every event: the key of layouts that depend on statuses or times.
    version: u64,
    /// The run's policy packs, their violations and remediations.
    pub policies: super::policies::PolicyModel,
}

/// Indexes by id with a fast hasher: every event looks one up.
type FastMap<K, V> = HashMap<K, V, FastHash>;

/// The position chain `id` gets when its events come in the engine's order: the engine
/// numbers chains from 1 as it queues them.
fn numbered_position(id: ChainId) -> Option<usize> {
    usize::try_from(id).ok()?.checked_sub(1)
}

/// Whether rows of type `t` are in the dependency graph (the tree shows the rest).
fn is_graph_type(t: &str) -> bool {
    t != ROOT_STACK_TYPE && !is_provider_type(t)
}

impl Model {
    pub fn new() -> Model {
        Model::default()
    }

    /// Advances the console clock; events applied afterwards are stamped with it.
    pub fn set_now(&mut self, now: Duration) {
        self.now = self.now.max(now);
    }

    /// The console clock: time since the console started.
    pub fn now(&self) -> Duration {
        self.now
    }

    /// The console clock without the time spent paused: step and chain times are on it, so a
    /// pause does not make them look slow.
    pub fn active_now(&self) -> Duration {
        self.now.saturating_sub(self.paused_total).saturating_sub(
            self.paused_since
                .map_or(Duration::ZERO, |p| self.now.saturating_sub(p)),
        )
    }

    /// Time spent paused so far.
    pub fn paused_time(&self) -> Duration {
        self.paused_total
            + self
                .paused_since
                .map_or(Duration::ZERO, |p| self.now.saturating_sub(p))
    }

    /// Elapsed deployment time without pauses: the summary's duration (less pauses) once over.
    pub fn elapsed(&self) -> Duration {
        if let Some(s) = &self.summary {
            return s.duration.saturating_sub(self.paused_total);
        }
        self.started_at
            .map_or(Duration::ZERO, |s| self.active_now().saturating_sub(s))
    }

    /// Steps settled and planned so far in a live run: the header's progress.
    pub fn progress(&self) -> (usize, usize) {
        (self.steps_settled, self.steps_total)
    }

    /// Estimated time left, from the pace so far (None until a step settled).
    pub fn eta(&self) -> Option<Duration> {
        let (done, total) = self.progress();
        // Waiting for the operator (a pause, a cascade) has no pace to extrapolate.
        if done == 0 || done >= total || self.summary.is_some() || self.paused || self.undecided > 0
        {
            return None;
        }
        let per_step = self.elapsed().as_secs_f64() / done as f64;
        Some(Duration::from_secs_f64(per_step * (total - done) as f64))
    }

    fn end_pause(&mut self) {
        if let Some(since) = self.paused_since.take() {
            self.paused_total += self.now.saturating_sub(since);
        }
    }

    /// Every resource row, indexable by the indexes the tree and the graph hold.
    pub fn resources(&self) -> &[Box<Resource>] {
        &self.resources
    }

    /// The rows whose status is `status` now, in index order, among those ever failed or
    /// skipped (the only statuses asked for this way): O(those), not O(every row).
    pub fn troubled(&self, status: Status) -> impl Iterator<Item = &Resource> + '_ {
        self.troubled
            .iter()
            .map(|&i| &*self.resources[i])
            .filter(move |r| r.status == status)
    }

    /// The row at `idx` (an index from this model).
    pub fn resource(&self, idx: usize) -> &Resource {
        &self.resources[idx]
    }

    /// The row index of `urn`, in O(1).
    pub fn index_of(&self, urn: &Urn) -> Option<usize> {
        self.index.get(urn).copied()
    }

    /// The row of `urn`, in O(1).
    pub fn get(&self, urn: &Urn) -> Option<&Resource> {
        self.index_of(urn).map(|i| &*self.resources[i])
    }

    /// Top-level rows (the root stack, and orphans whose parent is not known yet).
    pub fn roots(&self) -> impl Iterator<Item = usize> + '_ {
        self.roots
            .iter()
            .copied()
            .filter(|&i| self.resources[i].parent.is_none())
    }

    /// The dependency graph, with its layers.
    pub fn graph(&self) -> &GraphIndex {
        &self.graph
    }

    /// Changes whenever rows or dependencies are added: the key of derived layouts.
    pub fn structure_version(&self) -> u64 {
        self.structure_version
    }

    /// Changes with every event applied.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Every chain, in the order first seen.
    pub fn chains(&self) -> &[Box<Chain>] {
        &self.chains
    }

    /// The chain `id`, in O(1).
    pub fn chain(&self, id: ChainId) -> Option<&Chain> {
        self.chain_position(id).map(|i| &*self.chains[i])
    }

    /// Chains in display order: awaiting approval, running, queued, then finished (newest first).
    pub fn chains_in_order(&self) -> impl Iterator<Item = &Chain> + '_ {
        self.awaiting_chains
            .iter()
            .chain(self.running_chains.iter())
            .chain(self.queued_chains.iter())
            .chain(self.finished_chains.iter().rev())
            .map(|&i| &*self.chains[i])
    }

    /// Chains running now.
    pub fn running_chains(&self) -> usize {
        self.running_chains.len()
    }

    /// Every DBR cascade, decided or not, in the order announced.
    pub fn cascades(&self) -> &[Cascade] {
        &self.cascades
    }

    /// The cascade `id`, in O(1).
    pub fn cascade(&self, id: CascadeId) -> Option<&Cascade> {
        self.cascade_index.get(&id).map(|&i| &self.cascades[i])
    }

    /// Cascades that still wait for a decision.
    pub fn undecided_cascades(&self) -> usize {
        self.undecided
    }

    /// Pending creates the stack holds (none once the run cleared them).
    pub fn pending_creates(&self) -> &[PendingCreate] {
        &self.pending_creates
    }

    /// Diagnostics, failures and decisions, oldest first.
    pub fn log(&self) -> &[LogEntry] {
        &self.log
    }

    /// Steps planned per op (what a preview shows).
    pub fn planned_count(&self, op: StepOp) -> usize {
        self.planned_counts[op as usize]
    }

    /// Logical steps finished per op (what an update has done so far).
    pub fn done_count(&self, op: StepOp) -> usize {
        self.done_counts[op as usize]
    }

    /// The state the top bar shows: over > cancelling > paused > awaiting approval > running.
    pub fn run_state(&self) -> RunState {
        if let Some(s) = &self.summary {
            return match s.outcome {
                Outcome::Succeeded => RunState::Done,
                Outcome::Failed(_) => RunState::Failed,
                Outcome::Cancelled | Outcome::Terminated => RunState::Cancelled,
            };
        }
        if self.operation.is_none() {
            return RunState::Starting;
        }
        if self.cancel != CancelSeen::None {
            RunState::Cancelling
        } else if self.paused {
            RunState::Paused
        } else if self.undecided > 0 {
            RunState::AwaitingApproval
        } else if self.preview {
            RunState::Preview
        } else {
            RunState::Running
        }
    }

    /// Applies one event; O(1) amortised apart from the sizes of the event's own lists.
    pub fn apply(&mut self, e: &EngineEvent) {
        let now = self.now;
        let active = self.active_now();
        self.version += 1;
        match e {
            EngineEvent::Prelude { .. }
            | EngineEvent::RegistrationReceived { .. }
            | EngineEvent::ResourceOutputs { .. }
            | EngineEvent::PendingCreates { .. }
            | EngineEvent::PendingCreatesCleared { .. }
            | EngineEvent::Diagnostic { .. }
            | EngineEvent::Summary { .. } => self.apply_run(e, now, active),
            EngineEvent::PolicyLoad { path } => self.policies.loading(path),
            EngineEvent::PolicyViolation(v) => self.policies.violation(v),
            EngineEvent::PolicyRemediation(r) => self.policies.remediation(r),
            EngineEvent::PolicySummary(s) => self.policies.summary(s),
            EngineEvent::StepPlanned(_)
            | EngineEvent::ChainQueued { .. }
            | EngineEvent::ChainStarted { .. }
            | EngineEvent::ChainFinished { .. } => self.apply_chain(e, now, active),
            EngineEvent::StepStarted { .. }
            | EngineEvent::StepFinished { .. }
            | EngineEvent::StepFailed { .. }
            | EngineEvent::StepSkipped { .. } => self.apply_step(e, now, active),
            EngineEvent::DiffQueued { .. }
            | EngineEvent::DiffStarted { .. }
            | EngineEvent::DiffFinished { .. } => self.apply_diff(e, now, active),
            EngineEvent::PendingReplacement { .. }
            | EngineEvent::GateOpened { .. }
            | EngineEvent::Decision { .. }
            | EngineEvent::Stepped
            | EngineEvent::Breakpoint { .. }
            | EngineEvent::Paused
            | EngineEvent::Resumed
            | EngineEvent::CancelRequested { .. } => self.apply_operator(e, now, active),
        }
        self.graph.place_new_rows();
    }

    /// The run as a whole: its prelude, registrations, outputs, pending creates, diagnostics
    /// and summary.
    fn apply_run(&mut self, e: &EngineEvent, now: Duration, active: Duration) {
        match e {
            EngineEvent::Prelude {
                operation,
                preview,
                stack,
                project,
                parallel,
                parallel_diff,
            } => {
                self.operation = Some(*operation);
                self.preview = *preview;
                self.stack.clone_from(stack);
                self.project.clone_from(project);
                self.parallel = *parallel;
                self.parallel_diff = *parallel_diff;
                self.started_at = Some(active);
            }
            EngineEvent::RegistrationReceived {
                urn,
                parent,
                custom,
                dependencies,
                ..
            } => {
                let i = self.ensure_row(urn);
                self.set_parent(i, parent.as_ref());
                self.set_dependencies(i, dependencies);
                self.set_custom(i, *custom);
                self.resources[i].log(now, HistoryLine::Registered);
            }
            EngineEvent::ResourceOutputs { urn, outputs } => {
                let i = self.ensure_row(urn);
                self.resources[i].outputs = Some(outputs.clone());
            }
            EngineEvent::PendingCreates { creates } => {
                for c in creates {
                    self.log.push(LogEntry {
                        at: now,
                        severity: Severity::Warning,
                        urn: Some(c.urn.clone()),
                        message: format!(
                            "pending create of {} {} left by an interrupted run",
                            c.type_,
                            c.urn.as_str()
                        ),
                    });
                }
                self.pending_creates.clone_from(creates);
            }
            EngineEvent::PendingCreatesCleared { count } => {
                self.pending_creates.clear();
                self.note(
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
                // A failed step's error is logged with the failure already.
                let repeat = urn.as_ref().is_some_and(|u| {
                    self.get(u)
                        .is_some_and(|r| r.error.as_deref() == Some(message.as_str()))
                });
                if let Some(u) = urn
                    && !repeat
                {
                    let i = self.ensure_row(u);
                    self.resources[i].message = Some(message.as_str().into());
                }
                if !ephemeral && !repeat {
                    self.log.push(LogEntry {
                        at: now,
                        severity: *severity,
                        urn: urn.clone(),
                        message: message.clone(),
                    });
                }
            }
            EngineEvent::Summary {
                counts,
                declined,
                duration,
                outcome,
                preview,
                ..
            } => {
                self.end_pause();
                self.workers_busy = 0;
                let why = match outcome {
                    Outcome::Succeeded => "the deployment ended",
                    Outcome::Failed(_) => "the deployment failed",
                    Outcome::Cancelled | Outcome::Terminated => "the deployment was cancelled",
                };
                self.abandon_undecided(why);
                if !matches!(outcome, Outcome::Succeeded) {
                    let interrupted: Vec<usize> = self.running.drain().collect();
                    for i in interrupted {
                        let r = &mut self.resources[i];
                        r.status = Status::Interrupted;
                        r.running_op = None;
                        r.log(now, HistoryLine::Interrupted);
                    }
                }
                if let Outcome::Failed(why) = outcome {
                    // A program error has no resource row to show it: the log carries it.
                    self.log.push(LogEntry {
                        at: now,
                        severity: Severity::Error,
                        urn: None,
                        message: why.to_string(),
                    });
                }
                self.summary = Some(SummaryInfo {
                    counts: counts.clone(),
                    declined: *declined,
                    duration: *duration,
                    outcome: outcome.clone(),
                    preview: *preview,
                });
            }
            _ => {}
        }
    }

    /// Chains: planned, queued, started and finished.
    fn apply_chain(&mut self, e: &EngineEvent, _now: Duration, active: Duration) {
        match e {
            EngineEvent::StepPlanned(info) => self.step_planned(info),
            EngineEvent::ChainQueued { chain, steps } => {
                let c = self.ensure_chain(*chain);
                self.chains[c].steps = Arc::clone(steps);
                for (_, urn) in steps.iter() {
                    let i = self.ensure_row(urn);
                    self.resources[i].chain = Some(*chain);
                }
            }
            EngineEvent::ChainStarted { chain, worker } => {
                let c = self.ensure_chain(*chain);
                self.workers_busy += 1;
                let ch = &mut self.chains[c];
                ch.worker = Some(*worker);
                ch.started.get_or_insert(active);
                self.set_chain_state(c, ChainState::Running);
            }
            EngineEvent::ChainFinished { chain, ok } => {
                let c = self.ensure_chain(*chain);
                // A declined chain never ran, and its steps were settled when it was declined.
                if self.chains[c].state == ChainState::Declined {
                    return;
                }
                if self.chains[c].started.is_some() && self.chains[c].ended.is_none() {
                    self.workers_busy = self.workers_busy.saturating_sub(1);
                }
                let ch = &mut self.chains[c];
                ch.ended = Some(active);
                ch.current = None;
                let state = if *ok {
                    ChainState::Done
                } else if ch.failed {
                    ChainState::Failed
                } else {
                    ChainState::Skipped
                };
                self.set_chain_state(c, state);
                if !ok {
                    let why = if self.chains[c].failed {
                        "an earlier step of its chain failed"
                    } else if self.cancel != CancelSeen::None {
                        "the deployment was cancelled"
                    } else {
                        "another step failed"
                    };
                    self.skip_rest_of_chain(c, why);
                }
            }
            _ => {}
        }
    }

    /// Steps of a running chain: started, finished, failed or skipped.
    fn apply_step(&mut self, e: &EngineEvent, now: Duration, active: Duration) {
        match e {
            EngineEvent::StepStarted {
                chain,
                op,
                urn,
                worker,
            } => {
                let c = self.ensure_chain(*chain);
                let ch = &mut self.chains[c];
                ch.worker = Some(*worker);
                ch.started.get_or_insert(active);
                ch.current = ch
                    .steps
                    .iter()
                    .enumerate()
                    .skip(ch.finished_steps)
                    .find(|(_, (o, u))| o == op && u == urn)
                    .map(|(k, _)| k);
                if self.chains[c].state == ChainState::Queued {
                    self.set_chain_state(c, ChainState::Running);
                }
                let i = self.ensure_row(urn);
                self.running.insert(i);
                let preview = self.preview;
                let r = &mut self.resources[i];
                r.status = Status::Running;
                r.running_op = Some(*op);
                r.started = Some(active);
                r.worker = Some(*worker);
                r.chain = Some(*chain);
                if !preview {
                    r.log(now, HistoryLine::OnWorker(*op, *worker));
                    self.audit(urn, format!("{} started on worker {worker}", op.as_str()));
                }
            }
            EngineEvent::StepFinished {
                chain,
                op,
                urn,
                outputs,
                duration,
                ..
            } => {
                self.chain_step_done(*chain);
                let i = self.ensure_row(urn);
                self.running.remove(&i);
                let preview = self.preview;
                let r = &mut self.resources[i];
                r.running_op = None;
                r.last_done_op = Some(*op);
                r.busy += *duration;
                r.steps_finished += 1;
                r.outputs = Some(outputs.clone());
                let replacement_done = r.note_replacement_half(*op);
                // A replacement is done only when its replacement exists; until then a deleted
                // original waits (for its cascade's root, or for its own create).
                let waits_for_create = r.op == Some(StepOp::Replace) && !r.created_replacement;
                r.status = if r.status == Status::Declined {
                    Status::Declined
                } else if r.steps_finished >= r.steps_planned && (preview || !waits_for_create) {
                    r.ended = Some(active);
                    Status::Done
                } else {
                    Status::Planned
                };
                r.log(now, HistoryLine::Finished { op: *op, preview });
                let counted = match op {
                    StepOp::Replace | StepOp::CreateReplacement | StepOp::ImportReplacement => {
                        replacement_done.then_some(StepOp::Replace)
                    }
                    op if op.is_logical() => Some(*op),
                    _ => None,
                };
                if let Some(op) = counted
                    && !self.resources[i].is_default_provider()
                {
                    self.done_counts[op as usize] += 1;
                }
                if !preview {
                    self.steps_settled += 1;
                    self.audit(urn, format!("{} finished", op.as_str()));
                }
            }
            EngineEvent::StepFailed {
                chain,
                op,
                urn,
                error,
                duration,
            } => {
                self.chain_step_done(*chain);
                let c = self.ensure_chain(*chain);
                self.chains[c].failed = true;
                self.failed += 1;
                if !self.preview {
                    self.steps_settled += 1;
                }
                let i = self.ensure_row(urn);
                self.running.remove(&i);
                self.troubled.insert(i);
                let r = &mut self.resources[i];
                r.running_op = None;
                r.busy += *duration;
                r.status = Status::Failed;
                r.ended = Some(now);
                r.error = Some(error.as_str().into());
                r.log_text(now, format!("{} failed: {error}", op.as_str()));
                r.message = None;
                self.log.push(LogEntry {
                    at: now,
                    severity: Severity::Error,
                    urn: Some(urn.clone()),
                    message: format!("{} failed: {error}", op.as_str()),
                });
            }
            EngineEvent::StepSkipped { op, urn, reason } => {
                self.skipped += 1;
                let i = self.ensure_row(urn);
                self.troubled.insert(i);
                let r = &mut self.resources[i];
                r.op.get_or_insert(*op);
                r.status = Status::Skipped;
                r.message = Some(reason.as_str().into());
                r.log_text(now, format!("{} skipped: {reason}", op.as_str()));
            }
            _ => {}
        }
    }

    /// Diffs run on workers (parallel diff).
    fn apply_diff(&mut self, e: &EngineEvent, now: Duration, _active: Duration) {
        match e {
            EngineEvent::DiffQueued { urn } => {
                self.diffs.queued += 1;
                let i = self.ensure_row(urn);
                self.resources[i].log(now, HistoryLine::DiffQueued);
            }
            EngineEvent::DiffStarted { urn, worker } => {
                self.diffs.queued = self.diffs.queued.saturating_sub(1);
                self.diffs.running.insert(urn.clone(), *worker);
                let i = self.ensure_row(urn);
                self.resources[i].diffing = true;
            }
            EngineEvent::DiffFinished {
                urn,
                changes,
                replace,
            } => {
                self.diffs.running.swap_remove(urn);
                self.diffs.done += 1;
                if *replace {
                    self.diffs.replaces += 1;
                }
                let i = self.ensure_row(urn);
                let r = &mut self.resources[i];
                r.diffing = false;
                r.log(
                    now,
                    HistoryLine::Diffed {
                        replace: *replace,
                        changes: *changes,
                    },
                );
            }
            _ => {}
        }
    }

    /// What the operator and the approval policy did: cascades, decisions, pause, cancel.
    fn apply_operator(&mut self, e: &EngineEvent, now: Duration, _active: Duration) {
        match e {
            EngineEvent::PendingReplacement {
                cascade,
                chain,
                root,
                members,
            } => self.pending_replacement(*cascade, *chain, root, members),
            EngineEvent::GateOpened {
                gate,
                chain,
                op,
                urn,
                kind,
                asked,
            } => {
                self.pending_replacement(*gate, *chain, urn, &[]);
                if let Some(&k) = self.cascade_index.get(gate) {
                    self.cascades[k].step = Some((*op, *kind, *asked));
                }
                if *asked {
                    self.note(
                        Severity::Warning,
                        &format!(
                            "{} of {} waits for a decision ({}=ask)",
                            op.as_str(),
                            urn,
                            kind.as_str()
                        ),
                    );
                }
            }
            EngineEvent::Decision {
                cascade,
                approved,
                by,
                ..
            } => self.decision(*cascade, *approved, by),
            EngineEvent::Stepped => {
                self.note(Severity::Info, "stepped: one waiting step may start");
            }
            EngineEvent::Breakpoint { op, urn } => {
                self.note(
                    Severity::Warning,
                    &format!("breakpoint: paused before {} of {urn}", op.as_str()),
                );
            }
            EngineEvent::Paused => {
                self.paused = true;
                self.paused_since.get_or_insert(now);
                self.note(
                    Severity::Warning,
                    "paused by the operator: running steps finish, no new step starts",
                );
            }
            EngineEvent::Resumed => {
                self.paused = false;
                self.end_pause();
                self.note(Severity::Info, "resumed by the operator");
            }
            EngineEvent::CancelRequested { terminate } => {
                self.cancel = if *terminate {
                    CancelSeen::Terminating
                } else {
                    CancelSeen::Cancelling
                };
                self.paused = false;
                self.end_pause();
                self.abandon_undecided("the deployment was cancelled");
                self.log.push(LogEntry {
                    at: now,
                    severity: Severity::Warning,
                    urn: None,
                    message: if *terminate {
                        "terminating: in-flight operations stay pending".into()
                    } else {
                        "cancelling: running steps finish, no new steps start".into()
                    },
                });
            }
            _ => {}
        }
    }

    fn step_planned(&mut self, info: &StepInfo) {
        let now = self.now;
        let i = self.ensure_row(&info.urn);
        if !self.resources[i].is_default_provider() {
            self.planned_counts[info.op as usize] += 1;
        }
        if !self.preview {
            self.steps_total += 1;
        }
        self.set_parent(i, info.parent.as_ref());
        self.set_custom(i, info.custom);
        let r = &mut self.resources[i];
        r.op = Some(match (r.op, info.op) {
            (Some(StepOp::Replace), _)
            | (_, StepOp::Replace | StepOp::CreateReplacement | StepOp::DeleteReplaced) => {
                StepOp::Replace
            }
            (_, op) => op,
        });
        r.steps_planned += 1;
        if r.status == Status::Done {
            r.status = Status::Planned;
        }
        if let Some(c) = info.chain {
            r.chain = Some(c);
        }
        if !info.diffs.is_empty() {
            r.changes_mut().diffs.clone_from(&info.diffs);
        }
        if !info.replace_keys.is_empty() {
            r.changes_mut().replace_keys.clone_from(&info.replace_keys);
        }
        if !info.detailed_diff.is_empty() {
            r.changes_mut()
                .detailed_diff
                .clone_from(&info.detailed_diff);
        }
        if !info.hide_diffs.is_empty() {
            r.changes_mut().hide_diffs.clone_from(&info.hide_diffs);
        } else if let Some(c) = r.changes.as_mut() {
            c.hide_diffs.clear();
        }
        if info.old_inputs.is_some() {
            r.changes_mut().old_inputs.clone_from(&info.old_inputs);
        }
        if info.old_outputs.is_some() {
            r.changes_mut().old_outputs.clone_from(&info.old_outputs);
        }
        if info.new_inputs.is_some() {
            r.new_inputs.clone_from(&info.new_inputs);
        }
        r.delete_before_replace |= info.delete_before_replace;
        r.protect = info.protect;
        r.log(now, HistoryLine::Planned(info.op));
        if !info.dependencies.is_empty() || self.resources[i].dependencies.is_empty() {
            self.set_dependencies(i, &info.dependencies);
        }
    }

    /// Sets a row's dependencies (distinct, as events carry them) and their rows; the same list
    /// again (a step repeats its registration's) costs no allocation and leaves the structure
    /// as it is.
    fn set_dependencies(&mut self, i: usize, urns: &Arc<[Urn]>) {
        if self.resources[i].dependencies == *urns {
            return;
        }
        let mut rows = std::mem::take(&mut self.scratch_rows);
        rows.clear();
        for d in urns.iter() {
            match self.index_of(d) {
                Some(j) => rows.push(j),
                None => self
                    .awaiting_dependency
                    .entry(d.clone())
                    .or_default()
                    .push(i),
            }
        }
        self.resources[i].dependencies = Arc::clone(urns);
        self.graph.set_deps(i, &rows);
        self.scratch_rows = rows;
        self.structure_version += 1;
    }

    fn pending_replacement(
        &mut self,
        cascade: CascadeId,
        chain: ChainId,
        root: &Urn,
        members: &[CascadeMember],
    ) {
        let now = self.now;
        let k = match self.cascade_index.get(&cascade) {
            Some(&k) => k,
            None => {
                self.cascades.push(Cascade {
                    id: cascade,
                    chain,
                    root: root.clone(),
                    members: Vec::new(),
                    decided: None,
                    at: now,
                    planned: self.preview,
                    abandoned: false,
                    step: None,
                });
                self.cascade_index.insert(cascade, self.cascades.len() - 1);
                if !self.preview {
                    self.undecided += 1;
                }
                self.cascades.len() - 1
            }
        };
        self.cascades[k].members = members.to_vec();
        let c = self.ensure_chain(chain);
        self.chains[c].cascade = Some(cascade);
        // A preview plans the cascade and runs on: nothing waits there.
        if !self.preview {
            self.set_chain_state(c, ChainState::AwaitingApproval);
        }
        let preview = self.preview;
        for urn in std::iter::once(root).chain(members.iter().map(|m| &m.urn)) {
            let i = self.ensure_row(urn);
            let r = &mut self.resources[i];
            r.cascade = Some(cascade);
            if !preview && r.status != Status::WaitingForApproval {
                r.status = Status::WaitingForApproval;
                r.log(now, HistoryLine::AwaitingApproval);
            }
        }
    }

    fn decision(&mut self, cascade: CascadeId, approved: bool, by: &Decider) {
        let now = self.now;
        let Some(&k) = self.cascade_index.get(&cascade) else {
            return;
        };
        if self.cascades[k].waiting() {
            self.undecided -= 1;
        }
        self.cascades[k].decided = Some((approved, by.clone()));
        let chain = self.cascades[k].chain;
        let c = self.ensure_chain(chain);
        if self.chains[c].state == ChainState::AwaitingApproval {
            let state = if approved {
                ChainState::Queued
            } else {
                ChainState::Declined
            };
            self.set_chain_state(c, state);
        }
        let who = by.to_string();
        let what = match self.cascades[k].step {
            Some((op, ..)) => op.as_str(),
            None => "replacement",
        };
        let urns: Vec<Urn> = std::iter::once(self.cascades[k].root.clone())
            .chain(self.cascades[k].members.iter().map(|m| m.urn.clone()))
            .collect();
        for urn in &urns {
            let i = self.ensure_row(urn);
            let r = &mut self.resources[i];
            if !approved {
                // Its planned steps will never run: settled, so that a finished run reads 100%.
                if !self.preview {
                    self.steps_settled += r.steps_planned.saturating_sub(r.steps_finished) as usize;
                    r.steps_finished = r.steps_planned;
                }
                // Kept as it is: no longer shown as a replacement.
                r.op = Some(StepOp::Same);
                if let Some(c) = r.changes.as_mut() {
                    c.replace_keys.clear();
                }
                r.message = Some(format!("{what} declined by {who}: kept as it is").into());
            }
            if r.status == Status::WaitingForApproval {
                r.status = if approved {
                    Status::Planned
                } else {
                    Status::Declined
                };
                let verb = if approved { "approved" } else { "declined" };
                r.log_text(now, format!("{verb} by {who}"));
            }
        }
        self.log.push(LogEntry {
            at: now,
            severity: Severity::Info,
            urn: Some(self.cascades[k].root.clone()),
            message: format!(
                "{what} of {}{} {} by {who}",
                self.cascades[k].root.name(),
                match urns.iter().filter(|u| **u != self.cascades[k].root).count() {
                    0 => String::new(),
                    1 => " and 1 dependent".to_string(),
                    n => format!(" and {n} dependents"),
                },
                if approved { "approved" } else { "declined" }
            ),
        });
    }

    /// Cascades nobody decided when the run stopped will not run: nothing waits any more.
    fn abandon_undecided(&mut self, why: &str) {
        let now = self.now;
        let waiting: Vec<usize> = (0..self.cascades.len())
            .filter(|&k| self.cascades[k].waiting())
            .collect();
        for k in waiting {
            self.cascades[k].abandoned = true;
            self.undecided = self.undecided.saturating_sub(1);
            let c = self.ensure_chain(self.cascades[k].chain);
            if self.chains[c].state == ChainState::AwaitingApproval {
                self.set_chain_state(c, ChainState::Skipped);
            }
            let urns: Vec<Urn> = std::iter::once(self.cascades[k].root.clone())
                .chain(self.cascades[k].members.iter().map(|m| m.urn.clone()))
                .collect();
            for urn in urns {
                let i = self.ensure_row(&urn);
                let r = &mut self.resources[i];
                if r.status == Status::WaitingForApproval {
                    r.status = Status::Skipped;
                    r.message = Some(format!("not run: {why} before it was approved").into());
                    r.log_text(now, format!("skipped: {why} before it was approved"));
                    self.skipped += 1;
                    self.troubled.insert(i);
                }
            }
        }
    }

    /// An audit line about one resource in the log.
    fn audit(&mut self, urn: &Urn, message: String) {
        self.log.push(LogEntry {
            at: self.now,
            severity: Severity::Info,
            urn: Some(urn.clone()),
            message,
        });
    }

    /// An operator or engine note in the log.
    pub fn note(&mut self, severity: Severity, message: &str) {
        self.log.push(LogEntry {
            at: self.now,
            severity,
            urn: None,
            message: message.to_string(),
        });
    }

    /// Steps of a stopped chain that never started will not run: show them as skipped.
    fn skip_rest_of_chain(&mut self, c: usize, why: &str) {
        let now = self.now;
        let rest: Vec<Urn> = self.chains[c]
            .steps
            .iter()
            .skip(self.chains[c].finished_steps)
            .map(|(_, u)| u.clone())
            .collect();
        for urn in rest {
            let i = self.ensure_row(&urn);
            let r = &mut self.resources[i];
            if r.status == Status::Planned {
                r.status = Status::Skipped;
                r.message = Some(format!("not run: {why}").into());
                r.log_text(now, format!("skipped: {why}"));
                self.skipped += 1;
                self.troubled.insert(i);
            }
            if !self.preview {
                self.steps_settled += 1;
            }
        }
    }

    fn chain_step_done(&mut self, chain: ChainId) {
        let c = self.ensure_chain(chain);
        let ch = &mut self.chains[c];
        ch.current = None;
        ch.finished_steps += 1;
    }

    /// The row for `urn`, created as a placeholder when an event names it first.
    fn ensure_row(&mut self, urn: &Urn) -> usize {
        if let Some(i) = self.index_of(urn) {
            return i;
        }
        let i = self.resources.len();
        let r = Resource::new(urn.clone());
        self.graph.add_row(r.graph_node, r.name_chars);
        self.resources.push(Box::new(r));
        self.index.insert(urn.clone(), i);
        self.roots.push(i);
        self.structure_version += 1;
        if !self.awaiting_dependency.is_empty()
            && let Some(waiting) = self.awaiting_dependency.remove(urn)
        {
            for w in waiting {
                // It may have changed its dependencies since it named this one.
                if self.resources[w].dependencies.contains(urn) {
                    self.graph.add_dep(w, i);
                }
            }
        }
        i
    }

    fn set_parent(&mut self, i: usize, parent: Option<&Urn>) {
        let Some(p_urn) = parent else { return };
        // A step names the parent its registration named: no need to hash its URN again.
        if let Some(known) = self.resources[i].parent
            && self.resources[known].urn == *p_urn
        {
            return;
        }
        let p = self.ensure_row(p_urn);
        // Only a row with children can be an ancestor of its new parent.
        let cycle = p == i || (!self.resources[i].children.is_empty() && self.is_within(p, i));
        if self.resources[i].parent == Some(p) || cycle {
            return;
        }
        if let Some(old) = self.resources[i].parent {
            self.resources[old].children.retain(|&c| c != i);
        } else if self.roots.last() == Some(&i) {
            // A row is most often given its parent as it is made: it leaves the roots at once,
            // so that walking them is not a walk of every row.
            self.roots.pop();
        }
        self.resources[i].parent = Some(p);
        self.resources[p].children.push(i);
        self.graph.set_parent(i, p);
        self.structure_version += 1;
    }

    /// Whether row `i` is a custom resource (or a component), in the row and in the graph.
    fn set_custom(&mut self, i: usize, custom: bool) {
        self.resources[i].custom = custom;
        self.graph.set_custom(i, custom);
    }

    /// Whether row `i` is `ancestor` or under it: a parent link that would close a cycle is
    /// refused, so every row stays reachable from a root (the tree counts on it).
    fn is_within(&self, i: usize, ancestor: usize) -> bool {
        let mut cur = Some(i);
        while let Some(c) = cur {
            if c == ancestor {
                return true;
            }
            cur = self.resources[c].parent;
        }
        false
    }

    /// Where chain `id` is in `chains`: at its numbered position unless its events came out of
    /// the engine's order, and only those chains are in the map.
    fn chain_position(&self, id: ChainId) -> Option<usize> {
        if let Some(at) = numbered_position(id)
            && self.chains.get(at).is_some_and(|c| c.id == id)
        {
            return Some(at);
        }
        self.chain_index.get(&id).copied()
    }

    fn ensure_chain(&mut self, id: ChainId) -> usize {
        if let Some(c) = self.chain_position(id) {
            return c;
        }
        let c = self.chains.len();
        self.chains.push(Box::new(Chain {
            id,
            steps: Arc::default(),
            state: ChainState::Queued,
            worker: None,
            current: None,
            finished_steps: 0,
            started: None,
            ended: None,
            cascade: None,
            failed: false,
        }));
        if numbered_position(id) != Some(c) {
            self.chain_index.insert(id, c);
        }
        self.queued_chains.insert(c);
        c
    }

    fn set_chain_state(&mut self, c: usize, state: ChainState) {
        let old = self.chains[c].state;
        if old == state {
            return;
        }
        match old {
            ChainState::Queued => {
                self.queued_chains.remove(&c);
            }
            ChainState::Running => {
                self.running_chains.remove(&c);
            }
            ChainState::AwaitingApproval => {
                self.awaiting_chains.remove(&c);
            }
            ChainState::Done | ChainState::Failed | ChainState::Declined | ChainState::Skipped => {
                if let Some(pos) = self.finished_chains.iter().rposition(|&x| x == c) {
                    self.finished_chains.remove(pos);
                }
            }
        }
        match state {
            ChainState::Queued => {
                self.queued_chains.insert(c);
            }
            ChainState::Running => {
                self.running_chains.insert(c);
            }
            ChainState::AwaitingApproval => {
                self.awaiting_chains.insert(c);
            }
            ChainState::Done | ChainState::Failed | ChainState::Declined | ChainState::Skipped => {
                self.finished_chains.push(c);
            }
        }
        self.chains[c].state = state;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::sample::{sample_timeline, sample_urn, step_info};
    use crate::engine::PropertyMap;
    use crate::engine::run::events::CascadeMember;

    fn sample_model() -> Model {
        let mut m = Model::new();
        for (at, e) in sample_timeline() {
            m.set_now(at);
            m.apply(&e);
        }
        m
    }

    fn urn(t: &str, n: &str) -> Urn {
        sample_urn(t, n)
    }

    #[test]
    fn sample_reduces_to_counts_statuses_and_workers() {
        let m = sample_model();
        assert_eq!(m.stack, "dev");
        assert_eq!(m.parallel, 8);
        assert_eq!(m.planned_count(StepOp::Create), 4);
        assert_eq!(m.planned_count(StepOp::Replace), 2);
        assert_eq!(m.planned_count(StepOp::Delete), 1);
        assert_eq!(m.done_count(StepOp::Create), 2);
        assert_eq!(m.failed, 1);
        assert_eq!(m.workers_busy, 2, "chains 4 and 5 still run");
        let st = |n: &str, t: &str| m.get(&urn(t, n)).unwrap().status;
        assert_eq!(st("net", "sim:index:Network"), Status::Done);
        assert_eq!(st("subnet-b", "sim:index:Subnet"), Status::Running);
        assert_eq!(st("server-2", "sim:index:Server"), Status::Failed);
        assert_eq!(st("db", "sim:index:Database"), Status::WaitingForApproval);
        assert_eq!(st("app", "sim:index:Service"), Status::WaitingForApproval);
        assert_eq!(st("old-logs", "sim:index:Bucket"), Status::Planned);
        let srv2 = m.get(&urn("sim:index:Server", "server-2")).unwrap();
        assert_eq!(
            srv2.error.as_deref(),
            Some("quota exceeded for instance type large")
        );
        assert_eq!(srv2.busy, Duration::from_secs_f64(0.7));
        assert_eq!(m.run_state(), RunState::AwaitingApproval);
        assert_eq!(m.elapsed(), Duration::from_secs_f64(3.5));
    }

    #[test]
    fn tree_puts_children_under_parents() {
        let m = sample_model();
        let roots: Vec<usize> = m.roots().collect();
        assert_eq!(roots.len(), 1);
        let stack = m.resource(roots[0]);
        assert_eq!(stack.type_(), "pulumi:pulumi:Stack");
        let names: Vec<&str> = stack
            .children
            .iter()
            .map(|&c| m.resource(c).name())
            .collect();
        assert_eq!(names, ["net", "db", "app", "old-logs"]);
        let net = m.get(&urn("sim:index:Network", "net")).unwrap();
        let subs: Vec<&str> = net.children.iter().map(|&c| m.resource(c).name()).collect();
        assert_eq!(subs, ["subnet-a", "subnet-b"]);
    }

    #[test]
    fn chains_are_ordered_awaiting_running_queued_finished() {
        let m = sample_model();
        let order: Vec<(u64, ChainState)> = m.chains_in_order().map(|c| (c.id, c.state)).collect();
        assert_eq!(
            order,
            [
                (7, ChainState::AwaitingApproval),
                (4, ChainState::Running),
                (5, ChainState::Running),
                (8, ChainState::Queued),
                (6, ChainState::Failed),
                (3, ChainState::Done),
                (2, ChainState::Done),
            ]
        );
        assert_eq!(m.chain(4).unwrap().worker, Some(2));
        assert_eq!(m.chain(4).unwrap().current, Some(0));
    }

    #[test]
    fn diffs_and_log_are_tracked() {
        let m = sample_model();
        assert_eq!(m.diffs.queued, 1);
        assert_eq!(m.diffs.running.len(), 1);
        assert_eq!(m.diffs.done, 1);
        let severities: Vec<Severity> = m
            .log()
            .iter()
            .map(|e| e.severity)
            .filter(|&s| s > Severity::Info)
            .collect();
        assert_eq!(severities, [Severity::Warning, Severity::Error]);
        let audit: Vec<&str> = m.log().iter().map(|e| e.message.as_str()).collect();
        assert!(audit.contains(&"create started on worker 0"), "{audit:?}");
        assert!(audit.contains(&"create finished"), "{audit:?}");
        assert!(
            audit.contains(&"create failed: quota exceeded for instance type large"),
            "{audit:?}"
        );
        assert_eq!(
            audit
                .iter()
                .filter(|a| a.contains("quota exceeded"))
                .count(),
            1,
            "the failure's diagnostic is not logged twice"
        );
        let srv1 = m.get(&urn("sim:index:Server", "server-1")).unwrap();
        assert_eq!(
            srv1.message.as_deref(),
            Some("waiting for instance to boot")
        );
    }

    #[test]
    fn a_step_gate_waits_like_a_cascade_and_records_who_declined_it() {
        let mut m = Model::new();
        let u = urn("sim:index:Resource", "old");
        m.apply(&EngineEvent::GateOpened {
            gate: 3,
            chain: 5,
            op: StepOp::Delete,
            urn: u.clone(),
            kind: ApprovalKind::Deletes,
            asked: true,
        });
        assert_eq!(m.undecided_cascades(), 1);
        assert_eq!(m.get(&u).unwrap().status, Status::WaitingForApproval);
        let by = Decider::File("decisions.yaml".into());
        m.apply(&EngineEvent::Decision {
            cascade: 3,
            op: StepOp::Delete,
            urn: u.clone(),
            approved: false,
            by: by.clone(),
        });
        assert_eq!(m.undecided_cascades(), 0);
        let gate = m.cascade(3).unwrap();
        assert_eq!(
            gate.step,
            Some((StepOp::Delete, ApprovalKind::Deletes, true))
        );
        assert_eq!(gate.decided, Some((false, by)));
        assert_eq!(m.get(&u).unwrap().status, Status::Declined);
        assert!(
            m.log()
                .iter()
                .any(|l| l.message == "delete of old declined by decision file decisions.yaml"),
            "{:?}",
            m.log()
        );
    }

    #[test]
    fn approving_requeues_the_cascade_and_declining_keeps_it() {
        let mut m = sample_model();
        assert_eq!(m.undecided_cascades(), 1);
        let mut declined = m.clone();
        m.apply(&EngineEvent::Decision {
            cascade: 1,
            approved: true,
            by: Decider::Operator("alice@host".into()),
            op: StepOp::Replace,
            urn: urn("sim:index:Database", "db"),
        });
        assert_eq!(m.undecided_cascades(), 0);
        assert_eq!(m.chain(7).unwrap().state, ChainState::Queued);
        assert_eq!(
            m.get(&urn("sim:index:Database", "db")).unwrap().status,
            Status::Planned
        );
        assert_eq!(m.run_state(), RunState::Running);

        let (settled, total) = declined.progress();
        declined.apply(&EngineEvent::Decision {
            cascade: 1,
            approved: false,
            by: Decider::Policy,
            op: StepOp::Replace,
            urn: urn("sim:index:Database", "db"),
        });
        assert_eq!(declined.chain(7).unwrap().state, ChainState::Declined);
        let steps: u32 = [("sim:index:Database", "db"), ("sim:index:Service", "app")]
            .iter()
            .map(|(t, n)| declined.get(&urn(t, n)).unwrap().steps_planned)
            .sum();
        let steps = steps as usize;
        assert!(steps > 0);
        assert_eq!(
            declined.progress(),
            (settled + steps, total),
            "declined steps settle"
        );
        declined.apply(&EngineEvent::ChainFinished {
            chain: 7,
            ok: false,
        });
        assert_eq!(declined.chain(7).unwrap().state, ChainState::Declined);
        assert_eq!(
            declined.progress(),
            (settled + steps, total),
            "and only once"
        );
        assert_eq!(
            declined
                .get(&urn("sim:index:Service", "app"))
                .unwrap()
                .status,
            Status::Declined
        );
        assert_eq!(
            declined.cascade(1).unwrap().decided,
            Some((false, Decider::Policy))
        );
    }

    #[test]
    fn pause_cancel_and_summary_drive_the_run_state() {
        let mut m = sample_model();
        m.apply(&EngineEvent::Paused);
        assert_eq!(m.run_state(), RunState::Paused);
        m.apply(&EngineEvent::Resumed);
        assert_eq!(m.run_state(), RunState::AwaitingApproval);
        m.apply(&EngineEvent::CancelRequested { terminate: false });
        assert_eq!(m.run_state(), RunState::Cancelling);
        m.apply(&EngineEvent::Summary {
            counts: BTreeMap::from([(StepOp::Create, 2)]),
            declined: 0,
            duration: Duration::from_secs(4),
            outcome: Outcome::Cancelled,
            preview: false,
            policy_packs: Default::default(),
        });
        assert_eq!(m.run_state(), RunState::Cancelled);
        assert_eq!(m.elapsed(), Duration::from_secs(4));
        let sub_b = m.get(&urn("sim:index:Subnet", "subnet-b")).unwrap();
        assert_eq!(sub_b.status, Status::Interrupted);
    }

    #[test]
    fn a_replacement_is_done_only_when_all_its_steps_finished() {
        let mut m = Model::new();
        let u = urn("sim:index:Database", "db");
        for op in [
            StepOp::CreateReplacement,
            StepOp::Replace,
            StepOp::DeleteReplaced,
        ] {
            m.apply(&EngineEvent::StepPlanned(Box::new(step_info(
                op, &u, None, 1,
            ))));
        }
        assert_eq!(m.get(&u).unwrap().op, Some(StepOp::Replace));
        for (k, op) in [
            StepOp::CreateReplacement,
            StepOp::Replace,
            StepOp::DeleteReplaced,
        ]
        .into_iter()
        .enumerate()
        {
            m.apply(&EngineEvent::StepStarted {
                chain: 1,
                op,
                urn: u.clone(),
                worker: 0,
            });
            assert_eq!(m.get(&u).unwrap().status, Status::Running);
            m.apply(&EngineEvent::StepFinished {
                chain: 1,
                op,
                urn: u.clone(),
                id: None,
                outputs: PropertyMap::new(),
                duration: Duration::from_millis(100),
            });
            let want = if k == 2 {
                Status::Done
            } else {
                Status::Planned
            };
            assert_eq!(m.get(&u).unwrap().status, want);
        }
        assert_eq!(m.done_count(StepOp::Replace), 1);
        assert_eq!(
            m.done_count(StepOp::CreateReplacement),
            0,
            "physical halves are not counted"
        );
    }

    #[test]
    fn a_failed_chain_skips_its_remaining_steps_and_a_declined_resource_stays_declined() {
        let mut m = Model::new();
        let a = urn("sim:index:Server", "a");
        let b = urn("sim:index:Server", "b");
        for u in [&a, &b] {
            m.apply(&EngineEvent::StepPlanned(Box::new(step_info(
                StepOp::Update,
                u,
                None,
                1,
            ))));
        }
        m.apply(&EngineEvent::ChainQueued {
            chain: 1,
            steps: [(StepOp::Update, a.clone()), (StepOp::Update, b.clone())].into(),
        });
        m.apply(&EngineEvent::ChainStarted {
            chain: 1,
            worker: 0,
        });
        m.apply(&EngineEvent::StepStarted {
            chain: 1,
            op: StepOp::Update,
            urn: a.clone(),
            worker: 0,
        });
        m.apply(&EngineEvent::StepFailed {
            chain: 1,
            op: StepOp::Update,
            urn: a.clone(),
            error: "boom".into(),
            duration: Duration::from_millis(10),
        });
        m.apply(&EngineEvent::ChainFinished {
            chain: 1,
            ok: false,
        });
        assert_eq!(m.get(&a).unwrap().status, Status::Failed);
        assert_eq!(m.get(&b).unwrap().status, Status::Skipped);
        assert_eq!(m.workers_busy, 0);

        let mut m = sample_model();
        m.apply(&EngineEvent::Decision {
            cascade: 1,
            approved: false,
            by: Decider::Operator("alice@host".into()),
            op: StepOp::Replace,
            urn: urn("sim:index:Database", "db"),
        });
        let db = urn("sim:index:Database", "db");
        m.apply(&EngineEvent::StepPlanned(Box::new(step_info(
            StepOp::Same,
            &db,
            None,
            9,
        ))));
        m.apply(&EngineEvent::StepFinished {
            chain: 9,
            op: StepOp::Same,
            urn: db.clone(),
            id: None,
            outputs: PropertyMap::new(),
            duration: Duration::ZERO,
        });
        assert_eq!(m.get(&db).unwrap().status, Status::Declined);
    }

    #[test]
    fn children_seen_before_their_parent_move_under_it() {
        let mut m = Model::new();
        let stack = urn("pulumi:pulumi:Stack", "");
        let child = urn("sim:index:Bucket", "b");
        m.apply(&EngineEvent::StepPlanned(Box::new(step_info(
            StepOp::Delete,
            &child,
            Some(&stack),
            1,
        ))));
        m.apply(&EngineEvent::StepPlanned(Box::new(step_info(
            StepOp::Delete,
            &stack,
            None,
            2,
        ))));
        let roots: Vec<usize> = m.roots().collect();
        assert_eq!(roots, [m.index_of(&stack).unwrap()]);
        assert_eq!(m.resource(roots[0]).children, [m.index_of(&child).unwrap()]);
        assert_eq!(m.resource(roots[0]).type_(), "pulumi:pulumi:Stack");
    }

    #[test]
    fn a_parent_link_that_would_close_a_cycle_is_refused() {
        let mut m = Model::new();
        let [a, b, c] = ["a", "b", "c"].map(|n| urn("my:index:Group", n));
        let plan = |m: &mut Model, u: &Urn, parent: &Urn, chain: u64| {
            let info = step_info(StepOp::Create, u, Some(parent), chain);
            m.apply(&EngineEvent::StepPlanned(Box::new(info)));
        };
        plan(&mut m, &b, &a, 1);
        plan(&mut m, &c, &b, 2);
        // Garbage from a program: a's parent is its own grandchild, then itself; c, with no
        // children, names itself too.
        plan(&mut m, &a, &c, 3);
        plan(&mut m, &a, &a, 4);
        plan(&mut m, &c, &c, 5);
        let at = |u: &Urn| m.index_of(u).unwrap();
        assert_eq!(m.resource(at(&a)).parent, None, "a stays a root");
        assert_eq!(m.roots().collect::<Vec<_>>(), [at(&a)]);
        assert_eq!(m.resource(at(&c)).parent, Some(at(&b)));
        assert!(m.resource(at(&c)).children.is_empty());
    }

    fn run(m: &mut Model, chain: u64, op: StepOp, u: &Urn) {
        m.apply(&EngineEvent::StepStarted {
            chain,
            op,
            urn: u.clone(),
            worker: 0,
        });
        m.apply(&EngineEvent::StepFinished {
            chain,
            op,
            urn: u.clone(),
            id: None,
            outputs: PropertyMap::new(),
            duration: Duration::from_millis(10),
        });
    }

    fn plan(m: &mut Model, chain: u64, steps: &[(StepOp, &Urn)]) {
        for (op, u) in steps {
            m.apply(&EngineEvent::StepPlanned(Box::new(step_info(
                *op, u, None, chain,
            ))));
        }
    }

    fn live() -> Model {
        let mut m = Model::new();
        m.apply(&EngineEvent::Prelude {
            operation: Operation::Update,
            preview: false,
            stack: "dev".into(),
            project: "myproj".into(),
            parallel: 4,
            parallel_diff: false,
        });
        m
    }

    fn cascade(root: &Urn, dependent: &Urn) -> EngineEvent {
        EngineEvent::PendingReplacement {
            cascade: 1,
            chain: 1,
            root: root.clone(),
            members: vec![
                CascadeMember {
                    urn: root.clone(),
                    type_: root.type_().into(),
                    reason: crate::engine::run::events::CascadeReason::Root {
                        keys: vec!["engine".into()],
                    },
                },
                CascadeMember {
                    urn: dependent.clone(),
                    type_: dependent.type_().into(),
                    reason: crate::engine::run::events::CascadeReason::Input {
                        inputs: vec!["dbHost".into()],
                        on: root.clone(),
                        keys: vec!["dbHost".into()],
                    },
                },
            ],
        }
    }

    #[test]
    fn a_dbr_row_follows_its_physical_steps_and_counts_only_when_recreated() {
        use crate::views::resources::status_text;
        let mut m = live();
        let db = urn("sim:index:Database", "db");
        let app = urn("sim:index:Server", "app");
        plan(
            &mut m,
            1,
            &[
                (StepOp::DeleteReplaced, &app),
                (StepOp::DeleteReplaced, &db),
                (StepOp::Replace, &db),
                (StepOp::CreateReplacement, &db),
            ],
        );
        m.apply(&cascade(&db, &app));
        m.apply(&EngineEvent::Decision {
            cascade: 1,
            approved: true,
            by: Decider::Operator("alice@host".into()),
            op: StepOp::Replace,
            urn: urn("sim:index:Database", "db"),
        });
        let text = |m: &Model, u: &Urn| status_text(m.get(u).unwrap(), m);
        run(&mut m, 1, StepOp::DeleteReplaced, &app);
        assert_eq!(text(&m, &app), "deleted, waiting for db");
        run(&mut m, 1, StepOp::DeleteReplaced, &db);
        run(&mut m, 1, StepOp::Replace, &db);
        assert_eq!(text(&m, &db), "deleted, replacement next");
        assert_eq!(m.done_count(StepOp::Replace), 0, "nothing is replaced yet");
        m.apply(&EngineEvent::StepStarted {
            chain: 1,
            op: StepOp::CreateReplacement,
            urn: db.clone(),
            worker: 0,
        });
        assert_eq!(text(&m, &db), "creating replacement…");
        m.apply(&EngineEvent::StepFinished {
            chain: 1,
            op: StepOp::CreateReplacement,
            urn: db.clone(),
            id: None,
            outputs: PropertyMap::new(),
            duration: Duration::ZERO,
        });
        assert_eq!(text(&m, &db), "replaced");
        assert_eq!(m.done_count(StepOp::Replace), 1);
        assert_eq!(text(&m, &app), "deleted, replacement next");
        plan(
            &mut m,
            2,
            &[(StepOp::Replace, &app), (StepOp::CreateReplacement, &app)],
        );
        run(&mut m, 2, StepOp::Replace, &app);
        assert_eq!(text(&m, &app), "deleted, replacement next");
        run(&mut m, 2, StepOp::CreateReplacement, &app);
        assert_eq!(text(&m, &app), "replaced");
        assert_eq!(m.done_count(StepOp::Replace), 2);
    }

    #[test]
    fn a_cancel_or_a_failure_leaves_nothing_waiting_and_stopped_chains_are_skipped() {
        for outcome in [
            Outcome::Cancelled,
            Outcome::Failed(crate::engine::RunFailure::new(
                crate::engine::FailureCause::Step,
                "update of x failed",
            )),
        ] {
            let mut m = sample_model();
            if outcome == Outcome::Cancelled {
                m.apply(&EngineEvent::CancelRequested { terminate: false });
                assert_eq!(m.undecided_cascades(), 0);
            }
            m.apply(&EngineEvent::ChainFinished {
                chain: 8,
                ok: false,
            });
            m.apply(&EngineEvent::Summary {
                counts: BTreeMap::new(),
                declined: 0,
                duration: Duration::from_secs(4),
                outcome: outcome.clone(),
                preview: false,
                policy_packs: Default::default(),
            });
            assert_eq!(m.undecided_cascades(), 0, "{outcome:?}");
            let db = m.get(&urn("sim:index:Database", "db")).unwrap();
            assert_eq!(db.status, Status::Skipped, "{outcome:?}");
            assert_eq!(m.chain(7).unwrap().state, ChainState::Skipped);
            assert_eq!(
                m.chain(8).unwrap().state,
                ChainState::Skipped,
                "stopped from outside, not failed"
            );
            assert_eq!(m.chain(6).unwrap().state, ChainState::Failed);
            assert!(m.cascades()[0].abandoned);
        }
    }

    #[test]
    fn time_paused_is_left_out_of_elapsed_times() {
        let mut m = live();
        let u = urn("sim:index:Server", "a");
        plan(&mut m, 1, &[(StepOp::Create, &u)]);
        m.apply(&EngineEvent::ChainStarted {
            chain: 1,
            worker: 0,
        });
        m.set_now(Duration::from_secs(1));
        m.apply(&EngineEvent::Paused);
        m.set_now(Duration::from_secs(5));
        assert_eq!(m.elapsed(), Duration::from_secs(1));
        m.apply(&EngineEvent::Resumed);
        m.set_now(Duration::from_secs(6));
        assert_eq!(m.elapsed(), Duration::from_secs(2));
        assert_eq!(
            m.chain(1).unwrap().elapsed(m.active_now()),
            Some(Duration::from_secs(2))
        );
        assert_eq!(m.paused_time(), Duration::from_secs(4));
        let log: Vec<&str> = m.log().iter().map(|e| e.message.as_str()).collect();
        assert!(log.iter().any(|l| l.starts_with("paused by the operator")));
        assert!(log.contains(&"resumed by the operator"));
    }

    #[test]
    fn a_history_line_takes_24_bytes_and_reads_as_its_text_did() {
        assert_eq!(std::mem::size_of::<HistoryEntry>(), 24);
        let entry = |line| HistoryEntry {
            at_tenths: 754,
            line,
        };
        assert_eq!(
            entry(HistoryLine::Registered).at(),
            Duration::from_millis(75_400)
        );
        for op in StepOp::ALL {
            let text = |line| entry(line).text().into_owned();
            assert_eq!(
                text(HistoryLine::Planned(op)),
                format!("planned {}", op.as_str())
            );
            assert_eq!(
                text(HistoryLine::Finished { op, preview: true }),
                format!("would {} (preview: nothing ran)", op.as_str())
            );
            assert_eq!(
                text(HistoryLine::Finished { op, preview: false }),
                op.past_tense()
            );
            assert_eq!(
                text(HistoryLine::OnWorker(op, 3)),
                format!("{} on worker 3", op.progressive())
            );
        }
        let diffed = |replace, changes| entry(HistoryLine::Diffed { replace, changes }).text();
        assert_eq!(diffed(true, DiffChanges::Some), "diff: replace");
        assert_eq!(diffed(false, DiffChanges::None), "diff: none changes");
        assert_eq!(diffed(false, DiffChanges::Some), "diff: some changes");
    }

    #[test]
    fn a_plain_create_keeps_a_small_row_and_an_update_keeps_its_changes() {
        // A million rows of a preview: the diff fields are boxed apart (456 bytes before), the
        // type and the name are read from the URN, and texts are boxed (344 before).
        assert!(std::mem::size_of::<Resource>() <= 288);
        let mut m = live();
        let vpc = urn("sim:index:Vpc", "vpc");
        let sub = urn("sim:index:Subnet", "sub");
        plan(&mut m, 1, &[(StepOp::Create, &vpc)]);
        assert!(m.get(&vpc).unwrap().changes.is_none());
        let mut info = step_info(StepOp::Update, &sub, None, 2);
        info.diffs = vec!["cidr".into()];
        info.hide_diffs = vec!["tags".into()];
        info.old_inputs = Some(PropertyMap::new());
        m.apply(&EngineEvent::StepPlanned(Box::new(info.clone())));
        let changes = m.get(&sub).unwrap().changes();
        assert_eq!(changes.diffs, ["cidr"]);
        assert_eq!(changes.hide_diffs, ["tags"]);
        assert!(changes.old_inputs.is_some());
        info.hide_diffs.clear();
        m.apply(&EngineEvent::StepPlanned(Box::new(info)));
        assert!(m.get(&sub).unwrap().changes().hide_diffs.is_empty());
    }

    #[test]
    fn chains_are_found_whatever_order_their_ids_arrive_in() {
        let mut m = live();
        let urns: Vec<Urn> = (0..6)
            .map(|i| urn("sim:index:Vpc", &format!("v{i}")))
            .collect();
        // 1 and 2 in the engine's order, then 5 before 3 and 4, and an id that fits no slot.
        let ids = [1, 2, 5, 3, 4, u64::MAX];
        for (id, u) in ids.iter().zip(&urns) {
            m.apply(&EngineEvent::ChainQueued {
                chain: *id,
                steps: [(StepOp::Create, u.clone())].into(),
            });
        }
        for (id, u) in ids.iter().zip(&urns) {
            let chain = m.chain(*id).expect("found");
            assert_eq!((chain.id, &chain.steps[0].1), (*id, u));
            run(&mut m, *id, StepOp::Create, u);
            assert_eq!(m.get(u).unwrap().status, Status::Done, "chain {id}");
        }
        assert!(m.chain(6).is_none() && m.chain(0).is_none());
        assert_eq!(m.chains().len(), ids.len());
    }

    #[test]
    fn counts_leave_out_default_providers() {
        let mut m = live();
        let provider = Urn::new("dev", "myproj", None, "pulumi:providers:sim", "default");
        let vpc = urn("sim:index:Vpc", "vpc");
        let sub = urn("sim:index:Subnet", "sub");
        plan(
            &mut m,
            1,
            &[(StepOp::Create, &provider), (StepOp::Create, &vpc)],
        );
        let mut info = step_info(StepOp::Create, &sub, None, 2);
        info.dependencies = [vpc.clone()].into();
        m.apply(&EngineEvent::StepPlanned(Box::new(info)));
        assert_eq!(m.planned_count(StepOp::Create), 2, "as `+ 2 to create`");
        run(&mut m, 1, StepOp::Create, &provider);
        assert_eq!(m.done_count(StepOp::Create), 0);
    }

    #[test]
    fn dependency_rows_follow_dependencies_that_arrive_later_or_change() {
        let mut m = live();
        let vpc = urn("sim:index:Vpc", "vpc");
        let db = urn("sim:index:Database", "db");
        let sub = urn("sim:index:Subnet", "sub");
        let mut info = step_info(StepOp::Create, &sub, None, 1);
        info.dependencies = [vpc.clone(), db.clone()].into();
        m.apply(&EngineEvent::StepPlanned(Box::new(info.clone())));
        let row = |m: &Model, u: &Urn| m.index_of(u).unwrap();
        let deps = |m: &Model| m.graph().dependency_rows(row(m, &sub)).collect::<Vec<_>>();
        assert!(deps(&m).is_empty());
        plan(&mut m, 2, &[(StepOp::Create, &vpc)]);
        assert_eq!(deps(&m), [row(&m, &vpc)]);
        // The same list again changes nothing; a new one is new structure.
        let version = m.structure_version();
        m.apply(&EngineEvent::StepPlanned(Box::new(info.clone())));
        assert_eq!(m.structure_version(), version);
        info.dependencies = [vpc.clone()].into();
        m.apply(&EngineEvent::StepPlanned(Box::new(info)));
        assert!(m.structure_version() > version);
        // `db` was dropped before it arrived: it is no dependency when it does.
        plan(&mut m, 3, &[(StepOp::Create, &db)]);
        assert_eq!(deps(&m), [row(&m, &vpc)]);
    }

    #[test]
    fn declined_dependents_are_no_longer_replacements() {
        let mut m = live();
        let db = urn("sim:index:Database", "db");
        let app = urn("sim:index:Server", "app");
        plan(&mut m, 1, &[(StepOp::DeleteReplaced, &app)]);
        m.apply(&cascade(&db, &app));
        m.apply(&EngineEvent::Decision {
            cascade: 1,
            approved: false,
            by: Decider::Operator("alice@host".into()),
            op: StepOp::Replace,
            urn: urn("sim:index:Database", "db"),
        });
        let r = m.get(&app).unwrap();
        assert_eq!(r.op, Some(StepOp::Same));
        assert!(r.changes().replace_keys.is_empty());
        assert_eq!(r.status, Status::Declined);
        assert!(
            m.log()
                .last()
                .unwrap()
                .message
                .contains("db and 1 dependent declined by operator")
        );
    }

    #[test]
    fn a_preview_records_what_would_run_and_waits_for_nobody() {
        let mut m = Model::new();
        m.apply(&EngineEvent::Prelude {
            operation: Operation::Preview,
            preview: true,
            stack: "dev".into(),
            project: "myproj".into(),
            parallel: 4,
            parallel_diff: false,
        });
        let db = urn("sim:index:Database", "db");
        let app = urn("sim:index:Server", "app");
        plan(&mut m, 1, &[(StepOp::Create, &app)]);
        m.apply(&cascade(&db, &app));
        assert_eq!(m.undecided_cascades(), 0);
        assert!(m.cascades()[0].planned);
        assert_ne!(m.run_state(), RunState::AwaitingApproval);
        run(&mut m, 1, StepOp::Create, &app);
        let history: Vec<String> = m
            .get(&app)
            .unwrap()
            .history
            .iter()
            .map(|h| h.text().into_owned())
            .collect();
        assert!(
            history
                .iter()
                .any(|h| h == "would create (preview: nothing ran)"),
            "{history:?}"
        );
        assert!(!history.iter().any(|h| h.contains("worker")), "{history:?}");
    }
}
