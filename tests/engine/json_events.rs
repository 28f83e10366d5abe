//! The engine-event stream (`--json` on up/destroy/refresh, `--event-log` on every operation)
//! read back with the Pulumi Python SDK's `pulumi.automation.events` types, as the Automation
//! API reads it, and pinned by snapshots.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::cli_support;
use crate::json_support;
use std::path::PathBuf;

use cli_support::*;
use json_support::*;
use serde_json::{Value, json};

fn log_path(env: &Env, name: &str) -> PathBuf {
    env.root.path().join(format!("{name}.jsonl"))
}

/// Runs `args` with `--event-log` and returns the log as the automation types read it.
fn logged(env: &Env, name: &str, args: &[&str]) -> (std::process::Output, Vec<Value>) {
    let path = log_path(env, name);
    let mut all = args.to_vec();
    all.extend(["--stack", "dev", "--parallel", "1", "--event-log"]);
    all.push(path.to_str().unwrap());
    let out = env.run(&all);
    let rows = read_with_automation(&path);
    check_stream(&rows);
    (out, rows)
}

/// What every stream holds: a prelude first, a cancel event last, sequence numbers from 0 up
/// without gaps, real timestamps, and nothing about default providers.
fn check_stream(rows: &[Value]) {
    assert_eq!(rows.first().unwrap()["kind"], "prelude_event", "{rows:#?}");
    assert_eq!(rows.last().unwrap()["kind"], "cancel_event", "{rows:#?}");
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r["sequence"], i, "{rows:#?}");
        assert!(r["timestamp"].as_i64().unwrap() > 1_600_000_000, "{r}");
    }
}

fn name(r: &Value) -> &str {
    r["urn"].as_str().unwrap().rsplit("::").next().unwrap()
}

/// (kind, op, resource name) of every step event.
fn steps(rows: &[Value]) -> Vec<(String, String, String)> {
    rows.iter()
        .filter(|r| r.get("op").is_some())
        .map(|r| {
            (
                r["kind"].as_str().unwrap().to_string(),
                r["op"].as_str().unwrap().to_string(),
                name(r).to_string(),
            )
        })
        .collect()
}

fn summary(rows: &[Value]) -> &Value {
    let s = &rows[rows.len() - 2];
    assert_eq!(s["kind"], "summary_event", "{rows:#?}");
    s
}

fn owned(v: &[(&str, &str, &str)]) -> Vec<(String, String, String)> {
    v.iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect()
}

#[test]
fn every_operations_log_reads_with_the_automation_types() {
    let env = Env::new(PROGRAM);
    let (out, rows) = logged(&env, "create", &["up", "--yes", "--non-interactive"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        rows[0]["config"],
        json!({"e2e:kind": "a", "e2e:tag": "one"})
    );
    assert_eq!(
        steps(&rows),
        owned(&[
            ("resource_pre_event", "create", "e2e-dev"),
            // Pulumi logs its internal events too: the default provider's step.
            ("resource_pre_event", "create", "default"),
            ("res_outputs_event", "create", "default"),
            ("resource_pre_event", "create", "net"),
            ("res_outputs_event", "create", "net"),
            ("resource_pre_event", "create", "box"),
            ("res_outputs_event", "create", "box"),
            ("res_outputs_event", "create", "e2e-dev"),
        ])
    );
    for r in rows.iter().filter(|r| r.get("op").is_some()) {
        assert_eq!(r["planning"], Value::Null, "an update does not plan: {r}");
        assert_eq!(r["logical"], true, "{r}");
    }
    let box_done = rows
        .iter()
        .find(|r| r["kind"] == "res_outputs_event" && name(r) == "box")
        .unwrap();
    assert_eq!(box_done["new_outputs"]["tag"], "one");
    assert!(
        !box_done["new_id"].as_str().unwrap().is_empty(),
        "{box_done}"
    );
    assert!(
        box_done["provider"]
            .as_str()
            .unwrap()
            .contains("pulumi:providers:sim::default::"),
        "{box_done}"
    );
    let stack_done = rows
        .iter()
        .rfind(|r| r["kind"] == "res_outputs_event")
        .unwrap();
    assert_eq!(stack_done["new_outputs"], json!({"boxTag": "one"}));
    assert_eq!(summary(&rows)["changes"], json!({"create": 3}));

    env.ok(&["config", "set", "kind", "b", "--stack", "dev"]);
    let (_, rows) = logged(&env, "preview", &["preview", "--non-interactive"]);
    let pre: Vec<&Value> = rows
        .iter()
        .filter(|r| r["kind"] == "resource_pre_event")
        .collect();
    assert!(!pre.is_empty());
    assert!(pre.iter().all(|r| r["planning"] == true), "{pre:#?}");
    assert_eq!(summary(&rows)["changes"], json!({"replace": 1, "same": 2}));

    let (out, rows) = logged(&env, "replace", &["up", "--yes", "--non-interactive"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let for_box: Vec<(String, String, String)> = steps(&rows)
        .into_iter()
        .filter(|(_, _, n)| n == "box")
        .collect();
    assert_eq!(
        for_box,
        owned(&[
            ("resource_pre_event", "create-replacement", "box"),
            ("res_outputs_event", "create-replacement", "box"),
            ("resource_pre_event", "replace", "box"),
            ("res_outputs_event", "replace", "box"),
            ("resource_pre_event", "delete-replaced", "box"),
            ("res_outputs_event", "delete-replaced", "box"),
        ])
    );
    let replace = rows
        .iter()
        .find(|r| r["op"] == "replace" && r["kind"] == "resource_pre_event")
        .unwrap();
    assert_eq!(replace["keys"], json!(["kind"]), "{replace}");
    assert_eq!(replace["logical"], true);
    assert!(
        rows.iter()
            .filter(|r| r["op"] == "create-replacement" || r["op"] == "delete-replaced")
            .all(|r| r["logical"].is_null()),
        "the halves of a replacement are not logical"
    );
    assert_eq!(summary(&rows)["changes"], json!({"replace": 1, "same": 2}));

    let mut world: Value =
        serde_json::from_str(&std::fs::read_to_string(env.world_path()).unwrap()).unwrap();
    for r in world["resources"].as_object_mut().unwrap().values_mut() {
        if r["name"] == "box" {
            r["properties"]["tag"] = "drifted".into();
        }
    }
    std::fs::write(env.world_path(), world.to_string()).unwrap();
    let (out, rows) = logged(&env, "refresh", &["refresh", "--yes", "--non-interactive"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let mut found: Vec<(String, String, String)> = steps(&rows);
    found.sort();
    assert_eq!(
        found,
        owned(&[
            ("res_outputs_event", "same", "default"),
            ("res_outputs_event", "same", "e2e-dev"),
            ("res_outputs_event", "same", "net"),
            ("res_outputs_event", "update", "box"),
            ("resource_pre_event", "refresh", "box"),
            ("resource_pre_event", "refresh", "default"),
            ("resource_pre_event", "refresh", "e2e-dev"),
            ("resource_pre_event", "refresh", "net"),
        ]),
        "a refresh reads every resource (the stack, components and providers stay as they \
         are, the default provider's events are internal) and reports what it found"
    );

    env.write(
        "Pulumi.yaml",
        &format!("name: e2e\nruntime: yaml\n{PROGRAM}").replace(
            "      replaceOn: [kind]\n",
            "      replaceOn: [kind]\n      failOn: [update]\n",
        ),
    );
    let (out, rows) = logged(&env, "failed", &["up", "--yes", "--non-interactive"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let failed = rows
        .iter()
        .position(|r| r["kind"] == "res_op_failed_event")
        .expect("a failed step");
    assert_eq!(rows[failed]["op"], "update");
    assert_eq!(name(&rows[failed]), "box");
    assert_eq!(rows[failed]["status"], 0);
    let diag = &rows[failed - 1];
    assert_eq!(diag["kind"], "diagnostic_event", "the cause comes first");
    assert_eq!(diag["severity"], "error");
    assert!(
        diag["message"].as_str().unwrap().contains("failOn"),
        "{diag}"
    );
    assert_eq!(diag["diag_urn"], rows[failed]["urn"]);
    assert_eq!(
        rows.iter()
            .filter(|r| r["kind"] == "diagnostic_event" && r["diag_urn"] == diag["diag_urn"])
            .count(),
        1,
        "the failure is reported once: {rows:#?}"
    );
    let raw = json_lines(&std::fs::read_to_string(log_path(&env, "failed")).unwrap());
    let raw_summary = &raw[raw.len() - 2]["summaryEvent"];
    assert_eq!(raw_summary["result"], "failed", "{raw_summary}");
    assert_eq!(raw_summary["isPreview"], false, "{raw_summary}");

    let (out, rows) = logged(&env, "destroy", &["destroy", "--yes", "--non-interactive"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let deletes: Vec<(String, String, String)> = steps(&rows)
        .into_iter()
        .filter(|(_, op, _)| op == "delete")
        .collect();
    assert_eq!(
        deletes,
        owned(&[
            ("resource_pre_event", "delete", "box"),
            ("res_outputs_event", "delete", "box"),
            ("resource_pre_event", "delete", "net"),
            ("res_outputs_event", "delete", "net"),
            ("resource_pre_event", "delete", "e2e-dev"),
            ("res_outputs_event", "delete", "e2e-dev"),
            ("resource_pre_event", "delete", "default"),
            ("res_outputs_event", "delete", "default"),
        ])
    );
    assert_eq!(summary(&rows)["changes"], json!({"delete": 3}));
}

#[test]
fn up_json_prints_only_the_event_stream_and_keeps_the_shape() {
    let env = Env::new(PROGRAM);
    let out = env.run(&["up", "--stack", "dev", "--yes", "--json", "--parallel", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("Created stack 'dev'"),
        "messages go to stderr: {}",
        stderr(&out)
    );
    let mut events = json_lines(&stdout(&out));
    for e in &events {
        let kinds: Vec<&String> = e
            .as_object()
            .unwrap()
            .keys()
            .filter(|k| *k != "sequence" && *k != "timestamp")
            .collect();
        assert_eq!(kinds.len(), 1, "exactly one event per object: {e}");
    }
    events
        .iter_mut()
        .for_each(|e| redact(e, &["uid", "networkId"]));
    let text: Vec<String> = events
        .iter()
        .map(|e| serde_json::to_string_pretty(e).unwrap())
        .collect();
    insta::assert_snapshot!("up_json_stream", text.join("\n"));

    env.ok(&["config", "set", "tag", "two", "--stack", "dev"]);
    let mut events =
        json_lines(&env.ok(&["up", "--stack", "dev", "--yes", "--json", "--parallel", "1"]));
    events
        .iter_mut()
        .for_each(|e| redact(e, &["uid", "networkId"]));
    let update: Vec<String> = events
        .iter()
        .filter(|e| {
            ["resourcePreEvent", "resOutputsEvent"].iter().any(|k| {
                e[k]["metadata"]["urn"]
                    .as_str()
                    .is_some_and(|u| u.ends_with("::box"))
            }) || e.get("summaryEvent").is_some()
        })
        .map(|e| serde_json::to_string_pretty(e).unwrap())
        .collect();
    insta::assert_snapshot!("up_json_update", update.join("\n"));
}

const PYTHON_PROGRAM: &str = r#"
import pulumi


class Shelf(pulumi.ComponentResource):
    def __init__(self, name, opts=None):
        super().__init__("events:index:Shelf", name, None, opts)
        self.item = pulumi.CustomResource(
            "sim:index:Resource", f"{name}-item", {"tag": "t1", "uid": None},
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.register_outputs({"itemTag": self.item.tag})


shelf = Shelf("shelf")
print("hello from python")
pulumi.export("itemTag", shelf.item.tag)
"#;

#[test]
fn a_python_programs_log_carries_its_prints_components_and_outputs() {
    let mut env = Env::new("");
    env.passphrase = true;
    env.write(
        "Pulumi.yaml",
        "name: pyevents\nruntime:\n  name: python\n  options:\n    virtualenv: venv\n",
    );
    env.write("__main__.py", PYTHON_PROGRAM);
    let venv = cli_support::sdk::sdk_env().root.join("venv");
    std::os::unix::fs::symlink(venv, env.project().join("venv")).unwrap();
    env.ok(&["stack", "init", "dev"]);

    let path = log_path(&env, "python");
    let out = env.run(&[
        "up",
        "--stack",
        "dev",
        "--yes",
        "--json",
        "--event-log",
        path.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let printed = json_lines(&stdout(&out));
    let rows = read_with_automation(&path);
    check_stream(&rows);
    // One stream: the log has every event, stdout all but the default provider's (Pulumi
    // keeps internal events out of --json), with the log's sequence numbers.
    let internal = |sequence: &Value| {
        rows.iter().any(|r| {
            &r["sequence"] == sequence
                && r["urn"]
                    .as_str()
                    .is_some_and(|u| u.contains("pulumi:providers:"))
        })
    };
    let sequences: Vec<&Value> = rows
        .iter()
        .map(|r| &r["sequence"])
        .filter(|s| !internal(s))
        .collect();
    let printed_sequences: Vec<&Value> = printed.iter().map(|e| &e["sequence"]).collect();
    assert_eq!(
        printed_sequences, sequences,
        "stdout and the log hold one stream"
    );
    assert_eq!(rows.len(), printed.len() + 2, "the provider's two events");

    let said: Vec<&Value> = rows
        .iter()
        .filter(|r| r["kind"] == "diagnostic_event")
        .collect();
    assert!(
        said.iter()
            .any(|d| d["message"] == "hello from python\n" && d["severity"] == "info"),
        "{said:#?}"
    );
    // Pulumi's event log and `up --json` keep the SDK's debug messages; the preview digest
    // (`preview --json`) leaves them out.
    assert!(said.iter().any(|d| d["severity"] == "debug"), "{said:#?}");
    let digest: Value =
        serde_json::from_str(&env.ok(&["preview", "--stack", "dev", "--json"])).unwrap();
    let shown = digest["diagnostics"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(shown.iter().all(|d| d["severity"] != "debug"), "{digest:#}");
    let mut found = steps(&rows);
    found.sort();
    assert_eq!(
        found,
        owned(&[
            ("res_outputs_event", "create", "default"),
            ("res_outputs_event", "create", "pyevents-dev"),
            ("res_outputs_event", "create", "shelf"),
            ("res_outputs_event", "create", "shelf-item"),
            ("resource_pre_event", "create", "default"),
            ("resource_pre_event", "create", "pyevents-dev"),
            ("resource_pre_event", "create", "shelf"),
            ("resource_pre_event", "create", "shelf-item"),
        ]),
        "a component reports outputs only when it registers them"
    );
    let outputs = |n: &str| {
        rows.iter()
            .find(|r| r["kind"] == "res_outputs_event" && name(r) == n)
            .unwrap()["new_outputs"]
            .clone()
    };
    assert_eq!(outputs("shelf"), json!({"itemTag": "t1"}));
    assert_eq!(outputs("pyevents-dev"), json!({"itemTag": "t1"}));
    assert_eq!(summary(&rows)["changes"], json!({"create": 3}));
}

/// Three commands printing on both streams, with the `command` package's `logging` option
/// unset (both streams), `stdout` and `none`; the first pauses between its lines.
const COMMAND_LOGGING_PROGRAM: &str = r#"
resources:
  both:
    type: command:local:Command
    properties:
      create: "echo out-1; sleep 0.3; echo err-1 >&2; sleep 0.3; echo out-2"
  outOnly:
    type: command:local:Command
    properties:
      create: "echo out-a; echo err-a >&2"
      logging: stdout
  quiet:
    type: command:local:Command
    properties:
      create: "echo out-q; echo err-q >&2"
      logging: none
"#;

#[test]
fn a_commands_logged_lines_stream_as_ephemeral_diagnostics_before_its_step_ends() {
    let env = Env::new(COMMAND_LOGGING_PROGRAM);
    env.ok(&["stack", "init", "dev"]);
    let (out, rows) = logged(&env, "command", &["up", "--yes"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = |n: &str| -> Vec<(usize, String)> {
        rows.iter()
            .enumerate()
            .filter(|(_, r)| {
                r["kind"] == "diagnostic_event"
                    && r["diag_urn"]
                        .as_str()
                        .is_some_and(|u| u.ends_with(&format!("::{n}")))
            })
            .map(|(i, r)| {
                assert_eq!(r["severity"], "info", "{r}");
                assert_eq!(r["ephemeral"], true, "{r}");
                (i, r["message"].as_str().unwrap().to_string())
            })
            .collect()
    };
    let both = lines("both");
    assert_eq!(
        both.iter().map(|(_, m)| m.as_str()).collect::<Vec<_>>(),
        ["out-1\n", "err-1\n", "out-2\n"],
        "every line of both streams, in the order printed"
    );
    let done = rows
        .iter()
        .position(|r| r["kind"] == "res_outputs_event" && name(r) == "both")
        .unwrap();
    assert!(
        both.iter().all(|(i, _)| *i < done),
        "the lines come while the command runs, before its step's outputs"
    );
    let out_only = lines("outOnly");
    assert_eq!(
        out_only.iter().map(|(_, m)| m.as_str()).collect::<Vec<_>>(),
        ["out-a\n"]
    );
    assert!(lines("quiet").is_empty(), "`none` logs nothing");
    let outputs = |n: &str| {
        rows.iter()
            .find(|r| r["kind"] == "res_outputs_event" && name(r) == n)
            .unwrap()["new_outputs"]
            .clone()
    };
    assert_eq!(
        (
            outputs("quiet")["stdout"].clone(),
            outputs("quiet")["stderr"].clone()
        ),
        (json!("out-q"), json!("err-q")),
        "the outputs keep what the command printed whatever is logged"
    );
}
