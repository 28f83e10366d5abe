//! Pulumi's JSON encodings of what the engine reports: resource states, step metadata,
//! diagnostics and change counts, shared by the preview digest and the engine-event stream.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::engine::model::property::{SECRET_SIG, SIG_KEY};
use crate::engine::run::events::StepInfo;
use crate::engine::{EngineEvent, PropertyMap, PropertyValue, StepOp};

/// Properties as displays show them: secrets blinded as `[secret]`, unknowns as `[unknown]`.
pub fn display(m: &PropertyMap) -> Value {
    Value::Object(
        m.iter()
            .map(|(k, v)| (k.clone(), v.to_display_json()))
            .collect(),
    )
}

/// Properties as Pulumi serializes them with its blinding crypter (policy remediation events):
/// a secret is the secret object with `[secret]` for its ciphertext, an unknown the sentinel.
pub fn blinded(m: &PropertyMap) -> Value {
    fn value(v: &PropertyValue) -> Value {
        match v {
            PropertyValue::Secret(_) => json!({ SIG_KEY: SECRET_SIG, "ciphertext": "[secret]" }),
            PropertyValue::Array(a) => Value::Array(a.iter().map(value).collect()),
            PropertyValue::Object(m) => blinded(m),
            other => other.to_json(),
        }
    }
    Value::Object(m.iter().map(|(k, v)| (k.clone(), value(v))).collect())
}

/// Pulumi's `StepEventStateMetadata` for one side of a step: `parent`, `provider` and `id`
/// are always present (empty when unknown), the flags only when set.
pub fn state(
    info: &StepInfo,
    id: Option<&str>,
    inputs: &PropertyMap,
    outputs: Option<&PropertyMap>,
) -> Value {
    let mut o = Map::new();
    o.insert("type".into(), info.type_.clone().into());
    o.insert("urn".into(), info.urn.as_str().into());
    if info.custom {
        o.insert("custom".into(), true.into());
    }
    o.insert("id".into(), id.unwrap_or_default().into());
    o.insert(
        "parent".into(),
        info.parent.as_ref().map_or("", |p| p.as_str()).into(),
    );
    if info.protect {
        o.insert("protect".into(), true.into());
    }
    if info.retain_on_delete {
        o.insert("retainOnDelete".into(), true.into());
    }
    o.insert("inputs".into(), display(inputs));
    o.insert("outputs".into(), outputs.map_or(json!({}), display));
    o.insert(
        "provider".into(),
        info.provider
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default()
            .into(),
    );
    if !info.hide_diffs.is_empty() {
        o.insert("hideDiffs".into(), json!(info.hide_diffs));
    }
    Value::Object(o)
}

/// The old side of a step: what the state held before it.
pub fn old_state(info: &StepInfo) -> Option<Value> {
    info.old_inputs
        .as_ref()
        .map(|i| state(info, info.old_id.as_deref(), i, info.old_outputs.as_ref()))
}

/// The new side of a step: the program's inputs and, once the step ran, its ID and outputs.
pub fn new_state(info: &StepInfo, done: Option<Applied>) -> Option<Value> {
    let (id, outputs) = done.map_or((None, None), |d| (d.id, Some(d.outputs)));
    info.new_inputs
        .as_ref()
        .map(|i| state(info, id, i, outputs))
}

/// What a finished step produced: the resource's ID and outputs.
#[derive(Clone, Copy)]
pub struct Applied<'a> {
    pub id: Option<&'a str>,
    pub outputs: &'a PropertyMap,
}

/// A detailed diff with the diff kind under `kind_key` (`diffKind` in engine events, `kind`
/// in the preview digest); `null` when the provider gave none, as Pulumi distinguishes.
pub fn detailed_diff(info: &StepInfo, kind_key: &str) -> Value {
    if info.detailed_diff.is_empty() {
        return Value::Null;
    }
    Value::Object(
        info.detailed_diff
            .iter()
            .map(|(path, d)| {
                let kind = serde_json::to_value(d.kind).unwrap_or(Value::Null);
                (
                    path.clone(),
                    json!({ kind_key: kind, "inputDiff": d.input_diff }),
                )
            })
            .collect(),
    )
}

/// Pulumi's `StepEventMetadata`; `op` may differ from the planned op (a refresh's result).
pub fn step_metadata(info: &StepInfo, op: StepOp, done: Option<Applied>) -> Value {
    let mut m = Map::new();
    m.insert("op".into(), op.as_str().into());
    m.insert("urn".into(), info.urn.as_str().into());
    m.insert("type".into(), info.type_.clone().into());
    m.insert("old".into(), old_state(info).into());
    m.insert("new".into(), new_state(info, done).into());
    if !info.replace_keys.is_empty() {
        m.insert("keys".into(), json!(info.replace_keys));
    }
    if !info.diffs.is_empty() {
        m.insert("diffs".into(), json!(info.diffs));
    }
    m.insert("detailedDiff".into(), detailed_diff(info, "diffKind"));
    if info.op.is_logical() {
        m.insert("logical".into(), true.into());
    }
    m.insert(
        "provider".into(),
        info.provider
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default()
            .into(),
    );
    Value::Object(m)
}

/// Change counts keyed by op name.
pub fn change_summary(counts: &BTreeMap<StepOp, usize>) -> Value {
    Value::Object(
        counts
            .iter()
            .map(|(op, n)| (op.as_str().to_string(), (*n).into()))
            .collect(),
    )
}

/// A diagnostic as Pulumi's `DiagnosticEvent` (uncoloured, newline-terminated), debug ones
/// included (the event log keeps them; `--json` leaves them out), or `None` for other events.
pub fn diagnostic(e: &EngineEvent) -> Option<Value> {
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
