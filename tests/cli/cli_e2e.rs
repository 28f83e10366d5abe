//! The command line end to end: the real binary, real files, the sim provider's world.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::cli_support;
use std::sync::LazyLock;
use std::time::{Duration, Instant};

use cli_support::*;

/// The cascade fixture with a plain resource, a conditional one and an output.
static PROGRAM: LazyLock<String> = LazyLock::new(|| {
    format!(
        r#"config:
  engine:
    type: string
    default: pg15
  tag:
    type: string
    default: one
  withExtra:
    type: boolean
    default: true
{NET_DB_APP}  box:
    type: sim:index:Resource
    properties:
      tag: ${{tag}}
  extra:
    type: sim:index:Resource
    if: ${{withExtra}}
    properties:
      v: 1
outputs:
  endpoint: ${{db.endpoint}}
"#
    )
});

fn up(env: &Env) -> String {
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"])
}

#[test]
fn up_creates_everything_and_a_second_up_changes_nothing() {
    let env = Env::new(&PROGRAM);
    let out = up(&env);
    assert!(out.contains("Updating (dev):"), "{out}");
    assert!(out.contains(" +  sim:index:Database db created"), "{out}");
    assert!(out.contains("Resources:"), "{out}");
    assert_eq!(env.managed("dev").len(), 5);
    env.assert_no_leaks("dev");
    let world = env.world();
    let db = world.values().find(|r| r["name"] == "db").unwrap();
    assert_eq!(db["type"], "sim:index:Database");
    assert_eq!(db["properties"]["engine"], "pg15");
    let before = env.managed("dev");

    let out = up(&env);
    assert!(!out.contains("created"), "{out}");
    assert!(out.contains("unchanged"), "{out}");
    assert_eq!(env.managed("dev"), before);
    let outputs = env.ok(&["stack", "output", "endpoint", "--stack", "dev"]);
    assert!(
        outputs.trim().starts_with("db-") && outputs.trim().ends_with(".sim"),
        "{outputs}"
    );
}

#[test]
fn preview_shows_a_change_without_making_it() {
    let env = Env::new(&PROGRAM);
    up(&env);
    let before = env.managed("dev");
    env.ok(&["config", "set", "tag", "two", "--stack", "dev"]);
    let out = env.ok(&["preview", "--stack", "dev", "--non-interactive"]);
    assert!(out.contains("Previewing update (dev):"), "{out}");
    assert!(out.contains(" ~  sim:index:Resource box update"), "{out}");
    assert!(out.contains("~ 1 to update"), "{out}");
    assert_eq!(env.managed("dev"), before);
    let json: serde_json::Value =
        serde_json::from_str(&env.ok(&["preview", "--stack", "dev", "--json"])).unwrap();
    let step = json["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["op"] == "update")
        .unwrap();
    assert!(step["urn"].as_str().unwrap().ends_with("::box"));
    assert_eq!(step["diffReasons"], serde_json::json!(["tag"]));
    assert_eq!(json["changeSummary"]["update"], 1);
}

#[test]
fn a_dbr_cascade_replaces_the_database_and_its_server_or_is_declined() {
    let env = Env::new(&PROGRAM);
    up(&env);
    let before = env.managed("dev");
    env.ok(&["config", "set", "engine", "pg16", "--stack", "dev"]);
    let declined = env.ok(&[
        "up",
        "--stack",
        "dev",
        "--yes",
        "--non-interactive",
        "--approve-replacements",
        "decline",
    ]);
    assert!(
        declined.contains("delete-before-replace of db with app"),
        "{declined}"
    );
    assert!(declined.contains("1 replacement declined"), "{declined}");
    assert_eq!(env.managed("dev"), before, "declined: nothing changes");

    let out = up(&env);
    assert!(out.contains("+- 2 replaced"), "{out}");
    let after = env.managed("dev");
    let id = |v: &[(String, String)], n: &str| v.iter().find(|(m, _)| m == n).unwrap().1.clone();
    assert_ne!(id(&before, "db"), id(&after, "db"));
    assert_ne!(id(&before, "app"), id(&after, "app"));
    assert_eq!(id(&before, "net"), id(&after, "net"));
    let deleted_db = out
        .find(" -- sim:index:Database db deleted original")
        .expect("db deleted");
    let deleted_app = out
        .find(" -- sim:index:Server app deleted original")
        .expect("app deleted");
    assert!(deleted_app < deleted_db, "the dependent goes first:\n{out}");
    env.assert_no_leaks("dev");
}

#[test]
fn destroy_leaves_an_empty_state_and_an_empty_world() {
    let env = Env::new(&PROGRAM);
    up(&env);
    let refused = env.run(&["destroy", "--stack", "dev", "--non-interactive"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(stderr(&refused).contains(
        "--yes or --skip-preview or --preview-only must be passed in to proceed when running in non-interactive mode"
    ));
    let out = env.ok(&["destroy", "--stack", "dev", "--yes", "--non-interactive"]);
    assert!(out.contains("deleted"), "{out}");
    assert!(env.managed("dev").is_empty());
    assert!(env.world().is_empty(), "{:?}", env.world());
}

#[test]
fn refresh_records_drift_and_removes_what_vanished() {
    let env = Env::new(&PROGRAM);
    up(&env);
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(env.world_path()).unwrap()).unwrap();
    let resources = doc["resources"].as_object_mut().unwrap();
    let box_id = resources
        .iter()
        .find(|(_, r)| r["name"] == "box")
        .unwrap()
        .0
        .clone();
    let extra_id = resources
        .iter()
        .find(|(_, r)| r["name"] == "extra")
        .unwrap()
        .0
        .clone();
    resources[&box_id]["properties"]["tag"] = "drifted".into();
    resources.remove(&extra_id);
    std::fs::write(env.world_path(), serde_json::to_string(&doc).unwrap()).unwrap();

    env.ok(&["refresh", "--stack", "dev", "--yes", "--non-interactive"]);
    let names: Vec<String> = env.managed("dev").into_iter().map(|(n, _)| n).collect();
    assert!(!names.contains(&"extra".to_string()), "{names:?}");
    let state = env.export("dev");
    let boxed = state["deployment"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["urn"].as_str().unwrap().ends_with("::box"))
        .unwrap()
        .clone();
    assert_eq!(boxed["outputs"]["tag"], "drifted");
    env.assert_no_leaks("dev");
}

#[test]
fn export_and_import_round_trip() {
    let env = Env::new(&PROGRAM);
    up(&env);
    let path = env.root.path().join("dev.json");
    env.ok(&[
        "stack",
        "export",
        "--stack",
        "dev",
        "--file",
        path.to_str().unwrap(),
    ]);
    let exported: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(exported["version"], 3);
    assert!(exported["deployment"]["manifest"]["magic"].is_string());

    // Into the same stack of a fresh backend: the state comes back identical.
    let other = Env::new(&PROGRAM);
    other.ok(&["stack", "init", "dev"]);
    other.ok(&[
        "stack",
        "import",
        "--stack",
        "dev",
        "--file",
        path.to_str().unwrap(),
    ]);
    assert_eq!(other.managed("dev"), env.managed("dev"));
    assert_eq!(
        other.export("dev")["deployment"]["resources"],
        exported["deployment"]["resources"]
    );

    let mut broken = exported.clone();
    broken["deployment"]["resources"][0]["urn"] = 7.into();
    std::fs::write(&path, broken.to_string()).unwrap();
    let bad = other.run(&[
        "stack",
        "import",
        "--stack",
        "dev",
        "--file",
        path.to_str().unwrap(),
    ]);
    assert_eq!(bad.status.code(), Some(2), "{}", stderr(&bad));
    assert!(
        stderr(&bad).contains("resources[0].urn"),
        "{}",
        stderr(&bad)
    );
    std::fs::write(&path, "{ nope").unwrap();
    let bad = other.run(&[
        "stack",
        "import",
        "--stack",
        "dev",
        "--file",
        path.to_str().unwrap(),
    ]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("dev.json:1:3"), "{}", stderr(&bad));
    assert_eq!(
        other.managed("dev"),
        env.managed("dev"),
        "a rejected import changes nothing"
    );
}

#[test]
fn an_export_that_cannot_be_written_fails_naming_where_it_went() {
    let env = Env::new(&PROGRAM);
    up(&env);
    let out = env.run(&["stack", "export", "--stack", "dev", "--file", "/dev/full"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("/dev/full"), "{}", stderr(&out));
    assert!(stderr(&out).contains("No space left"), "{}", stderr(&out));
    let full = std::fs::File::options()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = env
        .command(&["stack", "export", "--stack", "dev"])
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("standard output: cannot write the command's output"),
        "{}",
        stderr(&out)
    );
    assert!(env.export("dev")["deployment"]["resources"].is_array());
}

#[test]
fn a_locked_stack_refuses_a_second_update_until_unlocked() {
    let env = Env::new(&format!("{}\n", *PROGRAM));
    env.write("Pulumi.dev.yaml", "config:\n  sim:latencyMs: 1000\n");
    let mut first = env.spawn(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    let dir = env.stack_dir("dev");
    let deadline = Instant::now() + Duration::from_secs(20);
    // The stack's creation locks it briefly too: wait for the update's own lock.
    let held_by_update = || {
        current_lock(&dir)
            .is_some_and(|(_, info)| info["operation"] == "up" && info.get("released").is_none())
    };
    while !held_by_update() {
        assert!(
            Instant::now() < deadline,
            "the first update never locked the stack"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let second = env.run(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    assert!(!second.status.success());
    let err = stderr(&second);
    assert!(
        err.contains("locked") && err.contains(&first.id().to_string()),
        "{err}"
    );
    assert!(first.wait().unwrap().success());
    up(&env);
}

/// Names of the resources whose operations the stack's journal has begun and not ended.
fn in_flight(journal_dir: &std::path::Path) -> Vec<String> {
    let mut names = std::collections::BTreeMap::new();
    for e in std::fs::read_dir(journal_dir)
        .into_iter()
        .flatten()
        .flatten()
    {
        if !e.file_name().to_string_lossy().starts_with("journal.") {
            continue;
        }
        let text = std::fs::read_to_string(e.path()).unwrap_or_default();
        for entry in text
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        {
            let op = entry["op"].as_u64();
            match (entry["kind"].as_str(), op) {
                (Some("begin"), Some(op)) => {
                    let urn = entry["state"]["urn"].as_str().unwrap_or_default();
                    names.insert(op, urn.rsplit("::").next().unwrap_or_default().to_string());
                }
                (Some("success" | "failure"), Some(op)) => {
                    names.remove(&op);
                }
                _ => {}
            }
        }
    }
    names.into_values().collect()
}

#[test]
fn kill_9_during_up_then_up_again_leaks_nothing() {
    let env = Env::new(&PROGRAM);
    // Long operations, so that the kill lands while a create is in flight (a kill between the
    // provider's answer and the journal's success entry would leave a pending create whose
    // resource exists: Pulumi's window too, reported as an interrupted create).
    env.write("Pulumi.dev.yaml", "config:\n  sim:latencyMs: 1500\n");
    let mut child = env.spawn(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    let journal_dir = env
        .root
        .path()
        .join("state/.pulumi/.stepdeck/stacks/e2e/dev");
    let deadline = Instant::now() + Duration::from_secs(20);
    // Wait until the database's create is the only operation in flight (begun in the journal,
    // not yet ended), so that no other create can be between its answer and its entry.
    loop {
        assert!(
            Instant::now() < deadline,
            "the database's create never ran alone"
        );
        if in_flight(&journal_dir) == ["db"] {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let out = env.run(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("interrupted while creating"),
        "the pending create is reported:\n{text}"
    );
    assert_eq!(env.managed("dev").len(), 5);
    env.assert_no_leaks("dev");
}

#[test]
fn bad_input_gets_a_clear_error_and_exit_code_2() {
    let env = Env::new("resources:\n  a:\n    type: sim:index:Resource\n    properties: [oops\n");
    let out = env.run(&["preview", "--stack", "dev", "--non-interactive"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("Pulumi.yaml:"), "{}", stderr(&out));

    let env = Env::new(
        "resources:\n  a:\n    type: sim:index:Resource\n    properties:\n      x: ${b.y}\n  b:\n    type: sim:index:Resource\n    properties:\n      y: ${a.x}\n",
    );
    let out = env.run(&["preview", "--stack", "dev", "--non-interactive"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("cycle"), "{}", stderr(&out));

    let env = Env::new("resources:\n  a:\n    type: sim:index:Nope\n");
    let out = env.run(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    assert!(!out.status.success());
    assert!(
        stdout(&out).contains("sim:index:Nope") || stderr(&out).contains("sim:index:Nope"),
        "{}\n{}",
        stdout(&out),
        stderr(&out)
    );

    let env = Env::new("resources:\n  a:\n    type: nopkg:index:Thing\n");
    let out = env.run(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    assert!(!out.status.success());
    assert!(stdout(&out).contains("nopkg") || stderr(&out).contains("nopkg"));

    // A flag's bad value is refused as cobra refuses it (exit code 1).
    let out = env.run(&["up", "--stack", "dev", "--parallel", "lots"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("error: invalid argument \"lots\" for \"-p, --parallel\" flag"),
        "{}",
        stderr(&out)
    );

    let env = Env::new(&PROGRAM);
    up(&env);
    let checkpoint = env.root.path().join("state/.pulumi/stacks/e2e/dev.json");
    std::fs::write(&checkpoint, "{ not json").unwrap();
    let out = env.run(&["preview", "--stack", "dev", "--non-interactive"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("dev.json"), "{}", stderr(&out));
}

#[test]
fn stack_and_config_commands() {
    let program = PROGRAM.replacen(
        "config:\n",
        "config:\n  secretToken:\n    type: string\n    secret: true\n    default: none\n",
        1,
    );
    let mut env = Env::new(&format!("{program}  token: ${{secretToken}}\n"));
    env.passphrase = true;
    env.ok(&["stack", "init", "dev"]);
    env.ok(&["stack", "init", "prod"]);
    let ls = env.ok(&["stack", "ls"]);
    assert!(ls.contains("prod*"), "the last init is selected:\n{ls}");
    env.ok(&["stack", "select", "dev"]);
    assert!(env.ok(&["stack", "ls"]).contains("dev*"));

    env.ok(&["config", "set", "tag", "blue"]);
    env.ok(&["config", "set", "--secret", "secretToken", "hunter2"]);
    assert_eq!(env.ok(&["config", "get", "tag"]).trim(), "blue");
    assert_eq!(env.ok(&["config", "get", "secretToken"]).trim(), "hunter2");
    let settings = std::fs::read_to_string(env.project().join("Pulumi.dev.yaml")).unwrap();
    assert!(
        !settings.contains("hunter2"),
        "secrets are encrypted at rest:\n{settings}"
    );
    assert!(
        settings.contains("secure:") && settings.contains("encryptionsalt"),
        "{settings}"
    );
    let listed = env.ok(&["config", "ls"]);
    assert!(
        listed.contains("e2e:secretToken")
            && listed.contains("[secret]")
            && !listed.contains("hunter2"),
        "{listed}"
    );

    let digest: serde_json::Value = serde_json::from_str(&env.ok(&["preview", "--json"])).unwrap();
    assert_eq!(digest["config"]["e2e:secretToken"], "[secret]");
    assert_eq!(digest["config"]["e2e:tag"], "blue");
    env.ok(&["up", "--yes", "--non-interactive"]);
    let outputs: serde_json::Value =
        serde_json::from_str(&env.ok(&["stack", "output", "--json"])).unwrap();
    assert_eq!(outputs["token"], "[secret]");
    assert_eq!(
        env.ok(&["stack", "output", "token", "--show-secrets"])
            .trim(),
        "hunter2"
    );
    let exported = env.ok(&["stack", "export"]);
    assert!(
        !exported.contains("hunter2"),
        "exports keep secrets encrypted"
    );
    let state_files = walk(&env.root.path().join("state"));
    for f in state_files {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        assert!(
            !text.contains("hunter2"),
            "{} holds the secret in plain text",
            f.display()
        );
    }

    let dot = env.ok(&["stack", "graph"]);
    assert!(dot.starts_with("strict digraph {"), "{dot}");
    assert!(dot.contains("label = \"networkId\""), "{dot}");
    let mermaid = env.ok(&["stack", "graph", "--format", "mermaid"]);
    assert!(
        mermaid.starts_with("graph TD") && mermaid.contains("-.->"),
        "{mermaid}"
    );

    let removed = env.run(&["stack", "rm", "dev", "--yes"]);
    assert!(
        !removed.status.success(),
        "a stack with resources is not removed without --force"
    );
    env.ok(&["destroy", "--yes", "--non-interactive"]);
    env.ok(&["stack", "rm", "dev", "--yes"]);
    assert!(!env.ok(&["stack", "ls"]).contains("dev"));
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// An example project from `assets/examples`, in a fresh environment.
fn example(name: &str) -> Env {
    let text = std::fs::read_to_string(format!(
        "{}/assets/examples/{name}/Pulumi.yaml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let env = Env::new("");
    env.write("Pulumi.yaml", &text);
    env
}

#[test]
fn the_random_and_command_examples_run() {
    let env = example("random");
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    let name = env.ok(&["stack", "output", "name", "--stack", "dev"]);
    let (pet, suffix) = name.trim().rsplit_once('-').unwrap();
    assert!(pet.starts_with("dev-") && suffix.len() == 8, "{name}");
    assert!(
        suffix
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()),
        "{name}"
    );
    env.ok(&["destroy", "--stack", "dev", "--yes", "--non-interactive"]);

    let env = example("command");
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    assert_eq!(
        env.ok(&["stack", "output", "greeting", "--stack", "dev"])
            .trim(),
        "hello from dev"
    );
    let reply = env.ok(&["stack", "output", "reply", "--stack", "dev"]);
    assert!(reply.contains("hello from dev"), "{reply}");
    env.ok(&["destroy", "--stack", "dev", "--yes", "--non-interactive"]);
    assert!(env.managed("dev").is_empty());
}

#[test]
fn targets_limit_an_update_and_target_replace_forces_a_replacement() {
    let env = Env::new(&PROGRAM);
    up(&env);
    let before = env.managed("dev");
    env.ok(&["config", "set", "tag", "two", "--stack", "dev"]);
    let urn = |name: &str| format!("urn:pulumi:dev::e2e::*::{name}");
    let out = env.ok(&[
        "up",
        "--stack",
        "dev",
        "--yes",
        "--non-interactive",
        "--target-replace",
        &urn("net"),
    ]);
    assert!(out.contains("+- sim:index:Network net replaced"), "{out}");
    assert!(!out.contains("box"), "box is not targeted:\n{out}");
    let after = env.managed("dev");
    let id = |v: &[(String, String)], n: &str| v.iter().find(|(m, _)| m == n).unwrap().1.clone();
    assert_ne!(id(&before, "net"), id(&after, "net"));
    assert_eq!(id(&before, "box"), id(&after, "box"));
    let bad = env.run(&[
        "up",
        "--stack",
        "dev",
        "--yes",
        "--non-interactive",
        "--target",
        "urn:pulumi:dev::e2e::sim:index:Resource::nothing",
    ]);
    assert!(!bad.status.success());
    assert!(
        stdout(&bad).contains("could not be found") || stderr(&bad).contains("could not be found"),
        "{}\n{}",
        stdout(&bad),
        stderr(&bad)
    );
}

#[test]
fn a_resource_that_did_not_initialise_stays_in_state_and_the_next_up_updates_it() {
    let env = Env::new(
        r#"
resources:
  box:
    type: sim:index:Resource
    properties:
      tag: one
      initFailOn: [create]
"#,
    );
    let failed = env.run(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    assert!(!failed.status.success());
    let text = format!("{}{}", stdout(&failed), stderr(&failed));
    assert!(text.contains("did not initialise after create"), "{text}");
    // The resource exists: the state holds it with its ID, outputs and init errors.
    env.assert_no_leaks("dev");
    let boxed = resource(&env.export("dev"), "box");
    assert_eq!(boxed["outputs"]["tag"], "one");
    assert!(
        boxed["initErrors"][0]
            .as_str()
            .unwrap()
            .contains("did not initialise"),
        "{boxed}"
    );
    let id = boxed["id"].as_str().unwrap().to_string();

    // Same program: an update (the sim only fails creates), never a second create.
    let out = up(&env);
    assert!(out.contains("box updated"), "{out}");
    assert!(!out.contains("created"), "{out}");
    let boxed = resource(&env.export("dev"), "box");
    assert_eq!(boxed["id"], id.as_str());
    assert!(boxed.get("initErrors").is_none(), "{boxed}");
    env.assert_no_leaks("dev");
}

/// The resource named `name` in an exported stack.
fn resource(export: &serde_json::Value, name: &str) -> serde_json::Value {
    export["deployment"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["urn"].as_str().unwrap().ends_with(&format!("::{name}")))
        .unwrap_or_else(|| panic!("no {name} in {export}"))
        .clone()
}

#[test]
fn a_dbr_cascade_whose_dependents_were_dropped_leaves_a_loadable_stack() {
    let env = Env::new(&format!(
        "{NET_AND_DB}{}",
        r#"  side:
    type: sim:index:Resource
    properties:
      v: 1
  app:
    type: sim:index:Server
    properties:
      image: img-1
      subnetId: ${net.networkId}
      dbEndpoint: ${db.endpoint}
    options:
      dependsOn:
        - ${side}
"#
    ));
    up(&env);
    // The database is replaced delete-before-replace, which deletes app first; the program
    // no longer declares app nor side, which app depended on.
    env.write(
        "Pulumi.yaml",
        &format!(
            "name: e2e\nruntime: yaml\n{}",
            NET_AND_DB.replace("pg15", "pg16")
        ),
    );
    let out = up(&env);
    assert!(out.contains("app deleted original"), "{out}");
    let names: Vec<String> = env.managed("dev").into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, vec!["db", "net"]);
    let export = env.export("dev");
    assert!(
        !export.to_string().contains("pendingReplacement"),
        "{export}"
    );
    env.assert_no_leaks("dev");
    env.ok(&["destroy", "--stack", "dev", "--yes", "--non-interactive"]);
    assert!(env.world().is_empty(), "{:?}", env.world());
}

/// The binary turns transparent huge pages off first thing (`memory::without_huge_pages`): a
/// command it runs inherits the process's flag, and the kernel shows it in the command's own
/// status.
#[test]
fn the_binary_runs_without_transparent_huge_pages() {
    let env = Env::new(
        "resources:\n  probe:\n    type: command:local:Command\n    properties:\n      \
         create: grep THP_enabled /proc/self/status\noutputs:\n  thp: ${probe.stdout}\n",
    );
    env.ok(&["up", "--stack", "dev", "--yes"]);
    let thp = env.ok(&["stack", "output", "thp", "--stack", "dev"]);
    assert_eq!(
        thp.split_whitespace().collect::<Vec<_>>(),
        ["THP_enabled:", "0"]
    );
}

// --- stepdeck as `pulumi`: the command line Pulumi's Automation API drives. ---

/// The binary with this environment's backend, run from `dir` without `--cwd`.
fn bare(env: &Env, dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_stepdeck"))
        .args(args)
        .current_dir(dir)
        .env("STEPDECK_BACKEND_URL", env.backend_url())
        .env("STEPDECK_SIM_WORLD", env.world_path())
        .env_remove("PULUMI_CONFIG_PASSPHRASE")
        .env_remove("PULUMI_CONFIG_PASSPHRASE_FILE")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn pulumis_root_flags_are_accepted_before_after_and_amid_the_arguments() {
    let env = Env::new(&PROGRAM);
    // Python puts --non-interactive first and keeps the value after `--` (even one that looks
    // like a flag); Node appends --non-interactive after the command; Go writes `-v=3`.
    for argv in [
        &[
            "--non-interactive",
            "config",
            "set",
            "tag",
            "--plaintext",
            "--stack",
            "dev",
            "--non-interactive",
            "--",
            "-two",
        ][..],
        &[
            "config",
            "set",
            "engine",
            "--stack",
            "dev",
            "--plaintext",
            "--non-interactive",
            "--",
            "pg16",
        ],
        &[
            "--non-interactive",
            "config",
            "set",
            "--stack",
            "dev",
            "--path",
            "extra.list[0]",
            "--plaintext",
            "--",
            "x",
        ],
    ] {
        let out = env.run_exact(argv);
        assert!(out.status.success(), "{argv:?}: {}", stderr(&out));
    }
    assert_eq!(
        env.ok(&["config", "get", "tag", "--stack", "dev"]),
        "-two\n"
    );
    assert_eq!(
        env.ok(&["config", "get", "engine", "--stack", "dev"]),
        "pg16\n"
    );
    let listed = env.ok(&[
        "stack",
        "ls",
        "--json",
        "--logtostderr",
        "-v=3",
        "--logflow",
        "--tracing=file:/dev/null",
        "--color",
        "never",
        "-e",
        "--profiling",
        "prof",
        "--memprofilerate",
        "1",
        "--disable-integrity-checking",
        "--otel-traces",
        "file:///dev/null",
        "--verbose",
        "9",
        "--emoji=false",
    ]);
    let listed: serde_json::Value = serde_json::from_str(&listed).unwrap();
    assert_eq!(listed[0]["name"], "dev");
    assert_eq!(listed[0]["current"], true);
    // Root flags before the command, `-C` instead of the current directory.
    let out = bare(
        &env,
        env.root.path(),
        &[
            "-C",
            env.project().to_str().unwrap(),
            "--color=raw",
            "stack",
            "ls",
            "--json",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    // Booleans as `--flag=true|false`, as Go and cobra write them.
    let out = env.run(&[
        "up",
        "--stack",
        "dev",
        "--yes=false",
        "--non-interactive=true",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    env.ok(&[
        "up",
        "--stack",
        "dev",
        "--yes=true",
        "--skip-preview=false",
        "--refresh=false",
    ]);

    let bad = env.run(&[
        "up",
        "--stack",
        "dev",
        "--yes",
        "--color",
        "invalid color name",
    ]);
    assert_eq!(bad.status.code(), Some(1));
    assert_eq!(
        stderr(&bad),
        "error: unsupported color option: 'invalid color name'.  Supported values are: auto, always, never, raw\n"
    );
    let unknown = env.run(&["stack", "ls", "--nope"]);
    assert_eq!(unknown.status.code(), Some(1));
    assert_eq!(stderr(&unknown), "error: unknown flag: --nope\n");
    let help = bare(&env, env.root.path(), &["--help", "--non-interactive"]);
    assert!(help.status.success());
    assert!(
        stdout(&help).contains("Usage:") && stdout(&help).contains("--verbose"),
        "{}",
        stdout(&help)
    );
}

/// A `stack ls --json` list with its times checked for Pulumi's layout and replaced.
fn listed_shape(text: &str) -> String {
    let mut list: serde_json::Value = serde_json::from_str(text).unwrap();
    for s in list.as_array_mut().unwrap() {
        if let Some(t) = s.get_mut("lastUpdate") {
            let text = t.as_str().unwrap();
            assert!(
                text.len() == 24 && text.ends_with('Z') && &text[19..20] == ".",
                "Pulumi's times have milliseconds: {text}"
            );
            *t = "<time>".into();
        }
    }
    serde_json::to_string_pretty(&list).unwrap()
}

#[test]
fn stack_names_and_their_errors_are_pulumis_diy_ones() {
    let env = Env::new(&PROGRAM);
    assert_eq!(
        env.ok(&["stack", "init", "organization/e2e/dev"]),
        "Created stack 'dev'\n"
    );
    let again = env.run(&["stack", "init", "organization/e2e/dev"]);
    assert_eq!(again.status.code(), Some(2));
    assert_eq!(
        stderr(&again),
        "error: stack 'organization/e2e/dev' already exists\n"
    );
    for (name, message) in [
        ("acme/dev", "organization name must be 'organization'"),
        ("e2e/dev", "organization name must be 'organization'"),
        (
            "organization/other/dev",
            "provided project name \"other\" doesn't match Pulumi.yaml",
        ),
        ("dev:1", "invalid character ':' at position 3"),
    ] {
        let out = env.run(&["stack", "init", name]);
        assert!(stderr(&out).contains(message), "{name}: {}", stderr(&out));
    }
    assert_eq!(
        env.ok(&["stack", "init", "organization/dev2"]),
        "Created stack 'dev2'\n"
    );
    // The words the Automation API's StackNotFoundError matches, on which it creates the stack.
    let missing = env.run(&["stack", "select", "--stack", "organization/e2e/missing"]);
    assert_eq!(missing.status.code(), Some(6));
    assert_eq!(stderr(&missing), "error: no stack named 'missing' found\n");
    let missing = env.run(&[
        "config",
        "get",
        "tag",
        "--json",
        "--stack",
        "organization/e2e/nope",
    ]);
    assert_eq!(missing.status.code(), Some(6));
    assert_eq!(
        stderr(&missing),
        "error: no stack named 'organization/e2e/nope' found\n"
    );

    env.ok(&[
        "up",
        "--stack",
        "organization/e2e/dev",
        "--yes",
        "--non-interactive",
    ]);
    let net = env.sibling("net", &net_program("s3", "1"));
    env.ok_in(&net, &["stack", "init", "prod"]);
    insta::assert_snapshot!(
        "stack_ls_json",
        listed_shape(&env.ok(&["stack", "ls", "--json"]))
    );
    let all = env.ok(&["stack", "ls", "--json", "--all"]);
    let names: Vec<String> = serde_json::from_str::<serde_json::Value>(&all)
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ["dev", "dev2", "organization/net/prod"]);
    let full = env.ok(&["-Q", "stack", "ls", "--json"]);
    assert!(full.contains("\"organization/e2e/dev\""), "{full}");

    // Removal: refused with Pulumi's words while there are resources, the settings file goes
    // with the stack unless --preserve-config.
    let refused = env.run(&["stack", "rm", "--yes", "dev"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        stderr(&refused).starts_with(
            "error: 'dev' still has resources; removal rejected. Possible actions:\n- Make sure that 'dev' is the stack that you want to destroy\n"
        ),
        "{}",
        stderr(&refused)
    );
    let unconfirmed = env.run(&["stack", "rm", "dev2"]);
    assert_eq!(
        stderr(&unconfirmed),
        "error: non-interactive mode requires --yes flag\n"
    );
    env.write("Pulumi.dev2.yaml", "config:\n  e2e:tag: kept\n");
    assert_eq!(
        env.ok(&["stack", "rm", "--yes", "--preserve-config", "dev2"]),
        "Stack 'dev2' has been removed!\n"
    );
    assert!(env.project().join("Pulumi.dev2.yaml").exists());
    env.ok(&["config", "set", "tag", "blue", "--stack", "dev"]);
    // Python's rename: the new name fully qualified, the old one in --stack.
    assert_eq!(
        env.ok(&[
            "--non-interactive",
            "stack",
            "rename",
            "organization/e2e/dev_renamed",
            "--stack",
            "organization/e2e/dev"
        ]),
        "Renamed dev to dev_renamed\n"
    );
    assert!(env.project().join("Pulumi.dev_renamed.yaml").exists());
    let listed: serde_json::Value =
        serde_json::from_str(&env.ok(&["stack", "ls", "--json"])).unwrap();
    assert_eq!(listed[0]["name"], "dev_renamed");
    assert_eq!(listed[0]["current"], true);
    env.ok(&["stack", "rm", "--yes", "--force", "dev_renamed"]);
    assert!(!env.project().join("Pulumi.dev_renamed.yaml").exists());
    assert_eq!(env.ok(&["stack", "ls", "--json"]).trim(), "[]");
}

#[test]
fn outputs_and_exports_show_secrets_as_pulumi_does() {
    let env = Env::with_passphrase(
        "resources:\n  box:\n    type: sim:index:Resource\n    properties:\n      tag: one\noutputs:\n  plain: ${box.tag}\n  nested:\n    shown: yes\n    inner:\n      fn::secret: hush\n  list:\n    - fn::secret: z\n",
    );
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    let masked: serde_json::Value =
        serde_json::from_str(&env.ok(&["stack", "output", "--json", "--stack", "dev"])).unwrap();
    assert_eq!(
        masked,
        serde_json::json!({"list": ["[secret]"], "nested": {"inner": "[secret]", "shown": "yes"}, "plain": "one"})
    );
    let shown: serde_json::Value = serde_json::from_str(&env.ok(&[
        "stack",
        "output",
        "--json",
        "--show-secrets",
        "--stack",
        "dev",
    ]))
    .unwrap();
    assert_eq!(shown["nested"]["inner"], "hush");
    assert_eq!(shown["list"][0], "z");

    let exported = env.ok(&["stack", "export", "--show-secrets", "--stack", "dev"]);
    assert!(
        exported.starts_with("{\n    \"version\": 3,\n    \"deployment\": {\n"),
        "{exported}"
    );
    assert!(
        exported.contains("\"plaintext\": \"\\\"hush\\\"\"") && !exported.contains("ciphertext"),
        "{exported}"
    );
    let path = env.root.path().join("shown.json");
    std::fs::write(&path, &exported).unwrap();
    env.ok(&[
        "stack",
        "import",
        "--file",
        path.to_str().unwrap(),
        "--stack",
        "dev",
    ]);
    let again: serde_json::Value = serde_json::from_str(&env.ok(&[
        "stack",
        "output",
        "--json",
        "--show-secrets",
        "--stack",
        "dev",
    ]))
    .unwrap();
    assert_eq!(again, shown);
    let encrypted = env.ok(&["stack", "export", "--stack", "dev"]);
    assert!(
        encrypted.contains("ciphertext") && !encrypted.contains("hush"),
        "{encrypted}"
    );

    env.ok(&["destroy", "--stack", "dev", "--yes", "--non-interactive"]);
    let empty: serde_json::Value =
        serde_json::from_str(&env.ok(&["stack", "export", "--stack", "dev"])).unwrap();
    assert!(empty["deployment"].get("resources").is_none(), "{empty}");
    assert_eq!(
        env.ok(&["stack", "output", "--json", "--stack", "dev"])
            .trim(),
        "{}"
    );
}

#[test]
fn a_cancelled_update_exits_8_saying_so() {
    let env = Env::new(&format!("{}\n", *PROGRAM));
    env.write("Pulumi.dev.yaml", "config:\n  sim:latencyMs: 1000\n");
    let mut first = env.spawn(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    // Once a step runs, the update listens for Ctrl-C.
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(first.stdout.take().unwrap()));
    assert!(
        lines.any(|l| l.unwrap().contains(" creating (")),
        "no step started"
    );
    let pid = i32::try_from(first.id()).unwrap();
    // SAFETY: signalling a child process of this test.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    let rest: Vec<String> = lines.map(|l| l.unwrap()).collect();
    let out = first.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(8), "{}\n{rest:?}", stderr(&out));
    assert!(
        stderr(&out).contains("error: update canceled"),
        "{}",
        stderr(&out)
    );
}

/// Pulumi's Python Automation API from the registry (`pulumi.automation`) drives stepdeck
/// installed as `pulumi` through the workspace, config and stack commands:
/// `tests/automation_api/workspace.py` says what it checks.
#[test]
fn the_python_automation_api_drives_workspace_and_stack_commands() {
    let python = sdk::sdk_env().python;
    let env = Env::new("");
    let project = env.sibling(
        "automation",
        "config:\n  greeting:\n    type: string\n    default: hi\nresources:\n  pet:\n    type: random:RandomPet\noutputs:\n  greeting: ${greeting}\n  secretOut:\n    fn::secret: hush\n  nested:\n    inner:\n      fn::secret: x\n",
    );
    let out = env
        .automation_script(&python, "workspace.py")
        .arg(&project)
        .output()
        .unwrap();
    assert_script_ok(&out);
}

/// Pulumi's Python Automation API from the registry runs an inline program on stepdeck as
/// `pulumi`: `--client` (the program runs in the script's process, behind the SDK's language
/// runtime server) and the gRPC event stream `on_event` reads; `tests/automation_api/inline.py`
/// says what it checks.
#[test]
fn the_python_automation_api_runs_an_inline_program_with_grpc_events() {
    run_automation_script(&sdk::sdk_env().python, "inline.py");
}

/// The same through the Node Automation API (`@pulumi/pulumi/automation` from the registry):
/// `tests/automation_api/inline.js`.
#[test]
fn the_node_automation_api_runs_an_inline_program_with_grpc_events() {
    run_automation_script(std::path::Path::new("node"), "inline.js");
}

/// What the Automation API's error classes read: a program's failure is a diagnostic on
/// standard output (`RuntimeError` matches `failed with an unhandled exception`), the
/// command's error a line on standard error.
#[test]
fn a_programs_failure_is_a_diagnostic_on_stdout_and_the_command_fails_on_stderr() {
    let env = Env::new("");
    let project = env.sibling("pyerr", "");
    std::fs::write(
        project.join("Pulumi.yaml"),
        "name: pyerr\nruntime:\n  name: python\n  options:\n    virtualenv: venv\n",
    )
    .unwrap();
    std::fs::write(project.join("__main__.py"), "raise ValueError('boom')\n").unwrap();
    link_sdks(&project);
    let out = env
        .command_in(
            &project,
            &["up", "--stack", "dev", "--yes", "--non-interactive"],
        )
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("error: Program failed with an unhandled exception:")
            && stdout(&out).contains("ValueError: boom"),
        "{}",
        stdout(&out)
    );
    assert!(
        stderr(&out).lines().last().unwrap().starts_with("error: "),
        "{}",
        stderr(&out)
    );
}

/// A Node program that throws has its error reported at once. The SDK formats the error with
/// colors, which on Node 20.20 never ends for its source-mapped frames
/// (`node_modules/@pulumi/resource.ts`): the string grew until V8 gave up, 20-50 s later. Under
/// a small heap that loop kills `node` before the error is ever reported.
#[test]
fn a_throwing_node_program_reports_its_error_before_node_runs_out_of_heap() {
    let env = Env::new("");
    let project = env.sibling("jserr", "");
    std::fs::write(
        project.join("Pulumi.yaml"),
        "name: jserr\nruntime:\n  name: nodejs\n  options:\n    nodeargs: --max-old-space-size=64\n",
    )
    .unwrap();
    std::fs::write(
        project.join("index.js"),
        "exports.out = 1;\nthrow new Error(\"the program stops here\");\n",
    )
    .unwrap();
    std::fs::write(
        project.join("package.json"),
        r#"{"name": "jserr", "main": "index.js"}"#,
    )
    .unwrap();
    link_sdks(&project);
    let out = env
        .command_in(
            &project,
            &["up", "--stack", "dev", "--yes", "--non-interactive"],
        )
        .output()
        .unwrap();
    let (stdout, stderr) = (stdout(&out), stderr(&out));
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("failed with an unhandled exception:")
            && stdout.contains("Error: the program stops here"),
        "{stdout}\n{stderr}"
    );
    assert!(!stderr.contains("terminated by a signal"), "{stderr}");
}

/// A Node program's `process.execArgv` holds no bare `--require`: the SDK's runner reads one as
/// a user's loader and then leaves its automatic ES module mode for TypeScript (ts-node 10's
/// loader) off, so stepdeck's preload goes in as one `--require=<path>` argument.
#[test]
fn a_node_program_sees_no_bare_require_in_its_exec_argv() {
    let env = Env::new("");
    let project = env.sibling("argv", "");
    std::fs::write(project.join("Pulumi.yaml"), "name: argv\nruntime: nodejs\n").unwrap();
    std::fs::write(
        project.join("index.js"),
        "exports.bareRequire = process.execArgv.includes(\"--require\");\n",
    )
    .unwrap();
    std::fs::write(
        project.join("package.json"),
        r#"{"name": "argv", "main": "index.js"}"#,
    )
    .unwrap();
    link_sdks(&project);
    env.ok_in(
        &project,
        &["up", "--stack", "dev", "--yes", "--non-interactive"],
    );
    let out = env.ok_in(
        &project,
        &["stack", "output", "bareRequire", "--stack", "dev"],
    );
    assert_eq!(out.trim(), "false");
}
