//! Helpers for the JSON output tests: reading event logs with the Pulumi Python SDK's
//! automation types, and redacting what changes from run to run before a snapshot.

#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use super::cli_support::sdk::sdk_env;

/// A sim program whose `box` depends on `net`: config `kind` replaces `box`, `tag` updates it.
pub(crate) const PROGRAM: &str = r#"
config:
  tag:
    type: string
    default: one
  kind:
    type: string
    default: a
resources:
  net:
    type: sim:index:Network
    properties:
      cidr: 10.0.0.0/16
  box:
    type: sim:index:Resource
    properties:
      tag: ${tag}
      kind: ${kind}
      cidr: ${net.cidr}
      replaceOn: [kind]
outputs:
  boxTag: ${box.tag}
"#;

/// Reads an event log with `pulumi.automation.events.EngineEvent.from_json`, line by line, and
/// reports what the parsed objects hold (their attributes, not the raw JSON).
const READ_WITH_AUTOMATION: &str = r#"
import json, sys
from pulumi.automation.events import EngineEvent, OpType

KINDS = ["cancel_event", "stdout_event", "diagnostic_event", "prelude_event", "summary_event",
         "resource_pre_event", "res_outputs_event", "res_op_failed_event", "policy_event",
         "start_debugging_event"]
out = []
for n, line in enumerate(open(sys.argv[1]), 1):
    e = EngineEvent.from_json(json.loads(line))
    kinds = [k for k in KINDS if getattr(e, k) is not None]
    if len(kinds) != 1:
        sys.exit(f"line {n}: {len(kinds)} event kinds: {kinds}")
    kind = kinds[0]
    row = {"sequence": e.sequence, "timestamp": e.timestamp, "kind": kind}
    body = getattr(e, kind)
    meta = getattr(body, "metadata", None)
    if meta is not None:
        assert isinstance(meta.op, OpType), meta.op
        row.update(op=meta.op.value, urn=meta.urn, type=meta.type, logical=meta.logical,
                   provider=meta.provider, keys=meta.keys, diffs=meta.diffs,
                   detailed={k: v.diff_kind.value for k, v in (meta.detailed_diff or {}).items()},
                   old_id=meta.old.id if meta.old else None,
                   new_id=meta.new.id if meta.new else None,
                   new_outputs=meta.new.outputs if meta.new else None)
    if kind in ("resource_pre_event", "res_outputs_event"):
        row["planning"] = body.planning
    if kind == "res_op_failed_event":
        row.update(status=body.status, steps=body.steps)
    if kind == "diagnostic_event":
        row.update(severity=body.severity, message=body.message, diag_urn=body.urn,
                   ephemeral=body.ephemeral)
    if kind == "summary_event":
        row.update(changes={str(k): v for k, v in body.resource_changes.items()},
                   duration=body.duration_seconds, corrupt=body.maybe_corrupt)
    if kind == "prelude_event":
        row["config"] = dict(body.config)
    out.append(row)
print(json.dumps(out))
"#;

/// The events of a log as the Python automation types read them.
pub(crate) fn read_with_automation(log: &Path) -> Vec<Value> {
    let out = Command::new(sdk_env().python)
        .arg("-c")
        .arg(READ_WITH_AUTOMATION)
        .arg(log)
        .output()
        .expect("run python");
    assert!(
        out.status.success(),
        "the automation types rejected {}:\n{}",
        log.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice::<Value>(&out.stdout)
        .expect("the reader prints JSON")
        .as_array()
        .cloned()
        .unwrap()
}

/// Replaces what differs between runs (times, provider-generated IDs and values, provider
/// references' UUIDs) with fixed markers.
pub(crate) fn redact(v: &mut Value, generated: &[&str]) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                match k.as_str() {
                    "timestamp" | "durationSeconds" | "duration" => *x = Value::from(0),
                    "id" if x.as_str().is_some_and(|s| !s.is_empty()) => *x = "[id]".into(),
                    k if generated.contains(&k) => *x = "[generated]".into(),
                    _ => redact(x, generated),
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| redact(x, generated)),
        Value::String(s) => {
            if let Some((head, tail)) = s.rsplit_once("::")
                && tail.len() == 36
                && tail.chars().filter(|c| *c == '-').count() == 4
            {
                *s = format!("{head}::[provider-id]");
            }
        }
        _ => {}
    }
}

/// Lines of JSON objects.
pub(crate) fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}
