//! A `--policy-pack-config` file (Pulumi's policy pack config): a JSON object whose entries
//! name a policy (or `all`) and give it an enforcement level, as a string or as the object's
//! `enforcementLevel`, and properties (the object's other members); `environments` names ESC
//! environments. An empty file is no config. Errors are Pulumi's words, after the file's name.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Map, Value};

use crate::engine::run::policy::EnforcementLevel;
use crate::rpc::policy::info::PolicyConfig;

/// A config file's entries, and the ESC environments it names.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConfigFile {
    pub policies: BTreeMap<String, PolicyConfig>,
    pub environments: Vec<String>,
}

/// Why a config file does not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {message}")]
pub struct ConfigFileError {
    pub file: String,
    pub message: String,
}

/// Takes `enforcementLevel` out of an entry's object, checked.
fn take_level(props: &mut Map<String, Value>) -> Result<Option<EnforcementLevel>, String> {
    let Some(v) = props.remove("enforcementLevel") else {
        return Ok(None);
    };
    match &v {
        Value::String(s) => EnforcementLevel::parse(s)
            .map(Some)
            .ok_or_else(|| format!("{s:?} is not a valid enforcement level")),
        other => Err(format!(
            "{other} is not a valid enforcement level; must be a string"
        )),
    }
}

impl ConfigFile {
    /// Reads the file at `path`.
    pub fn read(path: &Path) -> Result<ConfigFile, ConfigFileError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| ConfigFileError {
            file: file.clone(),
            message: e.to_string(),
        })?;
        ConfigFile::parse(&text).map_err(|message| ConfigFileError { file, message })
    }

    /// Parses a config file's text.
    pub fn parse(text: &str) -> Result<ConfigFile, String> {
        if text.trim().is_empty() {
            return Ok(ConfigFile::default());
        }
        let value: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let Value::Object(mut entries) = value else {
            return Err(format!("expected a JSON object, found {value}"));
        };
        let mut out = ConfigFile::default();
        if let Some(envs) = entries.remove("environments") {
            let Value::Array(envs) = envs else {
                return Err(format!(
                    "\"environments\" must be an array of strings, got {envs}"
                ));
            };
            for (i, e) in envs.into_iter().enumerate() {
                match e {
                    Value::String(s) => out.environments.push(s),
                    other => {
                        return Err(format!(
                            "\"environments[{i}]\" must be a string, got {other}"
                        ));
                    }
                }
            }
        }
        for (name, v) in entries {
            let config = match v {
                Value::String(s) => {
                    let level = EnforcementLevel::parse(&s).ok_or_else(|| {
                        format!(
                            "parsing enforcement level for {name:?}: {s:?} is not a valid enforcement level"
                        )
                    })?;
                    PolicyConfig {
                        level: Some(level),
                        properties: None,
                    }
                }
                Value::Object(mut props) => {
                    let level = take_level(&mut props)
                        .map_err(|e| format!("parsing enforcement level for {name:?}: {e}"))?;
                    PolicyConfig {
                        level,
                        properties: (!props.is_empty()).then_some(props),
                    }
                }
                other => {
                    return Err(format!(
                        "parsing {name:?}: {other} is not a valid value; must be a string or object"
                    ));
                }
            };
            if config.level.is_none() && config.properties.is_none() {
                continue;
            }
            out.policies.insert(name, config);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_properties_and_all_read_as_pulumi_reads_them() {
        let c = ConfigFile::parse(
            r#"{"all": "mandatory", "a": "disabled", "b": {"enforcementLevel": "advisory", "max": 3}, "c": {}}"#,
        )
        .unwrap();
        assert_eq!(c.policies["all"].level, Some(EnforcementLevel::Mandatory));
        assert_eq!(c.policies["a"].level, Some(EnforcementLevel::Disabled));
        assert_eq!(c.policies["b"].level, Some(EnforcementLevel::Advisory));
        assert_eq!(c.policies["b"].properties.as_ref().unwrap()["max"], 3);
        assert!(!c.policies.contains_key("c"), "an empty entry is dropped");
        assert_eq!(ConfigFile::parse("  \n").unwrap(), ConfigFile::default());
    }

    #[test]
    fn bad_entries_fail_in_pulumis_words() {
        assert_eq!(
            ConfigFile::parse(r#"{"a": "strict"}"#).unwrap_err(),
            r#"parsing enforcement level for "a": "strict" is not a valid enforcement level"#
        );
        assert_eq!(
            ConfigFile::parse(r#"{"a": {"enforcementLevel": 1}}"#).unwrap_err(),
            r#"parsing enforcement level for "a": 1 is not a valid enforcement level; must be a string"#
        );
        assert_eq!(
            ConfigFile::parse(r#"{"a": 7}"#).unwrap_err(),
            r#"parsing "a": 7 is not a valid value; must be a string or object"#
        );
        assert!(ConfigFile::parse("{").is_err());
    }
}
