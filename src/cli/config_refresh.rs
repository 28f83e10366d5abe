//! `config refresh [--force]`: as on Pulumi's DIY backends, the stack's settings file gets
//! back the configuration its latest update, refresh or destroy ran with (from the history,
//! secrets still encrypted) and the salt its state's secrets were written with. The file in
//! place is moved to `<file>.bak` first (more `.bak` until the name is free) unless `--force`.

use std::path::PathBuf;

use anyhow::{Context, Result, anyhow};
use serde_json::Value;
use stepdeck::project::{ConfigKey, ConfigValue};
use stepdeck::state::RecordedConfig;

use super::errors::usage;
use super::stack_name::StackName;
use super::stdout::outln;
use super::workspace::Workspace;

pub(super) fn run(ws: &Workspace, stack: Option<&str>, force: bool) -> Result<()> {
    let mut stack = ws.stack(stack, false)?;
    let latest = ws
        .backend
        .history(&stack.reference)?
        .into_iter()
        .next()
        .ok_or_else(|| anyhow!("getting latest configuration: no previous deployment"))?;
    let mut config = std::collections::BTreeMap::new();
    for (key, recorded) in &latest.config {
        let key = ConfigKey::parse(key, &ws.project.name).map_err(|e| usage(e.to_string()))?;
        config.insert(key, restored(recorded));
    }
    stack.settings.config = config;
    if let Some(salt) = ws.backend.recorded_salt(&stack.reference)? {
        stack.settings.encryption_salt = Some(salt);
    }
    let path = &stack.settings_path;
    let backed_up = if path.exists() && !force {
        let backup = free_backup_name(path);
        std::fs::rename(path, &backup).with_context(|| {
            format!("backing up existing configuration file {}", path.display())
        })?;
        outln!(
            "backed up existing configuration file to {}",
            backup.display()
        )?;
        true
    } else {
        false
    };
    stack.save_settings()?;
    if backed_up {
        let name = StackName::new(&ws.project.name, &stack.name);
        outln!("refreshed configuration for stack '{}'", ws.shown(&name))?;
    }
    Ok(())
}

/// A recorded value as the settings file holds it: secrets keep their ciphertext.
fn restored(recorded: &RecordedConfig) -> ConfigValue {
    if recorded.object
        && let Ok(v) = serde_json::from_str::<Value>(&recorded.string)
    {
        return ConfigValue::Plain(v);
    }
    if recorded.secret {
        ConfigValue::Secure(recorded.string.clone())
    } else {
        ConfigValue::Plain(Value::String(recorded.string.clone()))
    }
}

/// `<file>.bak`, with more `.bak` until no such file exists.
fn free_backup_name(path: &std::path::Path) -> PathBuf {
    let mut backup = path.as_os_str().to_os_string();
    backup.push(".bak");
    while std::path::Path::new(&backup).exists() {
        backup.push(".bak");
    }
    PathBuf::from(backup)
}
