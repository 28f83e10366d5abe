//! A deployment: one run of a program (or of none, for destroy and refresh) against a base
//! snapshot, producing a new snapshot through the journal and a stream of events.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use super::approval::Approvals;
use super::control::{Control, ControlReceiver};
use super::events::{EventSink, Operation, Outcome};
use super::gate_decisions::GateDecisions;
use super::plan::Plan;
use super::policy::Analyzer;
use crate::engine::journal::Journal;
use crate::engine::model::clock::Clock;
use crate::engine::model::property::PropertyMap;
use crate::engine::model::snapshot::Snapshot;
use crate::engine::model::urn::Urn;
use crate::engine::provider::registry::ProviderFactory;
use crate::engine::step::StepOp;

/// How a deployment runs.
#[derive(Clone, Debug)]
pub struct Options {
    pub stack: String,
    pub project: String,
    pub operation: Operation,
    /// Workers in the executor's pool (Pulumi's default: 4 × cores).
    pub parallel: usize,
    /// Run provider diffs on the workers while generation goes on.
    pub parallel_diff: bool,
    /// Keep going after a failed step, skipping what depends on it.
    pub continue_on_error: bool,
    /// Which steps wait at a gate for a decision, run, or are declined.
    pub approvals: Approvals,
    /// Decisions written before the run (`--decisions`), answering gates as they open.
    pub decisions: Option<GateDecisions>,
    /// Roots of the cascades the console's operator declined in an earlier preview of this
    /// update: a preview declines them as its apply will, so its plan is what the apply does.
    pub preview_declines: Vec<Urn>,
    /// No one can decide (no console, no watcher): a gate no decision answers is declined.
    pub unattended: bool,
    /// URN globs to pause before (`--pause-before`): breakpoints.
    pub pause_before: Vec<String>,
    /// URN globs to operate on (`*` within a segment, `**` anything); empty means everything.
    pub targets: Vec<String>,
    /// URN globs to replace whatever their diff says.
    pub replace: Vec<String>,
    /// Also operate on whatever depends on a target (`--target-dependents`); lets a targeted
    /// delete take its dependents with it.
    pub target_dependents: bool,
    /// URN globs to leave alone (`--exclude`); providers and the root stack are never excluded.
    /// Neither excluded resources nor what they depend on are deleted.
    pub excludes: Vec<String>,
    /// Also leave alone whatever depends on an excluded resource (`--exclude-dependents`).
    pub exclude_dependents: bool,
    /// Refresh every resource before the update (`up --refresh`), so the update works from
    /// what really exists.
    pub refresh: bool,
    /// Delete and replace protected resources anyway (`--ignore-protect`); the stored flag
    /// is not changed.
    pub ignore_protect: bool,
    /// Drop the pending creates an interrupted run left (`--clear-pending-creates`): the
    /// operator checked that they made nothing worth keeping.
    pub clear_pending_creates: bool,
    /// Stack configuration, `<namespace>:<key>` to value text.
    pub config: BTreeMap<String, String>,
    pub secret_keys: Vec<String>,
    /// Plan a `destroy` or `refresh` without acting (its preview, shown before the operator
    /// confirms it); an `up`'s preview is [`Operation::Preview`].
    pub dry_run: bool,
    /// Run under this update plan: a registration or step it does not allow fails the run
    /// before the step runs (`up --plan`).
    pub plan: Option<Arc<Plan>>,
    /// Under a plan, outputs it did not expect fail the run too (`--strict`).
    pub strict_plan: bool,
    /// Record what a preview decides as a plan ([`DeploymentResult::plan`]).
    pub record_plan: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            stack: "dev".into(),
            project: "project".into(),
            operation: Operation::Update,
            parallel: default_parallel(),
            parallel_diff: false,
            continue_on_error: false,
            approvals: Approvals::default(),
            decisions: None,
            preview_declines: Vec::new(),
            unattended: false,
            pause_before: Vec::new(),
            targets: Vec::new(),
            replace: Vec::new(),
            target_dependents: false,
            excludes: Vec::new(),
            exclude_dependents: false,
            refresh: false,
            ignore_protect: false,
            clear_pending_creates: false,
            config: BTreeMap::new(),
            secret_keys: Vec::new(),
            dry_run: false,
            plan: None,
            strict_plan: false,
            record_plan: false,
        }
    }
}

impl Options {
    pub fn is_preview(&self) -> bool {
        self.operation == Operation::Preview || self.dry_run
    }
}

/// Pulumi's default parallelism: four workers per core.
pub fn default_parallel() -> usize {
    4 * std::thread::available_parallelism().map_or(1, usize::from)
}

/// What a deployment produced.
#[derive(Clone, Debug)]
pub struct DeploymentResult {
    pub outcome: Outcome,
    /// The state after the run (what the journal recorded).
    pub snapshot: Snapshot,
    /// Logical steps that completed, by op.
    pub counts: BTreeMap<StepOp, usize>,
    /// DBR cascades the operator or the policy declined (declined steps are in the events).
    pub declined: usize,
    pub duration: Duration,
    /// The root stack resource's outputs.
    pub outputs: PropertyMap,
    /// What the preview decided, when it recorded a plan.
    pub plan: Option<Plan>,
}

/// A deployment ready to run; take its [`Control`] before running it.
pub struct Deployment {
    pub(crate) options: Options,
    pub(crate) base: Snapshot,
    pub(crate) factory: Arc<dyn ProviderFactory>,
    pub(crate) journal: Box<dyn Journal>,
    pub(crate) events: EventSink,
    pub(crate) control: Control,
    pub(crate) control_rx: ControlReceiver,
    pub(crate) clock: Clock,
    pub(crate) analyzers: Vec<Arc<dyn Analyzer>>,
}

impl Deployment {
    pub fn new(
        options: Options,
        base: Snapshot,
        factory: Arc<dyn ProviderFactory>,
        journal: Box<dyn Journal>,
        events: EventSink,
    ) -> Deployment {
        let (control, control_rx) = Control::new(events.clone());
        Deployment {
            options,
            base,
            factory,
            journal,
            events,
            control,
            control_rx,
            clock: Clock::system(),
            analyzers: Vec::new(),
        }
    }

    /// Consults these policy packs (in this order for remediations) about every resource the
    /// program registers, and about the stack at the end; only previews and updates take them.
    pub fn with_analyzers(mut self, analyzers: Vec<Arc<dyn Analyzer>>) -> Deployment {
        self.analyzers = analyzers;
        self
    }

    /// Records resource times from `clock` instead of the system clock.
    pub fn with_clock(mut self, clock: Clock) -> Deployment {
        self.clock = clock;
        self
    }

    /// The operator's handle; clone it into the console before calling `run`.
    pub fn control(&self) -> Control {
        self.control.clone()
    }
}
