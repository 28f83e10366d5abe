//! `stepdeck stack change-secrets-provider passphrase`: re-encrypts every secret of the stack's
//! state and configuration (nested `secure:` leaves included) under a new passphrase and salt,
//! as Pulumi's rotation does. The old passphrase comes from PULUMI_CONFIG_PASSPHRASE(_FILE);
//! the new one, as Pulumi reads it when rotating, from a prompt on a terminal (twice, to
//! confirm) or else from the first line of standard input. The state is saved before the
//! settings; a rotation interrupted in between is completed by running it again with the same
//! passphrases.

use std::io::{BufRead, IsTerminal, Write};

use anyhow::{Context, Result, anyhow};
use serde_json::Value;
use stepdeck::project::config_path::{secure, secure_leaf};
use stepdeck::project::{ConfigValue, StackSettings};
use stepdeck::state::Crypter;

use super::errors::usage;
use super::stdout::outln;
use super::workspace::{Workspace, warn_if_broke_stale};

pub(super) fn run(ws: &Workspace, stack: Option<&str>, provider: &str) -> Result<()> {
    if provider != "passphrase" {
        return Err(usage(format!(
            "secrets provider '{provider}' is not supported; stepdeck has the passphrase provider only"
        )));
    }
    let stack = ws.stack(stack, false)?;
    let old = stack.require_crypter()?;
    let passphrase = new_passphrase()?;
    let new = Crypter::new_salt(&passphrase);
    let lock = ws
        .backend
        .lock(&stack.reference, "change-secrets-provider")?;
    warn_if_broke_stale(&lock);
    // The state is saved before the settings: a state written with another salt than the
    // settings' is one an interrupted rotation already moved to the new passphrase.
    let moved = match ws.backend.recorded_salt(&stack.reference)? {
        Some(salt) if Some(&salt) != stack.settings.encryption_salt.as_ref() => {
            Some(Crypter::from_salt(&passphrase, &salt).map_err(|_| {
                usage(
                    "the stack's state is encrypted under another passphrase than its config \
                     (an interrupted change-secrets-provider?): give the new passphrase that \
                     rotation was given",
                )
            })?)
        }
        _ => None,
    };
    let snapshot = ws
        .backend
        .load(&stack.reference, Some(moved.as_ref().unwrap_or(old)))?
        .snapshot;
    let mut settings = StackSettings::load(ws.dir(), &stack.name, &ws.project.name)
        .map_err(|e| usage(e.to_string()))?;
    let file = settings.file_name.clone();
    for (key, value) in settings.config.iter_mut() {
        let at = |e: String| usage(format!("{file}: config {key}: {e}"));
        match value {
            ConfigValue::Secure(ct) => *ct = reencrypt(ct, old, &new).map_err(at)?,
            ConfigValue::Plain(v) => reencrypt_leaves(v, old, &new).map_err(at)?,
        }
    }
    settings.encryption_salt = Some(new.salt_state().to_string());
    ws.backend.save(&lock, &snapshot, Some(&new))?;
    settings
        .save(ws.dir(), &stack.name)
        .map_err(|e| anyhow!(e.to_string()))?;
    drop(lock);
    eprintln!("Migrating old configuration and state to new secrets provider");
    outln!(
        "The secrets of stack '{}' are now encrypted with the new passphrase",
        stack.name
    )?;
    Ok(())
}

fn reencrypt(ciphertext: &str, old: &Crypter, new: &Crypter) -> Result<String, String> {
    let plain = old.decrypt(ciphertext).map_err(|e| e.to_string())?;
    Ok(new.encrypt(&plain))
}

/// Re-encrypts every `{secure: …}` leaf inside a structured config value.
fn reencrypt_leaves(v: &mut Value, old: &Crypter, new: &Crypter) -> Result<(), String> {
    if let Some(ct) = secure_leaf(v) {
        *v = secure(&reencrypt(ct, old, new)?);
        return Ok(());
    }
    match v {
        Value::Object(m) => m
            .values_mut()
            .try_for_each(|item| reencrypt_leaves(item, old, new)),
        Value::Array(items) => items
            .iter_mut()
            .try_for_each(|item| reencrypt_leaves(item, old, new)),
        _ => Ok(()),
    }
}

/// The new passphrase: typed twice on a terminal, else one line of standard input.
fn new_passphrase() -> Result<String> {
    let stdin = std::io::stdin();
    let line = |prompt: &str| -> Result<String> {
        if stdin.is_terminal() {
            eprint!("{prompt}: ");
            std::io::stderr().flush()?;
        }
        let mut text = String::new();
        stdin
            .lock()
            .read_line(&mut text)
            .context("reading the new passphrase")?;
        Ok(text.trim_end_matches(['\r', '\n']).to_string())
    };
    if !stdin.is_terminal() {
        return line("");
    }
    loop {
        let first = line("Enter your new passphrase to protect config/secrets")?;
        let second = line("Re-enter your new passphrase to confirm")?;
        if first == second {
            return Ok(first);
        }
        eprintln!("error: passphrases do not match");
    }
}
