//! `stack tag get/set/rm/ls`: user tags kept by the backend; Pulumi's built-in `pulumi:` tags
//! are listed and refused for change.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::cli_support;
use cli_support::*;
use serde_json::Value;

#[test]
fn tags_are_set_listed_read_and_removed() {
    let env = Env::new(NET_AND_DB);
    env.ok(&["stack", "init", "dev"]);
    env.ok(&["stack", "tag", "set", "owner", "ops team"]);
    assert_eq!(env.ok(&["stack", "tag", "get", "owner"]), "ops team\n");
    let all: Value = serde_json::from_str(&env.ok(&["stack", "tag", "ls", "--json"])).unwrap();
    assert_eq!(all["owner"], "ops team");
    assert_eq!(all["pulumi:project"], "e2e");
    assert_eq!(all["pulumi:runtime"], "yaml");
    let plain = env.ok(&["stack", "tag", "ls"]);
    assert!(
        plain.contains("owner") && plain.contains("ops team"),
        "{plain}"
    );

    env.ok(&["stack", "tag", "rm", "owner"]);
    let gone = env.run(&["stack", "tag", "get", "owner"]);
    assert_eq!(gone.status.code(), Some(2));
    assert_eq!(
        stderr(&gone),
        "error: stack tag 'owner' not found for stack 'dev'\n"
    );
    let again = env.run(&["stack", "tag", "rm", "owner"]);
    assert_eq!(again.status.code(), Some(2));
}

#[test]
fn built_in_tags_cannot_be_changed() {
    let env = Env::new(NET_AND_DB);
    env.ok(&["stack", "init", "dev"]);
    for args in [
        &["stack", "tag", "set", "pulumi:project", "other"][..],
        &["stack", "tag", "rm", "pulumi:runtime"][..],
    ] {
        let out = env.run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains("is built in"), "{}", stderr(&out));
    }
    assert_eq!(env.ok(&["stack", "tag", "get", "pulumi:project"]), "e2e\n");
}

#[test]
fn tags_of_a_locked_stack_are_not_changed() {
    let env = Env::new(NET_AND_DB);
    env.ok(&["stack", "init", "dev"]);
    let holder = serde_json::json!({
        "pid": std::process::id(), "hostname": hostname(), "user": "t",
        "time": "2026-01-01T00:00:00Z", "operation": "up", "id": "x",
        "expires": "2999-01-01T00:00:00Z"
    });
    plant_lock(&env.stack_dir("dev"), holder);
    let out = env.run(&["stack", "tag", "set", "owner", "me"]);
    assert_ne!(out.status.code(), Some(0), "{}", stdout(&out));
    env.ok(&["stack", "unlock", "--force", "--stack", "dev"]);
    assert!(env.run(&["stack", "tag", "get", "owner"]).status.code() == Some(2));
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_default()
}

#[test]
fn version_and_about_describe_the_setup() {
    let env = Env::new(NET_AND_DB);
    // Pulumi's version, with stepdeck's as build metadata: every Automation API SDK parses it.
    let version = env.ok(&["version"]);
    let suffix = format!("+stepdeck.{}\n", env!("CARGO_PKG_VERSION"));
    assert!(
        version.starts_with("v3.") && version.ends_with(&suffix),
        "{version}"
    );
    assert_eq!(env.ok(&["--version"]), version);
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    let about: Value = serde_json::from_str(&env.ok(&["about", "--json"])).unwrap();
    assert_eq!(
        about["cliAbout"]["version"].as_str().unwrap(),
        version.trim().trim_start_matches('v')
    );
    assert_eq!(
        about["cliAbout"]["implementation"],
        format!("stepdeck {}", env!("CARGO_PKG_VERSION"))
    );
    assert_eq!(about["host"]["arch"], std::env::consts::ARCH);
    assert_eq!(about["runtime"]["language"], "yaml");
    assert_eq!(about["currentStack"]["name"], "dev");
    assert_eq!(
        about["currentStack"]["fullyQualifiedName"],
        "organization/e2e/dev"
    );
    assert_eq!(about["errors"], serde_json::json!([]));
    assert!(
        about["backend"]["url"]
            .as_str()
            .unwrap()
            .starts_with("file://")
    );
    let plugins = about["plugins"].as_array().unwrap();
    assert!(
        plugins
            .iter()
            .any(|p| p["name"] == "sim" && p["kind"] == "resource"),
        "{about}"
    );
    // Pulumi's generated `cli_api.about()` asks for JSON this way.
    let generated: Value = serde_json::from_str(&env.ok(&[
        "--non-interactive",
        "about",
        "--color",
        "never",
        "--output",
        "json",
    ]))
    .unwrap();
    assert_eq!(generated["cliAbout"], about["cliAbout"]);
    let plain = env.ok(&["about"]);
    assert!(
        plain.contains("Current Stack: organization/e2e/dev"),
        "{plain}"
    );
    assert!(plain.contains("stepdeck"), "{plain}");
}

#[test]
fn tags_answer_the_automation_apis_commands() {
    let env = Env::new(NET_AND_DB);
    env.ok(&["stack", "init", "organization/e2e/dev"]);
    let name = "organization/e2e/dev";
    // Python puts --non-interactive first, Node last; the stack is fully qualified.
    env.ok(&[
        "--non-interactive",
        "stack",
        "tag",
        "set",
        "team",
        "core",
        "--stack",
        name,
    ]);
    env.ok(&[
        "stack",
        "tag",
        "set",
        "owner",
        "ops",
        "--stack",
        name,
        "--non-interactive",
    ]);
    assert_eq!(
        env.ok(&[
            "--non-interactive",
            "stack",
            "tag",
            "get",
            "team",
            "--stack",
            name
        ]),
        "core\n"
    );
    let listed: Value = serde_json::from_str(&env.ok(&[
        "stack",
        "tag",
        "ls",
        "--json",
        "--stack",
        name,
        "--non-interactive",
    ]))
    .unwrap();
    assert_eq!(
        listed,
        serde_json::json!({"owner": "ops", "pulumi:project": "e2e", "pulumi:runtime": "yaml", "team": "core"})
    );
    env.ok(&[
        "--non-interactive",
        "stack",
        "tag",
        "rm",
        "team",
        "--stack",
        name,
    ]);
    let missing = env.run(&["stack", "tag", "get", "team", "--stack", name]);
    assert_eq!(
        stderr(&missing),
        "error: stack tag 'team' not found for stack 'dev'\n"
    );
}
