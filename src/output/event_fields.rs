//! Reading the fields of an engine-event line: each missing or mistyped field an error that
//! names it, and a step's metadata as the display saw it.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::engine::provider::PropertyDiff;
use crate::engine::run::events::{ChainId, StepInfo};
use crate::engine::{PropertyMap, PropertyValue, ProviderRef, StepOp, Urn};

pub(super) fn field<'a>(o: &'a Map<String, Value>, key: &str) -> Result<&'a Value, String> {
    o.get(key).ok_or_else(|| format!("`{key}` is missing"))
}

pub(super) fn text<'a>(o: &'a Map<String, Value>, key: &str) -> Result<&'a str, String> {
    field(o, key)?
        .as_str()
        .ok_or_else(|| format!("`{key}` is not a string"))
}

pub(super) fn urn(o: &Map<String, Value>, key: &str) -> Result<Urn, String> {
    let s = text(o, key)?;
    Urn::parse(s).map_err(|e| format!("`{key}`: {e}"))
}

pub(super) fn op(o: &Map<String, Value>) -> Result<StepOp, String> {
    let s = text(o, "op")?;
    StepOp::parse(s).ok_or_else(|| format!("`op`: unknown step `{s}`"))
}

pub(super) fn strings(o: &Map<String, Value>, key: &str) -> Vec<String> {
    o.get(key)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

pub(super) fn object<'a>(
    o: &'a Map<String, Value>,
    key: &str,
) -> Result<&'a Map<String, Value>, String> {
    field(o, key)?
        .as_object()
        .ok_or_else(|| format!("`{key}` is not an object"))
}

pub(super) fn properties(v: Option<&Value>) -> Result<Option<PropertyMap>, String> {
    let Some(Value::Object(m)) = v else {
        return Ok(None);
    };
    m.iter()
        .map(|(k, v)| {
            PropertyValue::from_json(v)
                .map(|p| (k.clone(), p))
                .map_err(|e| format!("property `{k}`: {e}"))
        })
        .collect::<Result<PropertyMap, String>>()
        .map(Some)
}

pub(super) fn non_empty(o: &Map<String, Value>, key: &str) -> Option<String> {
    o.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// A step's metadata as the display saw it when the step was planned.
pub(super) fn step_info(m: &Map<String, Value>, chain: ChainId) -> Result<StepInfo, String> {
    let old = m.get("old").and_then(Value::as_object);
    let new = m.get("new").and_then(Value::as_object);
    let side = new.or(old);
    let detailed_diff = match m.get("detailedDiff") {
        Some(Value::Object(d)) => d
            .iter()
            .map(|(path, v)| {
                let mut v = v.clone();
                if let Some(o) = v.as_object_mut()
                    && let Some(kind) = o.remove("diffKind")
                {
                    o.insert("kind".into(), kind);
                }
                serde_json::from_value::<PropertyDiff>(v)
                    .map(|d| (path.clone(), d))
                    .map_err(|e| format!("`detailedDiff.{path}`: {e}"))
            })
            .collect::<Result<BTreeMap<_, _>, _>>()?,
        _ => BTreeMap::new(),
    };
    Ok(StepInfo {
        op: op(m)?,
        urn: urn(m, "urn")?,
        type_: text(m, "type")?.to_string(),
        parent: side
            .and_then(|s| non_empty(s, "parent"))
            .and_then(|p| Urn::parse(&p).ok()),
        custom: side.is_some_and(|s| s.get("custom") == Some(&Value::Bool(true))),
        chain: Some(chain),
        diffs: strings(m, "diffs"),
        replace_keys: strings(m, "keys"),
        detailed_diff,
        old_inputs: properties(old.and_then(|o| o.get("inputs")))?,
        old_outputs: properties(old.and_then(|o| o.get("outputs")))?,
        old_id: old.and_then(|o| non_empty(o, "id")),
        new_inputs: properties(new.and_then(|o| o.get("inputs")))?,
        provider: non_empty(m, "provider")
            .map(|p| ProviderRef::parse(&p).map_err(|e| format!("`provider`: {e}")))
            .transpose()?,
        delete_before_replace: false,
        dependencies: Arc::from(Vec::new()),
        protect: side.is_some_and(|s| s.get("protect") == Some(&Value::Bool(true))),
        retain_on_delete: side.is_some_and(|s| s.get("retainOnDelete") == Some(&Value::Bool(true))),
        hide_diffs: side.map(|s| strings(s, "hideDiffs")).unwrap_or_default(),
    })
}
