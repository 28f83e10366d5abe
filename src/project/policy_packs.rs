//! The stack's `stepdeck:policyPacks` setting: policy packs every preview and up of the stack
//! runs besides those `--policy-pack` names, as an organization's required packs run in
//! Pulumi Cloud. Each entry is a pack directory, or `{path, config}` with its config file;
//! relative paths are the project directory's, where every command runs.

use serde_json::Value;

use crate::located_yaml::SourceError;

use super::config::{ConfigKey, ConfigValue};
use super::error::ProjectError;
use super::stack_settings::StackSettings;

/// The stack setting that lists a stack's policy packs.
pub const POLICY_PACKS_KEY: &str = "stepdeck:policyPacks";

/// One pack a stack's settings name, its paths as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StackPolicyPack {
    pub path: String,
    pub config: Option<String>,
}

/// The stack's packs, in the order its settings list them (none without the setting).
pub fn stack_policy_packs(
    settings: &StackSettings,
    project: &str,
) -> Result<Vec<StackPolicyPack>, ProjectError> {
    let key = ConfigKey::parse(POLICY_PACKS_KEY, project)?;
    let Some(value) = settings.config.get(&key) else {
        return Ok(Vec::new());
    };
    let pos = settings.positions.get(&key).copied().unwrap_or_default();
    let error = |message: &str| -> ProjectError {
        SourceError::new(
            &settings.file_name,
            pos,
            format!("`{POLICY_PACKS_KEY}` {message}"),
        )
        .into()
    };
    let ConfigValue::Plain(value) = value else {
        return Err(error("cannot be a secret"));
    };
    let Value::Array(entries) = value else {
        return Err(error(
            "must be a list of pack directories or {path, config} entries",
        ));
    };
    entries
        .iter()
        .map(|entry| match entry {
            Value::String(path) if !path.is_empty() => Ok(StackPolicyPack {
                path: path.clone(),
                config: None,
            }),
            Value::Object(m) => {
                let text = |field: &str| match m.get(field) {
                    None => Ok(None),
                    Some(Value::String(s)) if !s.is_empty() => Ok(Some(s.clone())),
                    Some(_) => Err(error(&format!("entry's `{field}` must be a path"))),
                };
                if let Some(other) = m.keys().find(|k| *k != "path" && *k != "config") {
                    return Err(error(&format!(
                        "entry has `{other}`: expected only `path` and `config`"
                    )));
                }
                Ok(StackPolicyPack {
                    path: text("path")?.ok_or_else(|| error("entry lacks its `path`"))?,
                    config: text("config")?,
                })
            }
            _ => Err(error(
                "must be a list of pack directories or {path, config} entries",
            )),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::stack_settings::StackSettings;

    fn settings(text: &str) -> StackSettings {
        StackSettings::parse("Pulumi.dev.yaml", text, "p").unwrap()
    }

    #[test]
    fn entries_are_directories_or_paths_with_their_config() {
        let s = settings(
            "config:\n  stepdeck:policyPacks:\n    - ../base\n    - path: ../extra\n      config: extra.json\n",
        );
        assert_eq!(
            stack_policy_packs(&s, "p").unwrap(),
            [
                StackPolicyPack {
                    path: "../base".into(),
                    config: None
                },
                StackPolicyPack {
                    path: "../extra".into(),
                    config: Some("extra.json".into())
                },
            ]
        );
        assert!(
            stack_policy_packs(&settings("config: {}\n"), "p")
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn a_bad_entry_names_the_file_and_line() {
        let s = settings("config:\n  p:x: 1\n  stepdeck:policyPacks:\n    - conf: a.json\n");
        let e = stack_policy_packs(&s, "p").unwrap_err().to_string();
        assert!(
            e.contains("Pulumi.dev.yaml:4:5") && e.contains("entry has `conf`"),
            "{e}"
        );
    }
}
