//! What the run is and where it stands: the prelude's facts (operation, stack, workers), pause
//! and cancel as events report them, busy workers, pending creates, the selection left out of
//! the run, and the closing summary.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::engine::run::events::PendingCreate;
use crate::engine::{Operation, Outcome, StepOp};

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

/// The run as a whole.
#[derive(Clone, Debug, Default)]
pub struct RunStatus {
    pub operation: Option<Operation>,
    pub preview: bool,
    pub stack: String,
    pub project: String,
    pub parallel: usize,
    pub parallel_diff: bool,
    pub paused: bool,
    pub cancel: CancelSeen,
    /// Resources the preview changed that the operator's selection left out of this run, as
    /// (name, type): the summary lists them as skipped.
    pub deselected: Vec<(String, String)>,
    pub summary: Option<SummaryInfo>,
    /// Creates an interrupted run left pending in the stack, until they are cleared.
    pending_creates: Vec<PendingCreate>,
    /// Who or what asked for the pause about to be announced, when not the local operator:
    /// a breakpoint, or a watcher whose pause the serving side noted first.
    pub(super) pause_cause: Option<String>,
    /// Who or what the pause in force was asked by (`by the operator`, `by <watcher>`, …).
    pub(super) paused_by: Option<String>,
    /// The watcher who asked for the resume about to be announced (noted first by the serving
    /// side); none when the local operator resumed.
    pub(super) resume_cause: Option<String>,
}

impl RunStatus {
    /// Pending creates the stack holds (none once the run cleared them).
    pub fn pending_creates(&self) -> &[PendingCreate] {
        &self.pending_creates
    }

    /// Who paused the run, while it is paused: a replay names the run's pause apart from its
    /// own paused playback.
    pub fn paused_by(&self) -> Option<&str> {
        self.paused_by.as_deref().filter(|_| self.paused)
    }

    pub(super) fn set_pending_creates(&mut self, creates: &[PendingCreate]) {
        self.pending_creates = creates.to_vec();
    }
}
