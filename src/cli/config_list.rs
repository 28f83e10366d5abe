//! `config` (`config ls`) and `config get`: the stack's configuration merged, as Pulumi
//! merges it for these two commands, with the project's defaults for keys the stack does not
//! set; `--json` is Pulumi's `configValueJSON` (`value`, `objectValue` for maps and lists,
//! `secret`; a secret's value only with `--show-secrets`, except that `get` always decrypts).

use anyhow::Result;
use serde_json::{Map, Value};
use stepdeck::project::{ConfigCrypter, ConfigEntry, ConfigValue, StackSettings};

use super::errors::usage;
use super::stdout::{out, outln};
use super::workspace::{ConfigSecrets, Stack, Workspace};

/// `config [--show-secrets] [--json]`.
pub(super) fn list(
    ws: &Workspace,
    stack: Option<&str>,
    show_secrets: bool,
    json: bool,
) -> Result<()> {
    let stack = ws.stack(stack, false)?;
    let settings = merged(ws, &stack);
    let any_secret = settings.config.values().any(ConfigValue::has_secret);
    // A passphrase is needed only to show a secret, as in Pulumi.
    let secrets = if show_secrets && any_secret {
        Some(ConfigSecrets(stack.require_crypter()?.clone()))
    } else {
        None
    };
    let entries = settings
        .list(secrets.as_ref().map(|s| s as &dyn ConfigCrypter))
        .map_err(|e| usage(e.to_string()))?;
    if json {
        let all: Map<String, Value> = entries
            .iter()
            .map(|e| (e.key.to_string(), entry_json(e, show_secrets || !e.secret)))
            .collect();
        outln!("{}", serde_json::to_string_pretty(&all)?)?;
        return Ok(());
    }
    outln!("{:<24} VALUE", "KEY")?;
    for e in &entries {
        let shown = match (&e.value, e.secret && !show_secrets) {
            (Some(v), false) => v.clone(),
            _ => "[secret]".to_string(),
        };
        outln!("{:<24} {shown}", e.key.to_string())?;
    }
    Ok(())
}

/// `config get KEY [--path] [--json]`.
pub(super) fn get(
    ws: &Workspace,
    stack: Option<&str>,
    key: &str,
    path: bool,
    json: bool,
) -> Result<()> {
    let stack = ws.stack(stack, false)?;
    let settings = merged(ws, &stack);
    let secrets = stack.crypter.clone().map(ConfigSecrets);
    let entry = settings
        .get_path(
            key,
            &ws.project.name,
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
    let Some(value) = &entry.value else {
        stack.require_crypter()?;
        return Err(usage(format!(
            "'{key}' is a secret that could not be decrypted"
        )));
    };
    if json {
        let mut text = serde_json::to_string_pretty(&entry_json(&entry, true))?;
        text.push('\n');
        out!("{text}")?;
    } else {
        outln!("{value}")?;
    }
    Ok(())
}

/// One entry as Pulumi's `configValueJSON`; the value (and parsed object) only if `reveal`.
fn entry_json(e: &ConfigEntry, reveal: bool) -> Value {
    let mut o = Map::new();
    if let (Some(v), true) = (&e.value, reveal) {
        o.insert("value".into(), Value::String(v.clone()));
        if e.object
            && let Ok(parsed) = serde_json::from_str::<Value>(v)
        {
            o.insert("objectValue".into(), parsed);
        }
    }
    o.insert("secret".into(), e.secret.into());
    Value::Object(o)
}

/// The stack's settings with the project's config defaults for keys it does not set.
fn merged(ws: &Workspace, stack: &Stack) -> StackSettings {
    let mut settings = stack.settings.clone();
    for decl in &ws.project.config {
        if let Some(default) = &decl.default {
            settings
                .config
                .entry(decl.key.clone())
                .or_insert_with(|| ConfigValue::Plain(default.clone()));
        }
    }
    settings
}
