//! Policy packs written with the registries' `pulumi_policy` (Python) and `@pulumi/policy`
//! (Node) run unchanged by `stepdeck preview|up --policy-pack` against a YAML program: each
//! enforcement level, a remediation, a stack policy, pack config overriding levels, two packs
//! at once, packs that crash or hang, and the engine events read back with
//! `pulumi.automation.events`.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::cli_support;
use crate::policy_support;
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

    // Pulumi's --show-policy-remediations: each remediation with the properties it changed.
    let out = env.run(&[
        "preview",
        "--policy-pack",
        &pack,
        "--show-policy-remediations",
    ]);
    let section = policies(&stdout(&out));
    assert!(
        section
            .contains("        - [remediate]  private-range  (sim:index:Network: net) [~cidr]\n"),
        "{section}"
    );
    assert!(!section.contains("(1 resource)"), "{section}");
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

    std::fs::write(&config, r#"{"max-dbs": {"maxCount": 0}}"#).unwrap();
    let out = env.run(&[
        "preview",
        "--policy-pack",
        &pack,
        "--policy-pack-config",
        config_arg,
    ]);
    let text = stdout(&out);
    assert!(
        policies(&text).contains(
            "        - [advisory]  max-dbs  (pulumi:pulumi:Stack: e2e-dev)\n          Databases are counted\n          1 databases, at most 0"
        ),
        "the pack's config reached the policy: {text}"
    );

    std::fs::write(&config, r#"{"max-dbs": {"maxCount": "three"}}"#).unwrap();
    let out = env.run(&[
        "preview",
        "--policy-pack",
        &pack,
        "--policy-pack-config",
        config_arg,
    ]);
    assert_ne!(out.status.code(), Some(0));
    let all = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        all.contains(
            "validating policy config: py-pack 1.2.3  max-dbs: maxCount: Invalid type. Expected: integer, given: string"
        ),
        "{all}"
    );

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
        - [remediate]  owner-tag  (1 resource)
        - [advisory]  db-engine  (sim:index:Database: db)
          Databases name their engine
          engine pg15 on dev
";
    assert!(section.starts_with(node_lines), "{section}");
    assert_eq!(
        section[node_lines.len()..],
        PY_PACK_PREVIEW["Policies:\n".len()..]
    );

    let none = env.root.path().join("none.json");
    std::fs::write(&none, "").unwrap();
    let advisory = env.root.path().join("advisory.json");
    std::fs::write(&advisory, r#"{"no-pg15": "advisory"}"#).unwrap();
    let configs = format!("{},{}", none.display(), advisory.display());
    env.ok(&[
        "up",
        "--yes",
        "--skip-preview",
        "--policy-pack",
        &node,
        "--policy-pack",
        &python,
        "--policy-pack-config",
        &configs,
    ]);
    let world = env.world();
    let net = world.values().find(|r| r["name"] == "net").unwrap();
    assert_eq!(
        (&net["properties"]["cidr"], &net["properties"]["owner"]),
        (&"10.1.0.0/16".into(), &"platform".into()),
        "each pack's remediation saw the other's: {net}"
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

    // The events the automation types skip, in Pulumi's shapes.
    let raw: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(raw[0]["policyLoadEvent"], serde_json::json!({}));
    assert!(raw[1].get("preludeEvent").is_some(), "{}", raw[1]);
    let find = |key: &str| -> Vec<&Value> { raw.iter().filter_map(|e| e.get(key)).collect() };
    let remediation = find("policyRemediationEvent");
    assert_eq!(
        remediation,
        [&serde_json::json!({
            "resourceUrn": "urn:pulumi:dev::e2e::sim:index:Network::net",
            "color": "raw",
            "policyName": "private-range",
            "policyPackName": "py-pack",
            "policyPackVersion": "1.2.3",
            "policyPackVersionTag": "1.2.3",
            "before": {"cidr": "10.0.0.0/16"},
            "after": {"cidr": "10.1.0.0/16"},
        })]
    );
    let net_remediated = find("policyRemediateSummaryEvent")
        .into_iter()
        .find(|e| e["resourceUrn"] == "urn:pulumi:dev::e2e::sim:index:Network::net")
        .unwrap();
    assert_eq!(
        net_remediated["failed"],
        serde_json::json!(["private-range"])
    );
    let db_analyzed = find("policyAnalyzeSummaryEvent")
        .into_iter()
        .find(|e| e["resourceUrn"] == "urn:pulumi:dev::e2e::sim:index:Database::db")
        .unwrap();
    assert_eq!(db_analyzed["failed"], serde_json::json!(["no-pg15"]));
    assert_eq!(
        find("policyAnalyzeStackSummaryEvent"),
        [&serde_json::json!({
            "policyPackName": "py-pack",
            "policyPackVersion": "1.2.3",
            "policyPackVersionTag": "1.2.3",
            "passed": ["max-dbs"],
            "failed": ["count"],
        })]
    );
    let summary = find("summaryEvent")[0];
    assert_eq!(
        (&summary["isPreview"], &summary["result"]),
        (&Value::Bool(true), &Value::from("failed"))
    );
}

/// Pulumi's Python Automation API from the registry passes a pack and its config to stepdeck
/// as `pulumi` and reads the violations from its event stream: `tests/automation_api/policy.py`.
#[test]
fn the_automation_api_passes_packs_and_reads_their_violations() {
    let env = env();
    let pack = env.project().join(pack(&env, "py_pack"));
    let config = env.root.path().join("policy-config.json");
    std::fs::write(&config, r#"{"no-pg15": "advisory", "watched": "disabled"}"#).unwrap();
    let out = env
        .automation_script(&sdk::sdk_env().python, "policy.py")
        .arg(env.project())
        .arg(&pack)
        .arg(&config)
        .output()
        .unwrap();
    assert_script_ok(&out);
    assert_eq!(names(&env.world()), ["db", "net"]);
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
    let hang_dir = env.root.path().join("py_hang");
    let left: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| std::fs::read(e.ok()?.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains(hang_dir.to_str().unwrap()))
        .collect();
    assert!(left.is_empty(), "the hung pack was left running: {left:?}");
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
        out.contains("    create db (sim:index:Database): declined (kept as it is) by policy"),
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

/// What the `inspect` pack reported, by policy: its JSON messages (description line dropped).
fn inspected(log: &std::path::Path) -> Vec<(String, Value)> {
    let read = Command::new(sdk::sdk_env().python)
        .arg("-c")
        .arg(READ_POLICY_EVENTS)
        .arg(log)
        .output()
        .unwrap();
    assert!(read.status.success(), "{}", stderr(&read));
    let read: Value = serde_json::from_slice(&read.stdout).unwrap();
    let mut out: Vec<(String, Value)> = read["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            let message = v[5].as_str().unwrap().replace("<{%reset%}>", "");
            let json = message.trim_end().split_once('\n').map(|(_, j)| j);
            let found = json.map_or(Value::String(message.clone()), |j| {
                serde_json::from_str(j).unwrap()
            });
            (v[2].as_str().unwrap().to_string(), found)
        })
        .collect();
    out.sort_by_key(|(_, v)| v.to_string());
    out
}

/// Runs `preview` (unknowns left unknown), then `up`, of an SDK program with the `inspect` pack
/// and returns what each saw.
fn inspect_program(files: &[(&str, &str)]) -> [Vec<(String, Value)>; 2] {
    let mut env = Env::new("");
    env.passphrase = true;
    for (file, text) in files {
        env.write(file, text);
    }
    link_sdks(&env.project());
    env.ok(&["stack", "init", "dev"]);
    env.set_secret("token", "s3cret");
    let pack = pack(&env, "py_inspect");
    [&["preview"][..], &["up", "--yes", "--skip-preview"]].map(|command| {
        let log = env.root.path().join(format!("{}.jsonl", command[0]));
        let mut args = command.to_vec();
        args.extend(["--policy-pack", &pack, "--event-log", log.to_str().unwrap()]);
        let out = env.run(&args);
        assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
        let text = std::fs::read_to_string(&log).unwrap();
        assert!(
            !text.contains("s3cret"),
            "a secret in the event log: {text}"
        );
        inspected(&log)
    })
}

const PY_PROGRAM: &str = r#"
import pulumi
import pulumi_random as random

class Pair(pulumi.ComponentResource):
    def __init__(self, name, opts=None):
        super().__init__("test:index:Pair", name, None, opts)
        self.child = random.RandomPet(f"{name}-child", opts=pulumi.ResourceOptions(parent=self))

token = pulumi.Config().require_secret("token")
first = random.RandomString(
    "first",
    length=8,
    special=False,
    keepers={"token": token},
    opts=pulumi.ResourceOptions(
        ignore_changes=["length"],
        custom_timeouts=pulumi.CustomTimeouts(create="2m"),
    ),
)
second = random.RandomString("second", length=4, special=False, keepers={"from": first.result},
                             opts=pulumi.ResourceOptions(protect=True))
pair = Pair("pair", opts=pulumi.ResourceOptions(depends_on=[second]))
"#;

const NODE_PROGRAM: &str = r#"
const pulumi = require("@pulumi/pulumi");
const random = require("@pulumi/random");

class Pair extends pulumi.ComponentResource {
    constructor(name, opts) {
        super("test:index:Pair", name, {}, opts);
        this.child = new random.RandomPet(`${name}-child`, {}, { parent: this });
    }
}

const token = new pulumi.Config().requireSecret("token");
const first = new random.RandomString("first", { length: 8, special: false, keepers: { token } }, {
    ignoreChanges: ["length"],
    customTimeouts: { create: "2m" },
});
const second = new random.RandomString("second", { length: 4, special: false, keepers: { from: first.result } },
    { protect: true });
new Pair("pair", { dependsOn: [second] });
"#;

/// What the pack sees of the programs above, Python's or Node's: the same requests; in the
/// preview, a value not known yet is reported as Pulumi's SDKs report it.
fn check_inspected([preview, seen]: &[Vec<(String, Value)>; 2], project: &str) {
    let unknown = Value::String(
        "can't run policy 'seen' from policy pack 'inspect@v0.0.1' during preview: string value \
         at .keepers.from can't be known during preview\n"
            .into(),
    );
    assert!(preview.iter().any(|(_, v)| *v == unknown), "{preview:#?}");
    let by_name = |policy: &str, name: &str| -> Value {
        seen.iter()
            .find(|(p, v)| p == policy && (policy == "graph" || v["name"] == name))
            .unwrap_or_else(|| panic!("{policy} {name}: {seen:#?}"))
            .1
            .clone()
    };
    let first = by_name("seen", "first");
    assert_eq!(
        first["keeper_lengths"]["token"], 6,
        "the secret reaches the pack's policy in plain: {first}"
    );
    assert_eq!(
        first["props"]["keepers"]["token"], "[secret]",
        "and is masked where the pack reports it: {first}"
    );
    assert_eq!(first["props"]["length"], 8.0);
    assert_eq!(first["ignore_changes"], serde_json::json!(["length"]));
    assert_eq!(first["timeouts"], serde_json::json!([120.0, 0.0]));
    assert_eq!(first["protect"], false);
    assert_eq!(first["provider"], "pulumi:providers:random");
    assert_eq!(
        first["parent"],
        format!("urn:pulumi:dev::{project}::pulumi:pulumi:Stack::{project}-dev")
    );
    assert_eq!(by_name("seen", "second")["protect"], true);
    let child = by_name("seen", "pair-child");
    assert_eq!(
        child["parent"],
        format!("urn:pulumi:dev::{project}::test:index:Pair::pair")
    );
    let graph = by_name("graph", "");
    assert_eq!(
        graph["second"]["dependencies"],
        serde_json::json!(["first"]),
        "{graph}"
    );
    assert_eq!(graph["pair-child"]["parent"], "pair", "{graph}");
    assert_eq!(
        graph["first"]["parent"],
        format!("{project}-dev"),
        "{graph}"
    );
}

#[test]
fn a_python_program_s_resources_reach_the_pack_with_options_provider_parent_and_secrets() {
    let seen = inspect_program(&[
        (
            "Pulumi.yaml",
            "name: pyprog\nruntime:\n  name: python\n  options:\n    virtualenv: venv\n",
        ),
        ("__main__.py", PY_PROGRAM),
    ]);
    check_inspected(&seen, "pyprog");
}

#[test]
fn a_node_program_s_resources_reach_the_pack_with_options_provider_parent_and_secrets() {
    let seen = inspect_program(&[
        ("Pulumi.yaml", "name: nodeprog\nruntime: nodejs\n"),
        (
            "package.json",
            r#"{"name": "nodeprog", "main": "index.js"}"#,
        ),
        ("index.js", NODE_PROGRAM),
    ]);
    check_inspected(&seen, "nodeprog");
}

#[test]
fn refresh_and_destroy_refuse_policy_packs_as_pulumi_has_no_such_flags_there() {
    let env = env();
    for op in ["refresh", "destroy"] {
        let out = env.run(&[op, "--yes", "--policy-pack", "../py_pack"]);
        assert_eq!(out.status.code(), Some(2), "{op}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!(
                "unknown flag: --policy-pack ({op} runs no policy packs; preview and up do)"
            )),
            "{}",
            stderr(&out)
        );
    }
    let out = env.run(&["preview", "--policy-pack-config", "c.json"]);
    assert!(
        stderr(&out).contains(r#""--policy-pack-config" must be specified with "--policy-pack""#),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_stacks_settings_add_packs_to_every_preview_and_up_but_not_refresh() {
    let env = env();
    let pack = pack(&env, "py_pack");
    let config = env.root.path().join("advisory.json");
    std::fs::write(&config, r#"{"no-pg15": "advisory"}"#).unwrap();
    env.write(
        "Pulumi.dev.yaml",
        &format!(
            "config:\n  stepdeck:policyPacks:\n    - path: {pack}\n      config: {}\n",
            config.display()
        ),
    );
    let out = env.ok(&["preview"]);
    assert!(
        policies(&out).contains("⚠️ py-pack@v1.2.3 (local: ../py_pack)"),
        "{out}"
    );
    let out = env.ok(&["up", "--yes", "--skip-preview"]);
    assert!(
        policies(&out).contains("- [advisory]  no-pg15  (sim:index:Database: db)"),
        "{out}"
    );
    let out = env.ok(&["refresh", "--yes"]);
    assert!(!out.contains("Policies:"), "{out}");

    env.write(
        "Pulumi.dev.yaml",
        "config:\n  stepdeck:policyPacks:\n    - conf: x.json\n",
    );
    let out = env.run(&["preview"]);
    assert_ne!(out.status.code(), Some(0));
    assert!(
        stderr(&out).contains("Pulumi.dev.yaml:3:5")
            && stderr(&out).contains("`stepdeck:policyPacks` entry has `conf`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_mandatory_stack_policy_fails_the_update_at_its_end_and_what_was_created_stays() {
    let env = env();
    let pack = pack(&env, "py_pack");
    let config = env.root.path().join("stack-mandatory.json");
    std::fs::write(&config, r#"{"count": "mandatory", "no-pg15": "advisory"}"#).unwrap();
    let out = env.run(&[
        "up",
        "--yes",
        "--skip-preview",
        "--policy-pack",
        &pack,
        "--policy-pack-config",
        config.to_str().unwrap(),
    ]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}\n{}", stderr(&out));
    assert!(
        policies(&text).contains(
            "    ❌ py-pack@v1.2.3 (local: ../py_pack)\n        - [remediate]  private-range  (1 resource)\n        - [mandatory]  count  (pulumi:pulumi:Stack: e2e-dev)"
        ),
        "{text}"
    );
    assert!(text.contains("    error: update failed"), "{text}");
    assert_eq!(names(&env.world()), ["db", "net"], "no rollback");
    let managed: Vec<String> = env.managed("dev").into_iter().map(|(n, _)| n).collect();
    assert_eq!(managed, ["db", "net"], "the state keeps what was created");
}

/// A `runtime: bun` pack: its TypeScript run by bun (the SDK's pack runner under `bun run`), as
/// Pulumi's Node.js host starts a pack in its bun mode.
#[test]
fn a_bun_pack_runs_its_typescript_with_bun() {
    let mut env = env();
    let pack = env.root.path().join("bun_pack");
    std::fs::create_dir(&pack).unwrap();
    std::fs::write(pack.join("PulumiPolicy.yaml"), "runtime: bun\n").unwrap();
    std::fs::write(
        pack.join("package.json"),
        r#"{"name": "bun-pack", "version": "0.1.0"}"#,
    )
    .unwrap();
    std::fs::write(
        pack.join("index.ts"),
        r#"import { PolicyPack } from "@pulumi/policy";
const runner: string = process.versions.bun !== undefined ? "bun" : "node";
new PolicyPack("bun-pack", {
    policies: [{
        name: "runner",
        description: "Says what ran the pack",
        enforcementLevel: "advisory",
        validateStack: (_stack, reportViolation) => reportViolation(`run by ${runner}`),
    }],
});
"#,
    )
    .unwrap();
    link_sdks(&pack);
    let bin = env.root.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(
        sdk::sdk_env().root.join("node_modules/.bin/bun"),
        bin.join("bun"),
    )
    .unwrap();
    env.plugins = Some(bin);
    let out = env.ok(&["preview", "--stack", "dev", "--policy-pack", "../bun_pack"]);
    assert!(
        policies(&out).contains("⚠️ bun-pack@v0.1.0 (local: ../bun_pack)"),
        "{out}"
    );
    assert!(out.contains("run by bun"), "{out}");
}

/// The pack of the uv and poetry tests: `PulumiPolicy.yaml` on `toolchain`, the
/// `pyproject.toml` given, and one advisory policy reporting which Python ran the pack.
fn python_toolchain_pack(env: &Env, toolchain: &str, pyproject: &str) -> PathBuf {
    let pack = env.root.path().join(format!("{toolchain}_pack"));
    std::fs::create_dir(&pack).unwrap();
    std::fs::write(
        pack.join("PulumiPolicy.yaml"),
        format!("runtime:\n  name: python\n  options:\n    toolchain: {toolchain}\n    virtualenv: venv\n"),
    )
    .unwrap();
    std::fs::write(pack.join("pyproject.toml"), pyproject).unwrap();
    std::fs::write(
        pack.join("__main__.py"),
        format!(
            r#"import sys
from pulumi_policy import EnforcementLevel, PolicyPack, StackValidationPolicy

PolicyPack(
    name="{toolchain}-pack",
    enforcement_level=EnforcementLevel.ADVISORY,
    policies=[
        StackValidationPolicy(
            name="interpreter",
            description="Says which Python ran the pack",
            validate=lambda args, report: report("run by " + sys.prefix),
        ),
    ],
)
"#
        ),
    )
    .unwrap();
    pack
}

/// A Python pack on the poetry toolchain runs in the virtualenv poetry keeps for it (which
/// `install` in the pack made), as Pulumi's host asks poetry for it.
#[test]
fn a_poetry_pack_runs_in_the_virtualenv_poetry_keeps_for_it() {
    let mut env = env();
    let pack = python_toolchain_pack(
        &env,
        "poetry",
        "[tool.poetry]\nname = \"poetry-pack\"\nversion = \"0.1.0\"\npackage-mode = false\n\n\
         [tool.poetry.dependencies]\npython = \"^3.10\"\npulumi-policy = \">=1.3.0,<2.0.0\"\n\n\
         [build-system]\nrequires = [\"poetry-core\"]\nbuild-backend = \"poetry.core.masonry.api\"\n",
    );
    std::fs::write(
        pack.join("poetry.toml"),
        "[virtualenvs]\nin-project = true\n",
    )
    .unwrap();
    env.plugins = Some(sdk::sdk_env().root.join("tools/bin"));
    let out = env.command_in(&pack, &["install"]).output().unwrap();
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    let out = env.ok(&["preview", "--policy-pack", "../poetry_pack"]);
    assert!(
        policies(&out).contains("⚠️ poetry-pack@v0.0.1 (local: ../poetry_pack)"),
        "{out}"
    );
    assert!(
        out.contains(&format!("run by {}", pack.join(".venv").display())),
        "{out}"
    );
}

/// A Python pack on the uv toolchain, as Pulumi's host starts one: `uv sync --inexact` makes
/// its `virtualenv` from its `pyproject.toml` when the pack loads, and the pack runs in it;
/// without uv on PATH the load (and `install` in the pack) fails naming the pack's file.
#[test]
fn a_uv_pack_is_synced_into_its_virtualenv_when_it_loads() {
    let mut env = env();
    let pack = python_toolchain_pack(
        &env,
        "uv",
        "[project]\nname = \"uv-pack\"\nversion = \"0.1.0\"\nrequires-python = \">=3.10\"\n\
         dependencies = [\"pulumi-policy>=1.3.0,<2.0.0\"]\n",
    );
    let empty = tempfile::tempdir().unwrap();
    let missing = format!(
        "uv is not on PATH: install it, or choose another toolchain in {}",
        pack.join("PulumiPolicy.yaml").display()
    );
    for (dir, args) in [
        (
            env.project(),
            &["preview", "--policy-pack", "../uv_pack"][..],
        ),
        (pack.clone(), &["install"][..]),
    ] {
        let out = env
            .command_in(&dir, args)
            .env("PATH", empty.path())
            .output()
            .unwrap();
        assert!(!out.status.success(), "{args:?}: {}", stdout(&out));
        let text = format!("{}{}", stdout(&out), stderr(&out));
        assert!(text.contains(&missing), "{args:?}: {text}");
    }
    env.plugins = Some(sdk::sdk_env().root.join("tools/bin"));
    let out = env.ok(&["preview", "--policy-pack", "../uv_pack"]);
    assert!(
        policies(&out).contains("⚠️ uv-pack@v0.0.1 (local: ../uv_pack)"),
        "{out}"
    );
    let venv = pack.join("venv");
    assert!(venv.join("pyvenv.cfg").is_file(), "no virtualenv made");
    assert!(out.contains(&format!("run by {}", venv.display())), "{out}");
}
