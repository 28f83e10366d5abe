//! `stepdeck stack history`: the updates the backend recorded, newest first, as Pulumi's
//! `stack history` shows them (`--json`: Pulumi's `updateInfoJSON` list).

use anyhow::Result;
use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{Value, json};
use stepdeck::state::UpdateRecord;

use super::stdout::{out, outln};
use super::workspace::Workspace;

/// Prints the stack's history.
pub(super) fn run(ws: &Workspace, stack: Option<&str>, json: bool) -> Result<()> {
    let stack = ws.stack(stack, false)?;
    let records = ws.backend.history(&stack.reference)?;
    if json {
        let list: Vec<Value> = records.iter().map(to_json).collect();
        outln!("{}", serde_json::to_string_pretty(&list)?)?;
        return Ok(());
    }
    if records.is_empty() {
        outln!("Stack has never been updated")?;
        return Ok(());
    }
    for r in &records {
        out!("{}", render(r))?;
    }
    Ok(())
}

fn rfc3339(secs: i64) -> String {
    DateTime::<Utc>::from_timestamp(secs, 0)
        .unwrap_or_default()
        .to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// One update in Pulumi's `stack history --json` shape.
fn to_json(r: &UpdateRecord) -> Value {
    json!({
        "version": r.version,
        "kind": r.kind,
        "startTime": rfc3339(r.start_time),
        "message": r.message,
        "environment": r.environment,
        "config": config_json(r),
        "result": r.result,
        "endTime": rfc3339(r.end_time),
        "resourceChanges": r.resource_changes,
    })
}

/// The recorded config as Pulumi's `configValueJSON`: secrets without their value (there is no
/// `--show-secrets`), objects also parsed into `objectValue`.
fn config_json(r: &UpdateRecord) -> Value {
    let entries = r.config.iter().map(|(k, v)| {
        let mut shown = json!({"secret": v.secret});
        if !v.secret {
            shown["value"] = Value::String(v.string.clone());
            if v.object
                && let Ok(obj) = serde_json::from_str::<Value>(&v.string)
            {
                shown["objectValue"] = obj;
            }
        }
        (k.clone(), shown)
    });
    Value::Object(entries.collect())
}

fn render(r: &UpdateRecord) -> String {
    let mut out = format!(
        "Version: {}\nUpdateKind: {}\nStatus: {}\nMessage: {}\nStart Time: {}\nEnd Time: {} ({}s)\n",
        r.version,
        r.kind,
        r.result,
        r.message,
        rfc3339(r.start_time),
        rfc3339(r.end_time),
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
