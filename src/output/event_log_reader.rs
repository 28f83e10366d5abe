//! An engine-event stream read back (`--event-log`, `--json`, the history's record): Pulumi's
//! `EngineEvent` lines and stepdeck's own `stepdeck…Event` kinds turned into the engine events
//! a console reduces, each with the line it was read from and the time it was stamped at.
//! The history's record also holds the detail lines of `replay_detail` (registrations, plans,
//! chains, workers, measured durations, times in milliseconds): read with them, a replay
//! reduces what the live console did. Pulumi's stream alone names no chains, workers or
//! dependencies, so there each step becomes a chain of its own on the lowest free worker, and
//! its dependencies are only those a stack's state holds ([`RecordedRun::add_dependencies`]).
//! Lines are numbered as in Pulumi's stream alone (the record's detail lines left out, as
//! `stack history --export` writes it): a detail line's events count with Pulumi's line its
//! engine event wrote last.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};

use crate::engine::model::urn::ROOT_STACK_TYPE;
use crate::engine::run::approval::ApprovalKind;
use crate::engine::run::events::{
    CascadeId, CascadeMember, CascadeReason, ChainId, Decider, StepInfo, WorkerId,
};
use crate::engine::{
    EngineEvent, FailureCause, Operation, Outcome, PropertyMap, RunFailure, Severity, StepOp, Urn,
};

use super::event_fields::{
    field, non_empty, object, op, properties, step_info, strings, text, urn,
};
use super::replay_detail::{self, AwaitingOutputs, Read};

/// One engine event of a recorded run, when it happened (from the stream's first event) and
/// the line of the stream it was read from (1-based, as `grep -n` counts).
#[derive(Clone, Debug, PartialEq)]
pub struct RecordedEvent {
    pub at: Duration,
    pub line: usize,
    pub event: EngineEvent,
}

/// A recorded run: its events, how many lines the stream has (its last line's number) and
/// where its dependency edges come from.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordedRun {
    pub events: Vec<RecordedEvent>,
    pub lines: usize,
    pub edges: Edges,
}

/// Where a replay's dependency edges come from, said on screen: a replay never invents them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Edges {
    /// The history's record names every registration's dependencies.
    Recorded,
    /// Pulumi's stream names none; these are the ones the named stack's state holds.
    FromState { stack: String },
    /// Nothing names them: the graph has no edges, the tree shows parents.
    Unknown,
}

impl Edges {
    /// The sentence the replay shows about its edges.
    pub fn note(&self) -> String {
        match self {
            Edges::Recorded => "as the run recorded".into(),
            Edges::FromState { stack } => format!("from stack {stack}'s state"),
            Edges::Unknown => "none, not in this file".into(),
        }
    }
}

/// The dependencies a stack's state holds, by resource.
pub type StateDependencies = HashMap<Urn, Arc<[Urn]>>;

impl RecordedRun {
    /// The stack the run's prelude names (from its URNs).
    pub fn stack(&self) -> Option<&str> {
        self.events.iter().find_map(|e| match &e.event {
            EngineEvent::Prelude { stack, .. } if !stack.is_empty() => Some(stack.as_str()),
            _ => None,
        })
    }

    /// Gives each step of a run that recorded no dependencies those `state` (the state of
    /// stack `stack`) holds for its resource; `false`, and nothing changed, when the run
    /// recorded its own or the state holds none of its resources.
    pub fn add_dependencies(&mut self, stack: &str, state: &StateDependencies) -> bool {
        if self.edges != Edges::Unknown {
            return false;
        }
        let mut found = false;
        for e in &mut self.events {
            let (urn, dependencies) = match &mut e.event {
                EngineEvent::StepPlanned(info) => (&info.urn, &mut info.dependencies),
                EngineEvent::RegistrationReceived {
                    urn, dependencies, ..
                } => (&*urn, dependencies),
                _ => continue,
            };
            if let Some(deps) = state.get(urn) {
                found = true;
                *dependencies = deps.clone();
            }
        }
        if found {
            self.edges = Edges::FromState {
                stack: stack.to_string(),
            };
        }
        found
    }
}

/// A line of an event stream that does not read as one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{source_name}:{line}: {reason}")]
pub struct EventLogError {
    /// The file (or record) the stream came from.
    pub source_name: String,
    /// 1-based; 0 when the stream as a whole is at fault.
    pub line: usize,
    pub reason: String,
}

/// Reads a whole stream; `source_name` names it in errors.
pub fn read_event_log(text: &str, source_name: &str) -> Result<RecordedRun, EventLogError> {
    let err = |line: usize, reason: String| EventLogError {
        source_name: source_name.to_string(),
        line,
        reason,
    };
    let mut lines = Vec::new();
    // Detail lines so far: a line's number leaves them out.
    let mut details = 0;
    let mut last = 0;
    for (i, raw) in text.lines().enumerate() {
        if raw.trim().is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(raw)
            .map_err(|e| err(i + 1, format!("not a JSON engine event: {e}")))?;
        let Some(obj) = value.as_object().filter(|o| o.contains_key("sequence")) else {
            return Err(err(
                i + 1,
                "not an engine event (no `sequence`): give the output of `--event-log` or `up --json`"
                    .into(),
            ));
        };
        let number = if replay_detail::KINDS.iter().any(|k| obj.contains_key(*k)) {
            details += 1;
            0
        } else {
            last = i + 1 - details;
            last
        };
        lines.push((i + 1, number, obj.clone()));
    }
    number_detail_lines(&mut lines, last);
    if lines.is_empty() {
        return Err(err(0, "holds no engine events".into()));
    }
    let mut reader = Reader::new(&lines);
    for (raw, n, obj) in &lines {
        reader.line_no = *n;
        reader.line(obj).map_err(|reason| err(*raw, reason))?;
    }
    reader.flush_error();
    reader.flush_awaiting();
    Ok(RecordedRun {
        events: reader.out,
        lines: last,
        edges: if reader.exact {
            Edges::Recorded
        } else {
            Edges::Unknown
        },
    })
}

/// The resource a line is about, if any.
fn line_urn(o: &Map<String, Value>) -> Option<&str> {
    let (_, body) = o.iter().find(|(k, _)| k.ends_with("Event"))?;
    let body = body.as_object()?;
    let urn = body.get("urn").or_else(|| {
        body.get("metadata")
            .and_then(Value::as_object)
            .and_then(|m| m.get("urn"))
    });
    urn.and_then(Value::as_str)
}

/// Numbers each detail line (numbered 0 so far) as Pulumi's line its engine event wrote last:
/// the detail line comes first, then the Pulumi lines on the same resource (a failed step's
/// diagnostic and `resOpFailedEvent`); a detail line without them counts with the next of
/// Pulumi's lines. Numbers never go back, so a line read after another is not shown before it.
fn number_detail_lines(lines: &mut [(usize, usize, Map<String, Value>)], last: usize) {
    // The number of the next of Pulumi's lines after each line, found in one pass back.
    let mut next = vec![last; lines.len()];
    for i in (0..lines.len().saturating_sub(1)).rev() {
        next[i] = match lines[i + 1].1 {
            0 => next[i + 1],
            n => n,
        };
    }
    for i in 0..lines.len() {
        if lines[i].1 != 0 {
            continue;
        }
        let urn = line_urn(&lines[i].2);
        let same = lines[i + 1..]
            .iter()
            .take_while(|(_, n, o)| *n != 0 && urn.is_some() && line_urn(o) == urn)
            .last()
            .map(|(_, n, _)| *n);
        lines[i].1 = same.unwrap_or(next[i]);
    }
    let mut highest = 0;
    for line in lines.iter_mut() {
        highest = highest.max(line.1);
        line.1 = highest;
    }
}

/// What reading a stream keeps between lines.
struct Reader {
    /// The first line's time, in milliseconds since the epoch.
    first: Option<i64>,
    at: Duration,
    /// The line being read.
    line_no: usize,
    /// The stream holds the detail lines: chains, steps and registrations come from them.
    exact: bool,
    /// A finished step (from a detail line) whose outputs are on the next line.
    awaiting: Option<AwaitingOutputs>,
    preview: bool,
    operation: Operation,
    stack: String,
    project: String,
    out: Vec<RecordedEvent>,
    next_chain: ChainId,
    /// Steps started and not yet ended, by resource: their chain, worker, op and start.
    open: HashMap<Urn, Open>,
    busy: Vec<bool>,
    /// The gate (or cascade) last opened on each resource, for the decision that closes it.
    gates: HashMap<Urn, CascadeId>,
    next_gate: CascadeId,
    /// The chain each undecided gate or cascade holds, by its decision's resource.
    held: HashMap<Urn, ChainId>,
    /// The resources a step of the stream named, by qualified type: the parents a cascade's
    /// root, which Pulumi's stream names no parent of, is placed under.
    stepped: HashMap<String, Vec<Urn>>,
    /// The resources registered from a cascade's event (each once).
    registered: HashSet<Urn>,
    /// An error diagnostic on a resource and its line, held until the next line says whether
    /// its step failed.
    error: Option<(Urn, String, usize)>,
    /// The run's last error without a resource: a failed summary's message.
    run_error: Option<String>,
    declined: usize,
}

struct Open {
    chain: ChainId,
    worker: WorkerId,
    op: StepOp,
    since: Duration,
}

/// The state a finished step's `resOutputsEvent` leaves: its new state, else (a refresh that
/// found the resource unchanged, which Pulumi reports as `same` with no new state) its old
/// one.
fn found(m: &Map<String, Value>) -> Result<Option<&Map<String, Value>>, String> {
    let side = |key: &str| m.get(key).and_then(Value::as_object);
    Ok(match op(m)? {
        StepOp::Same | StepOp::Refresh => side("new").or_else(|| side("old")),
        _ => side("new"),
    })
}

fn cascade_reason(r: &Map<String, Value>) -> Result<CascadeReason, String> {
    Ok(match text(r, "kind")? {
        "root" => CascadeReason::Root {
            keys: strings(r, "keys"),
        },
        "input" => CascadeReason::Input {
            inputs: strings(r, "inputs"),
            on: urn(r, "on")?,
            keys: strings(r, "keys"),
        },
        "provider" => CascadeReason::Provider {
            provider: urn(r, "provider")?,
        },
        "deletedWith" => CascadeReason::DeletedWith {
            target: urn(r, "target")?,
        },
        other => return Err(format!("`reason.kind`: unknown `{other}`")),
    })
}

fn decider(by: &Map<String, Value>) -> Decider {
    let name = by
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    match by.get("kind").and_then(Value::as_str) {
        Some("operator") => Decider::Operator(name),
        Some("remote") => Decider::Remote(name),
        Some("file") => Decider::File(name),
        _ => Decider::Policy,
    }
}

impl Reader {
    /// A reader that knows, from the whole stream, what Pulumi's prelude does not say: whether
    /// it was a preview, which operation, and the stack's names (from its URNs).
    fn new(lines: &[(usize, usize, Map<String, Value>)]) -> Reader {
        let mut preview = false;
        let mut ops = Vec::new();
        let mut names = None;
        let mut exact = false;
        for (_, _, o) in lines {
            exact |= replay_detail::KINDS.iter().any(|k| o.contains_key(*k));
            if let Some(s) = o.get("summaryEvent").and_then(Value::as_object) {
                preview |= s.get("isPreview") == Some(&Value::Bool(true));
            }
            for key in ["resourcePreEvent", "resOutputsEvent"] {
                let Some(e) = o.get(key).and_then(Value::as_object) else {
                    continue;
                };
                preview |= e.get("planning") == Some(&Value::Bool(true));
                if let Some(m) = e.get("metadata").and_then(Value::as_object) {
                    ops.extend(m.get("op").and_then(Value::as_str).and_then(StepOp::parse));
                    if names.is_none()
                        && let Some(u) = m.get("urn").and_then(Value::as_str)
                        && let Ok(u) = Urn::parse(u)
                    {
                        names = Some((u.stack().to_string(), u.project().to_string()));
                    }
                }
            }
        }
        let operation = if preview {
            Operation::Preview
        } else if ops.contains(&StepOp::Refresh) {
            Operation::Refresh
        } else if !ops.is_empty() && ops.iter().all(|o| *o == StepOp::Delete) {
            Operation::Destroy
        } else {
            Operation::Update
        };
        let (stack, project) = names.unwrap_or_default();
        Reader {
            first: None,
            at: Duration::ZERO,
            line_no: 0,
            exact,
            awaiting: None,
            preview,
            operation,
            stack,
            project,
            out: Vec::new(),
            next_chain: 1,
            open: HashMap::new(),
            busy: Vec::new(),
            gates: HashMap::new(),
            next_gate: 1,
            held: HashMap::new(),
            stepped: HashMap::new(),
            registered: HashSet::new(),
            error: None,
            run_error: None,
            declined: 0,
        }
    }

    fn push(&mut self, event: EngineEvent) {
        self.push_at(self.line_no, event);
    }

    fn push_at(&mut self, line: usize, event: EngineEvent) {
        self.out.push(RecordedEvent {
            at: self.at,
            line,
            event,
        });
    }

    /// A finished step whose outputs did not follow: it ends with none.
    fn flush_awaiting(&mut self) {
        if let Some(a) = self.awaiting.take() {
            self.push(EngineEvent::StepFinished {
                chain: a.chain,
                op: a.op,
                urn: a.urn,
                id: None,
                outputs: PropertyMap::default(),
                duration: a.duration,
            });
        }
    }

    /// An error diagnostic held for a failure that did not follow: it was only a diagnostic.
    fn flush_error(&mut self) {
        if let Some((urn, message, line)) = self.error.take() {
            self.push_at(
                line,
                EngineEvent::Diagnostic {
                    urn: Some(urn),
                    severity: Severity::Error,
                    message,
                    ephemeral: false,
                },
            );
        }
    }

    fn start_step(&mut self, info: StepInfo) {
        let worker = match self.busy.iter().position(|b| !b) {
            Some(w) => w,
            None => {
                self.busy.push(false);
                self.busy.len() - 1
            }
        };
        self.busy[worker] = true;
        let chain = info.chain.unwrap_or_default();
        let (op, urn, info_custom) = (info.op, info.urn.clone(), info.custom);
        self.open.insert(
            urn.clone(),
            Open {
                chain,
                worker,
                op,
                since: self.at,
            },
        );
        self.push(EngineEvent::StepPlanned(Box::new(info)));
        self.push(EngineEvent::ChainQueued {
            chain,
            steps: Arc::from(vec![(op, urn.clone())]),
        });
        self.push(EngineEvent::ChainStarted { chain, worker });
        self.push(EngineEvent::StepStarted {
            chain,
            op,
            urn: urn.clone(),
            worker,
        });
        // A component's step (registering it) ends at once; Pulumi's stream reports only the
        // outputs it registers later.
        if !info_custom && !matches!(op, StepOp::Delete | StepOp::Refresh) {
            self.end_step(&urn);
            self.push(EngineEvent::StepFinished {
                chain,
                op,
                urn,
                id: None,
                outputs: PropertyMap::default(),
                duration: Duration::ZERO,
            });
            self.push(EngineEvent::ChainFinished { chain, ok: true });
        }
    }

    /// The gate and chain a gate or cascade on `urn` holds: as the history's record names
    /// them, else numbered here.
    fn hold(&mut self, body: &Map<String, Value>, urn: &Urn) -> (CascadeId, ChainId) {
        let recorded = |key: &str| body.get(key).and_then(Value::as_u64);
        let gate = recorded("gate").unwrap_or_else(|| {
            self.next_gate += 1;
            self.next_gate - 1
        });
        let chain = recorded("chain").unwrap_or_else(|| {
            self.next_chain += 1;
            self.next_chain - 1
        });
        self.gates.insert(urn.clone(), gate);
        self.held.insert(urn.clone(), chain);
        (gate, chain)
    }

    /// The parent a resource's URN names, as Pulumi builds it: the resource of the type before
    /// its own type's `$` when the stream stepped exactly one, else the stack's root (a default
    /// provider has none).
    fn parent_from_urn(&self, urn: &Urn) -> Option<Urn> {
        let parent_type = match urn.qualified_type().rsplit_once('$') {
            Some((parent, _)) => parent,
            None if urn.type_().starts_with("pulumi:providers:")
                && urn.name().starts_with("default") =>
            {
                return None;
            }
            None => ROOT_STACK_TYPE,
        };
        match self.stepped.get(parent_type).map(Vec::as_slice) {
            Some([only]) => Some(only.clone()),
            _ => None,
        }
    }

    /// A cascade's root and members as the engine registered them, under their parents:
    /// Pulumi's stream has no line for a resource whose replacement was declined or waits
    /// (nothing ran on it), so without this its row would have no parent and show outside its
    /// stack.
    fn register_cascade(&mut self, root: &Urn, members: &[CascadeMember]) {
        if self.exact {
            return;
        }
        let mut urns: Vec<(&Urn, Option<&str>)> = vec![(root, None)];
        urns.extend(members.iter().map(|m| (&m.urn, Some(m.type_.as_str()))));
        for (urn, type_) in urns {
            let stepped = self
                .stepped
                .get(urn.qualified_type())
                .is_some_and(|u| u.contains(urn));
            if stepped || !self.registered.insert(urn.clone()) {
                continue;
            }
            let type_ = type_
                .or_else(|| {
                    members
                        .iter()
                        .find(|m| m.urn == *urn)
                        .map(|m| m.type_.as_str())
                })
                .map_or_else(|| urn.type_().to_string(), str::to_string);
            self.push(EngineEvent::RegistrationReceived {
                urn: urn.clone(),
                type_,
                parent: self.parent_from_urn(urn),
                custom: true,
                dependencies: Arc::from(Vec::new()),
            });
        }
    }

    fn end_step(&mut self, urn: &Urn) -> Option<Open> {
        let open = self.open.remove(urn)?;
        if let Some(b) = self.busy.get_mut(open.worker) {
            *b = false;
        }
        Some(open)
    }

    fn line(&mut self, o: &Map<String, Value>) -> Result<(), String> {
        // The history's record stamps milliseconds too; Pulumi's stream seconds only.
        let stamp = match o.get("unixMs").and_then(Value::as_i64) {
            Some(ms) => ms,
            None => o
                .get("timestamp")
                .and_then(Value::as_i64)
                .unwrap_or(0)
                .saturating_mul(1000),
        };
        let first = *self.first.get_or_insert(stamp);
        self.at = self.at.max(Duration::from_millis(
            stamp.saturating_sub(first).max(0) as u64
        ));
        let Some((kind, body)) = o.iter().find(|(k, _)| k.ends_with("Event")) else {
            return Err("names no event kind (`…Event`)".into());
        };
        let body = body
            .as_object()
            .ok_or_else(|| format!("`{kind}` is not an object"))?;
        if kind != "resOpFailedEvent" {
            self.flush_error();
        }
        if kind != "resOutputsEvent" {
            self.flush_awaiting();
        }
        if self.exact && replay_detail::KINDS.contains(&kind.as_str()) {
            match replay_detail::read(kind, body)? {
                Read::Events(events) => events.into_iter().for_each(|e| self.push(e)),
                Read::Finished(step) => self.awaiting = Some(step),
            }
            return Ok(());
        }
        match kind.as_str() {
            "preludeEvent" => self.push(EngineEvent::Prelude {
                operation: self.operation,
                preview: self.preview,
                stack: self.stack.clone(),
                project: self.project.clone(),
                parallel: body
                    .get("parallel")
                    .and_then(Value::as_u64)
                    .map_or(0, |n| n as usize),
                parallel_diff: body.get("parallelDiff") == Some(&Value::Bool(true)),
            }),
            // With the detail lines, a step starts from its own line.
            "resourcePreEvent" if self.exact => {}
            "resOutputsEvent" if self.exact => {
                let m = object(body, "metadata")?;
                let urn = urn(m, "urn")?;
                let new = found(m)?;
                let outputs = properties(new.and_then(|n| n.get("outputs")))?.unwrap_or_default();
                match self.awaiting.take() {
                    Some(step) if step.urn == urn => self.push(EngineEvent::StepFinished {
                        chain: step.chain,
                        op: step.op,
                        urn,
                        id: new.and_then(|n| non_empty(n, "id")),
                        outputs,
                        duration: step.duration,
                    }),
                    other => {
                        self.awaiting = other;
                        self.flush_awaiting();
                        self.push(EngineEvent::ResourceOutputs { urn, outputs });
                    }
                }
            }
            // With the detail lines, the failure came on its own line; its diagnostic was held
            // for it and is dropped here.
            "resOpFailedEvent" if self.exact => {
                let m = object(body, "metadata")?;
                let urn = urn(m, "urn")?;
                if self.error.as_ref().is_some_and(|(u, _, _)| *u == urn) {
                    self.error = None;
                }
                self.flush_error();
            }
            "resourcePreEvent" => {
                let info = step_info(object(body, "metadata")?, self.next_chain)?;
                self.next_chain += 1;
                let same_type = self
                    .stepped
                    .entry(info.urn.qualified_type().to_string())
                    .or_default();
                if !same_type.contains(&info.urn) {
                    same_type.push(info.urn.clone());
                }
                self.start_step(info);
            }
            "resOutputsEvent" => {
                let m = object(body, "metadata")?;
                let urn = urn(m, "urn")?;
                let new = found(m)?;
                let outputs = properties(new.and_then(|n| n.get("outputs")))?.unwrap_or_default();
                match self.end_step(&urn) {
                    Some(open) => {
                        self.push(EngineEvent::StepFinished {
                            chain: open.chain,
                            op: open.op,
                            urn,
                            id: new.and_then(|n| non_empty(n, "id")),
                            outputs,
                            duration: self.at.saturating_sub(open.since),
                        });
                        self.push(EngineEvent::ChainFinished {
                            chain: open.chain,
                            ok: true,
                        });
                    }
                    None => self.push(EngineEvent::ResourceOutputs { urn, outputs }),
                }
            }
            "resOpFailedEvent" => {
                let m = object(body, "metadata")?;
                let urn = urn(m, "urn")?;
                let error = match self.error.take() {
                    Some((u, message, _)) if u == urn => message,
                    held => {
                        self.error = held;
                        self.flush_error();
                        format!("{} failed", op(m)?.as_str())
                    }
                };
                if let Some(open) = self.end_step(&urn) {
                    self.push(EngineEvent::StepFailed {
                        chain: open.chain,
                        op: open.op,
                        urn,
                        error,
                        duration: self.at.saturating_sub(open.since),
                    });
                    self.push(EngineEvent::ChainFinished {
                        chain: open.chain,
                        ok: false,
                    });
                }
            }
            "diagnosticEvent" => {
                let message = text(body, "message")?.trim_end_matches('\n').to_string();
                let severity = match body.get("severity").and_then(Value::as_str) {
                    Some("error") => Severity::Error,
                    Some("warning") => Severity::Warning,
                    Some("debug") => Severity::Debug,
                    _ => Severity::Info,
                };
                let urn = non_empty(body, "urn").and_then(|u| Urn::parse(&u).ok());
                match (severity, urn) {
                    (Severity::Error, Some(urn)) => self.error = Some((urn, message, self.line_no)),
                    (severity, urn) => {
                        if severity == Severity::Error {
                            self.run_error = Some(message.clone());
                        }
                        self.push(EngineEvent::Diagnostic {
                            urn,
                            severity,
                            message,
                            ephemeral: body.get("ephemeral") == Some(&Value::Bool(true)),
                        });
                    }
                }
            }
            "stepdeckGateEvent" => {
                let urn = urn(body, "urn")?;
                let kind = text(body, "kind")?;
                let kind = ApprovalKind::ALL
                    .into_iter()
                    .find(|k| k.as_str() == kind)
                    .ok_or_else(|| format!("`kind`: unknown `{kind}`"))?;
                let (gate, chain) = self.hold(body, &urn);
                self.push(EngineEvent::GateOpened {
                    gate,
                    chain,
                    op: op(body)?,
                    urn,
                    kind,
                    asked: body.get("policy").and_then(Value::as_str) == Some("ask"),
                });
            }
            "stepdeckCascadeEvent" => {
                let root = urn(body, "root")?;
                let members = field(body, "members")?
                    .as_array()
                    .ok_or("`members` is not an array")?
                    .iter()
                    .map(|m| {
                        let m = m.as_object().ok_or("a member is not an object")?;
                        Ok(CascadeMember {
                            urn: urn(m, "urn")?,
                            type_: text(m, "type")?.to_string(),
                            reason: cascade_reason(object(m, "reason")?)?,
                        })
                    })
                    .collect::<Result<Vec<_>, String>>()?;
                self.register_cascade(&root, &members);
                let (cascade, chain) = self.hold(body, &root);
                self.push(EngineEvent::PendingReplacement {
                    cascade,
                    chain,
                    root,
                    members,
                });
            }
            "stepdeckDecisionEvent" => {
                let urn = urn(body, "urn")?;
                let approved = body.get("approved") == Some(&Value::Bool(true));
                if !approved {
                    self.declined += 1;
                }
                let by = body.get("by").and_then(Value::as_object);
                let held = self.held.remove(&urn);
                self.push(EngineEvent::Decision {
                    cascade: body
                        .get("cascade")
                        .and_then(Value::as_u64)
                        .or_else(|| self.gates.get(&urn).copied())
                        .unwrap_or_default(),
                    op: op(body)?,
                    urn,
                    approved,
                    by: by.map_or(Decider::Policy, decider),
                });
                // The wait is over: without the detail lines, an approved step runs on chains
                // of its own here.
                if let Some(chain) = held.filter(|_| approved && !self.exact) {
                    self.push(EngineEvent::ChainFinished { chain, ok: true });
                }
            }
            "stepdeckPauseEvent" => {
                let event = match text(body, "state")? {
                    "paused" => EngineEvent::Paused,
                    "resumed" => EngineEvent::Resumed,
                    "stepped" => EngineEvent::Stepped,
                    other => return Err(format!("`state`: unknown `{other}`")),
                };
                self.push(event);
            }
            "stepdeckBreakpointEvent" => {
                let event = EngineEvent::Breakpoint {
                    op: op(body)?,
                    urn: urn(body, "urn")?,
                };
                self.push(event);
            }
            "stepdeckCancelEvent" => self.push(EngineEvent::CancelRequested {
                terminate: body.get("terminate") == Some(&Value::Bool(true)),
            }),
            "summaryEvent" => {
                let counts = body
                    .get("resourceChanges")
                    .and_then(Value::as_object)
                    .map(|c| {
                        c.iter()
                            .filter_map(|(op, n)| Some((StepOp::parse(op)?, n.as_u64()? as usize)))
                            .collect()
                    })
                    .unwrap_or_default();
                let outcome = match body.get("result").and_then(Value::as_str) {
                    Some("failed") => Outcome::Failed(RunFailure::new(
                        FailureCause::Reported,
                        self.run_error
                            .clone()
                            .unwrap_or_else(|| "the run failed".into()),
                    )),
                    Some("canceled") => Outcome::Cancelled,
                    _ => Outcome::Succeeded,
                };
                // The history's record keeps the engine's duration; Pulumi's stream whole
                // seconds, rounded up.
                let measured = body.get("durationUs").and_then(Value::as_u64);
                let seconds = body
                    .get("durationSeconds")
                    .and_then(Value::as_u64)
                    .unwrap_or(0);
                let policy_packs = body
                    .get("PolicyPacks")
                    .and_then(Value::as_object)
                    .map(|p| {
                        p.iter()
                            .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                            .collect()
                    })
                    .unwrap_or_default();
                self.push(EngineEvent::Summary {
                    counts,
                    declined: self.declined,
                    duration: measured.map_or(
                        Duration::from_secs(seconds).max(self.at),
                        Duration::from_micros,
                    ),
                    outcome,
                    preview: self.preview,
                    policy_packs,
                });
            }
            // Policy events, the end of the stream and kinds this version does not know change
            // nothing a replay shows.
            _ => {}
        }
        Ok(())
    }
}
