//! `preview --json` as Pulumi's digest (logical steps, no sames but the root stack's unless
//! asked), the same choices on the plain display, `--diff`, and `--expect-no-changes`.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::cli_support;
use crate::json_support;
use cli_support::*;
use json_support::*;
use serde_json::Value;

/// A stack whose `box` a preview would replace (its `kind` changed) and update (`tag`).
fn changed_stack() -> Env {
    let env = Env::new(PROGRAM);
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    env.ok(&["config", "set", "kind", "b", "--stack", "dev"]);
    env.ok(&["config", "set", "tag", "two", "--stack", "dev"]);
    env
}

fn digest(env: &Env, flags: &[&str]) -> Value {
    let mut args = vec!["preview", "--stack", "dev", "--json"];
    args.extend(flags);
    let text = env.ok(&args);
    serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("stdout is one JSON document ({e}): {text}"))
}

/// (op, resource name) of the digest's steps.
fn steps(d: &Value) -> Vec<(String, String)> {
    d["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let urn = s["urn"].as_str().unwrap();
            (
                s["op"].as_str().unwrap().to_string(),
                urn.rsplit("::").next().unwrap().to_string(),
            )
        })
        .collect()
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn the_digest_lists_logical_steps_and_the_stacks_same_unless_asked() {
    let env = changed_stack();
    let mut plain = digest(&env, &[]);
    assert_eq!(
        steps(&plain),
        pairs(&[("same", "e2e-dev"), ("replace", "box")])
    );
    redact(&mut plain, &["uid", "networkId"]);
    insta::assert_snapshot!(
        "preview_digest",
        serde_json::to_string_pretty(&plain).unwrap()
    );

    assert_eq!(
        steps(&digest(&env, &["--show-replacement-steps"])),
        pairs(&[
            ("same", "e2e-dev"),
            ("create-replacement", "box"),
            ("replace", "box"),
            ("delete-replaced", "box"),
        ])
    );
    assert_eq!(
        steps(&digest(&env, &["--show-sames"])),
        pairs(&[("same", "e2e-dev"), ("same", "net"), ("replace", "box")])
    );
}

#[test]
fn the_plain_display_honours_the_same_choices_and_shows_property_diffs() {
    let env = changed_stack();
    let base = ["preview", "--stack", "dev", "--non-interactive"];
    let out = env.ok(&base);
    assert!(out.contains(" +- sim:index:Resource box replace"), "{out}");
    assert!(
        !out.contains("create-replacement") && !out.contains(" net "),
        "{out}"
    );

    let mut args = base.to_vec();
    args.extend(["--show-sames", "--show-replacement-steps"]);
    let out = env.ok(&args);
    assert!(out.contains("sim:index:Network net same"), "{out}");
    assert!(
        out.contains("sim:index:Resource box create-replacement"),
        "{out}"
    );
    assert!(
        out.contains("sim:index:Resource box delete-replaced"),
        "{out}"
    );
    assert!(
        !out.contains("pulumi:providers:"),
        "default providers are internal: {out}"
    );

    let mut args = base.to_vec();
    args.push("--diff");
    let out = env.ok(&args);
    let lines: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.contains("box replace"))
        .take(3)
        .collect();
    assert_eq!(
        lines,
        [
            " +- sim:index:Resource box replace",
            "        ~ kind: \"a\" => \"b\"",
            "        ~ tag: \"one\" => \"two\"",
        ],
        "{out}"
    );

    let out = env.ok(&["destroy", "--stack", "dev", "--yes", "--diff"]);
    assert!(
        out.contains(" -  sim:index:Network net deleting (0s)\n        - cidr: \"10.0.0.0/16\"\n"),
        "{out}"
    );
    assert!(
        !out.contains("pulumi:providers:"),
        "default providers are internal: {out}"
    );
}

#[test]
fn expect_no_changes_fails_without_changing_anything() {
    let env = changed_stack();
    let before = env.managed("dev");
    let out = env.run(&["preview", "--stack", "dev", "--expect-no-changes"]);
    assert_eq!(out.status.code(), Some(7), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("no changes were expected for preview but changes were proposed"),
        "{}",
        stderr(&out)
    );
    assert_eq!(env.managed("dev"), before, "a preview changes nothing");

    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    env.ok(&["up", "--stack", "dev", "--yes", "--expect-no-changes"]);
    env.ok(&["preview", "--stack", "dev", "--json", "--expect-no-changes"]);
}
