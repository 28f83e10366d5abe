//! Stack configuration: namespaced keys, typed declarations, secure values and the resolution
//! of everything into the plaintext map a deployment takes.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::Value;

use super::error::{CryptError, ProjectError};
use super::project_file::Project;
use super::stack_settings::StackSettings;
use crate::yaml::{Node, NodeKind, SourceError};

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
    pub fn is_secure(&self) -> bool {
        matches!(self, ConfigValue::Secure(_))
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

/// The text a deployment sees for a plain value: strings as they are, anything else as JSON.
pub fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
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

fn k_error(file: &str, k: &crate::yaml::Key, name: &str) -> SourceError {
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
        let key = ConfigKey::parse(key, project)?;
        let Some(value) = self.config.get(&key) else {
            return Ok(None);
        };
        Ok(Some(entry(&key, value, crypter)?))
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
        let key = ConfigKey::parse(key, project)?;
        let stored = if secret {
            let crypter = crypter.ok_or_else(|| ProjectError::NoCrypter {
                key: key.to_string(),
            })?;
            let ct = crypter
                .encrypt(value)
                .map_err(|source| ProjectError::Crypt {
                    key: key.to_string(),
                    action: "encrypt",
                    source,
                })?;
            ConfigValue::Secure(ct)
        } else {
            ConfigValue::Plain(Value::String(value.to_string()))
        };
        self.config.insert(key.clone(), stored);
        self.positions.remove(&key);
        Ok(key)
    }

    /// Removes a key; says whether it was there.
    pub fn rm(&mut self, key: &str, project: &str) -> Result<bool, ProjectError> {
        let key = ConfigKey::parse(key, project)?;
        self.positions.remove(&key);
        Ok(self.config.remove(&key).is_some())
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
                ConfigValue::Plain(v) => value_text(v),
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
            if value.is_secure() || declared.is_some_and(|d| d.secret) {
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
    Ok(match value {
        ConfigValue::Plain(v) => ConfigEntry {
            key: key.clone(),
            value: Some(value_text(v)),
            secret: false,
        },
        ConfigValue::Secure(ct) => ConfigEntry {
            key: key.clone(),
            value: match crypter {
                Some(_) => Some(decrypt(key, ct, crypter)?),
                None => None,
            },
            secret: true,
        },
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
