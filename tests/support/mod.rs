//! The conformance harness, in the style of Pulumi's lifecycle tests: a scripted fake provider
//! (as Pulumi's `deploytest.Provider`), scripted programs, and a journal that checks snapshot
//! integrity after every entry. Everything else is the real engine.

#![allow(dead_code)]

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use stepdeck::engine::journal::Replayer;
use stepdeck::engine::provider::{
    AutonamingOptions, CheckRequest, CheckResult, ConfigureResult, CreateRequest, CreateResult,
    DeleteRequest, DiffRequest, DiffResult, ProviderError, ReadRequest, ReadResult, UpdateRequest,
};
use stepdeck::engine::{
    Deployment, DeploymentResult, EngineEvent, EventSink, Journal, JournalEntry, JournalError,
    Options, Program, PropertyMap, PropertyValue, Provider, ProviderFactory, Snapshot, StepOp, Urn,
};

/// One provider call, with when it ran.
#[derive(Clone, Debug)]
pub(crate) struct Call {
    pub op: &'static str,
    pub urn: Urn,
    pub inputs: PropertyMap,
    /// The custom timeout the engine passed (seconds; 0 when none).
    pub timeout: f64,
    pub started: Instant,
    pub ended: Instant,
}

pub(crate) type DiffFn = dyn Fn(&DiffRequest) -> DiffResult + Send + Sync;

/// A provider whose behaviour each test scripts.
pub(crate) struct FakeProvider {
    pub calls: Mutex<Vec<Call>>,
    pub diff: Option<Box<DiffFn>>,
    pub diff_config: Option<Box<DiffFn>>,
    pub delay: Duration,
    /// Resource names whose create, update or delete fails.
    pub fail: HashSet<String>,
    /// Resource names whose create (only) fails.
    pub fail_create: HashSet<String>,
    /// Resource names whose create or update partially fails: the resource exists (with an ID
    /// and outputs) but did not initialise (Pulumi's `ErrorResourceInitFailed`).
    pub partial: HashSet<String>,
    /// The old inputs of every Check call, as (name, olds) in order.
    pub checks: Mutex<Vec<(String, PropertyMap)>>,
    /// The random seed of every Check call, as (name, seed) in order.
    pub seeds: Mutex<Vec<(String, Vec<u8>)>>,
    /// What exists "in the cloud", by ID: create and update write it, delete removes it, read
    /// and refresh return it (an ID missing here reads as gone).
    pub world: Mutex<HashMap<String, PropertyMap>>,
    /// The configuration of every Configure call, in order.
    pub configures: Mutex<Vec<PropertyMap>>,
    /// Configure answers that autonaming configuration is supported.
    pub supports_autonaming: bool,
    /// The autonaming options of every Check call, as (name, options) in order.
    pub autonaming: Mutex<Vec<(String, Option<AutonamingOptions>)>>,
}

impl Default for FakeProvider {
    fn default() -> Self {
        FakeProvider {
            calls: Mutex::new(Vec::new()),
            diff: None,
            diff_config: None,
            delay: Duration::ZERO,
            fail: HashSet::new(),
            fail_create: HashSet::new(),
            partial: HashSet::new(),
            checks: Mutex::default(),
            seeds: Mutex::default(),
            world: Mutex::default(),
            configures: Mutex::default(),
            supports_autonaming: false,
            autonaming: Mutex::default(),
        }
    }
}

impl FakeProvider {
    async fn record(
        &self,
        op: &'static str,
        urn: &Urn,
        inputs: &PropertyMap,
    ) -> Result<(), ProviderError> {
        self.record_timed(op, urn, inputs, 0.0).await
    }

    async fn record_timed(
        &self,
        op: &'static str,
        urn: &Urn,
        inputs: &PropertyMap,
        timeout: f64,
    ) -> Result<(), ProviderError> {
        let started = Instant::now();
        if !self.delay.is_zero() {
            tokio::time::sleep(self.delay).await;
        }
        self.calls.lock().unwrap().push(Call {
            op,
            urn: urn.clone(),
            inputs: inputs.clone(),
            timeout,
            started,
            ended: Instant::now(),
        });
        let failing = self.fail.contains(urn.name())
            || (op == "create" && self.fail_create.contains(urn.name()));
        if op != "diff" && failing {
            return Err(ProviderError::Failed(format!(
                "{op} of {} failed on purpose",
                urn.name()
            )));
        }
        Ok(())
    }

    /// The calls of one kind, as (name) in order.
    pub(crate) fn names(&self, op: &str) -> Vec<String> {
        self.calls
            .lock()
            .unwrap()
            .iter()
            .filter(|c| c.op == op)
            .map(|c| c.urn.name().to_string())
            .collect()
    }

    pub(crate) fn calls(&self) -> Vec<Call> {
        self.calls.lock().unwrap().clone()
    }

    /// The old inputs Check was given for `name`, call by call.
    pub(crate) fn check_olds(&self, name: &str) -> Vec<PropertyMap> {
        self.checks
            .lock()
            .unwrap()
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, olds)| olds.clone())
            .collect()
    }

    /// A partial failure for `urn` when scripted: the given outputs plus an unhealthy status.
    fn partially(&self, urn: &Urn, id: &str, outputs: &PropertyMap) -> Result<(), ProviderError> {
        if !self.partial.contains(urn.name()) {
            return Ok(());
        }
        let mut outputs = outputs.clone();
        outputs.insert("health".into(), PropertyValue::String("failing".into()));
        Err(ProviderError::PartialFailure {
            id: id.to_string(),
            outputs,
            reasons: vec![format!("{} did not become healthy", urn.name())],
        })
    }
}

/// Diff that replaces when any input named in `keys` changed (by comparing old outputs, as
/// Pulumi's fake does), asking for delete-before-replace when `dbr`.
pub(crate) fn replace_on(keys: &'static [&'static str], dbr: bool) -> Box<DiffFn> {
    Box::new(move |req: &DiffRequest| {
        let changed: Vec<String> = keys
            .iter()
            .filter(|k| req.old_outputs.get(**k) != req.new_inputs.get(**k))
            .map(|k| k.to_string())
            .collect();
        let mut d = stepdeck::engine::diff_inputs(&req.old_inputs, &req.new_inputs);
        if !changed.is_empty() {
            d.changes = stepdeck::engine::provider::DiffChanges::Some;
            d.replace_keys = changed;
            d.delete_before_replace = dbr;
        }
        d
    })
}

#[async_trait]
impl Provider for FakeProvider {
    async fn diff_config(&self, req: DiffRequest) -> Result<DiffResult, ProviderError> {
        Ok(match &self.diff_config {
            Some(f) => f(&req),
            None => DiffResult::default(),
        })
    }

    async fn diff(&self, req: DiffRequest) -> Result<DiffResult, ProviderError> {
        self.record("diff", &req.urn, &req.new_inputs).await?;
        Ok(match &self.diff {
            Some(f) => f(&req),
            None => DiffResult::default(),
        })
    }

    async fn configure(&self, inputs: &PropertyMap) -> Result<ConfigureResult, ProviderError> {
        self.configures.lock().unwrap().push(inputs.clone());
        Ok(ConfigureResult {
            supports_autonaming_configuration: self.supports_autonaming,
            ..ConfigureResult::default()
        })
    }

    async fn check(&self, req: CheckRequest) -> Result<CheckResult, ProviderError> {
        self.seeds
            .lock()
            .unwrap()
            .push((req.urn.name().to_string(), req.random_seed.clone()));
        self.autonaming
            .lock()
            .unwrap()
            .push((req.urn.name().to_string(), req.autonaming.clone()));
        self.checks
            .lock()
            .unwrap()
            .push((req.urn.name().to_string(), req.olds));
        Ok(CheckResult {
            inputs: req.news,
            failures: Vec::new(),
        })
    }

    async fn create(&self, req: CreateRequest) -> Result<CreateResult, ProviderError> {
        self.record_timed("create", &req.urn, &req.inputs, req.timeout)
            .await?;
        let id = format!("id-{}", req.urn.name());
        if !req.preview {
            self.world
                .lock()
                .unwrap()
                .insert(id.clone(), req.inputs.clone());
        }
        self.partially(&req.urn, &id, &req.inputs)?;
        Ok(CreateResult {
            id,
            outputs: req.inputs,
        })
    }

    async fn read(&self, req: ReadRequest) -> Result<ReadResult, ProviderError> {
        self.record("read", &req.urn, &req.inputs).await?;
        let found = self.world.lock().unwrap().get(&req.id).cloned();
        Ok(match found {
            Some(outputs) => ReadResult {
                id: req.id,
                inputs: PropertyMap::new(),
                outputs,
            },
            None => ReadResult::default(),
        })
    }

    async fn update(&self, req: UpdateRequest) -> Result<PropertyMap, ProviderError> {
        self.record_timed("update", &req.urn, &req.new_inputs, req.timeout)
            .await?;
        if !req.preview {
            self.world
                .lock()
                .unwrap()
                .insert(req.id.clone(), req.new_inputs.clone());
        }
        self.partially(&req.urn, &req.id, &req.new_inputs)?;
        Ok(req.new_inputs)
    }

    async fn delete(&self, req: DeleteRequest) -> Result<(), ProviderError> {
        self.record_timed("delete", &req.urn, &req.inputs, req.timeout)
            .await?;
        match self.world.lock().unwrap().remove(&req.id) {
            Some(_) => Ok(()),
            // As a real provider answers a delete of what is gone (gRPC NOT_FOUND).
            None => Err(ProviderError::NotFound(format!(
                "{} does not exist",
                req.id
            ))),
        }
    }
}

/// Hands out the one fake for every package.
pub(crate) struct FakeFactory(pub Arc<FakeProvider>);

impl ProviderFactory for FakeFactory {
    fn load(
        &self,
        _package: &str,
        _version: Option<&str>,
    ) -> Result<Arc<dyn Provider>, ProviderError> {
        Ok(self.0.clone())
    }
}

/// A journal that replays every entry and checks the snapshot's integrity after each one.
pub(crate) struct CheckingJournal {
    replayer: Replayer,
    pub violations: Arc<Mutex<Vec<String>>>,
    pub entries: Arc<Mutex<Vec<JournalEntry>>>,
}

impl CheckingJournal {
    pub(crate) fn new(base: &Snapshot) -> CheckingJournal {
        CheckingJournal {
            replayer: Replayer::new(base),
            violations: Arc::default(),
            entries: Arc::default(),
        }
    }
}

impl Journal for CheckingJournal {
    fn append(&mut self, entry: &JournalEntry) -> Result<(), JournalError> {
        self.entries.lock().unwrap().push(entry.clone());
        self.replayer.apply(entry)?;
        if let Err(e) = self.replayer.snapshot().verify_integrity() {
            self.violations
                .lock()
                .unwrap()
                .push(format!("after {entry:?}: {e}"));
        }
        Ok(())
    }
}

/// What a test run produced.
pub(crate) struct Run {
    pub result: DeploymentResult,
    pub events: Vec<EngineEvent>,
    pub entries: Vec<JournalEntry>,
}

impl Run {
    /// Finished steps as (op, name), in the order they finished.
    pub(crate) fn steps(&self) -> Vec<(StepOp, String)> {
        self.events
            .iter()
            .filter_map(|e| match e {
                EngineEvent::StepFinished { op, urn, .. } => Some((*op, urn.name().to_string())),
                _ => None,
            })
            .filter(|(_, n)| n != "default")
            .collect()
    }

    pub(crate) fn steps_of(&self, op: StepOp) -> Vec<String> {
        self.steps()
            .into_iter()
            .filter(|(o, _)| *o == op)
            .map(|(_, n)| n)
            .collect()
    }

    pub(crate) fn names(&self) -> Vec<String> {
        self.result
            .snapshot
            .resources
            .iter()
            .filter(|r| !r.is_provider())
            .map(|r| r.urn.name().to_string())
            .collect()
    }
}

pub(crate) fn options() -> Options {
    Options {
        stack: "test".into(),
        project: "proj".into(),
        parallel: 8,
        ..Options::default()
    }
}

/// A deployment ready to run, its events, and the journal's violations and entries.
pub(crate) type Started = (
    Deployment,
    tokio::sync::mpsc::UnboundedReceiver<EngineEvent>,
    Arc<Mutex<Vec<String>>>,
    Arc<Mutex<Vec<JournalEntry>>>,
);

/// Starts a deployment; returns it with the event stream (take `control()` before running).
pub(crate) fn deployment(provider: &Arc<FakeProvider>, base: &Snapshot, opts: Options) -> Started {
    let journal = CheckingJournal::new(base);
    let violations = journal.violations.clone();
    let entries = journal.entries.clone();
    let (sink, rx) = EventSink::channel();
    let d = Deployment::new(
        opts,
        base.clone(),
        Arc::new(FakeFactory(provider.clone())),
        Box::new(journal),
        sink,
    );
    (d, rx, violations, entries)
}

/// Runs a deployment to the end and checks integrity after every journal entry.
pub(crate) async fn run(
    provider: &Arc<FakeProvider>,
    base: &Snapshot,
    opts: Options,
    program: Option<Box<dyn Program>>,
) -> Run {
    let (d, rx, violations, entries) = deployment(provider, base, opts);
    let result = d.run(program).await;
    finish(result, rx, &violations, &entries)
}

pub(crate) fn finish(
    result: DeploymentResult,
    mut rx: tokio::sync::mpsc::UnboundedReceiver<EngineEvent>,
    violations: &Arc<Mutex<Vec<String>>>,
    entries: &Arc<Mutex<Vec<JournalEntry>>>,
) -> Run {
    let mut events = Vec::new();
    while let Ok(e) = rx.try_recv() {
        events.push(e);
    }
    let v = violations.lock().unwrap().clone();
    assert!(v.is_empty(), "integrity violations: {v:#?}");
    result
        .snapshot
        .verify_integrity()
        .expect("final snapshot integrity");
    Run {
        result,
        events,
        entries: entries.lock().unwrap().clone(),
    }
}

/// An input of a scripted resource: a literal, or another resource's output.
#[derive(Clone, Debug)]
pub(crate) enum In {
    Lit(&'static str),
    Out(&'static str, &'static str),
}

/// A scripted resource registration.
#[derive(Clone, Debug)]
pub(crate) struct Spec {
    pub name: &'static str,
    pub inputs: Vec<(&'static str, In)>,
    pub depends_on: Vec<&'static str>,
    pub delete_before_replace: Option<bool>,
    pub protect: bool,
}

pub(crate) fn res(name: &'static str, inputs: Vec<(&'static str, In)>) -> Spec {
    Spec {
        name,
        inputs,
        depends_on: Vec::new(),
        delete_before_replace: None,
        protect: false,
    }
}

pub(crate) const TYPE: &str = "pkgA:index:Res";

/// A program that registers the specs one after another, each waiting for what it references.
pub(crate) fn program(specs: Vec<Spec>) -> Box<dyn Program> {
    use stepdeck::engine::{Goal, ProgramFn};
    Box::new(ProgramFn(
        move |monitor: stepdeck::engine::ResourceMonitor| async move {
            let mut outs: HashMap<&str, (Urn, PropertyMap)> = HashMap::new();
            for s in specs {
                let mut goal = Goal::custom(TYPE, s.name, PropertyMap::new());
                for (k, v) in &s.inputs {
                    let value = match v {
                        In::Lit(l) => PropertyValue::String(l.to_string()),
                        In::Out(r, key) => {
                            let (urn, o) = &outs[r];
                            goal.property_dependencies
                                .entry_or_insert_with(k.to_string(), Vec::new)
                                .push(urn.clone());
                            goal.dependencies.push(urn.clone());
                            o.get(*key).cloned().unwrap_or(PropertyValue::Unknown)
                        }
                    };
                    goal.properties.insert(k.to_string(), value);
                }
                for d in &s.depends_on {
                    goal.dependencies.push(outs[d].0.clone());
                }
                goal.delete_before_replace = s.delete_before_replace;
                goal.protect = Some(s.protect);
                let reg = monitor
                    .register(goal)
                    .await
                    .map_err(|e| stepdeck::engine::ProgramError(e.to_string()))?;
                outs.insert(s.name, (reg.urn, reg.outputs));
            }
            Ok(())
        },
    ))
}

/// What a scripted program registered so far, by resource name.
#[derive(Default)]
pub(crate) struct Regs(pub HashMap<String, stepdeck::engine::Registered>);

impl Regs {
    pub(crate) fn urn(&self, name: &str) -> Urn {
        self.0[name].urn.clone()
    }

    /// The provider reference of a registered provider resource.
    pub(crate) fn reference(&self, name: &str) -> stepdeck::engine::ProviderRef {
        let r = &self.0[name];
        stepdeck::engine::ProviderRef::new(r.urn.clone(), r.id.as_deref().unwrap_or_default())
    }
}

/// Builds one goal from what was registered before it.
pub(crate) type GoalFn = Box<dyn Fn(&Regs) -> stepdeck::engine::Goal + Send + Sync>;

/// A program registering the goals one after another (each may use earlier registrations).
pub(crate) fn goals(list: Vec<GoalFn>) -> Box<dyn Program> {
    use stepdeck::engine::ProgramFn;
    Box::new(ProgramFn(
        move |monitor: stepdeck::engine::ResourceMonitor| async move {
            let mut regs = Regs::default();
            for make in list {
                let goal = make(&regs);
                let name = goal.name.clone();
                let reg = monitor
                    .register(goal)
                    .await
                    .map_err(|e| stepdeck::engine::ProgramError(e.to_string()))?;
                regs.0.insert(name, reg);
            }
            Ok(())
        },
    ))
}

/// A custom resource of the test type with string inputs.
pub(crate) fn custom(name: &str, inputs: &[(&str, &str)]) -> stepdeck::engine::Goal {
    stepdeck::engine::Goal::custom(
        TYPE,
        name,
        stepdeck::engine::model::property::props(inputs.to_vec()),
    )
}

/// The resource named `name` in a snapshot (the live copy).
pub(crate) fn state<'a>(snap: &'a Snapshot, name: &str) -> &'a stepdeck::engine::ResourceState {
    snap.resources
        .iter()
        .find(|r| r.urn.name() == name && !r.delete)
        .unwrap_or_else(|| panic!("no {name} in the snapshot"))
}

/// Error diagnostics of a run.
pub(crate) fn errors(run: &Run) -> Vec<String> {
    run.events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::Diagnostic {
                severity: stepdeck::engine::Severity::Error,
                message,
                ..
            } => Some(message.clone()),
            _ => None,
        })
        .collect()
}

/// Warning diagnostics of a run.
pub(crate) fn warnings(run: &Run) -> Vec<String> {
    run.events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::Diagnostic {
                severity: stepdeck::engine::Severity::Warning,
                message,
                ..
            } => Some(message.clone()),
            _ => None,
        })
        .collect()
}
