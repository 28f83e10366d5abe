//! The code `import` generates: Pulumi YAML declaring each imported resource with the inputs
//! it was imported with, its parent and provider by the names of the import, and `protect`,
//! so that adding it to the program makes the next update change nothing.

use std::collections::HashMap;

use anyhow::{Result, anyhow};
use serde_json::{Map, Value, json};
use stepdeck::engine::model::urn::ROOT_STACK_TYPE;
use stepdeck::engine::{PropertyValue, ResourceState, Urn};

use super::spec::Resolved;

/// Pulumi YAML's `resources:` for the imported resources (components have no declaration a
/// YAML program could make, and are left out).
pub(super) fn generate(resolved: &Resolved, states: &[ResourceState]) -> Result<String> {
    let by_urn: HashMap<&Urn, &ResourceState> = states
        .iter()
        .filter(|s| !s.delete)
        .map(|s| (&s.urn, s))
        .collect();
    let mut resources = Map::new();
    for e in resolved.entries.iter().filter(|e| e.id.is_some()) {
        let state = by_urn
            .get(&e.urn)
            .ok_or_else(|| anyhow!("{}: not in the stack after the import", e.urn))?;
        let mut decl = Map::new();
        decl.insert("type".into(), e.type_.clone().into());
        let properties: Map<String, Value> = state
            .inputs
            .iter()
            .filter(|(k, _)| !k.starts_with("__"))
            .map(|(k, v)| (k.clone(), yaml_value(v, &resolved.names)))
            .collect();
        if !properties.is_empty() {
            decl.insert("properties".into(), Value::Object(properties));
        }
        let mut options = Map::new();
        let reference = |urn: &Urn| {
            let name = resolved
                .names
                .get(urn)
                .cloned()
                .unwrap_or_else(|| urn.to_string());
            Value::String(format!("${{{name}}}"))
        };
        // The stack is every resource's parent by default: it is not named.
        if let Some(p) = e.parent.as_ref().filter(|p| p.type_() != ROOT_STACK_TYPE) {
            options.insert("parent".into(), reference(p));
        }
        if let Some(p) = &e.provider {
            options.insert("provider".into(), reference(p));
        }
        if state.protect {
            options.insert("protect".into(), true.into());
        }
        if !options.is_empty() {
            decl.insert("options".into(), Value::Object(options));
        }
        resources.insert(e.variable.clone(), Value::Object(decl));
    }
    if resources.is_empty() {
        return Ok(String::new());
    }
    let doc = json!({ "resources": resources });
    serde_saphyr::to_string(&doc).map_err(|e| anyhow!("generating the code: {e}"))
}

/// A property as Pulumi YAML writes it: secrets as `fn::secret`, references to resources
/// of the import by name.
fn yaml_value(v: &PropertyValue, names: &HashMap<Urn, String>) -> Value {
    match v {
        PropertyValue::Secret(inner) => json!({ "fn::secret": yaml_value(inner, names) }),
        PropertyValue::Array(a) => Value::Array(a.iter().map(|v| yaml_value(v, names)).collect()),
        PropertyValue::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), yaml_value(v, names)))
                .collect(),
        ),
        PropertyValue::ResourceReference(r) => match names.get(&r.urn) {
            Some(name) => Value::String(format!("${{{name}}}")),
            None => Value::String(r.urn.to_string()),
        },
        other => other.to_json(),
    }
}
