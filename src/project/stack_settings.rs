//! `Pulumi.<stack>.yaml`: a stack's configuration and secrets settings, loaded with positions
//! for errors and saved with sorted keys so the file diffs cleanly.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::config::{ConfigKey, ConfigValue};
use super::config_path;
use super::error::ProjectError;
use super::yaml_text;
use crate::file_limits::{self, YAML_FILE, check_write};
use crate::located_yaml::{MAX_DEPTH, NodeKind, Pos, SourceError, parse_document_to_depth};

/// How deep a settings file may nest for `config rm` to still open it and remove a value
/// nesting deeper than [`MAX_DEPTH`] (one written before the limit was checked on write).
const TRIM_DEPTH: usize = 4 * MAX_DEPTH;
/// Levels above a config value in the file: the document's map and `config:`.
const ABOVE_CONFIG_VALUE: usize = 2;

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
        StackSettings::load_with(dir, stack, |file, text| {
            StackSettings::parse(file, text, project)
        })
    }

    /// [`StackSettings::load`] for `config rm`: a value nesting deeper than [`MAX_DEPTH`]
    /// (up to [`TRIM_DEPTH`]) still loads, so that it can be removed; saving checks the limit.
    pub fn load_to_trim(
        dir: &Path,
        stack: &str,
        project: &str,
    ) -> Result<StackSettings, ProjectError> {
        StackSettings::load_with(dir, stack, |file, text| {
            StackSettings::parse_to_depth(file, text, project, TRIM_DEPTH)
        })
    }

    fn load_with(
        dir: &Path,
        stack: &str,
        parse: impl FnOnce(&str, &str) -> Result<StackSettings, SourceError>,
    ) -> Result<StackSettings, ProjectError> {
        let file_name = settings_file_name(stack);
        let path = dir.join(&file_name);
        match file_limits::read_to_string(&path, YAML_FILE) {
            Ok(text) => Ok(parse(&file_name, &text)?),
            Err(e) if e.is_not_found() => Ok(StackSettings {
                file_name,
                ..StackSettings::default()
            }),
            Err(e) => Err(e.into()),
        }
    }

    /// Parses settings text; keys without a namespace are put in the project's. A value that
    /// nests too deep is an error naming its key and how to remove it.
    pub fn parse(file: &str, text: &str, project: &str) -> Result<StackSettings, SourceError> {
        StackSettings::parse_to_depth(file, text, project, MAX_DEPTH).map_err(|e| {
            match StackSettings::parse_to_depth(file, text, project, TRIM_DEPTH) {
                Ok(deep) => deep.too_deep(MAX_DEPTH).unwrap_or(e),
                Err(_) => e,
            }
        })
    }

    /// The first config value nesting deeper than `max_depth` levels in the file.
    fn too_deep(&self, max_depth: usize) -> Option<SourceError> {
        self.config.iter().find_map(|(key, value)| {
            let depth = ABOVE_CONFIG_VALUE + nesting(&value.to_json());
            (depth > max_depth).then(|| {
                SourceError::new(
                    &self.file_name,
                    self.positions
                        .get(key)
                        .copied()
                        .unwrap_or(Pos { line: 1, col: 1 }),
                    format!(
                        "config value {key} nests {depth} levels deep in the file, more than the \
                         {max_depth} stepdeck reads: remove it with `stepdeck config rm {key}` \
                         (or a part of it with `--path`)"
                    ),
                )
            })
        })
    }

    fn parse_to_depth(
        file: &str,
        text: &str,
        project: &str,
        max_depth: usize,
    ) -> Result<StackSettings, SourceError> {
        let doc = parse_document_to_depth(file, text, max_depth)?;
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

    /// Writes `<dir>/Pulumi.<stack>.yaml` atomically (temp file, then rename), only if it
    /// reads back: a value nesting deeper than the reader's [`MAX_DEPTH`], or a file past any
    /// other limit of the reader, is refused naming the key and the limit, nothing written.
    pub fn save(&self, dir: &Path, stack: &str) -> Result<PathBuf, ProjectError> {
        let file_name = settings_file_name(stack);
        let path = dir.join(&file_name);
        for (key, value) in &self.config {
            let depth = ABOVE_CONFIG_VALUE + nesting(&value.to_json());
            if depth > MAX_DEPTH {
                return Err(ProjectError::TooDeep {
                    file: file_name,
                    key: key.to_string(),
                    depth,
                    limit: MAX_DEPTH,
                });
            }
        }
        let text = self.to_yaml();
        check_write(&file_name, text.len(), YAML_FILE)?;
        if let Err(e) = StackSettings::parse(&file_name, &text, "") {
            return Err(ProjectError::WouldNotRead {
                file: file_name,
                why: e.to_string(),
            });
        }
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

/// How many levels of maps and lists a value is (a scalar is none).
fn nesting(value: &Value) -> usize {
    match value {
        Value::Object(m) => 1 + m.values().map(nesting).max().unwrap_or(0),
        Value::Array(a) => 1 + a.iter().map(nesting).max().unwrap_or(0),
        _ => 0,
    }
}
