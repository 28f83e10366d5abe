//! The stack's update history, as Pulumi's DIY backend keeps it: for each update,
//! `history/<project>/<stack>/<stack>-<nanos>.history.json` (Pulumi's `backend.UpdateInfo`,
//! whose `config` is a `config.Map`: a plain value as its text, a secret as `{"secure": …}`, an
//! object as its JSON) and `<stack>-<nanos>.checkpoint.json` (the checkpoint the update left),
//! then a backup of that checkpoint in `backups/<project>/<stack>/<stack>.<nanos>.json` unless
//! `PULUMI_DIY_BACKEND_DISABLE_CHECKPOINT_BACKUPS` is set; written under the stack's lock once
//! the update ends, whatever its result. The record as stepdeck keeps it rides along under a
//! `stepdeck` key, which Pulumi ignores, so that reading it back loses nothing.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::state::codec::update_events;
use crate::state::error::StateError;
use crate::state::stack_lock::StackLock;
use crate::state::stack_ref::StackRef;
use crate::state::update_record::{RecordedConfig, UpdateRecord};

use super::FileBackend;
use super::atomic::write_atomic;
use super::lock as file_lock;

const SUFFIX: &str = ".history.json";
/// An update's engine events, gzip-compressed (`codec::update_events`).
const EVENTS_SUFFIX: &str = ".events.json.gz";

/// Whether a Pulumi boolean environment variable (or its older name) is set true, as Pulumi
/// reads one: `1` or `true` in any case.
pub(super) fn pulumi_flag(names: &[&str]) -> bool {
    names
        .iter()
        .any(|n| std::env::var(n).is_ok_and(|v| v == "1" || v.eq_ignore_ascii_case("true")))
}

impl FileBackend {
    /// Appends an update to the history of the locked stack, numbering it after the last one.
    pub fn record_update(
        &self,
        lock: &StackLock,
        mut record: UpdateRecord,
    ) -> Result<UpdateRecord, StateError> {
        let stack = lock.stack();
        let dir = self.history_dir(stack);
        fs::create_dir_all(&dir).map_err(StateError::io(&dir))?;
        record.version = self.history(stack)?.first().map_or(0, |r| r.version) + 1;
        let nanos = chrono::Utc::now().timestamp_nanos_opt().unwrap_or_default();
        let base = format!("{}-{nanos}", stack.stack());
        let path = dir.join(format!("{base}{SUFFIX}"));
        let text = serde_json::to_vec(&pulumi_update_info(&record)).expect("a record serializes");
        let checkpoint = self.checkpoint_path(stack);
        let backups = !pulumi_flag(&[
            "PULUMI_DIY_BACKEND_DISABLE_CHECKPOINT_BACKUPS",
            "PULUMI_DISABLE_CHECKPOINT_BACKUPS",
        ]);
        // The copies keep the stack file's compression in their names, as Pulumi's do.
        let ext = if checkpoint.extension().is_some_and(|e| e == "gz") {
            ".json.gz"
        } else {
            ".json"
        };
        file_lock::fenced(lock, &self.stack_dir(stack), || {
            write_atomic(&path, &text).map_err(StateError::io(&path))?;
            link_or_copy(&checkpoint, &dir.join(format!("{base}.checkpoint{ext}")))?;
            if backups {
                let to = self.backups_dir(stack);
                fs::create_dir_all(&to).map_err(StateError::io(&to))?;
                link_or_copy(
                    &checkpoint,
                    &to.join(format!("{}.{nanos}{ext}", stack.stack())),
                )?;
            }
            Ok(())
        })?;
        Ok(record)
    }

    /// Keeps update `version`'s engine events beside its history file, as
    /// `<stack>-v<version>.events.json.gz` (Pulumi reads only its own suffixes); drops the
    /// events of updates too old to keep.
    pub fn record_update_events(
        &self,
        lock: &StackLock,
        version: u64,
        events: &update_events::Compressed,
    ) -> Result<(), StateError> {
        let stack = lock.stack();
        let dir = self.history_dir(stack);
        fs::create_dir_all(&dir).map_err(StateError::io(&dir))?;
        let path = self.events_path(stack, version);
        file_lock::fenced(lock, &self.stack_dir(stack), || {
            write_atomic(&path, events.bytes()).map_err(StateError::io(&path))?;
            let entries = fs::read_dir(&dir).map_err(StateError::io(&dir))?;
            let prefix = format!("{}-v", stack.stack());
            for entry in entries {
                let entry = entry.map_err(StateError::io(&dir))?;
                let name = entry.file_name();
                let old = name
                    .to_str()
                    .and_then(|n| n.strip_prefix(&prefix)?.strip_suffix(EVENTS_SUFFIX))
                    .and_then(|v| v.parse::<u64>().ok());
                if old.is_some_and(|old| update_events::dropped(old, version)) {
                    let gone = entry.path();
                    fs::remove_file(&gone).map_err(StateError::io(&gone))?;
                }
            }
            Ok(())
        })
    }

    /// Update `version`'s engine events, if kept.
    pub fn update_events(
        &self,
        stack: &StackRef,
        version: u64,
    ) -> Result<Option<Vec<u8>>, StateError> {
        let path = self.events_path(stack, version);
        let bytes = match fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(StateError::io(&path)(e)),
        };
        update_events::decompress(&update_events::stored(bytes))
            .map(Some)
            .map_err(|message| StateError::Corrupt {
                path,
                line: None,
                message,
            })
    }

    fn events_path(&self, stack: &StackRef, version: u64) -> PathBuf {
        self.history_dir(stack)
            .join(format!("{}-v{version}{EVENTS_SUFFIX}", stack.stack()))
    }

    /// The stack's updates, newest first: ours and those `pulumi` recorded.
    pub fn history(&self, stack: &StackRef) -> Result<Vec<UpdateRecord>, StateError> {
        let dir = self.history_dir(stack);
        let entries = match fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(StateError::io(&dir)(e)),
        };
        let mut files = Vec::new();
        for entry in entries {
            let path = entry.map_err(StateError::io(&dir))?.path();
            let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            let Some(nanos) = name
                .strip_suffix(SUFFIX)
                .and_then(|n| n.rsplit_once('-'))
                .and_then(|(_, n)| n.parse::<i128>().ok())
            else {
                continue;
            };
            files.push((nanos, path));
        }
        files.sort();
        let mut records = Vec::new();
        for (i, (_, path)) in files.into_iter().enumerate() {
            let text = fs::read(&path).map_err(StateError::io(&path))?;
            let corrupt = |line: Option<usize>, message: String| StateError::Corrupt {
                path: path.clone(),
                line,
                message,
            };
            let value: Value = serde_json::from_slice(&text)
                .map_err(|e| corrupt(Some(e.line()), e.to_string()))?;
            let mut record = read_update_info(value).map_err(|m| corrupt(None, m))?;
            if record.version == 0 {
                // `pulumi` leaves it unset: the updates count up in the order they ran.
                record.version = i as u64 + 1;
            }
            records.push(record);
        }
        records.sort_by_key(|r| std::cmp::Reverse(r.version));
        Ok(records)
    }
}

/// A hard link to `from` at `to` (a checkpoint is only ever replaced, never written in place,
/// so the link keeps this version), or a copy where links cannot be made.
fn link_or_copy(from: &Path, to: &PathBuf) -> Result<(), StateError> {
    let _ = fs::remove_file(to);
    if fs::hard_link(from, to).is_ok() {
        return Ok(());
    }
    fs::copy(from, to).map(drop).map_err(StateError::io(to))
}

/// The record in Pulumi's `backend.UpdateInfo` shape, stepdeck's own record beside it.
fn pulumi_update_info(record: &UpdateRecord) -> Value {
    let mut value = serde_json::to_value(record).expect("a record serializes");
    let config: Map<String, Value> = record
        .config
        .iter()
        .map(|(k, v)| (k.clone(), pulumi_config_value(v)))
        .collect();
    let ours = json!({ "config": value.get("config").cloned().unwrap_or(Value::Null) });
    if let Some(object) = value.as_object_mut() {
        object.insert("config".into(), Value::Object(config));
        object.insert("stepdeck".into(), ours);
    }
    value
}

/// A config value as Pulumi's `config.Map` writes it.
fn pulumi_config_value(v: &RecordedConfig) -> Value {
    if v.object
        && let Ok(parsed) = serde_json::from_str::<Value>(&v.string)
    {
        return parsed;
    }
    if v.secret {
        json!({ "secure": v.string })
    } else {
        Value::String(v.string.clone())
    }
}

/// A history file as either program wrote it: stepdeck's own config record when there is one,
/// else Pulumi's `config.Map` read back into ours.
fn read_update_info(mut value: Value) -> Result<UpdateRecord, String> {
    let ours = value
        .pointer("/stepdeck/config")
        .filter(|c| c.is_object())
        .cloned();
    let pulumi_config = value
        .as_object_mut()
        .and_then(|o| o.remove("config"))
        .unwrap_or(Value::Null);
    let config = match ours {
        Some(c) => serde_json::from_value(c).map_err(|e| format!("stepdeck.config: {e}"))?,
        None => from_pulumi_config(&pulumi_config),
    };
    if let Some(o) = value.as_object_mut() {
        o.remove("stepdeck");
        for (key, empty) in [("environment", json!({})), ("message", json!(""))] {
            if o.get(key).is_none_or(Value::is_null) {
                o.insert(key.into(), empty);
            }
        }
    }
    let mut record: UpdateRecord = serde_json::from_value(value).map_err(|e| e.to_string())?;
    record.config = config;
    Ok(record)
}

fn from_pulumi_config(config: &Value) -> BTreeMap<String, RecordedConfig> {
    let Some(map) = config.as_object() else {
        return BTreeMap::new();
    };
    map.iter()
        .map(|(k, v)| {
            let recorded = match v {
                Value::String(s) => RecordedConfig {
                    string: s.clone(),
                    secret: false,
                    object: false,
                },
                // stepdeck's earlier history files: Pulumi's `apitype.ConfigValue`.
                Value::Object(o)
                    if o.len() == 3
                        && o.get("string").is_some_and(Value::is_string)
                        && o.get("secret").is_some_and(Value::is_boolean)
                        && o.get("object").is_some_and(Value::is_boolean) =>
                {
                    serde_json::from_value(v.clone()).unwrap_or(RecordedConfig {
                        string: String::new(),
                        secret: false,
                        object: false,
                    })
                }
                Value::Object(o)
                    if o.len() == 1 && o.get("secure").is_some_and(Value::is_string) =>
                {
                    RecordedConfig {
                        string: o["secure"].as_str().unwrap_or_default().to_string(),
                        secret: true,
                        object: false,
                    }
                }
                other => RecordedConfig {
                    string: other.to_string(),
                    secret: other.to_string().contains("\"secure\""),
                    object: true,
                },
            };
            (k.clone(), recorded)
        })
        .collect()
}
