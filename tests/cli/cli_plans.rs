//! Update plans through the real binary (Pulumi's `preview --save-plan` / `up --plan`, its
//! `update_plan_test.go` cases): an update does what the preview planned or nothing; plans are
//! checked against the stack, project, configuration and version they were made for, and
//! survive a state export and import.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::cli_support;
use std::path::PathBuf;
use std::process::Output;

use cli_support::*;
use serde_json::Value;

/// A network and a resource whose `tag` reads a config value; `extra` adds resources.
fn program(tag: &str, extra: &str) -> String {
    format!(
        "resources:\n  net:\n    type: sim:index:Network\n    properties:\n      cidr: 10.0.0.0/16\n\
         \x20 box:\n    type: sim:index:Resource\n    properties:\n      tag: {tag}\n      netId: ${{net.networkId}}\n{extra}"
    )
}

fn write_program(env: &Env, tag: &str, extra: &str) {
    env.write(
        "Pulumi.yaml",
        &format!("name: e2e\nruntime: yaml\n{}", program(tag, extra)),
    );
}

fn plan_path(env: &Env) -> PathBuf {
    env.root.path().join("plan.json")
}

fn save_plan(env: &Env) -> String {
    let path = plan_path(env);
    let out = env.ok(&[
        "preview",
        "--stack",
        "dev",
        "--non-interactive",
        "--save-plan",
        path.to_str().unwrap(),
    ]);
    let path = path.display();
    assert!(
        out.ends_with(&format!(
            "Update plan written to '{path}'\nRun `stepdeck up --plan='{path}'` to constrain the update to the operations planned by this preview\n"
        )),
        "{out}"
    );
    out
}

fn up_with_plan(env: &Env, extra: &[&str]) -> Output {
    let path = plan_path(env);
    let mut args = vec![
        "up",
        "--stack",
        "dev",
        "--non-interactive",
        "--yes",
        "--plan",
        path.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    env.run(&args)
}

fn up(env: &Env) {
    env.ok(&["up", "--stack", "dev", "--non-interactive", "--yes"]);
}

/// A stack with `net` and `box` (tag `one`) deployed.
fn deployed() -> Env {
    let env = Env::new(&program("one", ""));
    up(&env);
    env
}

fn world_text(env: &Env) -> String {
    std::fs::read_to_string(env.world_path()).unwrap()
}

fn tag_of_box(env: &Env) -> Value {
    let doc = env.export("dev");
    doc["deployment"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["urn"].as_str().unwrap().ends_with("::box"))
        .map(|r| r["inputs"]["tag"].clone())
        .unwrap()
}

/// A bucket the program of the plan does not have.
const EXTRA: &str = "  extra:\n    type: sim:index:Bucket\n    properties:\n      namePrefix: x\n";

/// The recorded resources by URN: a run that records the same steps again may list
/// independent resources in another order (the order their steps finished), as Pulumi's does.
fn resources_by_urn(env: &Env) -> std::collections::BTreeMap<String, Value> {
    env.export("dev")["deployment"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["urn"].as_str().unwrap().to_string(), r.clone()))
        .collect()
}

/// Runs `up --plan` and asserts it failed saying `message`, with the recorded resources and
/// the sim world as they were.
fn assert_refused(env: &Env, message: &str) {
    let resources = resources_by_urn(env);
    let world = world_text(env);
    let out = up_with_plan(env, &[]);
    let err = stderr(&out) + &stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains(message), "{message}: {err}");
    assert_eq!(resources_by_urn(env), resources);
    assert_eq!(world_text(env), world, "a provider changed the world");
}

#[test]
fn a_program_edited_after_the_preview_is_refused_before_anything_changes() {
    let env = deployed();
    write_program(&env, "two", "");
    save_plan(&env);
    write_program(&env, "three", "");
    let checkpoint = env.checkpoint_text("e2e", "dev");
    assert_refused(
        &env,
        "resource urn:pulumi:dev::e2e::sim:index:Resource::box violates the plan: input `tag` was planned as \"two\" but is \"three\"",
    );
    assert_eq!(env.checkpoint_text("e2e", "dev"), checkpoint);

    // The program the plan was made from applies under it.
    write_program(&env, "two", "");
    let out = up_with_plan(&env, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(tag_of_box(&env), "two");
    env.assert_no_leaks("dev");
}

#[test]
fn a_resource_the_plan_does_not_create_is_refused_without_a_provider_call() {
    let env = deployed();
    save_plan(&env);
    write_program(&env, "one", EXTRA);
    assert_refused(
        &env,
        "resource urn:pulumi:dev::e2e::sim:index:Bucket::extra violates the plan: the plan does not create it",
    );
}

#[test]
fn a_delete_the_plan_does_not_name_is_refused() {
    let env = deployed();
    write_program(&env, "one", EXTRA);
    up(&env);
    save_plan(&env);
    write_program(&env, "one", "");
    assert_refused(
        &env,
        "resource urn:pulumi:dev::e2e::sim:index:Bucket::extra violates the plan: a delete step is not planned (planned: same)",
    );
}

/// Makes `box`'s `uid` in the sim world differ from what the state (and so the preview) says.
fn drift_uid(env: &Env) {
    let mut world: Value = serde_json::from_str(&world_text(env)).unwrap();
    for r in world["resources"].as_object_mut().unwrap().values_mut() {
        if r["name"] == "box" {
            r["properties"]["uid"] = "drifted".into();
        }
    }
    std::fs::write(env.world_path(), world.to_string()).unwrap();
}

#[test]
fn strict_refuses_outputs_the_plan_did_not_expect() {
    for strict in [false, true] {
        let env = deployed();
        write_program(&env, "two", "");
        save_plan(&env);
        drift_uid(&env);
        let flags: &[&str] = if strict { &["--strict"] } else { &[] };
        let out = up_with_plan(&env, flags);
        let err = stderr(&out) + &stdout(&out);
        if strict {
            assert_eq!(out.status.code(), Some(1), "{err}");
            assert!(
                err.contains(
                    "sim:index:Resource::box violates the plan: output `uid` differs from the plan"
                ),
                "{err}"
            );
        } else {
            assert!(out.status.success(), "{err}");
        }
    }
    let env = Env::new(&program("one", ""));
    let out = env.run(&["up", "--stack", "dev", "--yes", "--strict"]);
    assert_eq!(out.status.code(), Some(1), "--strict needs --plan");
    assert!(stderr(&out).contains("--plan"), "{}", stderr(&out));
}

#[test]
fn bad_plan_files_are_refused_naming_the_file_and_field() {
    let env = deployed();
    write_program(&env, "two", "");
    save_plan(&env);
    let path = plan_path(&env);
    let good: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let checkpoint = env.checkpoint_text("e2e", "dev");
    let refuse = |text: String, message: &str| {
        std::fs::write(&path, text).unwrap();
        let out = up_with_plan(&env, &[]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains(path.to_str().unwrap()), "{err}");
        assert!(err.contains(message), "{message}: {err}");
        assert_eq!(env.checkpoint_text("e2e", "dev"), checkpoint);
    };
    refuse("{\"version\": 1, ".into(), "not a plan file");
    let mut v = good.clone();
    v["version"] = 2.into();
    refuse(v.to_string(), "`version`: plan version 2 is not supported");
    let mut v = good.clone();
    v["plan"]["stepdeck.stack"] = "prod".into();
    refuse(
        v.to_string(),
        "`plan.stepdeck.stack`: the plan is for stack \"prod\", not \"dev\"",
    );
    let mut v = good.clone();
    v["plan"]["stepdeck.project"] = "other".into();
    refuse(v.to_string(), "`plan.stepdeck.project`");
    let mut v = good;
    v["plan"]["config"]["e2e:size"] = "3".into();
    refuse(v.to_string(), "`plan.config.e2e:size`");

    let out = env.run(&[
        "preview",
        "--stack",
        "dev",
        "--plan",
        path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "--plan applies to up");
}

#[test]
fn a_plan_survives_an_export_and_an_import_into_another_backend() {
    let mut env = deployed();
    write_program(&env, "two", "");
    save_plan(&env);
    let exported = env.root.path().join("state.json");
    env.ok(&[
        "stack",
        "export",
        "--stack",
        "dev",
        "--file",
        exported.to_str().unwrap(),
    ]);
    let other = env.root.path().join("other-state");
    std::fs::create_dir_all(&other).unwrap();
    env.backend = Some(format!("file://{}", other.display()));
    env.ok(&["stack", "init", "dev"]);
    env.ok(&[
        "stack",
        "import",
        "--stack",
        "dev",
        "--file",
        exported.to_str().unwrap(),
    ]);
    let out = up_with_plan(&env, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(tag_of_box(&env), "two");
    env.assert_no_leaks("dev");
}

/// Replaces every value that differs from run to run with a placeholder.
fn redact(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                match k.as_str() {
                    "time" | "magic" | "version" if x.is_string() => *x = "[redacted]".into(),
                    "seed" | "networkId" | "netId" | "uid" => *x = "[redacted]".into(),
                    "provider" => {
                        let s = x.as_str().unwrap_or_default();
                        let urn = s.rsplit_once("::").map_or(s, |(u, _)| u);
                        *x = format!("{urn}::[id]").into();
                    }
                    _ => redact(x),
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(redact),
        _ => {}
    }
}

#[test]
fn a_saved_plan_has_pulumis_shape() {
    let env = deployed();
    write_program(&env, "two", "");
    save_plan(&env);
    let mut plan: Value =
        serde_json::from_str(&std::fs::read_to_string(plan_path(&env)).unwrap()).unwrap();
    redact(&mut plan);
    insta::assert_snapshot!("saved_plan", serde_json::to_string_pretty(&plan).unwrap());
}

#[test]
fn a_plan_of_another_stack_is_refused_naming_both_before_its_secrets_are_opened() {
    let env = Env::with_passphrase(&program("${pw}", ""));
    for stack in ["dev", "prod"] {
        env.ok(&["stack", "init", stack]);
        env.ok(&[
            "config", "set", "--secret", "pw", "hunter2", "--stack", stack,
        ]);
    }
    up(&env);
    save_plan(&env);
    let plan = std::fs::read_to_string(plan_path(&env)).unwrap();
    assert!(
        plan.contains("ciphertext"),
        "the plan holds secrets: {plan}"
    );
    let out = env.run(&[
        "up",
        "--stack",
        "prod",
        "--non-interactive",
        "--yes",
        "--plan",
        plan_path(&env).to_str().unwrap(),
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("`plan.stepdeck.stack`: the plan is for stack \"dev\", not \"prod\"")
            && !err.contains("decrypt"),
        "{err}"
    );
}

#[test]
fn a_plan_file_is_read_only_up_to_its_limit() {
    let env = deployed();
    let checkpoint = env.checkpoint_text("e2e", "dev");
    let big = env.root.path().join("big.json");
    // Sparse: its size says it is too large before a byte is read.
    std::fs::File::create(&big)
        .unwrap()
        .set_len((1 << 30) + 1)
        .unwrap();
    for (file, words) in [
        ("/dev/zero", "/dev/zero: a device, not a file or a pipe"),
        (
            big.to_str().unwrap(),
            "more than 1 GiB, the most stepdeck reads from a plan or state file",
        ),
    ] {
        let out = env.run(&[
            "up",
            "--stack",
            "dev",
            "--non-interactive",
            "--yes",
            "--plan",
            file,
        ]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(file) && err.contains(words), "{err}");
    }
    assert_eq!(env.checkpoint_text("e2e", "dev"), checkpoint);
}
