//! Pulumi's engine-event stream, as `up/destroy/refresh --json` print it and `--event-log`
//! writes it: one `EngineEvent` object per line, numbered from 0, ended by a `cancelEvent`,
//! the way the Automation API reads it.

use std::collections::{BTreeMap, HashMap};

use serde_json::{Value, json};

use crate::engine::model::urn::UrnMap;
use crate::engine::run::events::{CascadeReason, Decider, PolicyCall, StepInfo};
use crate::engine::run::policy::PolicySeverity;
use crate::engine::{EngineEvent, Outcome, StepOp, Urn};

use super::json::{Applied, blinded, change_summary, diagnostic, step_metadata};
use super::replay_detail;
use super::visibility::is_internal;

fn result(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Succeeded => "succeeded",
        Outcome::Failed(_) => "failed",
        Outcome::Cancelled | Outcome::Terminated => "canceled",
    }
}

/// Why a resource joins a delete-before-replace cascade, as `stepdeckCascadeEvent` spells it.
fn reason(r: &CascadeReason) -> Value {
    match r {
        CascadeReason::Root { keys } => json!({"kind": "root", "keys": keys}),
        CascadeReason::Input { inputs, on, keys } => {
            json!({"kind": "input", "inputs": inputs, "on": on.as_str(), "keys": keys})
        }
        CascadeReason::Provider { provider } => {
            json!({"kind": "provider", "provider": provider.as_str()})
        }
        CascadeReason::DeletedWith { target } => {
            json!({"kind": "deletedWith", "target": target.as_str()})
        }
    }
}

/// What a refresh found, as Pulumi reports it when the step ends: `delete` for a resource
/// gone, `update` for changed outputs, else `same` (always for the stack and components,
/// which have no ID to read). Other steps keep their op.
fn refresh_result(info: &StepInfo, op: StepOp, done: Applied) -> StepOp {
    if op != StepOp::Refresh {
        op
    } else if done.id.is_none() && info.old_id.is_some() {
        StepOp::Delete
    } else if info.old_outputs.as_ref() == Some(done.outputs) {
        StepOp::Same
    } else {
        StepOp::Update
    }
}

/// One stamped `EngineEvent` object. An internal one (a default provider's step, a pending
/// replacement's cleanup) goes to the event log only: Pulumi logs every event it stamps, then
/// keeps internal ones out of `--json` and its displays.
pub struct Stamped {
    pub value: Value,
    pub internal: bool,
}

impl From<Value> for Stamped {
    fn from(value: Value) -> Stamped {
        Stamped {
            value,
            internal: false,
        }
    }
}

/// Converts engine events into Pulumi's `EngineEvent` objects, stamping each.
pub struct EventWriter {
    config: BTreeMap<String, String>,
    sequence: u64,
    preview: bool,
    planned: HashMap<(Urn, StepOp), StepInfo>,
    /// The op of each component's (and the stack's) latest step, for the outputs it
    /// registers later.
    last_op: UrnMap<StepOp>,
    /// Logical steps completed so far (`ResOpFailedEvent.steps`).
    completed: usize,
    /// A failure already reported with its diagnostic; the engine's copy is skipped.
    reported: Option<(Urn, String)>,
    /// Writing the history's record: with the detail lines a replay needs, and milliseconds.
    detail: bool,
}

impl EventWriter {
    /// A writer whose prelude carries `config` (secrets already blinded).
    pub fn new(config: BTreeMap<String, String>) -> EventWriter {
        EventWriter {
            config,
            sequence: 0,
            preview: false,
            planned: HashMap::new(),
            last_op: UrnMap::default(),
            completed: 0,
            reported: None,
            detail: false,
        }
    }

    /// A writer for the history's record of a run: Pulumi's stream with, in between, the
    /// `replay_detail` lines and each line's time in milliseconds (`unixMs`), so that a replay
    /// shows what the live console showed.
    pub fn recording(config: BTreeMap<String, String>) -> EventWriter {
        EventWriter {
            detail: true,
            ..EventWriter::new(config)
        }
    }

    fn stamp(&mut self, key: &str, body: Value) -> Value {
        let now = chrono::Utc::now();
        let mut v = json!({
            "sequence": self.sequence,
            "timestamp": now.timestamp(),
            key: body,
        });
        if self.detail {
            v["unixMs"] = now.timestamp_millis().into();
        }
        self.sequence += 1;
        v
    }

    fn step_event(
        &mut self,
        key: &str,
        info: &StepInfo,
        op: StepOp,
        done: Option<Applied>,
    ) -> Stamped {
        let mut body = json!({ "metadata": step_metadata(info, op, done) });
        if self.preview {
            body["planning"] = true.into();
        }
        Stamped {
            value: self.stamp(key, body),
            internal: is_internal(info.op, &info.urn),
        }
    }

    fn known(&self, urn: &Urn, op: StepOp) -> Option<StepInfo> {
        self.planned.get(&(urn.clone(), op)).cloned()
    }

    /// A step that ended; a custom resource's plan is dropped then (only components and the
    /// stack register outputs later), so the writer holds what is in flight, not the stack.
    fn ended(&mut self, urn: &Urn, op: StepOp) -> Option<StepInfo> {
        let info = self.known(urn, op)?;
        if info.custom {
            self.planned.remove(&(urn.clone(), op));
        }
        Some(info)
    }

    /// The objects an engine event becomes, in order (often none); for the history's record,
    /// its detail line first.
    pub fn event(&mut self, e: &EngineEvent) -> Vec<Stamped> {
        let pulumi = self.pulumi_event(e);
        if !self.detail {
            return pulumi;
        }
        let Some((key, body)) = replay_detail::line(e, !pulumi.is_empty()) else {
            return pulumi;
        };
        let mut all = vec![Stamped {
            value: self.stamp(key, body),
            internal: true,
        }];
        all.extend(pulumi);
        all
    }

    fn pulumi_event(&mut self, e: &EngineEvent) -> Vec<Stamped> {
        match e {
            EngineEvent::Prelude {
                preview,
                parallel,
                parallel_diff,
                ..
            } => {
                self.preview = *preview;
                let mut body = json!({ "config": self.config });
                if self.detail {
                    body["parallel"] = (*parallel).into();
                    body["parallelDiff"] = (*parallel_diff).into();
                }
                vec![self.stamp("preludeEvent", body).into()]
            }
            EngineEvent::StepPlanned(info) => {
                self.planned
                    .insert((info.urn.clone(), info.op), (**info).clone());
                vec![]
            }
            EngineEvent::StepStarted { op, urn, .. } => {
                let Some(info) = self.known(urn, *op) else {
                    return vec![];
                };
                if !info.custom {
                    self.last_op.insert(urn.clone(), *op);
                }
                vec![self.step_event("resourcePreEvent", &info, *op, None)]
            }
            EngineEvent::StepFinished {
                op,
                urn,
                id,
                outputs,
                ..
            } => {
                let Some(info) = self.ended(urn, *op) else {
                    return vec![];
                };
                if op.is_logical() {
                    self.completed += 1;
                }
                if info.custom || matches!(op, StepOp::Delete | StepOp::Refresh) {
                    let done = Applied {
                        id: id.as_deref(),
                        outputs,
                    };
                    let op = refresh_result(&info, *op, done);
                    vec![self.step_event("resOutputsEvent", &info, op, Some(done))]
                } else {
                    vec![]
                }
            }
            EngineEvent::StepFailed { op, urn, error, .. } => {
                let Some(info) = self.ended(urn, *op).filter(|i| !is_internal(i.op, urn)) else {
                    return vec![];
                };
                let diag = json!({
                    "urn": urn.as_str(),
                    "message": format!("{error}\n"),
                    "color": "never",
                    "severity": "error",
                });
                self.reported = Some((urn.clone(), error.clone()));
                let failed = json!({
                    "metadata": step_metadata(&info, *op, None),
                    "status": 0,
                    "steps": self.completed,
                });
                vec![
                    self.stamp("diagnosticEvent", diag).into(),
                    self.stamp("resOpFailedEvent", failed).into(),
                ]
            }
            EngineEvent::ResourceOutputs { urn, outputs } => {
                let Some(info) = self
                    .last_op
                    .get(urn)
                    .copied()
                    .and_then(|op| self.known(urn, op))
                else {
                    return vec![];
                };
                let done = Applied { id: None, outputs };
                vec![self.step_event("resOutputsEvent", &info, info.op, Some(done))]
            }
            EngineEvent::Diagnostic {
                urn: Some(urn),
                message,
                ..
            } if self
                .reported
                .as_ref()
                .is_some_and(|(u, m)| u == urn && m == message) =>
            {
                self.reported = None;
                vec![]
            }
            EngineEvent::PolicyLoad { .. } => vec![self.stamp("policyLoadEvent", json!({})).into()],
            EngineEvent::StartDebugging { config, .. } => {
                vec![
                    self.stamp("startDebuggingEvent", json!({ "config": config }))
                        .into(),
                ]
            }
            EngineEvent::PolicyViolation(v) => {
                let mut body = json!({
                    "resourceUrn": v.urn.as_str(),
                    // Pulumi's colour markup around the pack's text, kept raw.
                    "message": format!("<{{%reset%}}>{}<{{%reset%}}>\n", v.message),
                    "color": "raw",
                    "policyName": v.policy_name,
                    "policyPackName": v.pack_name,
                    "policyPackVersion": v.pack_version,
                    "policyPackVersionTag": v.pack_version,
                    "enforcementLevel": v.level.as_str(),
                });
                if v.severity != PolicySeverity::Unspecified {
                    body["severity"] = v.severity.as_str().into();
                }
                vec![self.stamp("policyEvent", body).into()]
            }
            EngineEvent::PolicyRemediation(r) => {
                let mut body = json!({
                    "resourceUrn": r.urn.as_str(),
                    "color": "raw",
                    "policyName": r.policy_name,
                    "policyPackName": r.pack_name,
                    "policyPackVersion": r.pack_version,
                    "policyPackVersionTag": r.pack_version,
                });
                if !r.before.is_empty() {
                    body["before"] = blinded(&r.before);
                }
                if !r.after.is_empty() {
                    body["after"] = blinded(&r.after);
                }
                vec![self.stamp("policyRemediationEvent", body).into()]
            }
            EngineEvent::PolicySummary(s) => {
                let key = match s.call {
                    PolicyCall::Analyze => "policyAnalyzeSummaryEvent",
                    PolicyCall::Remediate => "policyRemediateSummaryEvent",
                    PolicyCall::AnalyzeStack => "policyAnalyzeStackSummaryEvent",
                };
                let mut body = serde_json::Map::new();
                if let Some(urn) = &s.urn {
                    body.insert("resourceUrn".into(), urn.as_str().into());
                }
                body.insert("policyPackName".into(), s.pack_name.clone().into());
                body.insert("policyPackVersion".into(), s.pack_version.clone().into());
                body.insert("policyPackVersionTag".into(), s.pack_version.clone().into());
                if !s.passed.is_empty() {
                    body.insert("passed".into(), json!(s.passed));
                }
                if !s.failed.is_empty() {
                    body.insert("failed".into(), json!(s.failed));
                }
                vec![self.stamp(key, Value::Object(body)).into()]
            }
            EngineEvent::Summary {
                counts,
                duration,
                outcome,
                preview,
                policy_packs,
                ..
            } => {
                let mut summary = json!({
                    "maybeCorrupt": *outcome == Outcome::Terminated,
                    "durationSeconds": duration.as_secs_f64().ceil() as u64,
                    "resourceChanges": change_summary(counts),
                    "PolicyPacks": policy_packs,
                    "isPreview": preview,
                    "result": result(outcome),
                });
                if self.detail {
                    summary["durationUs"] = u64::try_from(duration.as_micros())
                        .unwrap_or(u64::MAX)
                        .into();
                }
                vec![self.stamp("summaryEvent", summary).into()]
            }
            // stepdeck's own kinds (Pulumi has no per-step gates, cascades or pauses): named
            // `stepdeck…Event` so a consumer of Pulumi's stream can tell them apart and skip
            // them; `stepdeck replay` reads them back.
            EngineEvent::GateOpened {
                gate: id,
                chain,
                op,
                urn,
                kind,
                asked,
            } => {
                let mut gate = json!({
                    "urn": urn.as_str(),
                    "op": op.as_str(),
                    "kind": kind.as_str(),
                    "policy": if *asked { "ask" } else { "decline" },
                });
                if self.detail {
                    gate["gate"] = (*id).into();
                    gate["chain"] = (*chain).into();
                }
                vec![self.stamp("stepdeckGateEvent", gate).into()]
            }
            // A step the policy let run is the default, not a decision worth an event (but the
            // record keeps it: the replayed gate is decided as the live one was).
            EngineEvent::Decision {
                approved: true,
                by: Decider::Policy,
                ..
            } if !self.detail => vec![],
            EngineEvent::Decision {
                cascade,
                op,
                urn,
                approved,
                by,
            } => {
                let (by_kind, name) = by.parts();
                let mut decision = json!({
                    "urn": urn.as_str(),
                    "op": op.as_str(),
                    "approved": approved,
                    "by": {"kind": by_kind, "name": name},
                });
                if self.detail {
                    decision["cascade"] = (*cascade).into();
                }
                vec![self.stamp("stepdeckDecisionEvent", decision).into()]
            }
            EngineEvent::PendingReplacement {
                cascade: id,
                chain,
                root,
                members,
            } => {
                let members: Vec<Value> = members
                    .iter()
                    .map(|m| json!({"urn": m.urn.as_str(), "type": m.type_, "reason": reason(&m.reason)}))
                    .collect();
                let mut cascade = json!({"root": root.as_str(), "members": members});
                if self.detail {
                    cascade["gate"] = (*id).into();
                    cascade["chain"] = (*chain).into();
                }
                vec![self.stamp("stepdeckCascadeEvent", cascade).into()]
            }
            EngineEvent::Paused | EngineEvent::Resumed | EngineEvent::Stepped => {
                let state = match e {
                    EngineEvent::Paused => "paused",
                    EngineEvent::Resumed => "resumed",
                    _ => "stepped",
                };
                vec![
                    self.stamp("stepdeckPauseEvent", json!({"state": state}))
                        .into(),
                ]
            }
            EngineEvent::Breakpoint { op, urn } => {
                let at = json!({"urn": urn.as_str(), "op": op.as_str()});
                vec![self.stamp("stepdeckBreakpointEvent", at).into()]
            }
            EngineEvent::CancelRequested { terminate } => {
                let cancel = json!({"terminate": terminate});
                vec![self.stamp("stepdeckCancelEvent", cancel).into()]
            }
            other => diagnostic(other)
                .map(|d| self.stamp("diagnosticEvent", d).into())
                .into_iter()
                .collect(),
        }
    }

    /// The `cancelEvent` that ends every stream, as Pulumi's engine sends when an operation ends.
    pub fn finish(&mut self) -> Value {
        self.stamp("cancelEvent", json!({}))
    }
}
