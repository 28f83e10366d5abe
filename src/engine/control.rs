//! The operator's handle on a running deployment: pause, approve or decline cascades, cancel.

use std::sync::Arc;

use tokio::sync::{mpsc, watch};

use super::events::{CascadeId, EngineEvent, EventSink};

/// What to do with a delete-before-replace cascade.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ApprovalPolicy {
    /// Hold the cascade's chain until the operator decides.
    Ask,
    /// Run it, as Pulumi does.
    #[default]
    Auto,
    /// Keep the root and its dependents as they are.
    Decline,
}

impl std::str::FromStr for ApprovalPolicy {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "ask" => Ok(ApprovalPolicy::Ask),
            "auto" => Ok(ApprovalPolicy::Auto),
            "decline" => Ok(ApprovalPolicy::Decline),
            other => Err(format!(
                "unknown approval policy {other:?}: expected ask, auto or decline"
            )),
        }
    }
}

/// How far cancellation has gone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum CancelLevel {
    #[default]
    Running,
    /// No new steps; running ones finish and are recorded.
    Cancelling,
    /// Stop at once; what is in flight stays pending.
    Terminating,
}

/// A decision sent to the deployment loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Decision {
    Approve(CascadeId),
    Decline(CascadeId),
    ApproveAll,
}

/// A cheap, clonable handle; every method returns at once.
#[derive(Clone)]
pub struct Control {
    inner: Arc<Inner>,
}

struct Inner {
    paused: watch::Sender<bool>,
    cancel: watch::Sender<CancelLevel>,
    decisions: mpsc::UnboundedSender<Decision>,
    events: EventSink,
}

/// The engine's side of the control handle.
pub(crate) struct ControlReceiver {
    pub paused: watch::Receiver<bool>,
    pub cancel: watch::Receiver<CancelLevel>,
    pub decisions: mpsc::UnboundedReceiver<Decision>,
}

impl Control {
    pub(crate) fn new(events: EventSink) -> (Control, ControlReceiver) {
        let (paused, paused_rx) = watch::channel(false);
        let (cancel, cancel_rx) = watch::channel(CancelLevel::Running);
        let (decisions, decisions_rx) = mpsc::unbounded_channel();
        (
            Control {
                inner: Arc::new(Inner {
                    paused,
                    cancel,
                    decisions,
                    events,
                }),
            },
            ControlReceiver {
                paused: paused_rx,
                cancel: cancel_rx,
                decisions: decisions_rx,
            },
        )
    }

    /// Holds every step that has not started; running steps finish.
    pub fn pause(&self) {
        if !self.inner.paused.send_replace(true) {
            self.inner.events.send(EngineEvent::Paused);
        }
    }

    pub fn resume(&self) {
        if self.inner.paused.send_replace(false) {
            self.inner.events.send(EngineEvent::Resumed);
        }
    }

    pub fn is_paused(&self) -> bool {
        *self.inner.paused.borrow()
    }

    pub fn approve(&self, cascade: CascadeId) {
        let _ = self.inner.decisions.send(Decision::Approve(cascade));
    }

    pub fn decline(&self, cascade: CascadeId) {
        let _ = self.inner.decisions.send(Decision::Decline(cascade));
    }

    /// Approves every cascade waiting now.
    pub fn approve_all(&self) {
        let _ = self.inner.decisions.send(Decision::ApproveAll);
    }

    /// First call cancels gracefully; a second call terminates.
    pub fn cancel(&self) {
        let next = match *self.inner.cancel.borrow() {
            CancelLevel::Running => CancelLevel::Cancelling,
            _ => CancelLevel::Terminating,
        };
        self.escalate(next);
    }

    /// Stops at once; in-flight operations stay pending in the state.
    pub fn terminate(&self) {
        self.escalate(CancelLevel::Terminating);
    }

    fn escalate(&self, level: CancelLevel) {
        let changed = self.inner.cancel.send_if_modified(|l| {
            if level > *l {
                *l = level;
                true
            } else {
                false
            }
        });
        if changed {
            self.inner.events.send(EngineEvent::CancelRequested {
                terminate: level == CancelLevel::Terminating,
            });
            // A paused executor must wake up to notice the cancellation.
            self.inner.paused.send_replace(false);
        }
    }
}
