//! The package schema of a YAML component package (a directory whose `PulumiPlugin.yaml` has
//! the `yaml` runtime), as pulumi-yaml's provider answers `GetSchema`: one component resource
//! per entry of `components:` in the directory's YAML files, its inputs typed as declared (those
//! without a default required), its outputs of any type.

use std::path::Path;

use serde_json::{Map, Value, json};

use crate::file_limits::{self, YAML_FILE};

use super::component::yaml_files;
use super::error::{SourceError, YamlError};
use super::node::{Node, parse_document};

/// The schema of the package in `dir`; its name is the `name` of `PulumiPlugin.yaml`.
pub fn component_package_schema(dir: &Path) -> Result<Value, YamlError> {
    let manifest = dir.join("PulumiPlugin.yaml");
    let shown = manifest.display().to_string();
    let text = file_limits::read_to_string(&manifest, YAML_FILE)?;
    let doc = parse_document(&shown, &text)?;
    let field = |key: &str| doc.get(key).and_then(Node::as_str).map(str::to_string);
    let name = field("name")
        .ok_or_else(|| doc.error(&shown, "a YAML component package needs a `name`"))?;
    let mut resources = Map::new();
    for path in yaml_files(dir)? {
        let file = path.display().to_string();
        let text = file_limits::read_to_string(&path, YAML_FILE)?;
        let doc = parse_document(&file, &text)?;
        let Some(components) = doc.get("components").and_then(Node::as_map) else {
            continue;
        };
        for (key, body) in components {
            let token = format!("{name}:index:{}", key.name);
            resources.insert(token.clone(), component(&file, &token, body)?);
        }
    }
    let mut schema = json!({
        "name": name,
        "version": field("version").filter(|v| !v.is_empty()).unwrap_or_else(|| "0.0.0".into()),
        "resources": resources,
        // The generated SDKs carry the package's own version, as pulumi-yaml asks.
        "language": {
            "nodejs": {"respectSchemaVersion": true},
            "python": {"respectSchemaVersion": true},
        },
    });
    for key in ["description", "namespace"] {
        if let Some(v) = field(key) {
            schema[key] = Value::String(v);
        }
    }
    Ok(schema)
}

fn component(file: &str, token: &str, body: &Node) -> Result<Value, SourceError> {
    let mut inputs = Map::new();
    let mut required_inputs = Vec::new();
    for (key, input) in body
        .get("inputs")
        .and_then(Node::as_map)
        .unwrap_or_default()
    {
        let mut property = type_spec(file, input)?;
        match input.get("default") {
            Some(default) => {
                property["default"] = default.to_json();
            }
            None => required_inputs.push(Value::String(key.name.clone())),
        }
        if input.get("secret").and_then(|s| s.scalar_text()).as_deref() == Some("true") {
            property["secret"] = Value::Bool(true);
        }
        inputs.insert(key.name.clone(), property);
    }
    let mut properties = Map::new();
    let mut required = Vec::new();
    for (key, _) in body
        .get("outputs")
        .and_then(Node::as_map)
        .unwrap_or_default()
    {
        properties.insert(key.name.clone(), json!({"$ref": "pulumi.json#/Any"}));
        required.push(Value::String(key.name.clone()));
    }
    let mut resource = json!({
        "type": token,
        "isComponent": true,
        "properties": properties,
        "required": required,
        "inputProperties": inputs,
    });
    if !required_inputs.is_empty() {
        resource["requiredInputs"] = Value::Array(required_inputs);
    }
    if let Some(d) = body.get("description").and_then(Node::as_str) {
        resource["description"] = Value::String(d.to_string());
    }
    Ok(resource)
}

/// An input's `type` (and an array's `items`), as pulumi-yaml accepts them.
fn type_spec(file: &str, decl: &Node) -> Result<Value, SourceError> {
    let Some(type_node) = decl.get("type") else {
        return Err(decl.error(file, "a component input needs a `type`"));
    };
    match type_node.as_str() {
        Some(t @ ("string" | "integer" | "boolean" | "number")) => Ok(json!({ "type": t })),
        Some("array") => {
            let items = decl
                .get("items")
                .ok_or_else(|| decl.error(file, "an array input needs `items`"))?;
            Ok(json!({"type": "array", "items": type_spec(file, items)?}))
        }
        _ => Err(type_node.error(
            file,
            "unknown input type: use string, integer, number, boolean or array",
        )),
    }
}
