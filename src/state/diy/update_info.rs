//! An update's history file, Pulumi's `backend.UpdateInfo` (whose `config` is a
//! `config.Map`: a plain value as its text, a secret as `{"secure": …}`, an object as its
//! JSON), with stepdeck's own record riding along under a `stepdeck` key, which Pulumi
//! ignores, so that reading it back loses nothing.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{Map, Value, json};

use crate::state::error::StateError;
use crate::state::update_record::{RecordedConfig, UpdateRecord};

/// The suffix of a history file's name.
pub const SUFFIX: &str = ".history.json";

/// The history file of `record`, as bytes.
pub fn encode(record: &UpdateRecord) -> Vec<u8> {
    serde_json::to_vec(&pulumi_update_info(record)).expect("a record serializes")
}

/// The stack's updates, newest first, from its history files: `(nanos, where, bytes)` each.
/// An update `pulumi` recorded carries no version: they count up in the order they ran.
pub fn records(mut files: Vec<(i128, PathBuf, Vec<u8>)>) -> Result<Vec<UpdateRecord>, StateError> {
    files.sort_by_key(|(nanos, _, _)| *nanos);
    let mut out = Vec::new();
    for (i, (_, path, text)) in files.into_iter().enumerate() {
        let corrupt = |line: Option<usize>, message: String| StateError::Corrupt {
            path: path.clone(),
            line,
            message,
        };
        let value: Value =
            serde_json::from_slice(&text).map_err(|e| corrupt(Some(e.line()), e.to_string()))?;
        let mut record = read_update_info(value).map_err(|m| corrupt(None, m))?;
        if record.version == 0 {
            record.version = i as u64 + 1;
        }
        out.push(record);
    }
    out.sort_by_key(|r| std::cmp::Reverse(r.version));
    Ok(out)
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
