//! `stepdeck config …`: the stack's configuration, with secrets encrypted by passphrase.

use std::path::Path;

use anyhow::Result;
use stepdeck::project::{ConfigCrypter, NewConfigValue, ScalarType};

use super::args::{ConfigCommand, ConfigTypeArg};
use super::errors::usage;
use super::stdout::outln;
use super::workspace::{ConfigSecrets, Stack, Workspace};

pub(super) fn run(dir: &Path, backend: Option<&str>, cmd: ConfigCommand) -> Result<()> {
    let ws = Workspace::open(dir, backend)?;
    let project = ws.project.name.clone();
    match cmd {
        ConfigCommand::Set {
            stack,
            key,
            value,
            secret,
            plaintext: _,
            type_,
            path,
        } => {
            let new = if secret {
                NewConfigValue::Secret(&value)
            } else {
                NewConfigValue::Text {
                    text: &value,
                    type_: type_.map(scalar_type),
                }
            };
            let mut stack = ws.stack(stack.stack.as_deref(), true)?;
            set_values(&ws, &mut stack, &[(key, new)], path)?;
        }
        ConfigCommand::SetAll {
            stack,
            plaintext,
            secret,
            path,
            json,
        } => {
            let pairs = match &json {
                Some(text) => json_pairs(text)?,
                None => plaintext
                    .iter()
                    .map(|p| (p, false))
                    .chain(secret.iter().map(|p| (p, true)))
                    .map(|(pair, secret)| {
                        let (k, v) = pair.split_once('=').ok_or_else(|| {
                            usage(format!("could not parse {pair:?}: expected KEY=VALUE"))
                        })?;
                        Ok((k.to_string(), v.to_string(), secret))
                    })
                    .collect::<Result<Vec<_>>>()?,
            };
            let values: Vec<(String, NewConfigValue<'_>)> = pairs
                .iter()
                .map(|(k, v, secret)| {
                    let new = if *secret {
                        NewConfigValue::Secret(v)
                    } else {
                        NewConfigValue::Text {
                            text: v,
                            type_: None,
                        }
                    };
                    (k.clone(), new)
                })
                .collect();
            let mut stack = ws.stack(stack.stack.as_deref(), true)?;
            set_values(&ws, &mut stack, &values, path)?;
        }
        ConfigCommand::Get { stack, key, path } => {
            let stack = ws.stack(stack.stack.as_deref(), false)?;
            let secrets = stack.crypter.clone().map(ConfigSecrets);
            let entry = stack
                .settings
                .get_path(
                    &key,
                    &project,
                    path,
                    secrets.as_ref().map(|s| s as &dyn ConfigCrypter),
                )
                .map_err(|e| usage(e.to_string()))?
                .ok_or_else(|| {
                    usage(format!(
                        "configuration key '{key}' not found for stack '{}'",
                        stack.name
                    ))
                })?;
            match entry.value {
                Some(v) => outln!("{v}")?,
                None => {
                    return Err(usage(format!(
                        "'{key}' is a secret: set PULUMI_CONFIG_PASSPHRASE to read it"
                    )));
                }
            }
        }
        ConfigCommand::Rm { stack, key, path } => {
            let mut stack = ws.stack_to_trim(stack.stack.as_deref())?;
            if !stack
                .settings
                .rm_path(&key, &project, path)
                .map_err(|e| usage(e.to_string()))?
            {
                return Err(usage(format!(
                    "configuration key '{key}' not found for stack '{}'",
                    stack.name
                )));
            }
            stack
                .settings
                .save(ws.dir(), &stack.name)
                .map_err(|e| usage(e.to_string()))?;
        }
        ConfigCommand::Ls {
            stack,
            show_secrets,
            json,
        } => {
            let stack = ws.stack(stack.stack.as_deref(), false)?;
            let secrets = if show_secrets {
                stack.crypter.clone().map(ConfigSecrets)
            } else {
                None
            };
            let entries = stack
                .settings
                .list(secrets.as_ref().map(|s| s as &dyn ConfigCrypter))
                .map_err(|e| usage(e.to_string()))?;
            let shown =
                |e: &stepdeck::project::ConfigEntry| match (&e.value, e.secret && !show_secrets) {
                    (Some(v), false) => v.clone(),
                    _ => "[secret]".to_string(),
                };
            if json {
                let all: serde_json::Map<String, serde_json::Value> = entries
                    .iter()
                    .map(|e| {
                        (
                            e.key.to_string(),
                            serde_json::json!({ "value": shown(e), "secret": e.secret }),
                        )
                    })
                    .collect();
                outln!("{}", serde_json::to_string_pretty(&all)?)?;
            } else {
                outln!("{:<24} VALUE", "KEY")?;
                for e in &entries {
                    outln!("{:<24} {}", e.key.to_string(), shown(e))?;
                }
            }
        }
    }
    Ok(())
}

/// Sets each value in the stack's settings (encrypting secrets with the stack's crypter), with
/// `path` as paths, and saves the stack file once.
pub(super) fn set_values(
    ws: &Workspace,
    stack: &mut Stack,
    values: &[(String, NewConfigValue<'_>)],
    path: bool,
) -> Result<()> {
    if values
        .iter()
        .any(|(_, v)| matches!(v, NewConfigValue::Secret(_)))
    {
        stack.require_crypter()?;
        stack.remember_salt(ws.dir())?;
    }
    let secrets = stack.crypter.clone().map(ConfigSecrets);
    for (key, value) in values {
        stack
            .settings
            .set_path(
                key,
                &ws.project.name,
                *value,
                path,
                secrets.as_ref().map(|s| s as &dyn ConfigCrypter),
            )
            .map_err(|e| usage(e.to_string()))?;
    }
    stack
        .settings
        .save(ws.dir(), &stack.name)
        .map_err(|e| usage(e.to_string()))?;
    Ok(())
}

/// `config set-all --json`: `{"key": {"value": "v", "secret": true}}` as (key, value, secret).
fn json_pairs(text: &str) -> Result<Vec<(String, String, bool)>> {
    let doc: serde_json::Map<String, serde_json::Value> = serde_json::from_str(text)
        .map_err(|e| usage(format!("--json must be a JSON object: {e}")))?;
    doc.into_iter()
        .map(|(key, entry)| {
            let value = entry
                .get("value")
                .and_then(|v| v.as_str())
                .ok_or_else(|| usage(format!("--json entry {key:?} needs a string \"value\"")))?;
            let secret = entry
                .get("secret")
                .and_then(serde_json::Value::as_bool)
                .unwrap_or(false);
            Ok((key.clone(), value.to_string(), secret))
        })
        .collect()
}

fn scalar_type(t: ConfigTypeArg) -> ScalarType {
    match t {
        ConfigTypeArg::String => ScalarType::String,
        ConfigTypeArg::Int => ScalarType::Int,
        ConfigTypeArg::Bool => ScalarType::Bool,
        ConfigTypeArg::Float => ScalarType::Float,
    }
}
