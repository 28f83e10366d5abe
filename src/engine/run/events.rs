//! The engine's event stream: everything a live display, a log printer or a JSON writer needs,
//! sent without ever waiting for the consumer.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;

use super::policy::{EnforcementLevel, PolicySeverity};
use super::run_failure::RunFailure;
use super::secret_mask::SecretMask;
use crate::engine::model::property::PropertyMap;
use crate::engine::model::provider_ref::ProviderRef;
use crate::engine::model::urn::Urn;
use crate::engine::provider::{DiffChanges, PropertyDiff};
use crate::engine::step::StepOp;

/// Identifies a chain of steps run serially on one worker.
pub type ChainId = u64;
/// Identifies a delete-before-replace cascade awaiting a decision.
pub type CascadeId = u64;
/// Identifies a worker of the executor's pool.
pub type WorkerId = usize;

/// Severity of a diagnostic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Debug,
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Debug => "debug",
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// What kind of deployment runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operation {
    Preview,
    Update,
    Destroy,
    Refresh,
}

impl Operation {
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Preview => "preview",
            Operation::Update => "up",
            Operation::Destroy => "destroy",
            Operation::Refresh => "refresh",
        }
    }
}

/// A planned step as a display sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct StepInfo {
    pub op: StepOp,
    pub urn: Urn,
    pub type_: String,
    pub parent: Option<Urn>,
    pub custom: bool,
    pub chain: Option<ChainId>,
    /// Keys that changed.
    pub diffs: Vec<String>,
    /// Keys that force replacement.
    pub replace_keys: Vec<String>,
    pub detailed_diff: BTreeMap<String, PropertyDiff>,
    pub old_inputs: Option<PropertyMap>,
    pub old_outputs: Option<PropertyMap>,
    /// The old resource's provider ID (Pulumi's step events carry it).
    pub old_id: Option<String>,
    pub new_inputs: Option<PropertyMap>,
    pub provider: Option<ProviderRef>,
    pub delete_before_replace: bool,
    /// Distinct, in the order first named; shared, so that a console keeps them uncopied.
    pub dependencies: Arc<[Urn]>,
    pub protect: bool,
    pub retain_on_delete: bool,
    /// The `hideDiffs` paths of the new state (else the old): displays hide what changed there.
    pub hide_diffs: Vec<String>,
}

/// Why a resource belongs to a DBR cascade.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CascadeReason {
    /// The root itself: these keys force the replacement.
    Root { keys: Vec<String> },
    /// An input depends on a replaced resource and the provider's diff says replace.
    Input {
        inputs: Vec<String>,
        on: Urn,
        keys: Vec<String>,
    },
    /// Its provider is being replaced.
    Provider { provider: Urn },
    /// It is deleted with a replaced resource.
    DeletedWith { target: Urn },
}

/// One resource that a DBR cascade replaces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CascadeMember {
    pub urn: Urn,
    pub type_: String,
    pub reason: CascadeReason,
}

/// The end of a deployment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Succeeded,
    Failed(RunFailure),
    Cancelled,
    Terminated,
}

impl Outcome {
    pub fn is_success(&self) -> bool {
        matches!(self, Outcome::Succeeded)
    }
}

/// Who decided about a gate: the audit record of every approval and decline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decider {
    /// The local console's operator, as `user@host`.
    Operator(String),
    /// A watcher over the attach protocol, by the name it gave.
    Remote(String),
    /// A `--decisions` file, by its path.
    File(String),
    /// The approval policy (`auto`, `decline`, or `ask` with no one to ask).
    Policy,
}

impl Decider {
    /// The decider's kind as one word and its name (empty for the policy), for records.
    pub fn parts(&self) -> (&'static str, &str) {
        match self {
            Decider::Operator(n) => ("operator", n),
            Decider::Remote(n) => ("remote", n),
            Decider::File(n) => ("file", n),
            Decider::Policy => ("policy", ""),
        }
    }
}

impl std::fmt::Display for Decider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Decider::Operator(who) => write!(f, "operator {who}"),
            Decider::Remote(who) => write!(f, "remote {who}"),
            Decider::File(path) => write!(f, "decision file {path}"),
            Decider::Policy => f.write_str("policy"),
        }
    }
}

/// A create an interrupted run began and never recorded as finished.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PendingCreate {
    pub urn: Urn,
    pub type_: String,
}

/// A violation a policy pack reported (Pulumi's policy violation event).
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyViolation {
    /// The resource; a stack policy's violation names the root stack unless it names one.
    pub urn: Urn,
    pub policy_name: String,
    pub pack_name: String,
    pub pack_version: String,
    /// The pack's text: the policy's description, a newline and what it found.
    pub message: String,
    /// Advisory or mandatory: a remediate-level violation is reported as mandatory.
    pub level: EnforcementLevel,
    pub severity: PolicySeverity,
}

/// A remediation that rewrote a resource's inputs before its step.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyRemediation {
    pub urn: Urn,
    pub policy_name: String,
    pub pack_name: String,
    pub pack_version: String,
    pub before: PropertyMap,
    pub after: PropertyMap,
}

/// Which call of a pack a summary is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PolicyCall {
    Analyze,
    Remediate,
    AnalyzeStack,
}

/// What one call of one pack found: the policies that passed and those that failed (for
/// Remediate, those that rewrote the inputs), each sorted.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicySummary {
    pub call: PolicyCall,
    /// The resource; none for AnalyzeStack.
    pub urn: Option<Urn>,
    pub pack_name: String,
    pub pack_version: String,
    pub passed: Vec<String>,
    pub failed: Vec<String>,
}

/// How the serving side notes a watcher's pause, the watcher's name after it, just before the
/// run's `Paused`: consoles credit the pause to that watcher.
pub const PAUSED_BY_NOTE: &str = "deployment paused by ";

/// How the serving side notes a watcher's resume, the watcher's name after it, just before the
/// run's `Resumed`: consoles credit the resume to that watcher.
pub const RESUMED_BY_NOTE: &str = "deployment resumed by ";

/// How the serving side notes, on the gate's resource, that an approval timeout runs for a
/// gate just announced, the seconds and `s` after it: consoles count down to the decline.
pub const APPROVAL_TIMEOUT_NOTE: &str = "declined unless decided within ";

/// The one stream the console, the progress printer and the JSON writer are built on.
#[derive(Clone, Debug, PartialEq)]
pub enum EngineEvent {
    /// A policy pack starts loading (sent before the prelude, one per pack); `path` as given.
    PolicyLoad {
        path: String,
    },
    Prelude {
        operation: Operation,
        preview: bool,
        stack: String,
        project: String,
        parallel: usize,
        parallel_diff: bool,
    },
    RegistrationReceived {
        urn: Urn,
        type_: String,
        parent: Option<Urn>,
        custom: bool,
        /// Distinct, in the order first named; shared, so that a console keeps them uncopied.
        dependencies: Arc<[Urn]>,
    },
    StepPlanned(Box<StepInfo>),
    ChainQueued {
        chain: ChainId,
        /// Shared, so that a console keeps them uncopied.
        steps: Arc<[(StepOp, Urn)]>,
    },
    ChainStarted {
        chain: ChainId,
        worker: WorkerId,
    },
    ChainFinished {
        chain: ChainId,
        ok: bool,
    },
    StepStarted {
        chain: ChainId,
        op: StepOp,
        urn: Urn,
        worker: WorkerId,
    },
    StepFinished {
        chain: ChainId,
        op: StepOp,
        urn: Urn,
        /// The resource's provider ID after the step, when it has one.
        id: Option<String>,
        outputs: PropertyMap,
        duration: Duration,
    },
    StepFailed {
        chain: ChainId,
        op: StepOp,
        urn: Urn,
        error: String,
        duration: Duration,
    },
    StepSkipped {
        op: StepOp,
        urn: Urn,
        reason: String,
    },
    DiffQueued {
        urn: Urn,
    },
    DiffStarted {
        urn: Urn,
        worker: WorkerId,
    },
    DiffFinished {
        urn: Urn,
        changes: DiffChanges,
        replace: bool,
    },
    PendingReplacement {
        cascade: CascadeId,
        chain: ChainId,
        root: Urn,
        members: Vec<CascadeMember>,
    },
    /// A step waits at its gate (an `ask` policy) before any provider call; `gate` shares the
    /// cascades' numbering, so one decision names either.
    GateOpened {
        gate: CascadeId,
        chain: ChainId,
        op: StepOp,
        urn: Urn,
        kind: super::approval_kind::ApprovalKind,
        /// `ask`: it waits for a decision; otherwise the `decline` policy skips it at once.
        asked: bool,
    },
    /// A gate (a step's or a cascade's) was decided; `urn` is the step's, or the cascade root's.
    Decision {
        cascade: CascadeId,
        op: StepOp,
        urn: Urn,
        approved: bool,
        by: Decider,
    },
    Paused,
    Resumed,
    /// While paused, the operator let one step start.
    Stepped,
    /// A `--pause-before` glob matched: the run pauses before this step starts.
    Breakpoint {
        op: StepOp,
        urn: Urn,
    },
    CancelRequested {
        terminate: bool,
    },
    /// The stack holds creates an interrupted run left pending (sent after the prelude, in a
    /// preview too), so a display can offer to clear them before the run.
    PendingCreates {
        creates: Vec<PendingCreate>,
    },
    /// `--clear-pending-creates` dropped this many pending creates from the state.
    PendingCreatesCleared {
        count: usize,
    },
    Diagnostic {
        urn: Option<Urn>,
        severity: Severity,
        message: String,
        ephemeral: bool,
    },
    ResourceOutputs {
        urn: Urn,
        outputs: PropertyMap,
    },
    /// A program or plugin was started under a debugger and waits for one to attach (Pulumi's
    /// `StartDebuggingEvent`): `config` is the launch configuration an editor attaches with,
    /// `message` tells the operator where.
    StartDebugging {
        config: serde_json::Map<String, serde_json::Value>,
        message: String,
    },
    PolicyViolation(Box<PolicyViolation>),
    PolicyRemediation(Box<PolicyRemediation>),
    PolicySummary(Box<PolicySummary>),
    Summary {
        counts: BTreeMap<StepOp, usize>,
        declined: usize,
        duration: Duration,
        outcome: Outcome,
        preview: bool,
        /// The policy packs that ran, by the name events give them, to their versions
        /// (Pulumi's `PolicyPacks`).
        policy_packs: BTreeMap<String, String>,
    },
}

/// What displays say for a `StartDebugging` event: Pulumi's status line, with the event's
/// `message` saying where to attach.
pub fn waiting_for_debugger(message: &str) -> String {
    format!("Waiting for debugger to attach ({message})...")
}

/// Sends events without waiting; a dropped receiver is not an error. Messages are masked
/// with the deployment's secrets on the way out.
#[derive(Clone, Debug, Default)]
pub struct EventSink(Option<mpsc::UnboundedSender<EngineEvent>>, SecretMask);

impl EventSink {
    /// A sink and the stream that receives from it.
    pub fn channel() -> (EventSink, mpsc::UnboundedReceiver<EngineEvent>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (EventSink(Some(tx), SecretMask::default()), rx)
    }

    /// A sink that drops everything (benchmarks, library use without a display).
    pub fn none() -> EventSink {
        EventSink(None, SecretMask::default())
    }

    pub fn send(&self, mut e: EngineEvent) {
        if let Some(tx) = &self.0 {
            match &mut e {
                EngineEvent::Diagnostic { message: text, .. }
                | EngineEvent::StepFailed { error: text, .. }
                | EngineEvent::StepSkipped { reason: text, .. } => *text = self.1.mask(text),
                EngineEvent::PolicyViolation(v) => v.message = self.1.mask(&v.message),
                // A run's failure is masked when the engine makes it (`RunError::failure`).
                _ => {}
            }
            let _ = tx.send(e);
        }
    }

    /// The secrets this sink masks; the engine registers them as it meets them.
    pub fn secrets(&self) -> &SecretMask {
        &self.1
    }

    pub fn diag(&self, urn: Option<Urn>, severity: Severity, message: impl Into<String>) {
        self.send(EngineEvent::Diagnostic {
            urn,
            severity,
            message: message.into(),
            ephemeral: false,
        });
    }
}
