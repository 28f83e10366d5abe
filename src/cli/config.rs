//! `stepdeck config …`: the stack's configuration, with secrets encrypted by passphrase;
//! listing and reading are `config_list`, `config refresh` is `config_refresh`.

use std::path::Path;

use std::io::Read;

use anyhow::{Result, anyhow};
use serde_json::Value;
use stepdeck::project::{ConfigCrypter, ConfigKey, ConfigValue, NewConfigValue, ScalarType};
use stepdeck::state::lock_info::hostname;

use super::args::{ConfigArgs, ConfigCommand, ConfigTypeArg};
use super::errors::usage;
use super::workspace::{ConfigSecrets, Stack, Workspace};
use super::{config_list, config_refresh};

pub(super) fn run(dir: &Path, backend: Option<&str>, args: ConfigArgs) -> Result<()> {
    let ws = Workspace::open(dir, backend)?.with_config_file(args.config_file);
    let project = ws.project.name.clone();
    let stack = args.stack.as_deref();
    let Some(cmd) = args.command else {
        return config_list::list(&ws, stack, args.show_secrets, args.json);
    };
    match cmd {
        ConfigCommand::Ls { show_secrets, json } => {
            config_list::list(
                &ws,
                stack,
                show_secrets || args.show_secrets,
                json || args.json,
            )?;
        }
        ConfigCommand::Get { key, path, json } => {
            config_list::get(&ws, stack, &key, path, json || args.json)?;
        }
        ConfigCommand::Set {
            key,
            value,
            secret,
            plaintext: _,
            type_,
            path,
        } => {
            let value = match value {
                Some(v) => v,
                None => read_stdin_value()?,
            };
            let new = if secret {
                NewConfigValue::Secret(&value)
            } else {
                NewConfigValue::Text {
                    text: &value,
                    type_: type_.map(scalar_type),
                }
            };
            let mut stack = ws.stack(stack, true)?;
            set_values(&ws, &mut stack, &[(key, new)], path)?;
        }
        ConfigCommand::SetAll {
            plaintext,
            secret,
            path,
            json,
        } => {
            let mut stack = ws.stack(stack, true)?;
            if let Some(text) = &json {
                return set_json(&ws, &mut stack, text);
            }
            let pairs = plaintext
                .iter()
                .map(|p| (p, false))
                .chain(secret.iter().map(|p| (p, true)))
                .map(|(pair, secret)| {
                    let (k, v) = pair.split_once('=').ok_or_else(|| {
                        usage(format!("could not parse {pair:?}: expected KEY=VALUE"))
                    })?;
                    Ok((k.to_string(), v.to_string(), secret))
                })
                .collect::<Result<Vec<_>>>()?;
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
            set_values(&ws, &mut stack, &values, path)?;
        }
        // As Pulumi's, removing a key that is not set is not an error.
        ConfigCommand::Rm { key, path } => {
            let mut stack = ws.stack_to_trim(stack)?;
            stack
                .settings
                .rm_path(&key, &project, path)
                .map_err(|e| usage(e.to_string()))?;
            stack.save_settings()?;
        }
        ConfigCommand::RmAll { keys, path } => {
            let mut stack = ws.stack(stack, false)?;
            for key in &keys {
                stack
                    .settings
                    .rm_path(key, &project, path)
                    .map_err(|e| usage(e.to_string()))?;
            }
            stack.save_settings()?;
        }
        ConfigCommand::Refresh { force } => config_refresh::run(&ws, stack, force)?,
        ConfigCommand::Env(_) => {
            return Err(anyhow!(
                "backend {} does not support environments; Pulumi ESC environments require the \
                 Pulumi Cloud backend, use `pulumi login` without arguments to log into the \
                 Pulumi Cloud backend",
                hostname()
            ));
        }
    }
    Ok(())
}

/// `config set KEY` without a value: the value is standard input (one trailing newline dropped).
fn read_stdin_value() -> Result<String> {
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .map_err(|e| usage(format!("reading the value from standard input: {e}")))?;
    if text.ends_with('\n') {
        text.pop();
        if text.ends_with('\r') {
            text.pop();
        }
    }
    Ok(text)
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
        stack.remember_salt()?;
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
    stack.save_settings()
}

/// `config set-all --json`: values as `config --json` prints them, `{"key": {"value": "v",
/// "secret": true}}`; an entry with `objectValue` is set as that map or list.
fn set_json(ws: &Workspace, stack: &mut Stack, text: &str) -> Result<()> {
    let doc: serde_json::Map<String, Value> = serde_json::from_str(text)
        .map_err(|e| usage(format!("could not parse --json argument: {e}")))?;
    let secret_of = |entry: &Value| entry.get("secret").and_then(Value::as_bool) == Some(true);
    if doc.values().any(secret_of) {
        stack.require_crypter()?;
        stack.remember_salt()?;
    }
    for (key, entry) in &doc {
        let value = entry
            .get("value")
            .and_then(Value::as_str)
            .ok_or_else(|| usage(format!("value for --json object key {key:?} is nil")))?;
        let parsed = ConfigKey::parse(key, &ws.project.name)
            .map_err(|e| usage(format!("invalid --json object key {key:?}: {e}")))?;
        let stored = match (secret_of(entry), entry.get("objectValue")) {
            (true, _) => ConfigValue::Secure(stack.require_crypter()?.encrypt(value)),
            (false, Some(object)) if !object.is_null() => ConfigValue::Plain(object.clone()),
            (false, _) => ConfigValue::Plain(Value::String(value.to_string())),
        };
        stack.settings.config.insert(parsed, stored);
    }
    stack.save_settings()
}

fn scalar_type(t: ConfigTypeArg) -> ScalarType {
    match t {
        ConfigTypeArg::String => ScalarType::String,
        ConfigTypeArg::Int => ScalarType::Int,
        ConfigTypeArg::Bool => ScalarType::Bool,
        ConfigTypeArg::Float => ScalarType::Float,
    }
}
