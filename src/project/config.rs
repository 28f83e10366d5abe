//! Stack configuration: namespaced keys, typed declarations, secure values and the resolution
//! of everything into the plaintext map a deployment takes.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::Value;

use super::config_path::{self, PathStep};
use super::error::{CryptError, ProjectError};
use super::project_file::Project;
use super::stack_settings::StackSettings;
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
    fn to_json(&self) -> Value {
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
    fn value(self, key: &ConfigKey, text: &str) -> Result<Value, ProjectError> {
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
fn coerce(text: &str) -> Value {
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
fn parse_key_path(
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

/// Configuration ready for a deployment: `<namespace>:<key>` to plaintext, and which keys are
/// secret (what `engine::deployment::Options.config` and `.secret_keys` take).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ResolvedConfig {
    pub values: BTreeMap<String, String>,
    pub secret_keys: Vec<String>,
}

/// One entry as `config get`/`config ls` show it.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigEntry {
    pub key: ConfigKey,
    /// The plaintext, or `None` for a secret when no crypter was given.
    pub value: Option<String>,
    pub secret: bool,
}

impl StackSettings {
    /// The value of one key, decrypted when a crypter is given.
    pub fn get(
        &self,
        key: &str,
        project: &str,
        crypter: Option<&dyn ConfigCrypter>,
    ) -> Result<Option<ConfigEntry>, ProjectError> {
        self.get_path(key, project, false, crypter)
    }

    /// The value of one key, or with `path` of a path inside it (`config get --path`).
    pub fn get_path(
        &self,
        key: &str,
        project: &str,
        path: bool,
        crypter: Option<&dyn ConfigCrypter>,
    ) -> Result<Option<ConfigEntry>, ProjectError> {
        let (key, steps) = parse_key_path(key, project, path)?;
        let Some(value) = self.config.get(&key) else {
            return Ok(None);
        };
        if steps.len() == 1 {
            return Ok(Some(entry(&key, value, crypter)?));
        }
        let root = value.to_json();
        let Some(found) = config_path::get(&root, &steps[1..]) else {
            return Ok(None);
        };
        let found = match config_path::secure_leaf(found) {
            Some(ct) => ConfigValue::Secure(ct.to_string()),
            None => ConfigValue::Plain(found.clone()),
        };
        Ok(Some(entry(&key, &found, crypter)?))
    }

    /// Sets a key; a secret is encrypted with the crypter before it is stored.
    pub fn set(
        &mut self,
        key: &str,
        project: &str,
        value: &str,
        secret: bool,
        crypter: Option<&dyn ConfigCrypter>,
    ) -> Result<ConfigKey, ProjectError> {
        let new = if secret {
            NewConfigValue::Secret(value)
        } else {
            NewConfigValue::Text {
                text: value,
                type_: None,
            }
        };
        self.set_path(key, project, new, false, crypter)
    }

    /// Sets a key, or with `path` a path inside it, storing what Pulumi's `config set
    /// [--path]` stores.
    pub fn set_path(
        &mut self,
        key: &str,
        project: &str,
        new: NewConfigValue<'_>,
        path: bool,
        crypter: Option<&dyn ConfigCrypter>,
    ) -> Result<ConfigKey, ProjectError> {
        let (key, steps) = parse_key_path(key, project, path)?;
        let nested = steps.len() > 1;
        let leaf = match new {
            NewConfigValue::Secret(text) => {
                let crypter = crypter.ok_or_else(|| ProjectError::NoCrypter {
                    key: key.to_string(),
                })?;
                let ct = crypter
                    .encrypt(text)
                    .map_err(|source| ProjectError::Crypt {
                        key: key.to_string(),
                        action: "encrypt",
                        source,
                    })?;
                ConfigValue::Secure(ct)
            }
            NewConfigValue::Text {
                text,
                type_: Some(t),
            } => ConfigValue::Plain(t.value(&key, text)?),
            NewConfigValue::Text { text, type_: None } if nested => {
                ConfigValue::Plain(coerce(text))
            }
            NewConfigValue::Text { text, type_: None } => {
                ConfigValue::Plain(Value::String(text.to_string()))
            }
        };
        let stored = if nested {
            let mut root = self
                .config
                .get(&key)
                .map_or(Value::Null, ConfigValue::to_json);
            let mut prefix = vec![steps[0].clone()];
            config_path::set(&mut root, &mut prefix, &steps[1..], leaf.to_json()).map_err(
                |why| ProjectError::BadValue {
                    key: key.to_string(),
                    why,
                },
            )?;
            ConfigValue::Plain(root)
        } else {
            leaf
        };
        self.config.insert(key.clone(), stored);
        self.positions.remove(&key);
        Ok(key)
    }

    /// Removes a key; says whether it was there.
    pub fn rm(&mut self, key: &str, project: &str) -> Result<bool, ProjectError> {
        self.rm_path(key, project, false)
    }

    /// Removes a key, or with `path` a path inside it; says whether the key was there.
    pub fn rm_path(&mut self, key: &str, project: &str, path: bool) -> Result<bool, ProjectError> {
        let (key, steps) = parse_key_path(key, project, path)?;
        self.positions.remove(&key);
        if steps.len() == 1 {
            return Ok(self.config.remove(&key).is_some());
        }
        let Some(ConfigValue::Plain(root)) = self.config.get_mut(&key) else {
            return Ok(self.config.contains_key(&key));
        };
        config_path::remove(root, &steps[1..]).map_err(|why| ProjectError::BadValue {
            key: key.to_string(),
            why,
        })?;
        Ok(true)
    }

    /// Every key in order, secrets decrypted only when a crypter is given.
    pub fn list(
        &self,
        crypter: Option<&dyn ConfigCrypter>,
    ) -> Result<Vec<ConfigEntry>, ProjectError> {
        self.config
            .iter()
            .map(|(k, v)| entry(k, v, crypter))
            .collect()
    }

    /// Everything a deployment needs: stack values (secrets decrypted), project defaults for
    /// keys the stack does not set, declared types checked, required keys present.
    pub fn resolve(
        &self,
        project: &Project,
        crypter: Option<&dyn ConfigCrypter>,
    ) -> Result<ResolvedConfig, ProjectError> {
        let mut out = ResolvedConfig::default();
        for (key, value) in &self.config {
            let plain = match value {
                ConfigValue::Plain(v) => value_text(&decrypt_leaves(key, v, crypter)?),
                ConfigValue::Secure(ct) => decrypt(key, ct, crypter)?,
            };
            let declared = project.config.iter().find(|d| &d.key == key);
            if let Some(ty) = declared.and_then(|d| d.type_.as_ref())
                && let Err(why) = ty.coerce(&plain)
            {
                let pos = self.positions.get(key).copied().unwrap_or_default();
                return Err(SourceError::new(
                    &self.file_name,
                    pos,
                    format!("config value {key}: {why}"),
                )
                .into());
            }
            if value.has_secret() || declared.is_some_and(|d| d.secret) {
                out.secret_keys.push(key.to_string());
            }
            out.values.insert(key.to_string(), plain);
        }
        for decl in &project.config {
            let name = decl.key.to_string();
            if out.values.contains_key(&name) {
                continue;
            }
            match &decl.default {
                Some(v) => {
                    out.values.insert(name.clone(), value_text(v));
                    if decl.secret {
                        out.secret_keys.push(name);
                    }
                }
                None if decl.key.namespace == project.name => {
                    return Err(ProjectError::MissingRequired {
                        short: decl.key.name.clone(),
                        key: name,
                    });
                }
                None => {}
            }
        }
        out.secret_keys.sort();
        Ok(out)
    }
}

fn entry(
    key: &ConfigKey,
    value: &ConfigValue,
    crypter: Option<&dyn ConfigCrypter>,
) -> Result<ConfigEntry, ProjectError> {
    let shown = match (value, crypter) {
        (ConfigValue::Plain(v), _) if !config_path::has_secure_leaf(v) => Some(value_text(v)),
        (_, None) => None,
        (ConfigValue::Plain(v), Some(_)) => Some(value_text(&decrypt_leaves(key, v, crypter)?)),
        (ConfigValue::Secure(ct), Some(_)) => Some(decrypt(key, ct, crypter)?),
    };
    Ok(ConfigEntry {
        key: key.clone(),
        value: shown,
        secret: value.has_secret(),
    })
}

/// `v` with every encrypted leaf replaced by its plaintext.
fn decrypt_leaves(
    key: &ConfigKey,
    v: &Value,
    crypter: Option<&dyn ConfigCrypter>,
) -> Result<Value, ProjectError> {
    if let Some(ct) = config_path::secure_leaf(v) {
        return decrypt(key, ct, crypter).map(Value::String);
    }
    Ok(match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, item)| Ok((k.clone(), decrypt_leaves(key, item, crypter)?)))
                .collect::<Result<_, ProjectError>>()?,
        ),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| decrypt_leaves(key, item, crypter))
                .collect::<Result<_, _>>()?,
        ),
        other => other.clone(),
    })
}

fn decrypt(
    key: &ConfigKey,
    ct: &str,
    crypter: Option<&dyn ConfigCrypter>,
) -> Result<String, ProjectError> {
    let crypter = crypter.ok_or_else(|| ProjectError::NoCrypter {
        key: key.to_string(),
    })?;
    crypter.decrypt(ct).map_err(|source| ProjectError::Crypt {
        key: key.to_string(),
        action: "decrypt",
        source,
    })
}
