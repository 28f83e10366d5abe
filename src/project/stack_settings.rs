//! `Pulumi.<stack>.yaml`: a stack's configuration and secrets settings, loaded with positions
//! for errors and saved with sorted keys so the file diffs cleanly.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::config::{ConfigKey, ConfigValue};
use super::config_path;
use super::error::ProjectError;
use super::yaml_text;
use crate::located_yaml::{NodeKind, Pos, SourceError};
use crate::located_yaml::{parse_document, read_yaml_file};

/// One stack's settings file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StackSettings {
    /// `Pulumi.<stack>.yaml`, for error messages.
    pub file_name: String,
    pub encryption_salt: Option<String>,
    pub config: BTreeMap<ConfigKey, ConfigValue>,
    /// Other top-level keys (`secretsprovider`, `encryptedkey`, …), kept so a save loses nothing.
    pub extra: BTreeMap<String, Value>,
    /// Where each config value was written, for typed errors.
    pub(crate) positions: BTreeMap<ConfigKey, Pos>,
}

/// The settings file name of a stack.
pub fn settings_file_name(stack: &str) -> String {
    format!("Pulumi.{stack}.yaml")
}

impl StackSettings {
    /// Reads `<dir>/Pulumi.<stack>.yaml`; a stack without the file has empty settings.
    pub fn load(dir: &Path, stack: &str, project: &str) -> Result<StackSettings, ProjectError> {
        let file_name = settings_file_name(stack);
        let path = dir.join(&file_name);
        match read_yaml_file(&path) {
            Ok(text) => Ok(StackSettings::parse(&file_name, &text, project)?),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(StackSettings {
                file_name,
                ..StackSettings::default()
            }),
            Err(source) => Err(ProjectError::Io { path, source }),
        }
    }

    /// Parses settings text; keys without a namespace are put in the project's.
    pub fn parse(file: &str, text: &str, project: &str) -> Result<StackSettings, SourceError> {
        let doc = parse_document(file, text)?;
        let mut s = StackSettings {
            file_name: file.to_string(),
            ..StackSettings::default()
        };
        let entries = match &doc.kind {
            NodeKind::Map(m) => m,
            NodeKind::Null => return Ok(s),
            _ => return Err(doc.error(file, "stack settings must be a mapping")),
        };
        for (k, v) in entries {
            match k.name.as_str() {
                "encryptionsalt" => {
                    s.encryption_salt = Some(
                        v.as_str()
                            .ok_or_else(|| v.error(file, "`encryptionsalt` must be a string"))?
                            .to_string(),
                    )
                }
                "config" => {
                    let Some(cfg) = v.as_map() else {
                        if matches!(v.kind, NodeKind::Null) {
                            continue;
                        }
                        return Err(v.error(file, "`config` must be a mapping"));
                    };
                    for (ck, cv) in cfg {
                        let key = ConfigKey::parse(&ck.name, project)
                            .map_err(|e| SourceError::new(file, ck.pos, e.to_string()))?;
                        let value = match (cv.as_map(), cv.get("secure")) {
                            (Some(m), Some(ct)) if m.len() == 1 => ConfigValue::Secure(
                                ct.as_str()
                                    .ok_or_else(|| {
                                        ct.error(
                                            file,
                                            format!("`secure` value of {key} must be a string"),
                                        )
                                    })?
                                    .to_string(),
                            ),
                            _ => ConfigValue::Plain(cv.to_json()),
                        };
                        s.positions.insert(key.clone(), cv.pos);
                        s.config.insert(key, value);
                    }
                }
                other => {
                    s.extra.insert(other.to_string(), v.to_json());
                }
            }
        }
        Ok(s)
    }

    /// The file's text as Pulumi writes it: `secretsprovider`, `encryptedkey`,
    /// `encryptionsalt`, `config`, `environment` in that order, then any other keys; config
    /// keys in go-yaml's order; secure values as `{secure: …}`.
    pub fn to_yaml(&self) -> String {
        let mut extra = self.extra.clone();
        let mut top: Vec<(String, Value)> = Vec::new();
        for key in ["secretsprovider", "encryptedkey"] {
            if let Some(v) = extra.remove(key) {
                top.push((key.to_string(), v));
            }
        }
        if let Some(salt) = &self.encryption_salt {
            top.push(("encryptionsalt".into(), Value::String(salt.clone())));
        }
        if !self.config.is_empty() {
            let cfg: Map<String, Value> = self
                .config
                .iter()
                .map(|(k, v)| {
                    let value = match v {
                        ConfigValue::Plain(v) => v.clone(),
                        ConfigValue::Secure(ct) => config_path::secure(ct),
                    };
                    (k.to_string(), value)
                })
                .collect();
            top.push(("config".into(), Value::Object(cfg)));
        }
        if let Some(v) = extra.remove("environment") {
            top.push(("environment".into(), v));
        }
        top.extend(extra);
        yaml_text::document(&top)
    }

    /// Writes `<dir>/Pulumi.<stack>.yaml` atomically (temp file, then rename).
    pub fn save(&self, dir: &Path, stack: &str) -> Result<PathBuf, ProjectError> {
        let path = dir.join(settings_file_name(stack));
        let text = self.to_yaml();
        // A fresh name, created exclusively: a file or symlink planted at the temporary name
        // is never written through, and concurrent saves do not share one.
        let tmp = dir.join(format!(
            ".{}.{}.tmp",
            settings_file_name(stack),
            uuid::Uuid::new_v4().simple()
        ));
        let io = |source| ProjectError::Io {
            path: path.clone(),
            source,
        };
        let written = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .and_then(|mut f| {
                std::io::Write::write_all(&mut f, text.as_bytes())?;
                f.sync_all()
            })
            .and_then(|()| std::fs::rename(&tmp, &path));
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        written.map_err(io)?;
        Ok(path)
    }
}
