//! `stack rename` (Pulumi's DIY `renameStack`): the state moves with every URN rewritten (the
//! root stack's name too), with the settings file, history and tags; the selection follows;
//! an existing name is refused and nothing moves.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::cli_support;
use cli_support::*;
use serde_json::Value;

/// A network and a database, a child of the network, and a config key.
fn program() -> String {
    format!(
        "config:\n  greeting:\n    type: string\n{NET_AND_DB}  child:\n    type: sim:index:Resource\n    properties:\n      tag: ${{net.networkId}}\n    options:\n      parent: ${{net}}\n"
    )
}

fn urns(doc: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for r in doc["deployment"]["resources"].as_array().unwrap() {
        out.push(r["urn"].as_str().unwrap().to_string());
        for key in ["parent", "provider"] {
            if let Some(s) = r[key].as_str() {
                out.push(s.to_string());
            }
        }
        for d in r["dependencies"].as_array().into_iter().flatten() {
            out.push(d.as_str().unwrap().to_string());
        }
    }
    out
}

#[test]
fn a_renamed_stack_keeps_its_state_settings_history_and_tags() {
    let env = Env::new(&program());
    env.ok(&["stack", "init", "dev"]);
    env.ok(&["config", "set", "greeting", "hi"]);
    env.ok(&["up", "--yes", "--non-interactive", "-m", "before"]);
    env.ok(&["stack", "tag", "set", "owner", "ops"]);
    let before = env.managed("dev");

    let out = env.ok(&["stack", "rename", "prod"]);
    assert!(out.contains("Renamed dev to prod"), "{out}");

    let doc = env.export("prod");
    let all = urns(&doc);
    assert!(!all.is_empty());
    for u in &all {
        assert!(u.starts_with("urn:pulumi:prod::e2e::"), "{u}");
    }
    assert!(
        all.iter()
            .any(|u| u == "urn:pulumi:prod::e2e::pulumi:pulumi:Stack::e2e-prod"),
        "{all:?}"
    );
    assert_eq!(env.managed("prod"), before);
    assert!(env.project().join("Pulumi.prod.yaml").exists());
    assert!(!env.project().join("Pulumi.dev.yaml").exists());
    assert_eq!(env.ok(&["config", "get", "greeting"]), "hi\n");
    assert_eq!(env.ok(&["stack", "tag", "get", "owner"]), "ops\n");
    let history = env.ok(&["stack", "history", "--json"]);
    assert!(history.contains("\"before\""), "{history}");
    let ls = env.ok(&["stack", "ls"]);
    assert!(ls.contains("prod*") && !ls.contains("dev"), "{ls}");

    // The renamed stack is a working one: no changes, then a clean destroy.
    env.ok(&["preview", "--non-interactive", "--expect-no-changes"]);
    env.ok(&["destroy", "--yes", "--non-interactive"]);
    assert!(env.world().is_empty(), "{:?}", env.world());
}

#[test]
fn renaming_onto_an_existing_stack_is_refused_and_moves_nothing() {
    let env = Env::new(&program());
    env.ok(&["stack", "init", "other"]);
    env.ok(&["stack", "init", "dev"]);
    env.ok(&["config", "set", "greeting", "hi"]);
    env.ok(&["up", "--yes", "--non-interactive"]);
    let out = env.run(&["stack", "rename", "other"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("already exists"), "{}", stderr(&out));
    assert_eq!(env.managed("dev").len(), 3);
    assert!(env.project().join("Pulumi.dev.yaml").exists());
    assert!(!env.project().join("Pulumi.other.yaml").exists());
}
