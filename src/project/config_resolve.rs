//! The resolution of a stack's configuration into the plaintext map a deployment takes: the
//! project's declarations and defaults, the stack's values, secure values decrypted.

use std::collections::BTreeMap;

use serde_json::Value;

use super::config::{
    ConfigCrypter, ConfigKey, ConfigValue, NewConfigValue, coerce, parse_key_path, value_text,
};
use super::config_path;
use super::error::ProjectError;
use super::project_file::Project;
use super::stack_settings::StackSettings;
use crate::located_yaml::SourceError;

/// Configuration ready for a deployment: `<namespace>:<key>` to plaintext, and which keys are
/// secret (what `engine::Options.config` and `.secret_keys` take).
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
    /// The value is a map or a list (its text is JSON), Pulumi's `Value.Object`.
    pub object: bool,
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
        self.resolve_checked(project, crypter, true)
    }

    /// As [`Self::resolve`] without checking the values against the project's declarations
    /// (types, required keys), as Pulumi's refresh and destroy that do not run the program, and
    /// `--skip-config-validation`, take the config.
    pub fn resolve_unvalidated(
        &self,
        project: &Project,
        crypter: Option<&dyn ConfigCrypter>,
    ) -> Result<ResolvedConfig, ProjectError> {
        self.resolve_checked(project, crypter, false)
    }

    fn resolve_checked(
        &self,
        project: &Project,
        crypter: Option<&dyn ConfigCrypter>,
        validate: bool,
    ) -> Result<ResolvedConfig, ProjectError> {
        let mut out = ResolvedConfig::default();
        for (key, value) in &self.config {
            let plain = match value {
                ConfigValue::Plain(v) => value_text(&decrypt_leaves(key, v, crypter)?),
                ConfigValue::Secure(ct) => decrypt(key, ct, crypter)?,
            };
            let declared = project.config.iter().find(|d| &d.key == key);
            if let Some(ty) = declared.and_then(|d| d.type_.as_ref())
                && validate
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
                None if validate && decl.key.namespace == project.name => {
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
        object: matches!(
            value,
            ConfigValue::Plain(Value::Object(_) | Value::Array(_))
        ),
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
