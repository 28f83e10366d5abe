//! The operator's handle on a running deployment: pause, step, approve or decline what waits
//! at a gate, cancel.

use std::sync::Arc;

use tokio::sync::{Semaphore, mpsc, watch};

use super::approval_kind::ApprovalKind;
pub use super::approval_kind::{ApprovalPolicy, UnknownPolicy};
use super::events::{CascadeId, Decider, EngineEvent, EventSink};

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

/// Which waiting gates a decision answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DecisionScope {
    One(CascadeId),
    /// Every gate waiting now.
    All,
    /// Every gate of this kind waiting now.
    Kind(ApprovalKind),
}

/// A decision sent to the deployment loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Decision {
    pub scope: DecisionScope,
    pub approve: bool,
    pub by: Decider,
}

/// `user@host`: who a local operator's decisions are recorded as.
pub fn local_operator() -> String {
    let user = std::env::var("USER").unwrap_or_else(|_| "someone".into());
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_default();
    if host.is_empty() {
        user
    } else {
        format!("{user}@{host}")
    }
}

/// A cheap, clonable handle; every method returns at once.
#[derive(Clone)]
pub struct Control {
    inner: Arc<Inner>,
}

struct Inner {
    paused: Arc<watch::Sender<bool>>,
    /// Steps allowed to start while paused (`step_once`).
    steps: Arc<Semaphore>,
    operator: String,
    cancel: watch::Sender<CancelLevel>,
    decisions: mpsc::UnboundedSender<Decision>,
    events: EventSink,
}

/// The engine's side of the control handle.
pub(crate) struct ControlReceiver {
    pub paused: watch::Receiver<bool>,
    /// The pause switch itself: a breakpoint (`pause_before`) throws it from the executor.
    pub pause_switch: Arc<watch::Sender<bool>>,
    pub steps: Arc<Semaphore>,
    pub cancel: watch::Receiver<CancelLevel>,
    pub decisions: mpsc::UnboundedReceiver<Decision>,
}

impl Control {
    pub(crate) fn new(events: EventSink) -> (Control, ControlReceiver) {
        let (paused, paused_rx) = watch::channel(false);
        let paused = Arc::new(paused);
        let steps = Arc::new(Semaphore::new(0));
        let (cancel, cancel_rx) = watch::channel(CancelLevel::Running);
        let (decisions, decisions_rx) = mpsc::unbounded_channel();
        (
            Control {
                inner: Arc::new(Inner {
                    paused: paused.clone(),
                    steps: steps.clone(),
                    operator: local_operator(),
                    cancel,
                    decisions,
                    events,
                }),
            },
            ControlReceiver {
                paused: paused_rx,
                pause_switch: paused,
                steps,
                cancel: cancel_rx,
                decisions: decisions_rx,
            },
        )
    }

    /// Holds every step that has not started; running steps finish.
    pub fn pause(&self) {
        self.switch(true, EngineEvent::Paused);
    }

    pub fn resume(&self) {
        // Steps granted while paused and not taken lapse.
        let _ = self.inner.steps.forget_permits(usize::MAX);
        self.switch(false, EngineEvent::Resumed);
    }

    /// Flips the pause switch to `paused`, announcing it with `event` while no worker can see
    /// the switch yet: a step the change lets start is reported after its cause.
    fn switch(&self, paused: bool, event: EngineEvent) {
        self.inner.paused.send_if_modified(|now| {
            let changed = *now != paused;
            if changed {
                self.inner.events.send(event);
                *now = paused;
            }
            changed
        });
    }

    /// While paused, lets exactly one waiting step start; the run stays paused after it.
    pub fn step_once(&self) {
        if self.is_paused() {
            // Announced before the permit exists, so that the step it lets through comes after.
            self.inner.events.send(EngineEvent::Stepped);
            self.inner.steps.add_permits(1);
        }
    }

    pub fn is_paused(&self) -> bool {
        *self.inner.paused.borrow()
    }

    /// Approves one gate (a step or a cascade) as the local operator.
    pub fn approve(&self, gate: CascadeId) {
        self.decide(DecisionScope::One(gate), true, self.local());
    }

    pub fn decline(&self, gate: CascadeId) {
        self.decide(DecisionScope::One(gate), false, self.local());
    }

    /// Approves every gate waiting now.
    pub fn approve_all(&self) {
        self.decide(DecisionScope::All, true, self.local());
    }

    /// Approves or declines every gate of `kind` waiting now.
    pub fn decide_kind(&self, kind: ApprovalKind, approve: bool) {
        self.decide(DecisionScope::Kind(kind), approve, self.local());
    }

    /// Decides one gate for someone else (a watcher over the attach protocol).
    pub fn decide_as(&self, gate: CascadeId, approve: bool, by: Decider) {
        self.decide(DecisionScope::One(gate), approve, by);
    }

    /// Approves or declines every waiting gate of `kind` for someone else.
    pub fn decide_kind_as(&self, kind: ApprovalKind, approve: bool, by: Decider) {
        self.decide(DecisionScope::Kind(kind), approve, by);
    }

    /// Approves every waiting gate for someone else.
    pub fn approve_all_as(&self, by: Decider) {
        self.decide(DecisionScope::All, true, by);
    }

    fn local(&self) -> Decider {
        Decider::Operator(self.inner.operator.clone())
    }

    pub(crate) fn decide(&self, scope: DecisionScope, approve: bool, by: Decider) {
        let _ = self.inner.decisions.send(Decision { scope, approve, by });
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

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::*;

    /// Runs `observe` on a thread that is already spinning when `act` runs, and returns what it
    /// saw: the race between a worker seeing the switch and the event being sent, made likely.
    fn observed<T: Send + 'static>(
        observe: impl FnOnce() -> T + Send + 'static,
        act: impl FnOnce(),
    ) -> T {
        let ready = Arc::new(AtomicBool::new(false));
        let set = ready.clone();
        let observer = std::thread::spawn(move || {
            set.store(true, Ordering::SeqCst);
            observe()
        });
        while !ready.load(Ordering::SeqCst) {
            std::hint::spin_loop();
        }
        act();
        observer.join().expect("the observer ends")
    }

    #[test]
    fn a_resume_is_sent_before_any_worker_can_see_the_run_resumed() {
        for _ in 0..200 {
            let (sink, mut events) = EventSink::channel();
            let (control, rx) = Control::new(sink);
            control.pause();
            assert_eq!(events.try_recv().ok(), Some(EngineEvent::Paused));
            let paused = rx.paused;
            let seen = observed(
                move || {
                    while *paused.borrow() {
                        std::hint::spin_loop();
                    }
                    events.try_recv().ok()
                },
                || control.resume(),
            );
            assert_eq!(seen, Some(EngineEvent::Resumed));
        }
    }

    #[test]
    fn a_step_let_through_is_sent_before_its_permit_exists() {
        for _ in 0..200 {
            let (sink, mut events) = EventSink::channel();
            let (control, rx) = Control::new(sink);
            control.pause();
            assert_eq!(events.try_recv().ok(), Some(EngineEvent::Paused));
            let steps = rx.steps;
            let seen = observed(
                move || {
                    while steps.try_acquire().is_err() {
                        std::hint::spin_loop();
                    }
                    events.try_recv().ok()
                },
                || control.step_once(),
            );
            assert_eq!(seen, Some(EngineEvent::Stepped));
        }
    }
}
