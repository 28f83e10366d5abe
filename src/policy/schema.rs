//! A policy's config checked against its schema (`{type: object, properties, required}`),
//! each error in the words of gojsonschema, the validator Pulumi uses, so that messages read
//! as `pulumi` prints them (`foo is required`, `foo: Invalid type. Expected: string, given:
//! integer`, `names: Array must have at least 1 items`).

use jsonschema::error::{TypeKind, ValidationErrorKind};
use serde_json::{Map, Value, json};

use crate::rpc::policy::info::ConfigSchema;

/// gojsonschema's name for an instance's type: a whole number is an `integer`.
fn given(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(n) if n.as_f64().is_some_and(|f| f.fract() == 0.0) => "integer",
        Value::Number(_) => "number",
    }
}

/// An instance path (`/foo/0`) as gojsonschema names the field (`foo.0`, `(root)` at the top).
fn field(pointer: &str) -> String {
    if pointer.is_empty() {
        return "(root)".to_string();
    }
    pointer
        .trim_start_matches('/')
        .split('/')
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect::<Vec<_>>()
        .join(".")
}

fn listed(values: &Value) -> String {
    match values {
        Value::Array(a) => a
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        other => other.to_string(),
    }
}

fn expected(kind: &TypeKind) -> String {
    match kind {
        TypeKind::Single(t) => t.to_string(),
        TypeKind::Multiple(set) => set
            .iter()
            .map(|t| t.to_string())
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// One error's description, as gojsonschema words it.
fn describe(kind: &ValidationErrorKind, instance: &Value, field: &str) -> Vec<String> {
    use ValidationErrorKind as K;
    let one = |s: String| vec![s];
    match kind {
        K::Required { property } => one(format!(
            "{} is required",
            property
                .as_str()
                .map_or_else(|| property.to_string(), str::to_string)
        )),
        K::Type { kind } => one(format!(
            "Invalid type. Expected: {}, given: {}",
            expected(kind),
            given(instance)
        )),
        K::Enum { options } => one(format!(
            "{field} must be one of the following: {}",
            listed(options)
        )),
        K::Constant { expected_value } => one(format!("{field} does not match: {expected_value}")),
        K::MinLength { limit } => one(format!(
            "String length must be greater than or equal to {limit}"
        )),
        K::MaxLength { limit } => one(format!(
            "String length must be less than or equal to {limit}"
        )),
        K::Pattern { pattern } => one(format!("Does not match pattern '{pattern}'")),
        K::Format { format } => one(format!("Does not match format '{format}'")),
        K::Minimum { limit } => one(format!("Must be greater than or equal to {limit}")),
        K::Maximum { limit } => one(format!("Must be less than or equal to {limit}")),
        K::ExclusiveMinimum { limit } => one(format!("Must be greater than {limit}")),
        K::ExclusiveMaximum { limit } => one(format!("Must be less than {limit}")),
        K::MultipleOf { multiple_of } => one(format!("Must be a multiple of {multiple_of}")),
        K::MinItems { limit } => one(format!("Array must have at least {limit} items")),
        K::MaxItems { limit } => one(format!("Array must have at most {limit} items")),
        K::UniqueItems => one("array items must be unique".to_string()),
        K::MinProperties { limit } => one(format!("Must have at least {limit} properties")),
        K::MaxProperties { limit } => one(format!("Must have at most {limit} properties")),
        K::AdditionalProperties { unexpected } => unexpected
            .iter()
            .map(|p| format!("Additional property {p} is not allowed"))
            .collect(),
        K::AnyOf { .. } => one("Must validate at least one schema (anyOf)".to_string()),
        K::OneOfMultipleValid { .. } | K::OneOfNotValid { .. } => {
            one("Must validate one and only one schema (oneOf)".to_string())
        }
        K::Not { .. } => one("Must not validate the schema (not)".to_string()),
        K::Contains => one("At least one of the items must match".to_string()),
        K::FalseSchema => one("False always fails validation".to_string()),
        other => one(format!("{} is not valid", other.keyword())),
    }
}

/// The errors of `config` against `schema`, each `<field>: <description>` (the root's field
/// left out), as Pulumi reports them.
pub fn validate(schema: &ConfigSchema, config: &Map<String, Value>) -> Vec<String> {
    let mut whole = json!({ "type": "object" });
    if !schema.properties.is_empty() {
        whole["properties"] = Value::Object(schema.properties.clone());
    }
    if !schema.required.is_empty() {
        whole["required"] = json!(schema.required);
    }
    let validator = match jsonschema::validator_for(&whole) {
        Ok(v) => v,
        Err(e) => return vec![format!("the policy's config schema is invalid: {e}")],
    };
    let instance = Value::Object(config.clone());
    let mut out = Vec::new();
    for e in validator.iter_errors(&instance) {
        let field = field(e.instance_path().as_str());
        for description in describe(e.kind(), e.instance(), &field) {
            if field == "(root)" {
                out.push(description);
            } else {
                out.push(format!("{field}: {description}"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema(properties: Value, required: &[&str]) -> ConfigSchema {
        ConfigSchema {
            properties: properties.as_object().unwrap().clone(),
            required: required.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn errors(s: &ConfigSchema, config: Value) -> Vec<String> {
        validate(s, config.as_object().unwrap())
    }

    /// The messages of pulumi-policy's `TestConfig` scenarios and Pulumi's
    /// `policy_config_schema` conformance test.
    #[test]
    fn errors_read_as_gojsonschema_writes_them() {
        let s = schema(json!({"foo": {"type": "string"}}), &["foo"]);
        assert_eq!(errors(&s, json!({})), ["foo is required"]);
        assert_eq!(
            errors(&s, json!({"foo": 1})),
            ["foo: Invalid type. Expected: string, given: integer"]
        );
        let s = schema(json!({"foo": {"type": "string", "maxLength": 3}}), &[]);
        assert_eq!(
            errors(&s, json!({"foo": "abcd"})),
            ["foo: String length must be less than or equal to 3"]
        );
        let s = schema(
            json!({"foo": {"type": "string", "enum": ["bar", "baz"]}}),
            &[],
        );
        assert_eq!(
            errors(&s, json!({"foo": "qux"})),
            [r#"foo: foo must be one of the following: "bar", "baz""#]
        );
        let s = schema(json!({"foo": {"const": "bar"}}), &[]);
        assert_eq!(
            errors(&s, json!({"foo": "qux"})),
            [r#"foo: foo does not match: "bar""#]
        );
        let s = schema(json!({"bar": {"type": "integer"}}), &[]);
        assert_eq!(
            errors(&s, json!({"bar": 1.5})),
            ["bar: Invalid type. Expected: integer, given: number"]
        );
        let s = schema(json!({"names": {"type": "array", "minItems": 1}}), &[]);
        assert_eq!(
            errors(&s, json!({"names": []})),
            ["names: Array must have at least 1 items"]
        );
        assert!(errors(&s, json!({"names": ["a"]})).is_empty());
    }
}
