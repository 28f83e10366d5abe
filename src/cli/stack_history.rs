//! `stepdeck stack history`: the updates the backend recorded, newest first, a page at a time
//! (Pulumi's default page: the latest 10), as Pulumi's `stack history` shows them (`--json`:
//! Pulumi's `updateInfoJSON` list, times with milliseconds, secret config values only with
//! `--show-secrets`).

use anyhow::Result;
use serde_json::{Value, json};
use stepdeck::project::config_path;
use stepdeck::state::{Crypter, RecordedConfig, UpdateRecord};

use super::stdout::{out, outln};
use super::time_format::pulumi_time_secs;
use super::workspace::Workspace;

/// What Pulumi writes for a recorded secret that does not decrypt.
const UNDECRYPTABLE: &str = "ERROR_UNABLE_TO_DECRYPT";

/// How `stack history` shows the updates.
pub(super) struct Shown {
    pub json: bool,
    pub show_secrets: bool,
    /// Updates on a page; 0 shows them all.
    pub page_size: usize,
    /// The page, from 1 (0 is read as 1, as Pulumi does).
    pub page: usize,
}

/// Prints the stack's history.
pub(super) fn run(ws: &Workspace, stack: Option<&str>, shown: &Shown) -> Result<()> {
    let stack = ws.stack(stack, false)?;
    let records = page(ws.backend.history(&stack.reference)?, shown);
    let crypter =
        if shown.show_secrets && records.iter().any(|r| r.config.values().any(|c| c.secret)) {
            Some(stack.require_crypter()?)
        } else {
            None
        };
    if shown.json {
        let list: Vec<Value> = records.iter().map(|r| to_json(r, crypter)).collect();
        outln!("{}", serde_json::to_string_pretty(&list)?)?;
        return Ok(());
    }
    if records.is_empty() {
        if shown.page > 1 {
            outln!("No stack updates found on page '{}'", shown.page)?;
        } else {
            outln!("Stack has never been updated")?;
        }
        return Ok(());
    }
    for r in &records {
        out!("{}", render(r))?;
    }
    Ok(())
}

/// The records of the page asked for, from the newest-first list.
fn page(records: Vec<UpdateRecord>, shown: &Shown) -> Vec<UpdateRecord> {
    if shown.page_size == 0 {
        return records;
    }
    let start = shown.page.max(1).saturating_sub(1) * shown.page_size;
    records
        .into_iter()
        .skip(start)
        .take(shown.page_size)
        .collect()
}

/// One update in Pulumi's `stack history --json` shape.
fn to_json(r: &UpdateRecord, crypter: Option<&Crypter>) -> Value {
    json!({
        "version": r.version,
        "kind": r.kind,
        "startTime": pulumi_time_secs(r.start_time),
        "message": r.message,
        "environment": r.environment,
        "config": config_json(r, crypter),
        "result": r.result,
        "endTime": pulumi_time_secs(r.end_time),
        "resourceChanges": r.resource_changes,
    })
}

/// The recorded config as Pulumi's `configValueJSON`: a secret's value only when `crypter`
/// (`--show-secrets`) decrypts it, objects also parsed into `objectValue`.
fn config_json(r: &UpdateRecord, crypter: Option<&Crypter>) -> Value {
    let entries = r.config.iter().map(|(k, v)| {
        let mut shown = serde_json::Map::new();
        let value = match (v.secret, crypter) {
            (false, _) => Some(v.string.clone()),
            (true, Some(c)) => Some(reveal(v, c).unwrap_or_else(|| UNDECRYPTABLE.to_string())),
            (true, None) => None,
        };
        if let Some(text) = value {
            let object = serde_json::from_str::<Value>(&text)
                .ok()
                .filter(|_| v.object);
            shown.insert("value".into(), Value::String(text));
            if let Some(obj) = object {
                shown.insert("objectValue".into(), obj);
            }
        }
        shown.insert("secret".into(), v.secret.into());
        (k.clone(), Value::Object(shown))
    });
    Value::Object(entries.collect())
}

/// A recorded secret in plain text: the value, or an object's JSON with its secure leaves
/// decrypted; `None` if it does not decrypt.
fn reveal(v: &RecordedConfig, crypter: &Crypter) -> Option<String> {
    if !v.object {
        return crypter.decrypt(&v.string).ok();
    }
    let mut doc: Value = serde_json::from_str(&v.string).ok()?;
    decrypt_leaves(&mut doc, crypter)?;
    Some(doc.to_string())
}

fn decrypt_leaves(v: &mut Value, crypter: &Crypter) -> Option<()> {
    if let Some(ct) = config_path::secure_leaf(v) {
        *v = Value::String(crypter.decrypt(ct).ok()?);
        return Some(());
    }
    match v {
        Value::Object(m) => m.values_mut().try_for_each(|x| decrypt_leaves(x, crypter)),
        Value::Array(a) => a.iter_mut().try_for_each(|x| decrypt_leaves(x, crypter)),
        _ => Some(()),
    }
}

fn render(r: &UpdateRecord) -> String {
    let mut out = format!(
        "Version: {}\nUpdateKind: {}\nStatus: {}\nMessage: {}\nStart Time: {}\nEnd Time: {} ({}s)\n",
        r.version,
        r.kind,
        r.result,
        r.message,
        pulumi_time_secs(r.start_time),
        pulumi_time_secs(r.end_time),
        r.end_time - r.start_time
    );
    if !r.resource_changes.is_empty() {
        out += "Resource Changes:\n";
        for (op, n) in &r.resource_changes {
            out += &format!("    {n} {op}\n");
        }
    }
    out += "\n";
    out
}
