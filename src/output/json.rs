//! Pulumi-shaped JSON: the preview digest `preview --json` prints, and the engine events, one
//! object per line, that `up`, `destroy` and `refresh --json` stream.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::engine::events::{Severity, StepInfo};
use crate::engine::property::PropertyMap;
use crate::engine::{EngineEvent, StepOp};

fn display(m: &PropertyMap) -> Value {
    Value::Object(
        m.iter()
            .map(|(k, v)| (k.clone(), v.to_display_json()))
            .collect(),
    )
}

fn state(info: &StepInfo, inputs: Option<&PropertyMap>, outputs: Option<&PropertyMap>) -> Value {
    let mut o = Map::new();
    o.insert("urn".into(), info.urn.as_str().into());
    o.insert("custom".into(), info.custom.into());
    o.insert("type".into(), info.type_.clone().into());
    if let Some(p) = &info.parent {
        o.insert("parent".into(), p.as_str().into());
    }
    if let Some(p) = &info.provider {
        o.insert("provider".into(), p.clone().into());
    }
    if info.protect {
        o.insert("protect".into(), true.into());
    }
    o.insert("inputs".into(), inputs.map_or(json!({}), display));
    o.insert("outputs".into(), outputs.map_or(json!({}), display));
    Value::Object(o)
}

fn detailed_diff(info: &StepInfo) -> Value {
    if info.detailed_diff.is_empty() {
        return Value::Null;
    }
    serde_json::to_value(&info.detailed_diff).unwrap_or(Value::Null)
}

fn step_metadata(info: &StepInfo) -> Value {
    let old = info
        .old_inputs
        .as_ref()
        .map(|i| state(info, Some(i), info.old_outputs.as_ref()));
    let new = info.new_inputs.as_ref().map(|i| state(info, Some(i), None));
    json!({
        "op": info.op.as_str(),
        "urn": info.urn.as_str(),
        "type": info.type_,
        "old": old,
        "new": new,
        "keys": info.replace_keys,
        "diffs": info.diffs,
        "detailedDiff": detailed_diff(info),
        "logical": info.op.is_logical(),
        "provider": info.provider.clone().unwrap_or_default(),
    })
}

fn change_summary(counts: &BTreeMap<StepOp, usize>) -> Value {
    Value::Object(
        counts
            .iter()
            .map(|(op, n)| (op.as_str().to_string(), (*n).into()))
            .collect(),
    )
}

fn diagnostic(e: &EngineEvent) -> Option<Value> {
    let EngineEvent::Diagnostic {
        urn,
        severity,
        message,
        ephemeral,
    } = e
    else {
        return None;
    };
    let mut o = json!({
        "message": format!("{message}\n"),
        "color": "never",
        "severity": severity.as_str(),
    });
    if let Some(u) = urn {
        o["urn"] = u.as_str().into();
    }
    if *ephemeral {
        o["ephemeral"] = true.into();
    }
    Some(o)
}

/// Collects a preview into Pulumi's `PreviewDigest`.
#[derive(Default)]
pub struct PreviewDigest {
    steps: Vec<Value>,
    diagnostics: Vec<Value>,
    summary: Option<Value>,
    duration_ns: u128,
    outputs: Option<Value>,
}

impl PreviewDigest {
    pub fn event(&mut self, e: &EngineEvent) {
        match e {
            EngineEvent::StepPlanned(info)
                if info.op.is_logical() || info.op == StepOp::DeleteReplaced =>
            {
                let mut step = json!({
                    "op": info.op.as_str(),
                    "urn": info.urn.as_str(),
                    "provider": info.provider.clone().unwrap_or_default(),
                });
                if let Some(i) = &info.old_inputs {
                    step["oldState"] = state(info, Some(i), info.old_outputs.as_ref());
                }
                if let Some(i) = &info.new_inputs {
                    step["newState"] = state(info, Some(i), None);
                }
                if !info.diffs.is_empty() {
                    step["diffReasons"] = json!(info.diffs);
                }
                if !info.replace_keys.is_empty() {
                    step["replaceReasons"] = json!(info.replace_keys);
                }
                let dd = detailed_diff(info);
                if !dd.is_null() {
                    step["detailedDiff"] = dd;
                }
                self.steps.push(step);
            }
            EngineEvent::ResourceOutputs { urn, outputs }
                if urn.type_() == crate::engine::urn::ROOT_STACK_TYPE =>
            {
                self.outputs = Some(display(outputs));
            }
            EngineEvent::Summary {
                counts, duration, ..
            } => {
                self.summary = Some(change_summary(counts));
                self.duration_ns = duration.as_nanos();
            }
            other => {
                if let Some(d) = diagnostic(other) {
                    self.diagnostics.push(d);
                }
            }
        }
    }

    pub fn to_json(&self, config: &BTreeMap<String, String>) -> Value {
        let mut v = json!({
            "config": config,
            "steps": self.steps,
            "diagnostics": self.diagnostics,
            "duration": self.duration_ns as u64,
            "changeSummary": self.summary.clone().unwrap_or(json!({})),
        });
        if let Some(o) = &self.outputs {
            v["outputs"] = o.clone();
        }
        v
    }
}

/// Converts engine events into Pulumi's `EngineEvent` JSON objects, numbering them.
#[derive(Default)]
pub struct EventWriter {
    sequence: u64,
}

impl EventWriter {
    /// The JSON object for an event, or `None` for events Pulumi has no counterpart for.
    pub fn event(&mut self, e: &EngineEvent) -> Option<Value> {
        let (key, body) = match e {
            EngineEvent::Prelude { .. } => ("preludeEvent", json!({ "config": {} })),
            EngineEvent::StepStarted { .. } | EngineEvent::StepFinished { .. } => return None,
            EngineEvent::StepPlanned(info) => (
                "resourcePreEvent",
                json!({ "metadata": step_metadata(info), "planning": true }),
            ),
            EngineEvent::ResourceOutputs { urn, outputs } => (
                "resOutputsEvent",
                json!({ "metadata": { "op": "same", "urn": urn.as_str(), "type": urn.type_(), "new": { "urn": urn.as_str(), "outputs": display(outputs) } } }),
            ),
            EngineEvent::StepFailed { op, urn, error, .. } => (
                "resOpFailedEvent",
                json!({ "metadata": { "op": op.as_str(), "urn": urn.as_str(), "type": urn.type_() }, "status": 1, "steps": 1, "error": error }),
            ),
            EngineEvent::CancelRequested { .. } => ("cancelEvent", json!({})),
            EngineEvent::Summary {
                counts,
                duration,
                outcome,
                ..
            } => (
                "summaryEvent",
                json!({
                    "maybeCorrupt": false,
                    "durationSeconds": duration.as_secs(),
                    "resourceChanges": change_summary(counts),
                    "policyPacks": {},
                    "result": match outcome {
                        crate::engine::Outcome::Succeeded => "succeeded",
                        crate::engine::Outcome::Failed(_) => "failed",
                        crate::engine::Outcome::Cancelled | crate::engine::Outcome::Terminated => "cancelled",
                    },
                }),
            ),
            other => match diagnostic(other) {
                Some(d)
                    if !matches!(
                        other,
                        EngineEvent::Diagnostic {
                            severity: Severity::Debug,
                            ..
                        }
                    ) =>
                {
                    ("diagnosticEvent", d)
                }
                _ => return None,
            },
        };
        self.sequence += 1;
        Some(json!({
            "sequence": self.sequence,
            "timestamp": chrono::Utc::now().timestamp(),
            key: body,
        }))
    }
}
