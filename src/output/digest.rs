//! The preview digest `preview --json` prints: Pulumi's `PreviewDigest`, one JSON document
//! written when the preview ends.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::engine::run::events::{CascadeId, StepInfo};
use crate::engine::{EngineEvent, PropertyMap, Urn};

use super::json::{change_summary, detailed_diff, diagnostic, display};
use super::visibility::Visibility;

/// A resource as Pulumi's `ResourceV3` serializes it in a digest step.
fn resource(
    info: &StepInfo,
    id: Option<&str>,
    inputs: &PropertyMap,
    outputs: Option<&PropertyMap>,
) -> Value {
    let mut o = Map::new();
    o.insert("urn".into(), info.urn.as_str().into());
    o.insert("custom".into(), info.custom.into());
    if let Some(id) = id {
        o.insert("id".into(), id.into());
    }
    o.insert("type".into(), info.type_.clone().into());
    if !inputs.is_empty() {
        o.insert("inputs".into(), display(inputs));
    }
    if let Some(out) = outputs.filter(|o| !o.is_empty()) {
        o.insert("outputs".into(), display(out));
    }
    if let Some(p) = &info.parent {
        o.insert("parent".into(), p.as_str().into());
    }
    if info.protect {
        o.insert("protect".into(), true.into());
    }
    if let Some(p) = &info.provider {
        o.insert("provider".into(), p.to_string().into());
    }
    if info.retain_on_delete {
        o.insert("retainOnDelete".into(), true.into());
    }
    if !info.hide_diffs.is_empty() {
        o.insert("hideDiff".into(), json!(info.hide_diffs));
    }
    Value::Object(o)
}

fn step(info: &StepInfo) -> Value {
    let mut step = json!({ "op": info.op.as_str(), "urn": info.urn.as_str() });
    if let Some(p) = &info.provider {
        step["provider"] = p.to_string().into();
    }
    if let Some(i) = &info.old_inputs {
        step["oldState"] = resource(info, info.old_id.as_deref(), i, info.old_outputs.as_ref());
    }
    if let Some(i) = &info.new_inputs {
        step["newState"] = resource(info, None, i, None);
    }
    if !info.diffs.is_empty() {
        step["diffReasons"] = json!(info.diffs);
    }
    if !info.replace_keys.is_empty() {
        step["replaceReasons"] = json!(info.replace_keys);
    }
    step["detailedDiff"] = detailed_diff(info, "kind");
    step
}

/// Collects a preview into Pulumi's `PreviewDigest`.
#[derive(Default)]
pub struct PreviewDigest {
    visibility: Visibility,
    steps: Vec<Value>,
    /// Each replacement cascade's resources: a declined one's steps leave the digest.
    cascades: BTreeMap<CascadeId, Vec<Urn>>,
    diagnostics: Vec<Value>,
    summary: Option<Value>,
    duration_ns: u128,
}

impl PreviewDigest {
    pub fn new(visibility: Visibility) -> PreviewDigest {
        PreviewDigest {
            visibility,
            ..PreviewDigest::default()
        }
    }

    pub fn event(&mut self, e: &EngineEvent) {
        match e {
            EngineEvent::StepPlanned(info) if self.visibility.lists(info) => {
                self.steps.push(step(info));
            }
            EngineEvent::PendingReplacement {
                cascade, members, ..
            } => {
                let urns = members.iter().map(|m| m.urn.clone()).collect();
                self.cascades.insert(*cascade, urns);
            }
            // A declined replacement keeps its resources, a declined step its resource: the
            // apply runs none of their steps.
            EngineEvent::Decision {
                cascade,
                urn,
                approved: false,
                ..
            } => {
                let urns = self
                    .cascades
                    .remove(cascade)
                    .unwrap_or_else(|| vec![urn.clone()]);
                self.steps
                    .retain(|s| !urns.iter().any(|u| s["urn"] == u.as_str()) || s["op"] == "same");
            }
            EngineEvent::Summary {
                counts, duration, ..
            } => {
                self.summary = Some(change_summary(counts));
                self.duration_ns = duration.as_nanos();
            }
            other => {
                // Pulumi's `--json` shows neither ephemeral nor debug messages.
                if let Some(mut d) = diagnostic(other)
                    .filter(|d| d.get("ephemeral").is_none() && d["severity"] != "debug")
                {
                    if let Some(o) = d.as_object_mut() {
                        o.remove("color");
                    }
                    self.diagnostics.push(d);
                }
            }
        }
    }

    /// The digest; like Pulumi's, empty members are left out.
    pub fn to_json(&self, config: &BTreeMap<String, String>) -> Value {
        let mut v = Map::new();
        if !config.is_empty() {
            v.insert("config".into(), json!(config));
        }
        if !self.steps.is_empty() {
            v.insert("steps".into(), json!(self.steps));
        }
        if !self.diagnostics.is_empty() {
            v.insert("diagnostics".into(), json!(self.diagnostics));
        }
        if self.duration_ns > 0 {
            v.insert("duration".into(), (self.duration_ns as u64).into());
        }
        if let Some(s) = self.summary.as_ref().filter(|s| s != &&json!({})) {
            v.insert("changeSummary".into(), s.clone());
        }
        Value::Object(v)
    }
}
