//! `stepdeck config …`: the stack's configuration, with secrets encrypted by passphrase.

use std::path::Path;

use anyhow::Result;
use stepdeck::project::ConfigCrypter;

use super::args::ConfigCommand;
use super::errors::usage;
use super::workspace::{ConfigSecrets, Workspace};

pub fn run(dir: &Path, backend: Option<&str>, cmd: ConfigCommand) -> Result<()> {
    let ws = Workspace::open(dir, backend)?;
    let project = ws.project.name.clone();
    match cmd {
        ConfigCommand::Set {
            stack,
            key,
            value,
            secret,
        } => {
            let mut stack = ws.stack(stack.stack.as_deref(), true)?;
            if secret {
                stack.require_crypter()?;
                stack.remember_salt(ws.dir())?;
            }
            let secrets = stack.crypter.clone().map(ConfigSecrets);
            stack
                .settings
                .set(
                    &key,
                    &project,
                    &value,
                    secret,
                    secrets.as_ref().map(|s| s as &dyn ConfigCrypter),
                )
                .map_err(|e| usage(e.to_string()))?;
            stack
                .settings
                .save(ws.dir(), &stack.name)
                .map_err(|e| usage(e.to_string()))?;
        }
        ConfigCommand::Get { stack, key } => {
            let stack = ws.stack(stack.stack.as_deref(), false)?;
            let secrets = stack.crypter.clone().map(ConfigSecrets);
            let entry = stack
                .settings
                .get(
                    &key,
                    &project,
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
                Some(v) => println!("{v}"),
                None => {
                    return Err(usage(format!(
                        "'{key}' is a secret: set PULUMI_CONFIG_PASSPHRASE to read it"
                    )));
                }
            }
        }
        ConfigCommand::Rm { stack, key } => {
            let mut stack = ws.stack(stack.stack.as_deref(), false)?;
            if !stack
                .settings
                .rm(&key, &project)
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
                println!("{}", serde_json::to_string_pretty(&all)?);
            } else {
                println!("{:<24} VALUE", "KEY");
                for e in &entries {
                    println!("{:<24} {}", e.key.to_string(), shown(e));
                }
            }
        }
    }
    Ok(())
}
