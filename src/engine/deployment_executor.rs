//! The deployment loop (Pulumi's deployment executor): feeds registrations to the step
//! generator, hands chains to the executor, holds chains at their gates (DBR cascades, steps under an `ask` policy), then runs the
//! deletes, and reports how it all ended.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinSet;

use super::hooks::{Hooks, delete_hooks_need_program};
use super::journal::{JournalError, NullJournal, SnapshotManager, SuccessEntry};
use super::model::property::PropertyMap;
use super::model::resource::PendingOperation;
use super::model::snapshot::Snapshot;
use super::model::targets::UrnGlobs;
use super::model::urn::{ROOT_STACK_TYPE, Urn};
use super::program::source::{
    DeploymentInfo, Program, ProgramError, RegisterError, RegisterStatus, Registered,
    ResourceMonitor, SourceEvent,
};
use super::provider::registry::ProviderRegistry;
use super::run::approval::ApprovalKind;
use super::run::control::{
    ApprovalPolicy, CancelLevel, ControlReceiver, Decision, DecisionScope, local_operator,
};
use super::run::deployment::{Deployment, DeploymentResult, Options};
use super::run::events::{
    ChainId, Decider, EngineEvent, EventSink, Operation, Outcome, Severity, StepInfo,
};
use super::step::{Step, StepOp};
use super::step_error::StepError;
use super::steps::apply::{ApplyCtx, Effect};
use super::steps::component_hooks::ComponentHooks;
use super::steps::deletes::{generate_deletes, schedule_deletes};
use super::steps::drift::refresh_result;
use super::steps::executor::{Chain, ExecDone, Gates, RegisterReply, StepExecutor, StepReport};
use super::steps::gate::Gate;
use super::steps::generator::{Generated, PlannedChain, StepGenerator};
use super::steps::pending_creates;
use super::steps::policy::Policies;
use super::steps::run_error::RunError;
use super::steps::run_state::RunState;
use super::steps::stack_resources::StackResources;

/// A chain held at its gate until someone decides.
struct Parked {
    chain: Chain,
    gate: Gate,
}

/// Why the loop stopped early.
enum Stop {
    Terminated,
}

struct Loop {
    opts: Arc<Options>,
    events: EventSink,
    /// What the run learned so far; only the loop writes it.
    state: RunState,
    ctx: Arc<ApplyCtx>,
    sg: StepGenerator,
    executor: StepExecutor,
    tasks: JoinSet<()>,
    done: mpsc::UnboundedReceiver<ExecDone>,
    /// Where tasks of the loop's own (component after-hooks) report back.
    done_tx: mpsc::UnboundedSender<ExecDone>,
    /// Components whose after-hooks wait for their outputs.
    component_hooks: ComponentHooks,
    control: ControlReceiver,
    inflight: usize,
    next_chain: ChainId,
    parked: BTreeMap<u64, Parked>,
    declined: usize,
    cancelled: bool,
    stack_outputs: PropertyMap,
    /// The root stack whose registered outputs wait for the run's result to be written.
    stack_outputs_urn: Option<Urn>,
    /// The base's pending operations (journal entries name them by position).
    base_pending: Vec<PendingOperation>,
    /// A program waiting in SignalAndWaitForShutdown, released when the run is over.
    shutdown: Option<oneshot::Sender<Result<(), RegisterError>>>,
    /// The policy packs the run consults.
    policies: Arc<Policies>,
    /// What the stack's policies analyze at the end (kept only when packs are loaded).
    stack_resources: Option<StackResources>,
}

fn step_info(step: &Step, chain: Option<ChainId>) -> StepInfo {
    let state = step.state();
    let old = step.old_state();
    let changes = step.changes();
    // An import shows the ID it adopts where a replacement shows its keys.
    let replace_keys = match step {
        Step::Import { id, .. } | Step::ImportReplacement { id, .. } => vec![id.clone()],
        _ => changes.map(|c| c.replace_keys.clone()).unwrap_or_default(),
    };
    StepInfo {
        op: step.op(),
        urn: step.urn().clone(),
        type_: state.type_.clone(),
        parent: state.parent.clone(),
        custom: state.custom,
        chain,
        diffs: changes.map(|c| c.diffs.clone()).unwrap_or_default(),
        replace_keys,
        detailed_diff: changes.map(|c| c.detailed_diff.clone()).unwrap_or_default(),
        old_inputs: old.map(|o| o.inputs.clone()),
        old_outputs: old.map(|o| o.outputs.clone()),
        old_id: old.and_then(|o| o.id.clone()),
        new_inputs: step.new_state().map(|n| n.inputs.clone()),
        provider: state.provider.clone(),
        delete_before_replace: step.delete_before_replace(),
        dependencies: state.distinct_dependency_urns(),
        protect: state.protect,
        retain_on_delete: state.retain_on_delete,
        hide_diffs: state.hide_diffs.clone(),
    }
}

/// The warning Pulumi prints before a run over a state with pending operations: each one
/// listed, and how to resolve them.
fn pending_operations_warning(pending: &[PendingOperation]) -> String {
    let mut msg = format!(
        "Attempting to deploy or update resources with {} pending operations from a previous deployment.\n",
        pending.len()
    );
    for p in pending {
        msg.push_str(&format!(
            "  * {}, interrupted while {}\n",
            p.resource.urn,
            p.kind.as_str()
        ));
    }
    msg.push_str(
        "These resources are in an unknown state: the previous run stopped while waiting for these \
         operations to complete. Check with the provider whether they completed, then run \
         `stepdeck refresh` to read their real state and clear the pending operations \
         (refresh records what a pending create made when the provider can find it; \
         `--clear-pending-creates` drops the others).",
    );
    msg
}

impl Deployment {
    /// Runs the deployment to the end (or until terminated) and returns the new state.
    ///
    /// The run is a task of the runtime's worker pool, not of the caller's thread: its loop
    /// and its steps then wake each other on the same workers instead of switching threads
    /// each time (a `block_on` caller is a thread of its own). Dropping the future aborts it.
    pub async fn run(self, program: Option<Box<dyn Program>>) -> DeploymentResult {
        let mut task = AbortOnDrop(tokio::spawn(self.run_here(program)));
        match (&mut task.0).await {
            Ok(result) => result,
            Err(e) => std::panic::resume_unwind(e.into_panic()),
        }
    }

    async fn run_here(self, program: Option<Box<dyn Program>>) -> DeploymentResult {
        let started = Instant::now();
        let (mut lp, base) = self.start();
        let outcome = lp.drive(program).await;
        if matches!(outcome, Outcome::Cancelled | Outcome::Terminated) {
            lp.ctx.registry.cancel_all().await;
        }
        lp.policies.cancel().await;
        lp.result(outcome, base, started.elapsed())
    }

    /// Announces the run and sets up its loop (registry, journal, executor, generator).
    /// Returns the loop and the base, whole in a preview (which returns it), without its
    /// resources in an update (the journal's replayer shares them).
    fn start(self) -> (Loop, Snapshot) {
        let Deployment {
            options,
            mut base,
            factory,
            journal,
            events,
            control: _,
            control_rx,
            clock,
            analyzers,
        } = self;
        let opts = Arc::new(options);
        let preview = opts.is_preview();
        announce(&opts, &events, &base);
        let registry = Arc::new(ProviderRegistry::new(factory, &base.resources));
        let journal = if preview {
            Box::new(NullJournal)
        } else {
            journal
        };
        // An update shares the base states between the generator and the journal's replayer;
        // a preview keeps the base whole to return it.
        let base_states = if preview {
            super::model::snapshot::share_states(base.resources.clone())
        } else {
            super::model::snapshot::share_states(std::mem::take(&mut base.resources))
        };
        let manager = Arc::new(SnapshotManager::shared(
            base_states.clone(),
            base.pending_operations.clone(),
            journal,
        ));
        let (halt, _) = tokio::sync::watch::channel(false);
        let ctx = Arc::new(ApplyCtx {
            registry: registry.clone(),
            manager: manager.clone(),
            clock,
            preview,
            ignore_protect: opts.ignore_protect,
            hooks: Arc::new(Hooks::new(events.clone())),
        });
        let (done_tx, done) = mpsc::unbounded_channel();
        let executor = StepExecutor::new(
            ctx.clone(),
            events.clone(),
            opts.parallel,
            Gates {
                paused: control_rx.paused.clone(),
                pause_switch: control_rx.pause_switch.clone(),
                steps: control_rx.steps.clone(),
                // A preview runs no provider operation: there is nothing to pause before.
                breakpoints: Arc::new(if opts.dry_run {
                    UrnGlobs::default()
                } else {
                    UrnGlobs::new(&opts.pause_before)
                }),
                cancel: control_rx.cancel.clone(),
                halt: halt.clone(),
                continue_on_error: opts.continue_on_error,
            },
            done_tx.clone(),
        );
        let policies = Arc::new(Policies::new(analyzers, opts.operation, events.clone()));
        let sg = StepGenerator::new(
            opts.clone(),
            registry.clone(),
            events.clone(),
            base_states,
            policies.clone(),
        );
        let lp = Loop {
            opts: opts.clone(),
            events: events.clone(),
            state: RunState::new(halt),
            ctx,
            sg,
            executor,
            tasks: JoinSet::new(),
            done,
            done_tx,
            component_hooks: ComponentHooks::default(),
            control: control_rx,
            inflight: 0,
            next_chain: 1,
            parked: BTreeMap::new(),
            declined: 0,
            cancelled: false,
            stack_outputs: PropertyMap::new(),
            stack_outputs_urn: None,
            base_pending: base.pending_operations.clone(),
            shutdown: None,
            stack_resources: (!policies.is_empty()).then(StackResources::default),
            policies,
        };
        (lp, base)
    }
}

/// The run's first events: the prelude, pending creates and the warning about pending
/// operations; the configuration's secrets join the mask first.
fn announce(opts: &Options, events: &EventSink, base: &Snapshot) {
    let preview = opts.is_preview();
    for key in &opts.secret_keys {
        if let Some(value) = opts.config.get(key) {
            events.secrets().add_text(value);
        }
    }
    events.send(EngineEvent::Prelude {
        operation: opts.operation,
        preview,
        stack: opts.stack.clone(),
        project: opts.project.clone(),
        parallel: opts.parallel.max(1),
        parallel_diff: opts.parallel_diff,
    });
    pending_creates::announce(&base.pending_operations, events);
    if !preview && !base.pending_operations.is_empty() {
        events.diag(
            None,
            Severity::Warning,
            pending_operations_warning(&base.pending_operations),
        );
    }
}

impl Loop {
    /// Runs the program and the deletes, and says how the run ended.
    async fn drive(&mut self, program: Option<Box<dyn Program>>) -> Outcome {
        let info = Arc::new(DeploymentInfo {
            stack: self.opts.stack.clone(),
            project: self.opts.project.clone(),
            dry_run: self.opts.is_preview(),
            parallel: self.opts.parallel,
            config: self.opts.config.clone(),
            secret_keys: self.opts.secret_keys.clone(),
        });
        match self.run(program, info, self.ctx.registry.clone()).await {
            Err(Stop::Terminated) => {
                self.ctx.manager.close();
                self.tasks.abort_all();
                // Steps that ended before the terminate still count.
                while let Ok(d) = self.done.try_recv() {
                    if let ExecDone::Step(report) = d {
                        self.record(*report);
                    }
                }
                Outcome::Terminated
            }
            Ok(program_error) => {
                if program_error.is_none() && !self.cancelled && !self.state.saw_error() {
                    self.analyze_stack().await;
                }
                let kind = if self.opts.is_preview() {
                    "preview"
                } else {
                    "update"
                };
                if self.state.policy_failed() {
                    self.events
                        .diag(None, Severity::Error, format!("{kind} failed"));
                }
                // As Pulumi's executor reports a cancellation, on the stack.
                if self.cancelled {
                    self.events
                        .diag(None, Severity::Error, format!("{kind} canceled"));
                }
                let failed = self.cancelled || program_error.is_some() || self.state.has_error();
                let program_error = match self.finalize_stack_outputs(failed) {
                    Ok(()) => program_error,
                    Err(e) => program_error.or(Some(RunError::StackOutputs(e))),
                };
                let first_error = self.state.take_first_error();
                if self.cancelled {
                    Outcome::Cancelled
                } else if let Some(e) = program_error.or(first_error) {
                    Outcome::Failed(e.failure(self.events.secrets()))
                } else {
                    Outcome::Succeeded
                }
            }
        }
    }

    /// Sends the summary and builds the result: the journal's snapshot (the base, in a
    /// preview), the root stack's outputs, the outcome masked.
    fn result(mut self, outcome: Outcome, base: Snapshot, duration: Duration) -> DeploymentResult {
        let preview = self.opts.is_preview();
        let counts = self.state.counts().clone();
        self.events.send(EngineEvent::Summary {
            counts: counts.clone(),
            declined: self.declined,
            duration,
            outcome: outcome.clone(),
            preview,
            policy_packs: self.policies.packs(),
        });
        // The generator's hold on the base goes first, so that unchanged states move into
        // the snapshot instead of being copied.
        let plan = self.sg.take_plan();
        drop(self.sg);
        let snapshot = if preview {
            base
        } else {
            self.ctx.manager.take_snapshot()
        };
        let outputs = if preview {
            self.stack_outputs
        } else {
            snapshot.stack_outputs()
        };
        DeploymentResult {
            outcome,
            snapshot,
            counts,
            declined: self.declined,
            duration,
            outputs,
            plan,
        }
    }

    /// Runs the program phase and then the deletes; returns the program's error, if any.
    async fn run(
        &mut self,
        program: Option<Box<dyn Program>>,
        info: Arc<DeploymentInfo>,
        registry: Arc<ProviderRegistry>,
    ) -> Result<Option<RunError>, Stop> {
        if self.opts.operation == Operation::Destroy
            && program.is_none()
            && let Some(e) = delete_hooks_need_program(self.sg.base())
        {
            self.fail_run(e.into());
            return Ok(None);
        }
        if self.opts.clear_pending_creates && !self.ctx.preview {
            let cleared = pending_creates::clear(&self.ctx, &self.base_pending, &self.events);
            if let Err(e) = cleared {
                self.fail_run(e.into());
                return Ok(None);
            }
        }
        if self.opts.refresh
            && matches!(
                self.opts.operation,
                Operation::Update | Operation::Preview | Operation::Destroy
            )
        {
            // `up --refresh` (and `destroy --refresh`): read everything back first; the
            // update (or the destroy) plans against that.
            let steps = self.refresh_steps();
            self.run_antichain(steps).await?;
            if self.cancelled || self.state.saw_error() {
                return Ok(None);
            }
            self.sg.rebase(self.state.take_refreshed());
        }
        if !self.check_targets(&self.opts.replace.clone()) {
            return Ok(None);
        }
        let (src_tx, mut src) = mpsc::unbounded_channel();
        let monitor = ResourceMonitor::new(src_tx, info, registry, self.events.clone())
            .with_hooks(self.ctx.hooks.clone());
        let mut program_task = program.map(|p| tokio::spawn(p.run(monitor)));
        let mut program_error = None;
        let mut cancel = self.control.cancel.clone();
        loop {
            // After a failure nothing new runs: a cascade still waiting for the operator would
            // only hold the run open, so it is dropped (its registration fails, not cancelled).
            if !self.parked.is_empty() && self.state.saw_error() && !self.opts.continue_on_error {
                self.drop_parked(RegisterError::NotRun);
            }
            let program_done = program_task.is_none() || self.shutdown.is_some();
            if program_done && self.inflight == 0 && self.parked.is_empty() && src.is_empty() {
                break;
            }
            tokio::select! {
                Some(ev) = src.recv() => self.on_source(ev).await,
                Some(d) = self.done.recv() => self.on_done(d).await,
                Some(d) = self.control.decisions.recv() => self.on_decision(d),
                r = async { program_task.as_mut().expect("guarded").await }, if !program_done => {
                    program_task = None;
                    program_error = self.program_ended(r);
                }
                Ok(()) = cancel.changed() => {
                    match *cancel.borrow() {
                        CancelLevel::Terminating => return Err(Stop::Terminated),
                        CancelLevel::Cancelling => {
                            self.cancelled = true;
                            if let Some(t) = program_task.take() {
                                t.abort();
                            }
                            self.drop_parked(RegisterError::Cancelled);
                        }
                        CancelLevel::Running => {}
                    }
                }
                Some(_) = self.tasks.join_next(), if !self.tasks.is_empty() => {}
            }
        }
        let finished = self.after_program(program_error).await;
        // A program that signalled shutdown waited for the deletes (its hooks); now it may
        // exit, and how it exits still counts.
        self.shutdown.take();
        match (finished, program_task) {
            (Ok(None), Some(task)) => Ok(self.program_ended(task.await)),
            (finished, _) => finished,
        }
    }

    /// How a finished program task ended, reported as an error diagnostic when it failed.
    fn program_ended(
        &self,
        r: Result<Result<(), ProgramError>, tokio::task::JoinError>,
    ) -> Option<RunError> {
        let error = match r {
            Ok(Ok(())) => None,
            Ok(Err(e)) => Some(RunError::from(e)),
            Err(e) => Some(RunError::from(e)),
        };
        if let Some(e) = &error {
            self.events.diag(None, Severity::Error, e.to_string());
        }
        error
    }

    /// The phases after the program's registrations: the deletes (or the refresh).
    async fn after_program(
        &mut self,
        program_error: Option<RunError>,
    ) -> Result<Option<RunError>, Stop> {
        if self.cancelled
            || program_error.is_some()
            || (self.state.saw_error() && !self.opts.continue_on_error)
        {
            return Ok(program_error);
        }
        // Unknown targets fail the run, after the deletes (as Pulumi's executor does): the
        // error is recorded now and ends the run once the deletes ran.
        self.check_targets(&self.opts.targets.clone());
        if self.opts.operation == Operation::Refresh {
            let steps = self.refresh_steps();
            self.run_antichain(steps).await?;
            self.resolve_pending_creates().await;
        } else {
            self.run_deletes().await?;
        }
        Ok(program_error)
    }

    /// Has the packs analyze the stack the run leaves (Pulumi's `AnalyzeResources`): a
    /// mandatory violation fails the run at its end, what was done stays done.
    async fn analyze_stack(&mut self) {
        let Some(news) = &mut self.stack_resources else {
            return;
        };
        if let Some(urn) = &self.stack_outputs_urn {
            news.outputs(urn, &self.stack_outputs);
        }
        let resources = news.for_analysis(|s| self.sg.provider_resource(s));
        let root = Urn::new(
            &self.opts.stack,
            &self.opts.project,
            None,
            ROOT_STACK_TYPE,
            &format!("{}-{}", self.opts.project, self.opts.stack),
        );
        match self.policies.stack(&resources, &root).await {
            Ok(false) => {}
            Ok(true) => {
                let kind = if self.opts.is_preview() {
                    "preview"
                } else {
                    "update"
                };
                self.state.fail_policy_at_end(kind);
            }
            Err(e) => self.fail_run(RunError::Policy(e)),
        }
    }

    /// Writes and shows the root stack's outputs once the run's result is known (Pulumi's
    /// finalization of stack outputs): after a failure the previous outputs stay, and those
    /// the program did register replace theirs, since an output missing then may just not have
    /// been reached.
    fn finalize_stack_outputs(&mut self, failed: bool) -> Result<(), JournalError> {
        let Some(urn) = self.stack_outputs_urn.clone() else {
            return Ok(());
        };
        if failed {
            let mut merged = self
                .sg
                .base()
                .iter()
                .find(|r| r.urn == urn && !r.delete)
                .map(|r| r.outputs.clone())
                .unwrap_or_default();
            merged.extend(std::mem::take(&mut self.stack_outputs));
            self.stack_outputs = merged;
        }
        self.events.send(EngineEvent::ResourceOutputs {
            urn: urn.clone(),
            outputs: self.stack_outputs.clone(),
        });
        if self.opts.is_preview() {
            return Ok(());
        }
        self.ctx.manager.outputs(&urn, &self.stack_outputs)
    }

    /// After a refresh: resolves the base's pending creates (unless they were just cleared).
    async fn resolve_pending_creates(&mut self) {
        if self.ctx.preview || self.cancelled || self.opts.clear_pending_creates {
            return;
        }
        let gone: HashSet<usize> = self
            .state
            .take_refreshed()
            .into_iter()
            .filter(|(_, s)| s.is_none())
            .map(|(i, _)| i)
            .collect();
        let resolved = pending_creates::resolve(
            &self.ctx,
            self.sg.base(),
            &gone,
            &self.base_pending,
            &self.events,
        )
        .await;
        if let Err(e) = resolved {
            self.fail_run(e.into());
        }
    }

    /// Fails the run with an error no step owns.
    fn fail_run(&mut self, error: RunError) {
        self.events.diag(None, Severity::Error, error.to_string());
        self.state.fail(error);
    }

    /// Reports every literal target that names nothing in the stack (Pulumi's
    /// `checkTargets`); false when there was one.
    fn check_targets(&mut self, globs: &[String]) -> bool {
        let unknown = self.sg.unknown_targets(globs);
        for t in &unknown {
            let hint = if t.contains('$') {
                ""
            } else {
                " Did your shell swallow a `$` in it?"
            };
            self.events.diag(
                None,
                Severity::Error,
                format!("target '{t}' could not be found in the stack.{hint}"),
            );
        }
        if unknown.is_empty() {
            return true;
        }
        self.state.record_error(RunError::UnknownTargets(unknown));
        false
    }

    /// Base positions an exclusion keeps from being deleted (Pulumi's
    /// `determineForbiddenResourcesToDeleteFromExcludes`): excluded resources, with
    /// `exclude_dependents` whatever depends on them, and everything those depend on.
    fn forbidden_deletes(&self) -> HashSet<usize> {
        let base = self.sg.base();
        let graph = self.sg.graph();
        let excludes = super::model::targets::UrnGlobs::new(&self.opts.excludes);
        let mut seen: HashSet<usize> = base
            .iter()
            .enumerate()
            .filter(|(_, r)| {
                excludes.matches(&r.urn) || self.sg.targeting().excluded().contains(&r.urn)
            })
            .map(|(i, _)| i)
            .collect();
        if self.opts.exclude_dependents {
            let mut stack: Vec<usize> = seen.iter().copied().collect();
            while let Some(i) = stack.pop() {
                for d in graph.dependents_of(i) {
                    if seen.insert(d) {
                        stack.push(d);
                    }
                }
            }
        }
        let mut stack: Vec<usize> = seen.iter().copied().collect();
        while let Some(i) = stack.pop() {
            for &d in graph.dependencies_of(i) {
                if seen.insert(d) {
                    stack.push(d);
                }
            }
        }
        seen
    }

    async fn on_source(&mut self, ev: SourceEvent) {
        match ev {
            SourceEvent::Register { goal, reply } => {
                if self.cancelled {
                    let _ = reply.send(Err(RegisterError::Cancelled));
                    return;
                }
                match self.sg.generate(*goal, &mut self.state).await {
                    Ok(Generated::Chain(pc)) => self.schedule(pc, Some(reply)),
                    Ok(Generated::Import(pc, goal)) => {
                        self.schedule_chain(pc, Some(reply), Some(goal));
                    }
                    Ok(Generated::Diff(pd)) => {
                        let pd = *pd;
                        self.inflight += 1;
                        self.executor
                            .submit_diff(&mut self.tasks, Box::new(pd.ctx), pd.run, reply);
                    }
                    Ok(Generated::Done(reg)) => {
                        let _ = reply.send(Ok(reg));
                    }
                    Err(e) => self.refuse(reply, e),
                }
            }
            SourceEvent::RegisterOutputs {
                urn,
                outputs,
                reply,
            } => {
                if urn.type_() == ROOT_STACK_TYPE {
                    // Written and shown once the run's result is known.
                    self.stack_outputs = outputs;
                    self.stack_outputs_urn = Some(urn);
                    let _ = reply.send(Ok(()));
                    return;
                }
                if let Err(v) = self.sg.plan_outputs(&urn, &outputs) {
                    let e = RegisterError::Plan(v);
                    self.fail_run(e.clone().into());
                    let _ = reply.send(Err(e));
                    return;
                }
                let written = if self.opts.is_preview() {
                    Ok(())
                } else {
                    self.ctx.manager.outputs(&urn, &outputs)
                };
                let written = written.map_err(RegisterError::from);
                if let Some(news) = &mut self.stack_resources {
                    news.outputs(&urn, &outputs);
                }
                let hooks = self.component_hooks.outputs_arrived(
                    &urn,
                    &outputs,
                    self.ctx.hooks.clone(),
                    self.opts.is_preview(),
                );
                self.events.send(EngineEvent::ResourceOutputs {
                    urn: urn.clone(),
                    outputs,
                });
                let Some(hooks) = hooks else {
                    let _ = reply.send(written);
                    return;
                };
                let hooked = urn.clone();
                self.inflight += 1;
                let done = self.done_tx.clone();
                self.tasks.spawn(async move {
                    let result = hooks.await;
                    let _ = done.send(ExecDone::ComponentHooks {
                        urn: hooked,
                        reply,
                        written,
                        result,
                    });
                });
            }
            SourceEvent::Shutdown { reply } => self.shutdown = Some(reply),
            SourceEvent::Read { goal, reply } => {
                if self.cancelled {
                    let _ = reply.send(Err(RegisterError::Cancelled));
                    return;
                }
                match self.sg.generate_read(goal) {
                    Ok(pc) => self.schedule(pc, Some(reply)),
                    Err(e) => self.refuse(reply, e),
                }
            }
        }
    }

    fn refuse(&mut self, reply: RegisterReply, e: RegisterError) {
        self.state.fail(e.clone().into());
        // A resource a mandatory policy stops says why in its violations only (Pulumi's
        // silent bail); a plan's refusal names its resource, so a display marks that row.
        let urn = match &e {
            RegisterError::PolicyViolated(_) => None,
            RegisterError::Plan(v) => Some(Some(v.urn.clone())),
            _ => Some(None),
        };
        if let Some(urn) = urn {
            self.events.diag(urn, Severity::Error, e.to_string());
        }
        let _ = reply.send(Err(e));
    }

    /// Records what a step did: counts, old copies, refresh results, failures.
    fn record(&mut self, report: StepReport) {
        let StepReport {
            op,
            urn,
            result,
            effect,
        } = report;
        // A standalone refresh counts what it found (Pulumi's `ResultOp`): same, update or
        // delete; a refresh before an update counts nothing.
        let refreshed = match &effect {
            Some(Effect::Refreshed(i, found)) if self.opts.operation == Operation::Refresh => self
                .sg
                .base()
                .get(*i)
                .map(|old| refresh_result(&old.outputs, found.as_ref().map(|s| &s.outputs)).0),
            _ => None,
        };
        match result {
            Ok(()) => {
                if let Some(op) = refreshed.or_else(|| op.is_logical().then_some(op)) {
                    self.state.count(op, &urn);
                }
            }
            Err(e) if matches!(*e, StepError::Protected { .. }) => {
                self.component_hooks.forget(&urn);
                self.state.mark_refused(&urn, e.into());
            }
            // The step is done; its after-hook's failure fails the run at the end.
            Err(e) if matches!(*e, StepError::AfterHook { .. }) => {
                if op.is_logical() {
                    self.state.count(op, &urn);
                }
                self.state.record_error(e.into());
            }
            Err(e) => {
                self.component_hooks.forget(&urn);
                self.state.mark_failed(&urn);
                self.state.record_error(e.into());
            }
        }
        match effect {
            Some(Effect::LeftForDelete(i)) => self.sg.deletions_mut().leave_for_delete(i),
            Some(Effect::PendingReplacement(i)) => {
                self.sg.deletions_mut().mark_pending_replacement(i)
            }
            Some(Effect::Refreshed(i, found)) => self.state.record_refresh(i, found.map(|s| *s)),
            None => {}
        }
    }

    /// What a refresh step found, counted as Pulumi's refresh counts it: `delete` for a
    /// resource gone, `update` for changed outputs, else `same`. `None` outside `refresh`.
    async fn on_done(&mut self, d: ExecDone) {
        let d = match d {
            ExecDone::Step(report) => return self.record(*report),
            ExecDone::ComponentHooks {
                urn,
                reply,
                written,
                result,
            } => {
                self.inflight -= 1;
                if let Err(e) = result {
                    self.events.diag(Some(urn), Severity::Error, e.to_string());
                    self.state.record_error(e.into());
                }
                let _ = reply.send(written);
                return;
            }
            ExecDone::Chain { reply, failed } => {
                self.inflight -= 1;
                if let Some(urn) = failed {
                    self.state.mark_failed(&urn);
                }
                if let Some((reply, answer)) = reply {
                    if let (Some(news), Ok(reg)) = (&mut self.stack_resources, &answer) {
                        news.answered(&reg.urn, reg.id.as_deref(), &reg.outputs);
                    }
                    let answer = answer.and_then(|reg| {
                        self.sg.plan_outputs(&reg.urn, &reg.outputs).map_err(|v| {
                            let e = RegisterError::Plan(v);
                            self.state.fail(e.clone().into());
                            e
                        })?;
                        Ok(reg)
                    });
                    let _ = reply.send(answer);
                }
                return;
            }
            other => other,
        };
        self.inflight -= 1;
        if let ExecDone::Imported { goal, state, reply } = d {
            match self.sg.continue_from_import(*goal, *state).await {
                Ok(Generated::Chain(pc)) => self.schedule(pc, Some(reply)),
                Ok(Generated::Done(reg)) => {
                    let _ = reply.send(Ok(reg));
                }
                Ok(_) => unreachable!("an import continues with a chain or nothing"),
                Err(e) => self.refuse(reply, e),
            }
            return;
        }
        if let ExecDone::Diff { ctx, reply, result } = d {
            let planned = match result {
                Ok(diff) => self.sg.continue_from_diff(*ctx, diff).await,
                Err(e) => Err(e),
            };
            match planned {
                Ok(pc) => self.schedule(pc, Some(reply)),
                Err(e) => self.refuse(reply, e),
            }
        }
    }

    fn schedule(&mut self, pc: PlannedChain, reply: Option<RegisterReply>) {
        self.schedule_chain(pc, reply, None);
    }

    fn schedule_chain(
        &mut self,
        pc: PlannedChain,
        reply: Option<RegisterReply>,
        after_import: Option<Box<super::model::goal::Goal>>,
    ) {
        if let Err(v) = self.sg.plan_steps(&pc.steps) {
            let e = RegisterError::Plan(v);
            match reply {
                Some(reply) => self.refuse(reply, e),
                None => self.fail_run(e.into()),
            }
            return;
        }
        let id = self.next_chain;
        self.next_chain += 1;
        for s in &pc.steps {
            self.events
                .send(EngineEvent::StepPlanned(Box::new(step_info(s, Some(id)))));
            self.component_hooks.note(s);
        }
        if let Some(news) = &mut self.stack_resources {
            news.planned(&pc.steps);
        }
        // A DBR chain deletes these old copies now: a deletedWith dependent skips its Delete.
        self.sg.deletions_mut().condemn(
            pc.steps
                .iter()
                .filter(|s| s.op() == StepOp::DeleteReplaced)
                .map(|s| s.urn().clone()),
        );
        let target_deleted = self.sg.deletions().target_deleted(&pc.steps);
        let chain = Chain {
            id,
            steps: pc.steps,
            reply,
            after_import,
            target_deleted,
        };
        let gate = match pc.cascade {
            Some(cascade) => {
                self.events.send(EngineEvent::PendingReplacement {
                    cascade: cascade.id,
                    chain: id,
                    root: cascade.root.clone(),
                    members: cascade.members.clone(),
                });
                Gate::Cascade(cascade)
            }
            None => match Gate::governed(&chain.steps) {
                Some((op, urn, kind)) => Gate::Step {
                    id: self.sg.next_gate(),
                    kind: self.violations_gate(&urn).unwrap_or(kind),
                    op,
                    urn,
                },
                None => return self.submit(chain),
            },
        };
        self.open_gate(chain, gate);
    }

    /// The `violations` kind, when a policy pack reported advisory violations on `urn` and a
    /// rule for that kind says other than `auto`: the step then waits at (or is declined by)
    /// that gate instead of its own kind's.
    fn violations_gate(&self, urn: &Urn) -> Option<ApprovalKind> {
        let kind = ApprovalKind::Violations;
        (self.state.has_violations(urn)
            && self.opts.approvals.policy(kind, urn, false) != ApprovalPolicy::Auto)
            .then_some(kind)
    }

    /// Applies the policy to a chain at its gate: runs it, declines it, or holds it for a
    /// decision (from the decision file at once, or declined when no one can decide).
    fn open_gate(&mut self, chain: Chain, gate: Gate) {
        let cascade = matches!(gate, Gate::Cascade(_));
        let policy = self.opts.approvals.policy(gate.kind(), gate.urn(), cascade);
        let parked = Parked { chain, gate };
        if self.opts.is_preview() {
            // A cascade or step already declined (by its policy, a decision file or the
            // operator's earlier preview) is announced and declined here as the apply will:
            // its dependents then diff against the outputs that stand, or are skipped, so the
            // preview counts what the apply does.
            if let Some(by) = self.declined_in_advance(&parked.gate, policy) {
                self.announce_gate(&parked, policy);
                return self.decline(parked, by);
            }
            self.foretell(&parked, policy);
            return self.submit(parked.chain);
        }
        match policy {
            ApprovalPolicy::Auto if cascade => self.decide(parked, true, Decider::Policy),
            ApprovalPolicy::Auto => self.submit(parked.chain),
            ApprovalPolicy::Decline => {
                self.announce_gate(&parked, policy);
                self.decide(parked, false, Decider::Policy);
            }
            ApprovalPolicy::Ask => {
                self.announce_gate(&parked, policy);
                let written = self.opts.decisions.as_ref().and_then(|d| {
                    d.decide(parked.gate.urn())
                        .map(|approve| (approve, Decider::File(d.source.clone())))
                });
                if let Some((approve, by)) = written {
                    self.decide(parked, approve, by);
                } else if self.opts.unattended {
                    self.events.diag(
                        Some(parked.gate.urn().clone()),
                        Severity::Warning,
                        format!(
                            "{} of {} declined: {}=ask, no decision names it and no one can be asked",
                            parked.gate.op().as_str(),
                            parked.gate.urn(),
                            parked.gate.kind().as_str()
                        ),
                    );
                    self.decide(parked, false, Decider::Policy);
                } else {
                    self.parked.insert(parked.gate.id(), parked);
                }
            }
        }
    }

    /// Who declined a preview's cascade or step before its gate opened, if anyone did: its
    /// policy says `decline`, a decision file declines it under `ask`, or the operator did in
    /// an earlier preview of the same update.
    fn declined_in_advance(&self, gate: &Gate, policy: ApprovalPolicy) -> Option<Decider> {
        let urn = gate.urn();
        match policy {
            ApprovalPolicy::Decline => Some(Decider::Policy),
            ApprovalPolicy::Auto => None,
            ApprovalPolicy::Ask if self.opts.preview_declines.contains(urn) => {
                Some(Decider::Operator(local_operator()))
            }
            ApprovalPolicy::Ask => self.opts.decisions.as_ref().and_then(|d| {
                (d.decide(urn) == Some(false)).then(|| Decider::File(d.source.clone()))
            }),
        }
    }

    /// Tells a preview's displays what the apply will do at this gate: a step a policy holds
    /// or declines is announced as in the apply, and a gate the policy decides (`auto`,
    /// `decline`) carries that decision, so only what the operator must decide reads so.
    fn foretell(&self, p: &Parked, policy: ApprovalPolicy) {
        let cascade = matches!(p.gate, Gate::Cascade(_));
        if policy == ApprovalPolicy::Auto && !cascade {
            return;
        }
        self.announce_gate(p, policy);
        if policy != ApprovalPolicy::Ask {
            self.events.send(EngineEvent::Decision {
                cascade: p.gate.id(),
                op: p.gate.op(),
                urn: p.gate.urn().clone(),
                approved: policy == ApprovalPolicy::Auto,
                by: Decider::Policy,
            });
        }
    }

    /// Tells the displays a step is at its gate under `policy` (a cascade announced itself
    /// when planned).
    fn announce_gate(&self, p: &Parked, policy: ApprovalPolicy) {
        if let Gate::Step { id, op, urn, kind } = &p.gate {
            self.events.send(EngineEvent::GateOpened {
                gate: *id,
                chain: p.chain.id,
                op: *op,
                urn: urn.clone(),
                kind: *kind,
                asked: policy == ApprovalPolicy::Ask,
            });
        }
    }

    /// Runs a chain its gate let through, or declines it; either way the decision is recorded.
    fn decide(&mut self, p: Parked, approve: bool, by: Decider) {
        if !approve {
            return self.decline(p, by);
        }
        self.events.send(EngineEvent::Decision {
            cascade: p.gate.id(),
            op: p.gate.op(),
            urn: p.gate.urn().clone(),
            approved: true,
            by,
        });
        self.submit(p.chain);
    }

    fn submit(&mut self, chain: Chain) {
        self.inflight += 1;
        self.executor.submit(&mut self.tasks, chain);
    }

    fn on_decision(&mut self, d: Decision) {
        let ids: Vec<u64> = match d.scope {
            DecisionScope::One(id) => vec![id],
            DecisionScope::All => self.parked.keys().copied().collect(),
            DecisionScope::Kind(kind) => self
                .parked
                .iter()
                .filter(|(_, p)| p.gate.kind() == kind)
                .map(|(id, _)| *id)
                .collect(),
        };
        for id in ids {
            if let Some(p) = self.parked.remove(&id) {
                self.decide(p, d.approve, d.by.clone());
            }
        }
    }

    /// Leaves a declined chain's resources as they are and skips what depends on them: a
    /// cascade's root is kept like an untargeted resource and its registration gets the old
    /// outputs; a declined step's resource keeps its old state (a create makes nothing) and
    /// counts as skipped, so every later step that depends on it is skipped too.
    fn decline(&mut self, p: Parked, by: Decider) {
        self.events.send(EngineEvent::Decision {
            cascade: p.gate.id(),
            op: p.gate.op(),
            urn: p.gate.urn().clone(),
            approved: false,
            by: by.clone(),
        });
        if let Some(news) = &mut self.stack_resources {
            for step in &p.chain.steps {
                news.declined(step.urn(), step.old().map(|o| &*o.state));
            }
        }
        let Gate::Cascade(cascade) = &p.gate else {
            return self.decline_step(p, by);
        };
        self.declined += 1;
        let root_old = p
            .chain
            .steps
            .iter()
            .find(|s| *s.urn() == cascade.root)
            .and_then(|s| s.old().cloned());
        self.sg.decline(cascade, &p.chain.steps);
        let Some(old) = root_old else {
            return;
        };
        self.keep_old(old, p.chain.reply, RegisterStatus::Success);
    }

    fn decline_step(&mut self, p: Parked, by: Decider) {
        let urn = p.gate.urn().clone();
        self.state.mark_skipped(&urn);
        self.events.send(EngineEvent::StepSkipped {
            op: p.gate.op(),
            urn: urn.clone(),
            reason: format!("declined by {by}"),
        });
        let old = p
            .chain
            .steps
            .iter()
            .find(|s| *s.urn() == urn)
            .and_then(|s| s.old().cloned());
        match (old, p.chain.reply) {
            // A delete's old state simply stays.
            (_, None) => {}
            (Some(old), reply) => self.keep_old(old, reply, RegisterStatus::Skipped),
            (None, Some(reply)) => {
                let _ = reply.send(Ok(Registered {
                    urn,
                    id: None,
                    outputs: PropertyMap::new(),
                    status: RegisterStatus::Skipped,
                    unknown: true,
                }));
            }
        }
    }

    /// Keeps a base state as it was in the new snapshot and answers its registration with it.
    fn keep_old(
        &mut self,
        old: super::step::OldState,
        reply: Option<RegisterReply>,
        status: RegisterStatus,
    ) {
        let kept = if self.opts.is_preview() {
            Ok(())
        } else {
            self.ctx.manager.success(SuccessEntry {
                keep_old: Some(old.index),
                ..SuccessEntry::default()
            })
        };
        if let Some(reply) = reply {
            let answer = kept.map_err(RegisterError::from).map(|()| Registered {
                urn: old.state.urn.clone(),
                id: old.state.id.clone(),
                outputs: old.state.outputs.clone(),
                status,
                unknown: false,
            });
            let _ = reply.send(answer);
        }
    }

    /// Gives up every chain still waiting at a gate, telling its registration `error`.
    fn drop_parked(&mut self, error: RegisterError) {
        for (_, p) in std::mem::take(&mut self.parked) {
            if let Some(r) = p.chain.reply {
                let _ = r.send(Err(error.clone()));
            }
        }
    }

    /// Submits every step as its own chain (a delete under a policy waits at its gate) and
    /// waits for all of them.
    async fn run_antichain(&mut self, steps: Vec<Step>) -> Result<(), Stop> {
        for step in steps {
            let id = self.next_chain;
            self.next_chain += 1;
            self.events
                .send(EngineEvent::StepPlanned(Box::new(step_info(
                    &step,
                    Some(id),
                ))));
            let target_deleted = self
                .sg
                .deletions()
                .target_deleted(std::slice::from_ref(&step));
            // In a preview the gate foretells what the apply's will do (a delete that will
            // wait, or one declined already, which the apply skips, keeping what it needs).
            let gate = (step.op() == StepOp::Delete).then(|| Gate::Step {
                id: self.sg.next_gate(),
                op: StepOp::Delete,
                urn: step.urn().clone(),
                kind: ApprovalKind::Deletes,
            });
            let chain = Chain {
                id,
                steps: vec![step],
                reply: None,
                after_import: None,
                target_deleted,
            };
            match gate {
                Some(gate) => self.open_gate(chain, gate),
                None => self.submit(chain),
            }
        }
        let mut cancel = self.control.cancel.clone();
        while self.inflight > 0 || !self.parked.is_empty() {
            tokio::select! {
                Some(d) = self.done.recv() => self.on_done(d).await,
                Some(d) = self.control.decisions.recv() => self.on_decision(d),
                Ok(()) = cancel.changed() => match *cancel.borrow() {
                    CancelLevel::Terminating => return Err(Stop::Terminated),
                    CancelLevel::Cancelling => {
                        self.cancelled = true;
                        self.drop_parked(RegisterError::Cancelled);
                    }
                    CancelLevel::Running => {}
                },
                Some(_) = self.tasks.join_next(), if !self.tasks.is_empty() => {}
            }
        }
        Ok(())
    }

    /// Deletes what the program no longer declares, antichain after antichain.
    async fn run_deletes(&mut self) -> Result<(), Stop> {
        let base = self.sg.base().clone();
        // A destroy deletes everything, whatever `--run-program`'s program registered.
        let destroying = self.opts.operation == Operation::Destroy;
        let mut steps = generate_deletes(
            &base,
            self.sg.deletions().left_behind(),
            self.sg.deletions().positions(),
            self.sg.deletions().pending_replaced(),
            |u: &Urn| !destroying && (self.sg.is_live(u) || self.sg.is_declined(u)),
            |u: &Urn| self.sg.targeting().may_delete(u),
        );
        if destroying {
            // A provider the program registered was written again in this run: that copy goes too.
            for s in &mut steps {
                if let Step::Delete { old } = s
                    && self.sg.is_live(&old.state.urn)
                {
                    *s = Step::DeleteRewritten { old: old.clone() };
                }
            }
        }
        if self.sg.targeting().has_targets() && !self.targeted_delete_closure(&mut steps) {
            return Ok(());
        }
        if !self.opts.excludes.is_empty() {
            let forbidden = self.forbidden_deletes();
            steps.retain(|s| s.old().is_none_or(|o| !forbidden.contains(&o.index)));
        }
        if let Err(v) = self.sg.plan_steps(&steps) {
            self.fail_run(RegisterError::Plan(v).into());
            return Ok(());
        }
        self.sg
            .deletions_mut()
            .condemn(steps.iter().map(|s| s.urn().clone()));
        // Base positions whose delete failed or was refused, and what they still need: those
        // are kept rather than deleted from under them. A resource whose step failed or was
        // skipped (continue-on-error) keeps its old state, so what that needs is kept too.
        let mut kept: HashSet<usize> = base
            .iter()
            .enumerate()
            .filter(|(_, r)| !r.delete && self.state.is_failed_or_skipped(&r.urn))
            .map(|(i, _)| i)
            .collect();
        for layer in schedule_deletes(steps, self.sg.graph()) {
            let graph = self.sg.graph();
            let layer: Vec<Step> = layer
                .into_iter()
                .filter(|s| {
                    let Some(i) = s.old().map(|o| o.index) else {
                        return true;
                    };
                    if graph.dependents_of(i).any(|d| kept.contains(&d)) {
                        kept.insert(i);
                        return false;
                    }
                    true
                })
                .collect();
            let indices: Vec<(usize, Urn)> = layer
                .iter()
                .filter_map(|s| s.old().map(|o| (o.index, s.urn().clone())))
                .collect();
            self.run_antichain(layer).await?;
            if self.cancelled || (self.state.saw_error() && !self.opts.continue_on_error) {
                break;
            }
            kept.extend(
                indices
                    .into_iter()
                    .filter(|(_, u)| self.state.is_failed_or_skipped(u))
                    .map(|(i, _)| i),
            );
        }
        Ok(())
    }

    /// A targeted delete takes what depends on it along only under `target_dependents`;
    /// otherwise deleting it from under an untargeted dependent is an error (Pulumi's
    /// `determineAllowedResourcesToDeleteFromTargets`). False when the deletes may not run.
    fn targeted_delete_closure(&mut self, steps: &mut Vec<Step>) -> bool {
        let base = self.sg.base().clone();
        let mut deleting: HashSet<usize> = steps
            .iter()
            .filter_map(|s| s.old().map(|o| o.index))
            .collect();
        // A dependent names its dependency by URN and resolves to the latest earlier copy, so
        // deleting a pending-delete copy can leave it dangling too, once no copy of the URN
        // is left.
        let mut copies: HashMap<&Urn, Vec<usize>> = HashMap::new();
        for (i, r) in base.iter().enumerate() {
            copies.entry(&r.urn).or_default().push(i);
        }
        let roots: Vec<(usize, bool)> = steps
            .iter()
            .filter_map(|s| match s {
                Step::Delete { old } | Step::DeleteRewritten { old } => Some((old.index, false)),
                Step::DeleteReplaced { old } | Step::DeleteBeforeReplace { old, .. } => {
                    Some((old.index, true))
                }
                _ => None,
            })
            .collect();
        let mut refused = Vec::new();
        let none = HashSet::new();
        for (root, old_copy) in roots {
            let urn = &base[root].urn;
            let survives =
                self.sg.is_live(urn) || copies[urn].iter().any(|i| !deleting.contains(i));
            if old_copy && survives {
                continue;
            }
            for d in self.sg.graph().depending_on(root, &base, &none, true) {
                let dep = &base[d];
                // A targeted dependent registered in this run has a new state of its own.
                let restated =
                    self.sg.is_live(&dep.urn) && self.sg.targeting().is_targeted(&dep.urn);
                if dep.delete || deleting.contains(&d) || restated {
                    continue;
                }
                if self.opts.target_dependents && !self.sg.is_live(&dep.urn) {
                    deleting.insert(d);
                    steps.push(Step::Delete {
                        old: super::step::OldState {
                            index: d,
                            state: dep.clone(),
                        },
                    });
                } else {
                    refused.push(dep.urn.clone());
                }
            }
        }
        let refused_none = refused.is_empty();
        for urn in refused {
            let error = RunError::UntargetedDelete(urn.clone());
            self.events
                .diag(Some(urn), Severity::Error, error.to_string());
            self.state.fail(error);
        }
        refused_none
    }

    /// One refresh step per resource (Pulumi's `pulumi refresh`), all in parallel: the stack,
    /// components and providers get one too, which leaves them as they are (so they show as
    /// `refreshing` and count as `same`, as in Pulumi).
    /// Copies waiting for their delete (`delete`) and copies deleted ahead of their replacement
    /// (`pendingReplacement`) are read too: one whose delete already happened (a run killed
    /// before recording it) leaves the state, as any resource a read finds gone does.
    fn refresh_steps(&self) -> Vec<Step> {
        self.sg
            .base()
            .iter()
            .enumerate()
            .filter(|(_, r)| self.sg.targeting().is_targeted(&r.urn))
            .map(|(index, r)| Step::Refresh {
                old: super::step::OldState {
                    index,
                    state: r.clone(),
                },
            })
            .collect()
    }
}

/// A task aborted when its handle is dropped, so that dropping a run stops it.
struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}
