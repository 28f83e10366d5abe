//! The approval policy's files: a policy file (`--approve-file`), the stack's
//! `stepdeck:approve` setting, and a decision file (`--decisions`). Each is a mapping read with
//! positions, so a bad entry is reported as `file:line:column` with the key at fault.

use std::path::Path;

use crate::engine::run::approval::{ApprovalRule, RuleSource};
use crate::engine::run::gate_decisions::GateDecisions;
use crate::located_yaml::{Node, NodeKind, SourceError, parse_document};

use super::config::ConfigKey;
use super::error::ProjectError;
use super::stack_settings::StackSettings;
use crate::file_limits::{self, YAML_FILE};

/// The stack setting that holds a stack's approval rules.
pub const APPROVE_KEY: &str = "stepdeck:approve";

fn read(path: &Path) -> Result<(String, Node), ProjectError> {
    let text = file_limits::read_to_string(path, YAML_FILE)?;
    let file = path.display().to_string();
    let doc = parse_document(&file, &text)?;
    Ok((file, doc))
}

/// The `key: value` entries of a mapping whose values are words.
fn entries<'a>(
    file: &str,
    doc: &'a Node,
    what: &str,
) -> Result<Vec<(&'a crate::located_yaml::Key, &'a Node, &'a str)>, SourceError> {
    let map = match &doc.kind {
        NodeKind::Map(m) => m.as_slice(),
        NodeKind::Null => &[],
        _ => {
            return Err(doc.error(
                file,
                format!("{what} must be a mapping, found {}", doc.kind_name()),
            ));
        }
    };
    map.iter()
        .map(|(k, v)| {
            let word = v.as_str().ok_or_else(|| {
                v.error(
                    file,
                    format!("`{}` must be a word, found {}", k.name, v.kind_name()),
                )
            })?;
            Ok((k, v, word))
        })
        .collect()
}

fn rules(doc: &Node, file: &str, source: RuleSource) -> Result<Vec<ApprovalRule>, SourceError> {
    let mut out = Vec::new();
    for (k, v, policy) in entries(file, doc, "an approval policy")? {
        let parsed = ApprovalRule::parse_key(&k.name, policy, source).map_err(|e| {
            let at = if matches!(e, crate::engine::run::approval::RuleError::Policy(_)) {
                v.pos
            } else {
                k.pos
            };
            SourceError::new(file, at, format!("`{}`: {e}", k.name))
        })?;
        out.extend(parsed);
    }
    Ok(out)
}

/// Reads a policy file: `KIND: POLICY` or `KIND[URN-GLOB]: POLICY` entries (YAML or JSON).
pub fn read_policy_file(path: &Path) -> Result<Vec<ApprovalRule>, ProjectError> {
    let (file, doc) = read(path)?;
    Ok(rules(&doc, &file, RuleSource::File)?)
}

/// The stack's `stepdeck:approve` rules, if its settings have them.
pub fn stack_rules(
    settings: &StackSettings,
    project: &str,
) -> Result<Vec<ApprovalRule>, ProjectError> {
    let key = ConfigKey::parse(APPROVE_KEY, project)?;
    let Some(value) = settings.config.get(&key) else {
        return Ok(Vec::new());
    };
    let pos = settings.positions.get(&key).copied().unwrap_or_default();
    let file = settings.file_name.as_str();
    let json = match value {
        super::config::ConfigValue::Plain(v) => v,
        super::config::ConfigValue::Secure(_) => {
            return Err(
                SourceError::new(file, pos, format!("`{APPROVE_KEY}` cannot be a secret")).into(),
            );
        }
    };
    let text = serde_json::to_string(json).expect("JSON values serialize");
    let doc =
        parse_document(file, &text).map_err(|e| SourceError::new(file, pos, e.to_string()))?;
    rules(&doc, file, RuleSource::StackConfig)
        .map_err(|e| SourceError::new(file, pos, format!("`{APPROVE_KEY}`: {}", e.message)).into())
}

/// Reads a decision file: `URN-GLOB: approve|decline` entries, the first match deciding.
pub fn read_decisions(path: &Path) -> Result<GateDecisions, ProjectError> {
    let (file, doc) = read(path)?;
    let mut decisions = GateDecisions::new(file.clone());
    for (k, v, word) in entries(&file, &doc, "a decision file")? {
        decisions
            .push(&k.name, word)
            .map_err(|e| v.error(&file, format!("`{}`: {e}", k.name)))?;
    }
    Ok(decisions)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_policy_names_file_line_and_key() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("policy.yaml");
        std::fs::write(&path, "deletes: ask\nupdates: maybe\n").unwrap();
        let e = read_policy_file(&path).unwrap_err().to_string();
        assert!(e.contains("policy.yaml:2"), "{e}");
        assert!(e.contains("`updates`") && e.contains("maybe"), "{e}");
        std::fs::write(&path, "deletes: ask\n\"creates[**::web]\": decline\n").unwrap();
        assert_eq!(read_policy_file(&path).unwrap().len(), 2);
        std::fs::write(&path, "{\"removals\": \"ask\"}").unwrap();
        let e = read_policy_file(&path).unwrap_err().to_string();
        assert!(e.contains("removals"), "{e}");
    }

    #[test]
    fn a_bad_decision_names_file_line_and_glob() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("decisions.yaml");
        std::fs::write(&path, "\"**::a\": approve\n\"**::b\": perhaps\n").unwrap();
        let e = read_decisions(&path).unwrap_err().to_string();
        assert!(e.contains("decisions.yaml:2"), "{e}");
        assert!(e.contains("perhaps"), "{e}");
    }

    #[test]
    fn stack_settings_give_rules() {
        let s = StackSettings::parse(
            "Pulumi.dev.yaml",
            "config:\n  stepdeck:approve:\n    deletes: ask\n",
            "proj",
        )
        .unwrap();
        assert_eq!(stack_rules(&s, "proj").unwrap().len(), 1);
        let bad = StackSettings::parse(
            "Pulumi.dev.yaml",
            "config:\n  stepdeck:approve:\n    deletes: often\n",
            "proj",
        )
        .unwrap();
        let e = stack_rules(&bad, "proj").unwrap_err().to_string();
        assert!(e.contains("Pulumi.dev.yaml:3"), "{e}");
    }
}
