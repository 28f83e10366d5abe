//! Policy packs written with the registries' `pulumi_policy` (Python) and `@pulumi/policy`
//! (Node) run unchanged by `stepdeck preview|up --policy-pack` against a YAML program: each
//! enforcement level, a remediation, a stack policy, pack config overriding levels, two packs
//! at once, packs that crash or hang, and the engine events read back with
//! `pulumi.automation.events`.

#![allow(clippy::unwrap_used, clippy::panic)]

mod cli_support;
mod policy_support;

use std::path::PathBuf;
use std::process::Command;

use cli_support::*;
use policy_support::{PROGRAM, pack};
use serde_json::Value;

fn env() -> Env {
    let env = Env::new(PROGRAM);
    env.ok(&["stack", "init", "dev"]);
    env
}

/// The `Policies:` section of a plain output, up to the blank line that ends it.
fn policies(out: &str) -> String {
    let start = out
        .find("Policies:\n")
        .unwrap_or_else(|| panic!("no Policies section in:\n{out}"));
    let section = &out[start..];
    section[..section.find("\n\n").unwrap()].to_string()
}

fn names(world: &serde_json::Map<String, Value>) -> Vec<String> {
    let mut names: Vec<String> = world
        .values()
        .map(|r| r["name"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    names
}

const PY_PACK_PREVIEW: &str = "Policies:
    ❌ py-pack@v1.2.3 (local: ../py_pack)
        - [remediate]  private-range  (1 resource)
        - [mandatory]  no-pg15  (sim:index:Database: db)
          Databases run a supported engine
          pg15 is end of life
        - [advisory]  count  (pulumi:pulumi:Stack: e2e-dev)
          Counts the stack's resources
          4 resources
        - [advisory]  watched  (sim:index:Network: net)
          Networks are watched
          networks are watched";

#[test]
fn a_python_packs_levels_show_in_pulumis_section_and_a_mandatory_one_fails_the_preview() {
    let env = env();
    let pack = pack(&env, "py_pack");
    let out = env.run(&["preview", "--policy-pack", &pack]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}\n{}", stderr(&out));
    assert_eq!(policies(&text), PY_PACK_PREVIEW);
    assert!(text.contains("error: preview failed"), "{text}");
    assert!(
        !text.contains("Resources:"),
        "no summary under a ❌ pack: {text}"
    );
    assert!(env.world().is_empty(), "a preview creates nothing");
}

#[test]
fn an_update_remediates_then_stops_before_the_step_a_mandatory_policy_refuses() {
    let env = env();
    let pack = pack(&env, "py_pack");
    let out = env.run(&["up", "--yes", "--skip-preview", "--policy-pack", &pack]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}\n{}", stderr(&out));
    assert!(
        text.contains("resource urn:pulumi:dev::e2e::sim:index:Database::db is invalid"),
        "{text}"
    );
    let world = env.world();
    assert_eq!(names(&world), ["net"], "the database was never created");
    let net = world.values().next().unwrap();
    assert_eq!(
        net["properties"]["cidr"], "10.1.0.0/16",
        "the remediation rewrote the inputs before the create"
    );
    let managed = env.managed("dev");
    assert!(
        managed.iter().any(|(name, _)| name == "net") && !managed.iter().any(|(n, _)| n == "db"),
        "{managed:?}"
    );
}

#[test]
fn pack_config_overrides_levels_so_the_update_goes_through_and_bad_config_is_refused() {
    let env = env();
    let pack = pack(&env, "py_pack");
    let config = env.root.path().join("policy-config.json");
    std::fs::write(&config, r#"{"no-pg15": "advisory", "watched": "disabled"}"#).unwrap();
    let config_arg = config.to_str().unwrap();
    let text = env.ok(&[
        "up",
        "--yes",
        "--skip-preview",
        "--policy-pack",
        &pack,
        "--policy-pack-config",
        config_arg,
    ]);
    let section = policies(&text);
    assert!(
        section.contains("⚠️ py-pack@v1.2.3")
            && section.contains("- [advisory]  no-pg15  (sim:index:Database: db)"),
        "{section}"
    );
    assert!(!section.contains("watched"), "disabled: {section}");
    assert_eq!(names(&env.world()), ["db", "net"]);

    std::fs::write(&config, r#"{"no-pg15": "loud"}"#).unwrap();
    let out = env.run(&[
        "preview",
        "--policy-pack",
        &pack,
        "--policy-pack-config",
        config_arg,
    ]);
    assert_ne!(out.status.code(), Some(0));
    let err = stderr(&out);
    assert!(
        err.contains(
            r#"parsing enforcement level for "no-pg15": "loud" is not a valid enforcement level"#
        ) && err.contains("policy-config.json"),
        "{err}"
    );
}

#[test]
fn a_node_pack_and_a_python_pack_run_at_once_each_in_its_own_section_line() {
    let env = env();
    let node = pack(&env, "node_pack");
    let python = pack(&env, "py_pack");
    let out = env.run(&["preview", "--policy-pack", &format!("{node},{python}")]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}\n{}", stderr(&out));
    let section = policies(&text);
    let node_lines = "Policies:
    ⚠️ node-pack@v0.4.0 (local: ../node_pack)
        - [advisory]  db-engine  (sim:index:Database: db)
          Databases name their engine
          engine pg15 on dev
";
    assert!(section.starts_with(node_lines), "{section}");
    assert_eq!(
        section[node_lines.len()..],
        PY_PACK_PREVIEW["Policies:\n".len()..]
    );
}

/// The policy events and the summary's packs of an event log, as the automation types read
/// them.
const READ_POLICY_EVENTS: &str = r#"
import json, sys
from pulumi.automation.events import EngineEvent

out = {"violations": [], "packs": None}
for line in open(sys.argv[1]):
    e = EngineEvent.from_json(json.loads(line))
    if e.policy_event is not None:
        p = e.policy_event
        out["violations"].append([p.policy_pack_name, p.policy_pack_version, p.policy_name,
                                  p.enforcement_level, p.resource_urn, p.message])
    if e.summary_event is not None:
        out["packs"] = e.summary_event.policy_packs
print(json.dumps(out))
"#;

#[test]
fn the_event_log_carries_violations_and_packs_as_the_automation_api_reads_them() {
    let env = env();
    let pack = pack(&env, "py_pack");
    let log: PathBuf = env.root.path().join("events.jsonl");
    let out = env.run(&[
        "preview",
        "--policy-pack",
        &pack,
        "--event-log",
        log.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let read = Command::new(sdk::sdk_env().python)
        .arg("-c")
        .arg(READ_POLICY_EVENTS)
        .arg(&log)
        .output()
        .unwrap();
    assert!(read.status.success(), "{}", stderr(&read));
    let read: Value = serde_json::from_slice(&read.stdout).unwrap();
    let mut violations: Vec<Vec<String>> = read["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            v.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_str().unwrap_or("").to_string())
                .collect()
        })
        .collect();
    violations.sort();
    let row = |policy: &str, level: &str, urn: &str, message: &str| -> Vec<String> {
        ["py-pack", "1.2.3", policy, level, urn, message]
            .iter()
            .map(|s| s.to_string())
            .collect()
    };
    assert_eq!(
        violations,
        [
            row(
                "count",
                "advisory",
                "urn:pulumi:dev::e2e::pulumi:pulumi:Stack::e2e-dev",
                "<{%reset%}>Counts the stack's resources\n4 resources<{%reset%}>\n"
            ),
            row(
                "no-pg15",
                "mandatory",
                "urn:pulumi:dev::e2e::sim:index:Database::db",
                "<{%reset%}>Databases run a supported engine\npg15 is end of life<{%reset%}>\n"
            ),
            row(
                "watched",
                "advisory",
                "urn:pulumi:dev::e2e::sim:index:Network::net",
                "<{%reset%}>Networks are watched\nnetworks are watched<{%reset%}>\n"
            ),
        ]
    );
    assert_eq!(
        read["packs"],
        serde_json::json!({"py-pack|local|../py_pack": "1.2.3"})
    );
}

#[test]
fn a_pack_that_crashes_or_hangs_fails_the_run_before_anything_is_created() {
    let env = env();
    let crash = pack(&env, "py_crash");
    let out = env.run(&["up", "--yes", "--policy-pack", &crash]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("failed to start: it exited before printing its port")
            && err.contains("RuntimeError: the pack's rules file is missing"),
        "{err}"
    );
    assert!(env.world().is_empty());
    assert!(env.managed("dev").is_empty());

    let hang = pack(&env, "py_hang");
    let out = env
        .command(&["up", "--yes", "--policy-pack", &hang])
        .env("STEPDECK_POLICY_PACK_TIMEOUT", "2")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("failed to start: it did not start within 2s"),
        "{err}"
    );
    assert!(env.world().is_empty());
    assert!(env.managed("dev").is_empty());
}

#[test]
fn the_violations_gate_declines_or_asks_for_steps_on_resources_with_advisory_violations() {
    let env = env();
    let pack = pack(&env, "py_pack");
    let config = env.root.path().join("policy-config.json");
    std::fs::write(&config, r#"{"no-pg15": "advisory", "watched": "disabled"}"#).unwrap();
    let config = config.to_str().unwrap();
    let up = |extra: &[&str]| {
        let mut args = vec![
            "up",
            "--yes",
            "--skip-preview",
            "--non-interactive",
            "--policy-pack",
            &pack,
            "--policy-pack-config",
            config,
        ];
        args.extend_from_slice(extra);
        env.ok(&args)
    };
    let out = up(&["--approve", "violations=decline"]);
    assert!(
        out.contains(
            "    create db (sim:index:Database): declined (kept as it is; what depends on it skipped) by policy"
        ),
        "{out}"
    );
    assert_eq!(
        names(&env.world()),
        ["net"],
        "only the violator is held back"
    );

    let decisions = env.root.path().join("decisions.yaml");
    std::fs::write(&decisions, "\"**::db\": approve\n").unwrap();
    let decisions = decisions.to_str().unwrap();
    let out = up(&["--approve", "violations=ask", "--decisions", decisions]);
    assert!(
        out.contains(&format!(
            "    create db (sim:index:Database): approved by decision file {decisions}"
        )),
        "{out}"
    );
    assert_eq!(names(&env.world()), ["db", "net"]);
}
