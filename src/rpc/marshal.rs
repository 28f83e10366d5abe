//! `google.protobuf.Struct` ⇄ property values, encoded exactly as the Pulumi SDKs and providers
//! expect: special objects keyed by the signature key for secrets, resource references, output
//! values, assets and archives, and the sentinel string for unknowns.

use prost_types::value::Kind;
use prost_types::{ListValue, Struct, Value};
use serde_json::{Map, Number, Value as Json};

use crate::engine::model::property::{
    ARCHIVE_SIG, ASSET_SIG, OUTPUT_SIG, RESOURCE_REF_SIG, ResourceRef, SECRET_SIG, SIG_KEY,
    UNKNOWN_SENTINEL,
};
use crate::engine::{PropertyMap, PropertyValue, Urn};

/// Which special values survive marshalling; what is not kept is lowered to plain data the
/// way Pulumi's engine lowers it for peers that do not understand it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MarshalOptions {
    /// Unknowns stay (as the sentinel); otherwise they are dropped from objects.
    pub keep_unknowns: bool,
    /// Secrets stay wrapped; otherwise they are replaced by their values.
    pub keep_secrets: bool,
    /// Resource references stay; otherwise they become their ID (or URN for components).
    pub keep_resources: bool,
    /// Secrets and unknowns are sent as output values instead of secret/sentinel encodings.
    pub keep_output_values: bool,
}

impl MarshalOptions {
    /// Everything kept: what the SDKs send to us and what we send back to them.
    pub const ALL: MarshalOptions = MarshalOptions {
        keep_unknowns: true,
        keep_secrets: true,
        keep_resources: true,
        keep_output_values: false,
    };

    /// Options for a peer that announced whether it accepts secrets and resource references.
    pub fn for_peer(accept_secrets: bool, accept_resources: bool) -> MarshalOptions {
        MarshalOptions {
            keep_secrets: accept_secrets,
            keep_resources: accept_resources,
            ..MarshalOptions::ALL
        }
    }
}

/// A Struct that does not decode into property values.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("invalid property value at {path}: {reason}")]
pub struct MarshalError {
    pub path: String,
    pub reason: String,
}

fn err(path: &str, reason: impl Into<String>) -> MarshalError {
    MarshalError {
        path: path.to_string(),
        reason: reason.into(),
    }
}

/// Decodes a Struct (absent = empty) into a property map.
pub fn struct_to_map(
    s: Option<&Struct>,
    opts: MarshalOptions,
) -> Result<PropertyMap, MarshalError> {
    let mut out = PropertyMap::new();
    if let Some(s) = s {
        for (k, v) in &s.fields {
            if let Some(pv) = value_to_property(v, opts, k)? {
                out.insert(k.clone(), pv);
            }
        }
    }
    Ok(out)
}

/// Decodes one Value; `None` means the value is dropped (an unknown not kept). `path` names
/// the property in errors.
pub fn value_to_property(
    v: &Value,
    opts: MarshalOptions,
    path: &str,
) -> Result<Option<PropertyValue>, MarshalError> {
    let pv = match &v.kind {
        None | Some(Kind::NullValue(_)) => PropertyValue::Null,
        Some(Kind::BoolValue(b)) => PropertyValue::Bool(*b),
        Some(Kind::NumberValue(n)) => PropertyValue::Number(*n),
        Some(Kind::StringValue(s)) if s == UNKNOWN_SENTINEL => {
            return Ok(opts.keep_unknowns.then_some(PropertyValue::Unknown));
        }
        Some(Kind::StringValue(s)) => PropertyValue::String(s.clone()),
        Some(Kind::ListValue(l)) => PropertyValue::Array(
            l.values
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    Ok(value_to_property(e, opts, &format!("{path}[{i}]"))?
                        .unwrap_or(PropertyValue::Null))
                })
                .collect::<Result<_, MarshalError>>()?,
        ),
        Some(Kind::StructValue(s)) => return special_or_object(s, opts, path),
    };
    Ok(Some(pv))
}

fn field_str<'a>(s: &'a Struct, key: &str) -> Option<&'a str> {
    match s.fields.get(key)?.kind.as_ref()? {
        Kind::StringValue(v) => Some(v),
        _ => None,
    }
}

fn special_or_object(
    s: &Struct,
    opts: MarshalOptions,
    path: &str,
) -> Result<Option<PropertyValue>, MarshalError> {
    let Some(sig) = s.fields.get(SIG_KEY) else {
        let mut m = PropertyMap::new();
        for (k, v) in &s.fields {
            if let Some(pv) = value_to_property(v, opts, &format!("{path}.{k}"))? {
                m.insert(k.clone(), pv);
            }
        }
        return Ok(Some(PropertyValue::Object(m)));
    };
    let Some(Kind::StringValue(sig)) = &sig.kind else {
        return Err(err(path, "the signature key does not hold a string"));
    };
    match sig.as_str() {
        SECRET_SIG => {
            let inner = match s.fields.get("value") {
                Some(v) => value_to_property(v, opts, path)?,
                None => Some(PropertyValue::Null),
            };
            Ok(inner.map(|v| wrap_secret(v, opts.keep_secrets)))
        }
        RESOURCE_REF_SIG => {
            let urn =
                field_str(s, "urn").ok_or_else(|| err(path, "resource reference without urn"))?;
            let urn = Urn::parse(urn).map_err(|e| err(path, e.to_string()))?;
            let id = match s.fields.get("id") {
                None => None,
                Some(v) => match &v.kind {
                    Some(Kind::StringValue(id)) if id.is_empty() => Some(PropertyValue::Unknown),
                    _ => value_to_property(v, MarshalOptions::ALL, path)?,
                },
            };
            let package_version = field_str(s, "packageVersion")
                .unwrap_or_default()
                .to_string();
            if opts.keep_resources {
                return Ok(Some(PropertyValue::ResourceReference(Box::new(
                    ResourceRef {
                        urn,
                        id,
                        package_version,
                    },
                ))));
            }
            Ok(match id {
                Some(PropertyValue::Unknown) => {
                    opts.keep_unknowns.then_some(PropertyValue::Unknown)
                }
                Some(id) => Some(id),
                None => Some(PropertyValue::String(urn.to_string())),
            })
        }
        OUTPUT_SIG => {
            let secret = matches!(
                s.fields.get("secret").and_then(|v| v.kind.as_ref()),
                Some(Kind::BoolValue(true))
            );
            let inner = match s.fields.get("value") {
                Some(v) => value_to_property(v, opts, path)?,
                None => opts.keep_unknowns.then_some(PropertyValue::Unknown),
            };
            Ok(inner.map(|v| {
                if secret {
                    wrap_secret(v, opts.keep_secrets)
                } else {
                    v
                }
            }))
        }
        ASSET_SIG => Ok(Some(PropertyValue::Asset(Box::new(struct_to_json(s))))),
        ARCHIVE_SIG => Ok(Some(PropertyValue::Archive(Box::new(struct_to_json(s))))),
        other => Err(err(
            path,
            format!("unknown special object signature {other:?}"),
        )),
    }
}

fn wrap_secret(v: PropertyValue, keep: bool) -> PropertyValue {
    if keep && !v.is_secret() {
        PropertyValue::Secret(Box::new(v))
    } else {
        v
    }
}

/// Encodes a property map as a Struct.
pub fn map_to_struct(m: &PropertyMap, opts: MarshalOptions) -> Struct {
    Struct {
        fields: m
            .iter()
            .filter_map(|(k, v)| Some((k.clone(), property_to_value(v, opts)?)))
            .collect(),
    }
}

/// Encodes one value; `None` when it is dropped (an unknown not kept).
pub fn property_to_value(v: &PropertyValue, opts: MarshalOptions) -> Option<Value> {
    let kind = match v {
        PropertyValue::Null => Kind::NullValue(0),
        PropertyValue::Bool(b) => Kind::BoolValue(*b),
        PropertyValue::Number(n) => Kind::NumberValue(*n),
        PropertyValue::String(s) => Kind::StringValue(s.clone()),
        PropertyValue::Array(a) => Kind::ListValue(ListValue {
            values: a
                .iter()
                .map(|e| property_to_value(e, opts).unwrap_or_else(null))
                .collect(),
        }),
        PropertyValue::Object(m) => Kind::StructValue(map_to_struct(m, opts)),
        PropertyValue::Unknown if opts.keep_output_values => {
            Kind::StructValue(special(OUTPUT_SIG, Vec::new()))
        }
        PropertyValue::Unknown if opts.keep_unknowns => {
            Kind::StringValue(UNKNOWN_SENTINEL.to_string())
        }
        PropertyValue::Unknown => return None,
        PropertyValue::Secret(inner) if !opts.keep_secrets => {
            return property_to_value(inner, opts);
        }
        PropertyValue::Secret(inner) if opts.keep_output_values => {
            let mut fields = vec![("secret".to_string(), bool_value(true))];
            if let Some(v) = property_to_value(inner, opts) {
                fields.push(("value".to_string(), v));
            }
            Kind::StructValue(special(OUTPUT_SIG, fields))
        }
        PropertyValue::Secret(inner) => {
            let value = property_to_value(inner, opts).unwrap_or_else(null);
            Kind::StructValue(special(SECRET_SIG, vec![("value".to_string(), value)]))
        }
        PropertyValue::ResourceReference(r) => {
            if !opts.keep_resources {
                return match &r.id {
                    Some(id) => property_to_value(id, opts),
                    None => Some(string_value(r.urn.as_str())),
                };
            }
            let mut fields = vec![("urn".to_string(), string_value(r.urn.as_str()))];
            if let Some(id) = &r.id {
                let id = match id {
                    PropertyValue::Unknown => string_value(""),
                    other => property_to_value(other, MarshalOptions::ALL).unwrap_or_else(null),
                };
                fields.push(("id".to_string(), id));
            }
            if !r.package_version.is_empty() {
                fields.push((
                    "packageVersion".to_string(),
                    string_value(&r.package_version),
                ));
            }
            Kind::StructValue(special(RESOURCE_REF_SIG, fields))
        }
        PropertyValue::Asset(m) | PropertyValue::Archive(m) => {
            Kind::StructValue(json_object_to_struct(m))
        }
    };
    Some(Value { kind: Some(kind) })
}

fn special(sig: &str, fields: Vec<(String, Value)>) -> Struct {
    let mut s = Struct::default();
    s.fields.insert(SIG_KEY.to_string(), string_value(sig));
    s.fields.extend(fields);
    s
}

fn null() -> Value {
    Value {
        kind: Some(Kind::NullValue(0)),
    }
}

fn string_value(s: &str) -> Value {
    Value {
        kind: Some(Kind::StringValue(s.to_string())),
    }
}

fn bool_value(b: bool) -> Value {
    Value {
        kind: Some(Kind::BoolValue(b)),
    }
}

/// A Struct as plain JSON (assets and archives are carried verbatim).
pub fn struct_to_json(s: &Struct) -> Map<String, Json> {
    s.fields
        .iter()
        .map(|(k, v)| (k.clone(), value_to_json(v)))
        .collect()
}

fn value_to_json(v: &Value) -> Json {
    match &v.kind {
        None | Some(Kind::NullValue(_)) => Json::Null,
        Some(Kind::BoolValue(b)) => Json::Bool(*b),
        Some(Kind::NumberValue(n)) => Number::from_f64(*n).map_or(Json::Null, Json::Number),
        Some(Kind::StringValue(s)) => Json::String(s.clone()),
        Some(Kind::ListValue(l)) => Json::Array(l.values.iter().map(value_to_json).collect()),
        Some(Kind::StructValue(s)) => Json::Object(struct_to_json(s)),
    }
}

/// Plain JSON as a Struct.
pub fn json_object_to_struct(m: &Map<String, Json>) -> Struct {
    Struct {
        fields: m
            .iter()
            .map(|(k, v)| (k.clone(), json_to_value(v)))
            .collect(),
    }
}

fn json_to_value(v: &Json) -> Value {
    let kind = match v {
        Json::Null => Kind::NullValue(0),
        Json::Bool(b) => Kind::BoolValue(*b),
        Json::Number(n) => Kind::NumberValue(n.as_f64().unwrap_or(f64::NAN)),
        Json::String(s) => Kind::StringValue(s.clone()),
        Json::Array(a) => Kind::ListValue(ListValue {
            values: a.iter().map(json_to_value).collect(),
        }),
        Json::Object(m) => Kind::StructValue(json_object_to_struct(m)),
    };
    Value { kind: Some(kind) }
}

/// Re-marks as secret every output whose input was secret: what a provider that does not
/// accept secrets gives back must not leak what went in as a secret.
pub fn annotate_secrets(outputs: &mut PropertyMap, inputs: &PropertyMap) {
    for (k, input) in inputs {
        if let Some(out) = outputs.get_mut(k) {
            annotate_value(out, input);
        }
    }
}

fn annotate_value(out: &mut PropertyValue, input: &PropertyValue) {
    if out.is_secret() {
        return;
    }
    match (input, &mut *out) {
        (PropertyValue::Secret(_), _) => {
            *out = PropertyValue::Secret(Box::new(std::mem::take(out)));
        }
        (PropertyValue::Object(i), PropertyValue::Object(o)) => annotate_secrets(o, i),
        (PropertyValue::Array(i), PropertyValue::Array(o)) if i.len() == o.len() => {
            for (o, i) in o.iter_mut().zip(i) {
                annotate_value(o, i);
            }
        }
        _ => {}
    }
}

/// Wraps the named top-level outputs as secrets (`additionalSecretOutputs`).
pub fn mark_secret_outputs(outputs: &mut PropertyMap, keys: &[String]) {
    for k in keys {
        if let Some(v) = outputs.get_mut(k)
            && !v.is_secret()
        {
            *v = PropertyValue::Secret(Box::new(std::mem::take(v)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::property::props;

    #[test]
    fn sdk_secret_envelope_decodes_to_a_secret() {
        let mut s = Struct::default();
        s.fields.insert(
            "pw".into(),
            Value {
                kind: Some(Kind::StructValue(special(
                    SECRET_SIG,
                    vec![("value".into(), string_value("hunter2"))],
                ))),
            },
        );
        let m = struct_to_map(Some(&s), MarshalOptions::ALL).unwrap();
        assert_eq!(m["pw"], PropertyValue::Secret(Box::new("hunter2".into())));
    }

    #[test]
    fn annotate_marks_outputs_of_secret_inputs() {
        let inputs = props([
            ("a", PropertyValue::Secret(Box::new("x".into()))),
            ("b", "y".into()),
        ]);
        let mut outputs = props([("a", "x"), ("b", "y"), ("c", "z")]);
        annotate_secrets(&mut outputs, &inputs);
        assert!(outputs["a"].is_secret());
        assert!(!outputs["b"].is_secret());
        assert!(!outputs["c"].is_secret());
    }
}
