//! Property values as the engine sees them: JSON-like data plus secrets, unknowns, resource
//! references and opaque assets, with Pulumi's state encoding.

use std::fmt;

use serde::de::{Error as _, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::shared_map::SharedMap;
use super::urn::{InvalidUrn, Urn};

/// Key marking a special object in the state encoding.
pub const SIG_KEY: &str = "4dabf18193072939515e22adb298388d";
pub const SECRET_SIG: &str = "1b47061264138c4ac30d75fd1eb44270";
pub const RESOURCE_REF_SIG: &str = "5cf8f73096256a8f31e491e813e4eb8e";
pub const OUTPUT_SIG: &str = "d0e6a833031e9bbcd3f4e8bde6ca49a4";
pub const ASSET_SIG: &str = "c44067f5952c0a294b673a41bacd8c17";
pub const ARCHIVE_SIG: &str = "0def7320c3a5731c473e5ecbe6d01bc7";
/// The string that stands for a value not known until apply.
pub const UNKNOWN_SENTINEL: &str = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/// Sorted map, so that diffs, state files and snapshots are stable; shared copy-on-write, so
/// that the steps and events of an unchanged resource copy no property.
pub type PropertyMap = SharedMap<PropertyValue>;

/// One property value. Unknowns exist only during planning; secrets wrap the value they hide.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum PropertyValue {
    #[default]
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<PropertyValue>),
    Object(PropertyMap),
    Secret(Box<PropertyValue>),
    Unknown,
    /// Boxed, like assets and archives: their fields would widen every value to 80 bytes, and
    /// every property map node holds eleven value slots however few entries it has.
    ResourceReference(Box<ResourceRef>),
    /// Assets and archives are carried verbatim (the engine never opens them).
    Asset(Box<Map<String, Value>>),
    Archive(Box<Map<String, Value>>),
}

/// What a resource reference names: the resource, its ID when the reference carries one, and
/// the version of the package that defines it.
#[derive(Clone, Debug, PartialEq)]
pub struct ResourceRef {
    pub urn: Urn,
    pub id: Option<PropertyValue>,
    pub package_version: String,
}

impl PropertyValue {
    pub fn string(s: impl Into<String>) -> PropertyValue {
        PropertyValue::String(s.into())
    }

    /// Whether the value or anything inside it is unknown.
    pub fn contains_unknowns(&self) -> bool {
        match self {
            PropertyValue::Unknown => true,
            PropertyValue::Array(a) => a.iter().any(PropertyValue::contains_unknowns),
            PropertyValue::Object(m) => m.values().any(PropertyValue::contains_unknowns),
            PropertyValue::Secret(v) => v.contains_unknowns(),
            _ => false,
        }
    }

    pub fn contains_secrets(&self) -> bool {
        match self {
            PropertyValue::Secret(_) => true,
            PropertyValue::Array(a) => a.iter().any(PropertyValue::contains_secrets),
            PropertyValue::Object(m) => m.values().any(PropertyValue::contains_secrets),
            _ => false,
        }
    }

    pub fn is_secret(&self) -> bool {
        matches!(self, PropertyValue::Secret(_))
    }

    /// The value with every secret wrapper removed (for providers that do not accept secrets).
    pub fn reveal(&self) -> PropertyValue {
        match self {
            PropertyValue::Secret(v) => v.reveal(),
            PropertyValue::Array(a) => PropertyValue::Array(a.iter().map(Self::reveal).collect()),
            PropertyValue::Object(m) => PropertyValue::Object(reveal_map(m)),
            other => other.clone(),
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            PropertyValue::String(s) => Some(s),
            PropertyValue::Secret(v) => v.as_str(),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            PropertyValue::Bool(b) => Some(*b),
            PropertyValue::Secret(v) => v.as_bool(),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            PropertyValue::Number(n) => Some(*n),
            PropertyValue::Secret(v) => v.as_f64(),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[PropertyValue]> {
        match self {
            PropertyValue::Array(a) => Some(a),
            PropertyValue::Secret(v) => v.as_array(),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&PropertyMap> {
        match self {
            PropertyValue::Object(m) => Some(m),
            PropertyValue::Secret(v) => v.as_object(),
            _ => None,
        }
    }

    /// Converts plain JSON (as written by a user) into a property value, decoding special objects.
    pub fn from_json(v: &Value) -> Result<PropertyValue, JsonValueError> {
        Ok(match v {
            Value::Null => PropertyValue::Null,
            Value::Bool(b) => PropertyValue::Bool(*b),
            Value::Number(n) => PropertyValue::Number(n.as_f64().unwrap_or(f64::NAN)),
            Value::String(s) if s == UNKNOWN_SENTINEL => PropertyValue::Unknown,
            Value::String(s) => PropertyValue::String(s.clone()),
            Value::Array(a) => PropertyValue::Array(
                a.iter()
                    .map(PropertyValue::from_json)
                    .collect::<Result<_, _>>()?,
            ),
            Value::Object(m) => match m.get(SIG_KEY).and_then(Value::as_str) {
                Some(SECRET_SIG) => {
                    let inner = match (m.get("plaintext"), m.get("value")) {
                        (Some(Value::String(p)), _) => {
                            let v: Value =
                                serde_json::from_str(p).map_err(JsonValueError::SecretPlaintext)?;
                            PropertyValue::from_json(&v)?
                        }
                        (_, Some(v)) => PropertyValue::from_json(v)?,
                        _ => return Err(JsonValueError::SecretWithoutValue),
                    };
                    PropertyValue::Secret(Box::new(inner))
                }
                Some(RESOURCE_REF_SIG) => {
                    let urn = m
                        .get("urn")
                        .and_then(Value::as_str)
                        .ok_or(JsonValueError::ReferenceWithoutUrn)?;
                    PropertyValue::ResourceReference(Box::new(ResourceRef {
                        urn: Urn::parse(urn)?,
                        id: m.get("id").map(PropertyValue::from_json).transpose()?,
                        package_version: m
                            .get("packageVersion")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string(),
                    }))
                }
                Some(OUTPUT_SIG) => {
                    let inner = match m.get("value") {
                        Some(v) => PropertyValue::from_json(v)?,
                        None => PropertyValue::Unknown,
                    };
                    if m.get("secret").and_then(Value::as_bool) == Some(true) {
                        PropertyValue::Secret(Box::new(inner))
                    } else {
                        inner
                    }
                }
                Some(ASSET_SIG) => PropertyValue::Asset(Box::new(m.clone())),
                Some(ARCHIVE_SIG) => PropertyValue::Archive(Box::new(m.clone())),
                Some(other) => return Err(JsonValueError::UnknownSignature(other.to_string())),
                None => PropertyValue::Object(
                    m.iter()
                        .map(|(k, v)| Ok((k.clone(), PropertyValue::from_json(v)?)))
                        .collect::<Result<_, JsonValueError>>()?,
                ),
            },
        })
    }

    /// The state encoding: secrets carry their plaintext (a secrets manager encrypts it before
    /// anything reaches disk), unknowns become the sentinel string.
    pub fn to_json(&self) -> Value {
        match self {
            PropertyValue::Null => Value::Null,
            PropertyValue::Bool(b) => Value::Bool(*b),
            PropertyValue::Number(n) => number_json(*n),
            PropertyValue::String(s) => Value::String(s.clone()),
            PropertyValue::Array(a) => Value::Array(a.iter().map(Self::to_json).collect()),
            PropertyValue::Object(m) => Value::Object(map_to_json(m)),
            PropertyValue::Secret(v) => {
                let mut o = Map::new();
                o.insert(SIG_KEY.into(), SECRET_SIG.into());
                o.insert("plaintext".into(), Value::String(v.to_json().to_string()));
                Value::Object(o)
            }
            PropertyValue::Unknown => Value::String(UNKNOWN_SENTINEL.into()),
            PropertyValue::ResourceReference(r) => {
                let mut o = Map::new();
                o.insert(SIG_KEY.into(), RESOURCE_REF_SIG.into());
                o.insert("urn".into(), r.urn.as_str().into());
                if let Some(id) = &r.id {
                    o.insert("id".into(), id.to_json());
                }
                if !r.package_version.is_empty() {
                    o.insert("packageVersion".into(), r.package_version.clone().into());
                }
                Value::Object(o)
            }
            PropertyValue::Asset(m) | PropertyValue::Archive(m) => Value::Object((**m).clone()),
        }
    }

    /// Plain JSON for people and programs: secrets masked, unknowns shown as such.
    pub fn to_display_json(&self) -> Value {
        match self {
            PropertyValue::Secret(_) => Value::String("[secret]".into()),
            PropertyValue::Unknown => Value::String("[unknown]".into()),
            PropertyValue::Array(a) => Value::Array(a.iter().map(Self::to_display_json).collect()),
            PropertyValue::Object(m) => Value::Object(
                m.iter()
                    .map(|(k, v)| (k.clone(), v.to_display_json()))
                    .collect(),
            ),
            PropertyValue::ResourceReference(r) => Value::String(r.urn.to_string()),
            other => other.to_json(),
        }
    }
}

fn number_json(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        Value::from(n as i64)
    } else {
        serde_json::Number::from_f64(n)
            .map(Value::Number)
            .unwrap_or(Value::Null)
    }
}

pub fn map_to_json(m: &PropertyMap) -> Map<String, Value> {
    m.iter().map(|(k, v)| (k.clone(), v.to_json())).collect()
}

/// Decodes a JSON object into a property map (state files, user input).
pub fn map_from_json(v: &Value) -> Result<PropertyMap, JsonValueError> {
    match PropertyValue::from_json(v)? {
        PropertyValue::Object(m) => Ok(m),
        PropertyValue::Null => Ok(PropertyMap::new()),
        _ => Err(JsonValueError::NotAnObject),
    }
}

/// Why JSON does not decode into a property value (the caller names the file and field).
#[derive(Debug, thiserror::Error)]
pub enum JsonValueError {
    #[error("secret plaintext is not JSON: {0}")]
    SecretPlaintext(serde_json::Error),
    #[error("secret has neither plaintext nor value (was it encrypted?)")]
    SecretWithoutValue,
    #[error("resource reference without urn")]
    ReferenceWithoutUrn,
    #[error(transparent)]
    ReferenceUrn(#[from] InvalidUrn),
    #[error("unknown special object signature {0}")]
    UnknownSignature(String),
    #[error("expected an object")]
    NotAnObject,
}

pub fn reveal_map(m: &PropertyMap) -> PropertyMap {
    m.iter().map(|(k, v)| (k.clone(), v.reveal())).collect()
}

/// The encoding of [`PropertyValue::to_json`], written directly: state files serialize
/// every property of every resource, and a JSON tree per value would double the work.
impl Serialize for PropertyValue {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            PropertyValue::Null => s.serialize_unit(),
            PropertyValue::Bool(b) => s.serialize_bool(*b),
            PropertyValue::Number(n) if n.fract() == 0.0 && n.abs() < 9.0e15 => {
                s.serialize_i64(*n as i64)
            }
            PropertyValue::Number(n) if n.is_finite() => s.serialize_f64(*n),
            PropertyValue::Number(_) => s.serialize_unit(),
            PropertyValue::String(v) => s.serialize_str(v),
            PropertyValue::Unknown => s.serialize_str(UNKNOWN_SENTINEL),
            PropertyValue::Array(a) => s.collect_seq(a),
            PropertyValue::Object(m) => s.collect_map(m),
            other => other.to_json().serialize(s),
        }
    }
}

/// Decodes straight from the text, without a `serde_json::Value` tree per value (a large
/// state file is mostly plain strings and objects): only a special object (one with the
/// signature key) goes through [`PropertyValue::from_json`].
impl<'de> Deserialize<'de> for PropertyValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<PropertyValue, D::Error> {
        d.deserialize_any(PropertyVisitor)
    }
}

struct PropertyVisitor;

impl<'de> Visitor<'de> for PropertyVisitor {
    type Value = PropertyValue;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a property value")
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<PropertyValue, E> {
        Ok(PropertyValue::Null)
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<PropertyValue, E> {
        Ok(PropertyValue::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<PropertyValue, D::Error> {
        PropertyValue::deserialize(d)
    }

    fn visit_bool<E: serde::de::Error>(self, b: bool) -> Result<PropertyValue, E> {
        Ok(PropertyValue::Bool(b))
    }

    fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<PropertyValue, E> {
        Ok(PropertyValue::Number(n as f64))
    }

    fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<PropertyValue, E> {
        Ok(PropertyValue::Number(n as f64))
    }

    fn visit_f64<E: serde::de::Error>(self, n: f64) -> Result<PropertyValue, E> {
        Ok(PropertyValue::Number(n))
    }

    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<PropertyValue, E> {
        Ok(if s == UNKNOWN_SENTINEL {
            PropertyValue::Unknown
        } else {
            PropertyValue::String(s.to_string())
        })
    }

    fn visit_string<E: serde::de::Error>(self, s: String) -> Result<PropertyValue, E> {
        Ok(if s == UNKNOWN_SENTINEL {
            PropertyValue::Unknown
        } else {
            PropertyValue::String(s)
        })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<PropertyValue, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(v) = seq.next_element()? {
            items.push(v);
        }
        Ok(PropertyValue::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<PropertyValue, A::Error> {
        let mut plain: Vec<(String, PropertyValue)> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            if key == SIG_KEY {
                // A special object: the entries read so far (plain values, which encode back
                // exactly) and the rest go through the tree decoder that knows signatures.
                let mut m: Map<String, Value> =
                    plain.into_iter().map(|(k, v)| (k, v.to_json())).collect();
                m.insert(key, map.next_value()?);
                while let Some((k, v)) = map.next_entry::<String, Value>()? {
                    m.insert(k, v);
                }
                return PropertyValue::from_json(&Value::Object(m)).map_err(A::Error::custom);
            }
            let value: PropertyValue = map.next_value()?;
            plain.push((key, value));
        }
        Ok(PropertyValue::Object(plain.into_iter().collect()))
    }
}

impl fmt::Display for PropertyValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PropertyValue::String(s) => write!(f, "{s:?}"),
            other => write!(f, "{}", other.to_display_json()),
        }
    }
}

impl From<&str> for PropertyValue {
    fn from(s: &str) -> Self {
        PropertyValue::String(s.to_string())
    }
}

impl From<String> for PropertyValue {
    fn from(s: String) -> Self {
        PropertyValue::String(s)
    }
}

impl From<f64> for PropertyValue {
    fn from(n: f64) -> Self {
        PropertyValue::Number(n)
    }
}

impl From<bool> for PropertyValue {
    fn from(b: bool) -> Self {
        PropertyValue::Bool(b)
    }
}

/// Builds a property map from pairs; handy for programs and tests.
pub fn props<K: Into<String>, V: Into<PropertyValue>>(
    pairs: impl IntoIterator<Item = (K, V)>,
) -> PropertyMap {
    pairs
        .into_iter()
        .map(|(k, v)| (k.into(), v.into()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_as_wide_as_a_string_and_its_tag() {
        // Every map entry holds a value, so its width is most of a map's: at 80 bytes a value,
        // a resource's two small maps (B-tree nodes of eleven slots then) were 2.3 KB of a
        // preview's 2.5 KB per resource.
        assert_eq!(std::mem::size_of::<PropertyValue>(), 32);
    }

    #[test]
    fn a_resource_reference_round_trips_through_the_state_encoding() {
        let urn = Urn::parse("urn:pulumi:s::p::aws:s3/bucket:Bucket::b").unwrap();
        let r = PropertyValue::ResourceReference(Box::new(ResourceRef {
            urn,
            id: Some(PropertyValue::string("b-1")),
            package_version: "6.0.0".into(),
        }));
        let json = r.to_json();
        assert_eq!(json[SIG_KEY], RESOURCE_REF_SIG);
        assert_eq!(json["id"], "b-1");
        assert_eq!(PropertyValue::from_json(&json).unwrap(), r);
    }

    #[test]
    fn state_encoding_round_trips_specials() {
        let mut m = PropertyMap::new();
        m.insert(
            "pw".into(),
            PropertyValue::Secret(Box::new(PropertyValue::string("hunter2"))),
        );
        m.insert("later".into(), PropertyValue::Unknown);
        m.insert("n".into(), PropertyValue::Number(3.0));
        m.insert("f".into(), PropertyValue::Number(0.5));
        m.insert(
            "list".into(),
            PropertyValue::Array(vec![PropertyValue::Bool(true), PropertyValue::Null]),
        );
        let json = Value::Object(map_to_json(&m));
        assert_eq!(json["pw"][SIG_KEY], SECRET_SIG);
        assert_eq!(json["pw"]["plaintext"], "\"hunter2\"");
        assert_eq!(json["later"], UNKNOWN_SENTINEL);
        assert_eq!(json["n"], 3);
        assert_eq!(map_from_json(&json).unwrap(), m);
    }

    #[test]
    fn numbers_survive_the_text_of_a_state_file_bit_for_bit() {
        // Digits whose shortest form parses one ULP off without serde_json's exact float parsing.
        let n = 91_910_588_961.110_43;
        let m = props([("n", PropertyValue::Number(n))]);
        let text = Value::Object(map_to_json(&m)).to_string();
        let back: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(map_from_json(&back).unwrap(), m, "{text}");
    }

    #[test]
    fn display_masks_secrets_and_unknowns() {
        let v = PropertyValue::Object(props([
            ("a", PropertyValue::Secret(Box::new("x".into()))),
            ("b", PropertyValue::Unknown),
        ]));
        assert_eq!(
            v.to_display_json().to_string(),
            r#"{"a":"[secret]","b":"[unknown]"}"#
        );
        assert!(v.contains_unknowns());
        assert!(v.contains_secrets());
        assert!(!v.reveal().contains_secrets());
    }

    #[test]
    fn decoding_from_text_agrees_with_the_tree_decoder() {
        let texts = [
            r#"{"a":"x","n":3,"f":0.5,"big":18446744073709551615,"neg":-7,"b":true,"z":null}"#,
            r#"{"l":[1,"04da6b54-80e4-46f7-96ec-b56ff0331ba9",{"deep":[[]]}],"o":{}}"#,
            // Special objects with the signature first, as written, and after other keys.
            r#"{"s":{"4dabf18193072939515e22adb298388d":"1b47061264138c4ac30d75fd1eb44270","plaintext":"\"pw\""}}"#,
            r#"{"s":{"plaintext":"[1,2]","4dabf18193072939515e22adb298388d":"1b47061264138c4ac30d75fd1eb44270"}}"#,
            r#"{"r":{"urn":"urn:pulumi:s::p::t::n","id":"i-1","4dabf18193072939515e22adb298388d":"5cf8f73096256a8f31e491e813e4eb8e"}}"#,
            r#"{"o":{"4dabf18193072939515e22adb298388d":"d0e6a833031e9bbcd3f4e8bde6ca49a4","value":{"k":"v"},"secret":true}}"#,
            r#"{"a":{"4dabf18193072939515e22adb298388d":"c44067f5952c0a294b673a41bacd8c17","text":"hi","hash":"00"}}"#,
        ];
        for text in texts {
            let direct: PropertyMap = serde_json::from_str(text).unwrap();
            let tree = map_from_json(&serde_json::from_str(text).unwrap()).unwrap();
            assert_eq!(direct, tree, "{text}");
        }
        let bad = r#"{"x":{"k":1,"4dabf18193072939515e22adb298388d":"nope"}}"#;
        assert!(serde_json::from_str::<PropertyMap>(bad).is_err());
    }

    #[test]
    fn unknown_signature_is_an_error() {
        let v: Value = serde_json::json!({SIG_KEY: "nope"});
        assert!(PropertyValue::from_json(&v).is_err());
    }
}
