//! The step executor: chains run serially, chains in parallel on a pool of workers, each step
//! held at the operator's gates (pause, step, breakpoints, cancel) and after a failure.

use std::collections::HashSet;
use std::sync::Arc;

use parking_lot::Mutex;
use std::time::Instant;

use tokio::sync::{Semaphore, mpsc, oneshot, watch};
use tokio::task::JoinSet;

use super::apply::{Applied, ApplyCtx, Effect};
use super::diff_job::{DiffContext, DiffJob};
use crate::engine::model::resource::ResourceState;
use crate::engine::model::targets::UrnGlobs;
use crate::engine::model::urn::Urn;
use crate::engine::program::source::{RegisterError, RegisterStatus, Registered};
use crate::engine::provider::DiffResult;
use crate::engine::run::control::CancelLevel;
use crate::engine::run::events::{ChainId, EngineEvent, EventSink, WorkerId};
use crate::engine::step::{Step, StepOp};
use crate::engine::step_error::StepError;

pub(crate) type RegisterReply = oneshot::Sender<Result<Registered, RegisterError>>;

/// A chain handed to the executor, with whoever waits for its outcome.
pub(crate) struct Chain {
    pub id: ChainId,
    pub steps: Vec<Step>,
    pub reply: Option<RegisterReply>,
    /// An import chain: on success generation continues from the imported state.
    pub after_import: Option<Box<crate::engine::model::goal::Goal>>,
    /// Deletes in the chain whose `deletedWith` target the run deletes too, so they skip the
    /// provider call (the loop decides this when it schedules the chain).
    pub target_deleted: HashSet<Urn>,
}

/// One step's end, reported to the deployment loop as it happens (the loop records it before
/// it answers the chain's registration).
pub(crate) struct StepReport {
    pub op: StepOp,
    pub urn: Urn,
    /// Shared with the chain's registration, which fails with the same error.
    pub result: Result<(), Arc<StepError>>,
    pub effect: Option<Effect>,
}

/// What the executor reports back to the deployment loop.
pub(crate) enum ExecDone {
    Step(Box<StepReport>),
    /// A chain ended; the loop answers its registration (after recording its steps).
    Chain {
        reply: Option<(RegisterReply, Result<Registered, RegisterError>)>,
        /// The chain's resource, failed with one of its steps (a DBR chain whose dependent's
        /// delete failed).
        failed: Option<Urn>,
    },
    Imported {
        goal: Box<crate::engine::model::goal::Goal>,
        state: Box<ResourceState>,
        reply: RegisterReply,
    },
    Diff {
        ctx: Box<DiffContext>,
        reply: RegisterReply,
        result: Result<DiffResult, RegisterError>,
    },
    /// A component's after-hooks ran once its outputs arrived; the loop records a failure
    /// and then answers the outputs' registration.
    ComponentHooks {
        urn: Urn,
        reply: crate::engine::program::source::Reply<()>,
        written: Result<(), RegisterError>,
        result: Result<(), StepError>,
    },
}

/// What running a chain's steps came to.
struct ChainRun {
    /// The last state a step produced (the registration's answer).
    last: Option<ResourceState>,
    /// The step failure, for the registration.
    outcome: Result<(), Arc<StepError>>,
    /// False when a gate stopped the chain before its end.
    completed: bool,
    /// The chain's resource, failed with one of its steps.
    failed: Option<Urn>,
}

impl ChainRun {
    fn not_started() -> ChainRun {
        ChainRun {
            last: None,
            outcome: Ok(()),
            completed: false,
            failed: None,
        }
    }
}

/// How a step got past the pause.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pass {
    /// Not paused.
    Open,
    /// Paused, and the operator let this one step start.
    Stepped,
}

/// A lease on one worker of the pool.
struct Worker {
    id: WorkerId,
    free: Arc<Mutex<Vec<WorkerId>>>,
    _permit: tokio::sync::OwnedSemaphorePermit,
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.free.lock().push(self.id);
    }
}

/// What holds a step back: the operator's pause and cancel, and a failure elsewhere.
#[derive(Clone)]
pub(crate) struct Gates {
    pub paused: watch::Receiver<bool>,
    /// Thrown by a breakpoint.
    pub pause_switch: Arc<watch::Sender<bool>>,
    /// Steps the operator let start while paused, one permit each.
    pub steps: Arc<Semaphore>,
    /// `--pause-before`: the run pauses before a matching step starts.
    pub breakpoints: Arc<UrnGlobs>,
    pub cancel: watch::Receiver<CancelLevel>,
    /// Raised by the deployment loop, or by a worker whose step failed, to stop new steps.
    pub halt: watch::Sender<bool>,
    /// A failure elsewhere does not hold steps back.
    pub continue_on_error: bool,
}

/// The pool; cloning shares it.
#[derive(Clone)]
pub(crate) struct StepExecutor {
    ctx: Arc<ApplyCtx>,
    events: EventSink,
    permits: Arc<Semaphore>,
    free: Arc<Mutex<Vec<WorkerId>>>,
    gates: Gates,
    done: mpsc::UnboundedSender<ExecDone>,
}

impl StepExecutor {
    pub(in crate::engine) fn new(
        ctx: Arc<ApplyCtx>,
        events: EventSink,
        parallel: usize,
        gates: Gates,
        done: mpsc::UnboundedSender<ExecDone>,
    ) -> StepExecutor {
        let parallel = parallel.max(1);
        StepExecutor {
            ctx,
            events,
            permits: Arc::new(Semaphore::new(parallel)),
            free: Arc::new(Mutex::new((0..parallel).rev().collect())),
            gates,
            done,
        }
    }

    async fn worker(&self) -> Worker {
        let permit = self
            .permits
            .clone()
            .acquire_owned()
            .await
            .expect("the pool is never closed");
        let id = self
            .free
            .lock()
            .pop()
            .expect("a permit implies a free worker");
        Worker {
            id,
            free: self.free.clone(),
            _permit: permit,
        }
    }

    /// Waits while paused, unless the operator lets this one step through; `None` when the
    /// chain must stop (cancelled, or a failure elsewhere).
    async fn gate(&self) -> Option<Pass> {
        let mut paused = self.gates.paused.clone();
        let mut cancel = self.gates.cancel.clone();
        loop {
            if *cancel.borrow() != CancelLevel::Running
                || (*self.gates.halt.borrow() && !self.gates.continue_on_error)
            {
                return None;
            }
            if !*paused.borrow() {
                return Some(Pass::Open);
            }
            tokio::select! {
                _ = paused.changed() => {}
                _ = cancel.changed() => {}
                Ok(permit) = self.gates.steps.acquire() => {
                    permit.forget();
                    return Some(Pass::Stepped);
                }
            }
        }
    }

    /// Pauses the run before `step` when a breakpoint names it.
    fn breakpoint(&self, step: &Step) {
        if self.gates.breakpoints.is_empty() || !self.gates.breakpoints.matches(step.urn()) {
            return;
        }
        self.events.send(EngineEvent::Breakpoint {
            op: step.op(),
            urn: step.urn().clone(),
        });
        if !self.gates.pause_switch.send_replace(true) {
            self.events.send(EngineEvent::Paused);
        }
    }

    /// Waits while paused (a cancel ends the wait: the caller's own gates decide then). A
    /// step the operator lets through lets the diffs before it run too: the permit is only
    /// looked at here, and left for that step.
    async fn unpaused(&self) {
        let mut paused = self.gates.paused.clone();
        let mut cancel = self.gates.cancel.clone();
        while *paused.borrow() && *cancel.borrow() == CancelLevel::Running {
            tokio::select! {
                _ = paused.changed() => {}
                _ = cancel.changed() => {}
                Ok(_permit) = self.gates.steps.acquire() => return,
            }
        }
    }

    /// Queues a chain; it starts when a worker is free.
    pub(in crate::engine) fn submit(&self, tasks: &mut JoinSet<()>, chain: Chain) {
        self.events.send(EngineEvent::ChainQueued {
            chain: chain.id,
            steps: chain
                .steps
                .iter()
                .map(|s| (s.op(), s.urn().clone()))
                .collect(),
        });
        let this = self.clone();
        spawn_unless_ready(tasks, async move {
            let done = this.run_chain(chain).await;
            let _ = this.done.send(done);
        });
    }

    /// Runs a diff on a worker (parallel diff); generation continues when it reports back.
    pub(in crate::engine) fn submit_diff(
        &self,
        tasks: &mut JoinSet<()>,
        ctx: Box<DiffContext>,
        job: DiffJob,
        reply: RegisterReply,
    ) {
        self.events.send(EngineEvent::DiffQueued {
            urn: job.urn.clone(),
        });
        let this = self.clone();
        spawn_unless_ready(tasks, async move {
            // A diff is a provider call too: none starts while paused.
            this.unpaused().await;
            let worker = this.worker().await;
            let urn = job.urn.clone();
            this.events.send(EngineEvent::DiffStarted {
                urn: urn.clone(),
                worker: worker.id,
            });
            let result = job.run().await;
            drop(worker);
            if let Ok(d) = &result {
                this.events.send(EngineEvent::DiffFinished {
                    urn,
                    changes: d.changes,
                    replace: d.replaces(),
                });
            }
            let _ = this.done.send(ExecDone::Diff { ctx, reply, result });
        });
    }

    async fn run_chain(&self, chain: Chain) -> ExecDone {
        if let Some(first) = chain.steps.first() {
            self.breakpoint(first);
        }
        let Some((worker, pass)) = self.take_worker().await else {
            return self.finish(chain, ChainRun::not_started());
        };
        self.events.send(EngineEvent::ChainStarted {
            chain: chain.id,
            worker: worker.id,
        });
        let ran = self.run_steps(&chain, worker.id, pass).await;
        drop(worker);
        self.finish(chain, ran)
    }

    /// Waits at the gates for a worker. Paused chains wait before taking one (and give back one
    /// taken as the pause began), so the pool shows only what really runs. `None` when the
    /// chain must not start. A step the operator let through keeps its worker.
    async fn take_worker(&self) -> Option<(Worker, Pass)> {
        loop {
            let pass = self.gate().await?;
            let worker = self.worker().await;
            if pass == Pass::Stepped || !*self.gates.paused.borrow() {
                return Some((worker, pass));
            }
        }
    }

    /// Runs the steps one after another, each held at the gates (the first already passed
    /// them as `first`), reporting each to the loop; stops at the first failure.
    async fn run_steps(&self, chain: &Chain, worker: WorkerId, first: Pass) -> ChainRun {
        let id = chain.id;
        let mut ran = ChainRun {
            completed: true,
            ..ChainRun::not_started()
        };
        for (i, step) in chain.steps.iter().enumerate() {
            if i > 0 {
                self.breakpoint(step);
            }
            let passed = if i == 0 && first == Pass::Stepped {
                Some(first)
            } else {
                self.gate().await
            };
            if passed.is_none() {
                ran.completed = false;
                break;
            }
            self.events.send(EngineEvent::StepStarted {
                chain: id,
                op: step.op(),
                urn: step.urn().clone(),
                worker,
            });
            let started = Instant::now();
            let target_deleted = chain.target_deleted.contains(step.urn());
            let Applied { result, effect } = self.ctx.apply(step, target_deleted).await;
            // A step whose after-hook failed is done all the same: its state answers the
            // registration and the chain goes on; the loop fails the run at its end.
            let done = match result {
                Ok(state) => Ok((state, Ok(()))),
                Err(StepError::AfterHook { urn, source, state }) => Ok((
                    state.map(|s| *s),
                    Err(StepError::AfterHook {
                        urn,
                        source,
                        state: None,
                    }),
                )),
                Err(e) => Err(e),
            };
            let mut report = StepReport {
                op: step.op(),
                urn: step.urn().clone(),
                result: Ok(()),
                effect,
            };
            match done {
                Ok((state, late)) => {
                    if let Err(e) = &late {
                        self.events.diag(
                            Some(step.urn().clone()),
                            crate::engine::run::events::Severity::Error,
                            e.to_string(),
                        );
                    }
                    report.result = late.map_err(Arc::new);
                    let _ = self.done.send(ExecDone::Step(Box::new(report)));
                    self.events.send(EngineEvent::StepFinished {
                        chain: id,
                        op: step.op(),
                        urn: step.urn().clone(),
                        id: state.as_ref().and_then(|s| s.id.clone()),
                        outputs: state
                            .as_ref()
                            .map(|s| s.outputs.clone())
                            .unwrap_or_default(),
                        duration: started.elapsed(),
                    });
                    if state.is_some() {
                        ran.last = state;
                    }
                }
                Err(error) => {
                    let message = error.to_string();
                    self.events.send(EngineEvent::StepFailed {
                        chain: id,
                        op: step.op(),
                        urn: step.urn().clone(),
                        error: message.clone(),
                        duration: started.elapsed(),
                    });
                    self.events.diag(
                        Some(step.urn().clone()),
                        crate::engine::run::events::Severity::Error,
                        message.clone(),
                    );
                    // Other chains stop at their next gate (a refused protected delete stops
                    // nothing: every one is reported in one run).
                    if !matches!(error, StepError::Protected { .. }) {
                        self.gates.halt.send_replace(true);
                    }
                    let error = Arc::new(error);
                    report.result = Err(error.clone());
                    let _ = self.done.send(ExecDone::Step(Box::new(report)));
                    // A chain fails its registration too (a DBR chain whose dependent's delete
                    // failed): what depends on that resource is skipped under continue-on-error.
                    ran.failed = chain
                        .steps
                        .last()
                        .filter(|l| l.urn() != step.urn())
                        .map(|l| l.urn().clone());
                    ran.outcome = Err(error);
                    break;
                }
            }
        }
        ran
    }

    /// Ends a chain: an import that succeeded continues generation; otherwise the loop answers
    /// the registration.
    fn finish(&self, chain: Chain, ran: ChainRun) -> ExecDone {
        let Chain {
            id,
            steps,
            reply,
            after_import,
            ..
        } = chain;
        let ok = ran.completed && ran.outcome.is_ok();
        let (reply, last) = match (ok, after_import, reply, ran.last) {
            (true, Some(goal), Some(reply), Some(state)) => {
                self.events
                    .send(EngineEvent::ChainFinished { chain: id, ok });
                return ExecDone::Imported {
                    goal,
                    state: Box::new(state),
                    reply,
                };
            }
            (_, _, reply, last) => (reply, last),
        };
        let reply = reply.map(|reply| {
            let urn = steps.last().map(|s| s.urn().clone()).unwrap_or_default();
            (
                reply,
                self.answer(urn, &steps, last, ran.outcome, ran.completed),
            )
        });
        self.events
            .send(EngineEvent::ChainFinished { chain: id, ok });
        ExecDone::Chain {
            reply,
            failed: ran.failed,
        }
    }

    fn answer(
        &self,
        urn: Urn,
        steps: &[Step],
        last: Option<ResourceState>,
        outcome: Result<(), Arc<StepError>>,
        completed: bool,
    ) -> Result<Registered, RegisterError> {
        match outcome {
            Err(_) if self.gates.continue_on_error => Ok(Registered {
                urn,
                id: None,
                outputs: Default::default(),
                status: RegisterStatus::Failed,
                unknown: true,
            }),
            Err(e) => Err(RegisterError::Step(e)),
            // Stopped at a gate: by the operator's cancel, or by a failure elsewhere.
            Ok(()) if !completed && *self.gates.cancel.borrow() == CancelLevel::Running => {
                Err(RegisterError::NotRun)
            }
            Ok(()) if !completed => Err(RegisterError::Cancelled),
            Ok(()) => {
                let skipped = steps
                    .iter()
                    .any(|s| matches!(s, Step::SkippedCreate { .. }));
                let state = last.unwrap_or_default();
                Ok(Registered {
                    urn,
                    id: state.id.clone(),
                    outputs: state.outputs,
                    status: RegisterStatus::Success,
                    unknown: skipped,
                })
            }
        }
    }
}

/// Runs work that needs nothing to wait for (a provider without latency, a `same` step) on the
/// caller's task: polled once, it is done, and no task is spawned or woken for it. Work that
/// must wait (a provider call in flight, a journal sync, a gate) goes on as a task from there.
fn spawn_unless_ready(
    tasks: &mut JoinSet<()>,
    work: impl std::future::Future<Output = ()> + Send + 'static,
) {
    let mut work = Box::pin(work);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    if work.as_mut().poll(&mut cx).is_pending() {
        tasks.spawn(work);
    }
}
