//! Stack configuration: namespaced keys, typed declarations and secure values (their
//! resolution into the plaintext map a deployment takes is `config_resolve`).

use std::fmt;

use serde_json::Value;

use super::config_path::{self, PathStep};
use super::error::{CryptError, ProjectError};
use crate::located_yaml::{Node, NodeKind, SourceError};

/// Encrypts and decrypts secure configuration values; implemented by the secrets providers
/// (passphrase, …) so that this module never sees a key.
pub trait ConfigCrypter: Send + Sync {
    fn encrypt(&self, plain: &str) -> Result<String, CryptError>;
    fn decrypt(&self, ciphertext: &str) -> Result<String, CryptError>;
}

/// A configuration key `<namespace>:<name>`; a key written without `:` belongs to the project.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ConfigKey {
    pub namespace: String,
    pub name: String,
}

impl ConfigKey {
    /// Parses a key as a user writes it, putting a bare name in the project's namespace
    /// (`region` in project `web` is `web:region`, `aws:region` stays).
    pub fn parse(key: &str, project: &str) -> Result<ConfigKey, ProjectError> {
        let bad = |why: &str| ProjectError::BadKey {
            key: key.to_string(),
            why: why.to_string(),
        };
        let (namespace, name) = match key.split_once(':') {
            Some((ns, name)) => (ns, name),
            None => (project, key),
        };
        if namespace.is_empty() {
            return Err(bad("the namespace before ':' is empty"));
        }
        if name.is_empty() {
            return Err(bad("the name is empty"));
        }
        if name.contains(':') {
            return Err(bad("expected <namespace>:<name> with a single ':'"));
        }
        Ok(ConfigKey {
            namespace: namespace.to_string(),
            name: name.to_string(),
        })
    }
}

impl fmt::Display for ConfigKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.namespace, self.name)
    }
}

/// A value in stack settings: plain (any YAML value, kept as written) or encrypted.
#[derive(Clone, Debug, PartialEq)]
pub enum ConfigValue {
    Plain(Value),
    Secure(String),
}

impl ConfigValue {
    /// Whether the value is secret: encrypted itself, or holding an encrypted leaf
    /// (`{secure: …}` inside an object or array), as Pulumi's `Value.Secure` says.
    pub fn has_secret(&self) -> bool {
        match self {
            ConfigValue::Secure(_) => true,
            ConfigValue::Plain(v) => config_path::has_secure_leaf(v),
        }
    }

    /// The value as structured config: an encrypted value is an encrypted leaf.
    pub(super) fn to_json(&self) -> Value {
        match self {
            ConfigValue::Plain(v) => v.clone(),
            ConfigValue::Secure(ct) => config_path::secure(ct),
        }
    }
}

/// What `config set` stores, at a key or a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NewConfigValue<'a> {
    /// Text as given: `type_` makes it a bool or number; without a type, a text set under a
    /// path that reads as a bool or an integer is stored as one (Pulumi's coercion).
    Text {
        text: &'a str,
        type_: Option<ScalarType>,
    },
    /// Text encrypted with the stack's crypter.
    Secret(&'a str),
}

/// `config set --type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarType {
    String,
    Int,
    Bool,
    Float,
}

impl ScalarType {
    pub(super) fn value(self, key: &ConfigKey, text: &str) -> Result<Value, ProjectError> {
        let bad = |why: &str| ProjectError::BadValue {
            key: key.to_string(),
            why: format!("{text:?} is not {why}"),
        };
        Ok(match self {
            ScalarType::String => Value::String(text.into()),
            ScalarType::Int => Value::from(text.parse::<i64>().map_err(|_| bad("an int"))?),
            ScalarType::Bool => Value::Bool(parse_go_bool(text).ok_or_else(|| bad("a bool"))?),
            ScalarType::Float => text
                .parse::<f64>()
                .ok()
                .and_then(serde_json::Number::from_f64)
                .map(Value::Number)
                .ok_or_else(|| bad("a float"))?,
        })
    }
}

/// Go's `strconv.ParseBool` spellings.
fn parse_go_bool(text: &str) -> Option<bool> {
    match text {
        "1" | "t" | "T" | "true" | "TRUE" | "True" => Some(true),
        "0" | "f" | "F" | "false" | "FALSE" | "False" => Some(false),
        _ => None,
    }
}

/// Pulumi's coercion of untyped text set under a path: `true`/`false` become bools, integers
/// (not written with a leading zero) become numbers, anything else stays text.
pub(super) fn coerce(text: &str) -> Value {
    match text {
        "true" => return Value::Bool(true),
        "false" => return Value::Bool(false),
        _ => {}
    }
    if text.len() > 1 && text.starts_with('0') {
        return Value::String(text.into());
    }
    text.parse::<i64>()
        .map(Value::from)
        .or_else(|_| text.parse::<u64>().map(Value::from))
        .unwrap_or_else(|_| Value::String(text.into()))
}

/// A key as `config` commands take it, with `--path` its path: the namespace applies to the
/// first segment only (`aws:tags.Name` is `aws:tags`, path `tags.Name`), as Pulumi parses it.
pub(super) fn parse_key_path(
    key: &str,
    project: &str,
    path: bool,
) -> Result<(ConfigKey, Vec<PathStep>), ProjectError> {
    if !path {
        let k = ConfigKey::parse(key, project)?;
        let steps = vec![PathStep::Key(k.name.clone())];
        return Ok((k, steps));
    }
    let full = match key.find(['[', '.']) {
        Some(i) if i > 0 => {
            let top = ConfigKey::parse(&key[..i], project)?;
            ConfigKey {
                namespace: top.namespace,
                name: format!("{}{}", top.name, &key[i..]),
            }
        }
        _ => ConfigKey::parse(key, project)?,
    };
    let bad = |why: String| ProjectError::BadKey {
        key: key.to_string(),
        why,
    };
    let steps =
        config_path::parse_path(&full.name).map_err(|e| bad(format!("invalid path: {e}")))?;
    match steps.first() {
        Some(PathStep::Key(first)) if !first.is_empty() => Ok((
            ConfigKey {
                namespace: full.namespace,
                name: first.clone(),
            },
            steps,
        )),
        Some(PathStep::Key(_)) => Err(bad("the config key is empty".into())),
        Some(PathStep::Index(_)) => Err(bad("the first path segment must be a name".into())),
        None => Err(bad("empty config key path".into())),
    }
}

/// A configuration value's declared type, in either spelling Pulumi accepts: the project
/// file's (`string`, `integer`, `boolean`, `array`) or Pulumi YAML's (`String`, `Number`,
/// `List<String>`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigType {
    String,
    Number,
    Integer,
    Boolean,
    List(Box<ConfigType>),
    Object,
}

impl ConfigType {
    /// Parses a type name; `None` for a name Pulumi does not know.
    pub fn parse(text: &str) -> Option<ConfigType> {
        let t = text.trim();
        if let Some(inner) = t
            .strip_prefix("List<")
            .or_else(|| t.strip_prefix("list<"))
            .and_then(|r| r.strip_suffix('>'))
        {
            return Some(ConfigType::List(Box::new(ConfigType::parse(inner)?)));
        }
        Some(match t.to_ascii_lowercase().as_str() {
            "string" => ConfigType::String,
            "number" | "float" => ConfigType::Number,
            "integer" | "int" => ConfigType::Integer,
            "boolean" | "bool" => ConfigType::Boolean,
            "array" | "list" => ConfigType::List(Box::new(ConfigType::String)),
            "object" | "map" => ConfigType::Object,
            _ => return None,
        })
    }

    /// Converts configuration text into a JSON value of this type, or says why it cannot.
    pub fn coerce(&self, text: &str) -> Result<Value, String> {
        match self {
            ConfigType::String => Ok(Value::String(text.to_string())),
            ConfigType::Number => text
                .trim()
                .parse::<f64>()
                .ok()
                .and_then(serde_json::Number::from_f64)
                .map(Value::Number)
                .ok_or_else(|| format!("expected a number, got {text:?}")),
            ConfigType::Integer => text
                .trim()
                .parse::<i64>()
                .map(Value::from)
                .map_err(|_| format!("expected an integer, got {text:?}")),
            ConfigType::Boolean => match text.trim() {
                "true" => Ok(Value::Bool(true)),
                "false" => Ok(Value::Bool(false)),
                _ => Err(format!("expected true or false, got {text:?}")),
            },
            ConfigType::List(item) => {
                let v: Value = serde_json::from_str(text)
                    .map_err(|_| format!("expected a list (JSON array), got {text:?}"))?;
                let Value::Array(items) = v else {
                    return Err(format!("expected a list, got {text:?}"));
                };
                items
                    .iter()
                    .map(|i| item.coerce(&value_text(i)))
                    .collect::<Result<Vec<_>, _>>()
                    .map(Value::Array)
            }
            ConfigType::Object => match serde_json::from_str::<Value>(text) {
                Ok(v @ Value::Object(_)) => Ok(v),
                _ => Err(format!("expected an object, got {text:?}")),
            },
        }
    }
}

/// The text a deployment sees for a plain value: strings as they are, anything else as JSON
/// with sorted keys (as Go marshals Pulumi's config objects).
pub fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => sorted_keys(other).to_string(),
    }
}

fn sorted_keys(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut entries: Vec<(&String, &Value)> = m.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.clone(), sorted_keys(v)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted_keys).collect()),
        other => other.clone(),
    }
}

/// A key the project declares in its `config:` section.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigDecl {
    pub key: ConfigKey,
    pub type_: Option<ConfigType>,
    pub default: Option<Value>,
    pub secret: bool,
    pub description: Option<String>,
}

impl ConfigDecl {
    /// Reads one declaration: the long form `{type, default, secret, description}` or a bare
    /// value, which is the key's value for every stack.
    pub fn from_node(file: &str, key: ConfigKey, node: &Node) -> Result<ConfigDecl, SourceError> {
        let Some(entries) = node.as_map() else {
            return Ok(ConfigDecl {
                key,
                type_: None,
                default: Some(node.to_json()),
                secret: false,
                description: None,
            });
        };
        let mut decl = ConfigDecl {
            key,
            type_: None,
            default: None,
            secret: false,
            description: None,
        };
        for (k, v) in entries {
            match k.name.as_str() {
                "type" => {
                    let text = v
                        .as_str()
                        .ok_or_else(|| v.error(file, "config type must be a string"))?;
                    let mut ty = ConfigType::parse(text).ok_or_else(|| {
                        v.error(
                            file,
                            format!(
                                "unknown config type {text:?} (expected String, Number, Integer, Boolean, List<T> or Object)"
                            ),
                        )
                    })?;
                    if let (ConfigType::List(_), Some(items)) = (&ty, node.get("items")) {
                        let item = items
                            .get("type")
                            .and_then(Node::as_str)
                            .and_then(ConfigType::parse)
                            .ok_or_else(|| items.error(file, "items needs a known type"))?;
                        ty = ConfigType::List(Box::new(item));
                    }
                    decl.type_ = Some(ty);
                }
                "default" | "value" => decl.default = Some(v.to_json()),
                "secret" => match v.kind {
                    NodeKind::Bool(b) => decl.secret = b,
                    _ => {
                        return Err(v.error(
                            file,
                            format!("secret must be true or false, found {}", v.kind_name()),
                        ));
                    }
                },
                "description" => decl.description = v.scalar_text(),
                "items" => {}
                other => {
                    return Err(k_error(file, k, other));
                }
            }
        }
        Ok(decl)
    }
}

fn k_error(file: &str, k: &crate::located_yaml::Key, name: &str) -> SourceError {
    SourceError::new(
        file,
        k.pos,
        format!("unknown config attribute {name:?} (expected type, default, secret, description)"),
    )
}
