//! A resource's input types read from a package schema (the JSON `GetSchema` answers): its
//! `inputProperties` and `requiredInputs`, with `$ref`s into the schema's `types` followed, so
//! that a YAML program's values are checked against a plugin's schema as against a built-in's.

use serde_json::Value;

use crate::engine::provider::input_types::{InputProperty, InputType, ObjectType};

/// How deep named object types are followed; a recursive type is `any` below it.
const MAX_DEPTH: usize = 8;

/// The input types the schema gives resource type `token`, or `None` when it has no such
/// resource.
pub fn resource_inputs(schema: &Value, token: &str) -> Option<ObjectType> {
    let resource = schema.get("resources")?.get(token)?;
    Some(ObjectType {
        token: Some(token.to_string()),
        properties: properties(
            schema,
            resource.get("inputProperties"),
            resource.get("requiredInputs"),
            0,
        ),
    })
}

fn properties(
    schema: &Value,
    props: Option<&Value>,
    required: Option<&Value>,
    depth: usize,
) -> Vec<InputProperty> {
    let required: Vec<&str> = required
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    props
        .and_then(Value::as_object)
        .map(|props| {
            props
                .iter()
                .map(|(name, spec)| InputProperty {
                    name: name.clone(),
                    type_: type_of(schema, spec, depth),
                    required: required.contains(&name.as_str()),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// One type spec: a primitive, an array, a map, a union, or a reference; anything not
/// understood is `any`, so that nothing valid is refused.
fn type_of(schema: &Value, spec: &Value, depth: usize) -> InputType {
    if let Some(one_of) = spec.get("oneOf").and_then(Value::as_array) {
        return InputType::Union(one_of.iter().map(|t| type_of(schema, t, depth)).collect());
    }
    if let Some(reference) = spec.get("$ref").and_then(Value::as_str) {
        return referenced(schema, reference, depth);
    }
    match spec.get("type").and_then(Value::as_str) {
        Some("string") => InputType::String,
        Some("integer") => InputType::Integer,
        Some("number") => InputType::Number,
        Some("boolean") => InputType::Boolean,
        Some("array") => InputType::Array(Box::new(
            spec.get("items")
                .map_or(InputType::Any, |t| type_of(schema, t, depth)),
        )),
        Some("object") => InputType::Map(Box::new(
            spec.get("additionalProperties")
                .map_or(InputType::Any, |t| type_of(schema, t, depth)),
        )),
        _ => InputType::Any,
    }
}

/// A `$ref`: Pulumi's built-in `Asset`/`Archive`, an enum (its underlying type) or an object
/// of the schema's `types`; resources, other packages' types and the rest are `any`.
fn referenced(schema: &Value, reference: &str, depth: usize) -> InputType {
    match reference {
        "pulumi.json#/Asset" => return InputType::Asset,
        "pulumi.json#/Archive" => return InputType::Archive,
        _ => {}
    }
    let Some(name) = reference.strip_prefix("#/types/") else {
        return InputType::Any;
    };
    let Some(spec) = schema.get("types").and_then(|t| t.get(name)) else {
        return InputType::Any;
    };
    if spec.get("enum").is_some() {
        return match spec.get("type").and_then(Value::as_str) {
            Some("string") => InputType::String,
            Some("integer") => InputType::Integer,
            Some("number") => InputType::Number,
            Some("boolean") => InputType::Boolean,
            _ => InputType::Any,
        };
    }
    if depth >= MAX_DEPTH || spec.get("type").and_then(Value::as_str) != Some("object") {
        return InputType::Any;
    }
    InputType::Object(ObjectType {
        token: Some(name.to_string()),
        properties: properties(
            schema,
            spec.get("properties"),
            spec.get("required"),
            depth + 1,
        ),
    })
}
