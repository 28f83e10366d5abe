//! Approval policies from the command line: `--approve` rules, a decision file answering the
//! gates of a non-interactive run, and what the summary and the `--json` stream say about it.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::cli_support;
use crate::json_support;
use cli_support::*;
use json_support::*;
use serde_json::Value;
use std::collections::BTreeSet;

const THREE: &str = "resources:
  keep:
    type: sim:index:Resource
    properties:
      v: 1
  gone:
    type: sim:index:Resource
    properties:
      v: 2
  stays:
    type: sim:index:Resource
    properties:
      v: 3
";

const ONE: &str = "resources:
  keep:
    type: sim:index:Resource
    properties:
      v: 1
";

/// A stack with three resources whose program now declares only `keep`, and a decision file
/// approving the delete of `gone` and declining the delete of `stays`.
fn two_deletes() -> (Env, String) {
    let env = Env::new(THREE);
    up_ok(&env, &["--non-interactive"]);
    env.write("Pulumi.yaml", &format!("name: e2e\nruntime: yaml\n{ONE}"));
    let decisions = env.project().join("decisions.yaml");
    std::fs::write(
        &decisions,
        "\"**::gone\": approve\n\"**::stays\": decline\n",
    )
    .unwrap();
    (env, decisions.display().to_string())
}

/// `up --stack dev --yes` with `args`, run to the end.
fn up(env: &Env, args: &[&str]) -> std::process::Output {
    let mut all = vec!["up", "--stack", "dev", "--yes"];
    all.extend_from_slice(args);
    env.run(&all)
}

/// [`up`], insisting on success; its standard output.
fn up_ok(env: &Env, args: &[&str]) -> String {
    let out = up(env, args);
    assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
    stdout(&out)
}

fn names(env: &Env) -> Vec<String> {
    let mut n: Vec<String> = env.managed("dev").into_iter().map(|(n, _)| n).collect();
    n.sort();
    n
}

#[test]
fn a_decision_file_approves_one_delete_and_declines_another() {
    let (env, decisions) = two_deletes();
    let out = up_ok(
        &env,
        &[
            "--non-interactive",
            "--approve",
            "deletes=ask",
            "--decisions",
            &decisions,
        ],
    );
    assert!(
        out.contains("sim:index:Resource stays waiting for a decision (deletes=ask)"),
        "{out}"
    );
    assert!(out.contains("Decisions:"), "{out}");
    assert!(
        out.contains(&format!(
            "    delete gone (sim:index:Resource): approved by decision file {decisions}"
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "    delete stays (sim:index:Resource): declined (kept as it is) by decision file {decisions}"
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "Skipped:\n    delete stays (sim:index:Resource): declined by decision file {decisions}"
        )),
        "{out}"
    );
    assert!(!out.contains("replacement declined"), "{out}");
    assert_eq!(names(&env), vec!["keep", "stays"]);
    env.assert_no_leaks("dev");
}

#[test]
fn the_json_stream_records_every_gate_and_decision() {
    let (env, decisions) = two_deletes();
    let out = up_ok(
        &env,
        &[
            "--json",
            "--parallel",
            "1",
            "--approve",
            "deletes=ask",
            "--decisions",
            &decisions,
        ],
    );
    let mut rows: Vec<Value> = json_lines(&out)
        .into_iter()
        .filter(|r| {
            r.get("stepdeckGateEvent").is_some() || r.get("stepdeckDecisionEvent").is_some()
        })
        .collect();
    for r in &mut rows {
        redact(r, &[]);
        r["sequence"] = 0.into();
        if let Some(name) = r.pointer_mut("/stepdeckDecisionEvent/by/name") {
            assert_eq!(name.as_str(), Some(decisions.as_str()));
            *name = "[decisions.yaml]".into();
        }
    }
    // Deletes run in parallel within a layer: the order of the two gates is not fixed.
    rows.sort_by_key(|r| r.to_string());
    let text: Vec<String> = rows
        .iter()
        .map(|r| serde_json::to_string_pretty(r).unwrap())
        .collect();
    insta::assert_snapshot!("approval_json_events", text.join("\n"));
    assert_eq!(names(&env), vec!["keep", "stays"]);
}

#[test]
fn without_a_console_an_undecided_gate_is_declined_and_a_bad_rule_is_refused() {
    let (env, _) = two_deletes();
    let text = up_ok(
        &env,
        &["--non-interactive", "--approve", "deletes[**::gone]=ask"],
    );
    assert!(text.contains("no one can be asked"), "{text}");
    assert_eq!(
        names(&env),
        vec!["gone", "keep"],
        "stays went, gone was declined"
    );

    let bad = up(&env, &["--approve", "removals=ask"]);
    assert!(!bad.status.success());
    assert!(
        stderr(&bad).contains("unknown step kind \"removals\""),
        "{}",
        stderr(&bad)
    );
}

#[test]
fn the_stack_settings_and_a_policy_file_set_rules_that_a_flag_overrides() {
    let (env, _) = two_deletes();
    env.write(
        "Pulumi.dev.yaml",
        "config:\n  stepdeck:approve:\n    deletes: decline\n",
    );
    let policy = env.project().join("policy.yaml");
    std::fs::write(&policy, "\"deletes[**::gone]\": auto\n").unwrap();
    let policy = policy.display().to_string();
    up_ok(&env, &["--non-interactive", "--approve-file", &policy]);
    assert_eq!(
        names(&env),
        vec!["keep", "stays"],
        "the file's scoped rule wins"
    );
    up_ok(&env, &["--non-interactive", "--approve", "deletes=auto"]);
    assert_eq!(
        names(&env),
        vec!["keep"],
        "the flag beats the stack's settings"
    );

    std::fs::write(&policy, "deletes: ask\nupdates: sometimes\n").unwrap();
    let bad = up(&env, &["--approve-file", &policy]);
    assert!(!bad.status.success());
    let e = stderr(&bad);
    assert!(
        e.contains("policy.yaml:2") && e.contains("sometimes"),
        "{e}"
    );
}

/// The `Resources:` block of a summary (its lines up to the blank one or the duration).
fn resources_block(out: &str) -> Vec<String> {
    out.lines()
        .skip_while(|l| !l.starts_with("Resources:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty() && !l.starts_with("Duration"))
        .map(|l| l.trim().to_string())
        .collect()
}

#[test]
fn a_preview_under_a_declining_policy_counts_and_outputs_what_its_up_does() {
    let env = crate::console_support::followers_project();
    let decline = ["--approve", "replacements=decline"];
    let mut preview = vec!["preview", "--stack", "dev"];
    preview.extend(decline);
    let planned = env.ok(&preview);
    // What read the database's outputs diffs against the outputs it keeps: nothing changes.
    for resource in ["backup", "report"] {
        assert!(
            !planned
                .lines()
                .any(|l| l.contains(resource) && l.contains("update")),
            "{resource} follows the kept database:\n{planned}"
        );
    }
    assert!(planned.contains("dbEngine: \"pg15\""), "{planned}");
    assert!(!planned.contains("[unknown]"), "{planned}");
    let mut json = preview.clone();
    json.push("--json");
    let planned_json: Value = serde_json::from_str(&env.ok(&json)).unwrap();
    let ops: Vec<&str> = planned_json["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["op"].as_str())
        .collect();
    assert!(ops.iter().all(|op| *op == "same"), "{planned_json}");

    // A decision file declining the cascade under `ask` is foretold the same way.
    let decisions = env.project().join("decisions.yaml");
    std::fs::write(&decisions, "\"**::db\": decline\n").unwrap();
    let decisions = decisions.display().to_string();
    let by_file = env.ok(&[
        "preview",
        "--stack",
        "dev",
        "--approve",
        "replacements=ask",
        "--decisions",
        &decisions,
    ]);
    assert_eq!(
        resources_block(&by_file),
        resources_block(&planned),
        "{by_file}"
    );

    let applied = up_ok(&env, &decline);
    assert!(applied.contains("dbEngine: \"pg15\""), "{applied}");
    assert_eq!(
        resources_block(&planned),
        vec!["1 replacement declined", "5 unchanged"],
        "{planned}"
    );
    assert_eq!(
        resources_block(&applied),
        resources_block(&planned),
        "{applied}"
    );
    let applied_json = json_lines(&up_ok(&env, &["--json", decline[0], decline[1]]));
    let summary = applied_json
        .iter()
        .find_map(|e| e.pointer("/summaryEvent/resourceChanges"))
        .expect("a summary event");
    assert_eq!(&planned_json["changeSummary"], summary, "{planned_json}");
    assert_eq!(crate::console_support::world_engine_of_db(&env).1, "pg15");
}

/// `base` and `top`, which reads `base`'s value.
const BASE_TOP: &str = "resources:
  base:
    type: sim:index:Resource
    properties:
      v: 1
  top:
    type: sim:index:Resource
    properties:
      from: ${base.v}
";

/// An environment deployed with `before`, whose program is now `after`.
fn changed(before: &str, after: &str) -> Env {
    let env = Env::new(before);
    up_ok(&env, &["--non-interactive"]);
    env.write("Pulumi.yaml", &format!("name: e2e\nruntime: yaml\n{after}"));
    env
}

/// What a run's plain output says of each resource, preview or apply alike: each row's
/// symbol, type and name (a preview's planned step and an apply's start and end are one
/// row), and each line saying a step was declined or skipped, whole.
fn rows(out: &str) -> BTreeSet<String> {
    out.lines()
        .take_while(|l| !l.starts_with("Resources:") && !l.starts_with("Outputs:"))
        .filter(|l| l.starts_with(' '))
        .map(|l| {
            if l.contains("declined") || l.contains("skipped") {
                return l.trim().to_string();
            }
            let words: Vec<&str> = l.split_whitespace().collect();
            words[..words.len().min(3)].join(" ")
        })
        .collect()
}

/// Previews `make()`'s environment under `approve` (plain and `--json`), runs `up` on it and on
/// another such environment (`--json`), and insists that the preview's rows, counts and
/// summary are the up's, and that its `--json` lists no step changing the resources `kept`.
fn preview_tells_what_up_does(make: impl Fn() -> Env, approve: &[&str], kept: &[&str]) -> String {
    let env = make();
    let preview = [&["preview", "--stack", "dev"][..], approve].concat();
    let planned = env.ok(&preview);
    let planned_json: Value =
        serde_json::from_str(&env.ok(&[&preview[..], &["--json"]].concat())).unwrap();
    let applied = up_ok(&env, approve);
    assert_eq!(rows(&planned), rows(&applied), "{planned}\n{applied}");
    let done = |line: String| {
        ["create", "update", "delete", "replace"]
            .iter()
            .fold(line, |l, op| {
                l.replace(&format!("to {op}"), &format!("{op}d"))
            })
    };
    let counted: Vec<String> = resources_block(&planned).into_iter().map(done).collect();
    assert_eq!(counted, resources_block(&applied), "{planned}\n{applied}");
    let steps = planned_json["steps"].as_array().unwrap();
    assert!(
        steps.iter().all(|s| s["op"] == "same"
            || !kept
                .iter()
                .any(|k| s["urn"].as_str().unwrap().ends_with(&format!("::{k}")))),
        "{planned_json}"
    );
    let applied_json = json_lines(&up_ok(&make(), &[&["--json"][..], approve].concat()));
    let summary = applied_json
        .iter()
        .find_map(|e| e.pointer("/summaryEvent/resourceChanges"))
        .expect("a summary event");
    assert_eq!(&planned_json["changeSummary"], summary, "{planned_json}");
    planned
}

#[test]
fn a_preview_under_a_declining_policy_skips_what_the_up_skips_for_every_kind() {
    let updated = BASE_TOP.replace("v: 1", "v: 2");
    let planned = preview_tells_what_up_does(
        || changed(BASE_TOP, &updated),
        &["--approve", "updates=decline"],
        &["base", "top"],
    );
    assert!(planned.contains("top skipped: it depends on"), "{planned}");

    let added = format!("{ONE}{}", BASE_TOP.trim_start_matches("resources:\n"));
    let planned = preview_tells_what_up_does(
        || changed(ONE, &added),
        &["--approve", "creates=decline"],
        &["base", "top"],
    );
    assert!(planned.contains("top skipped: it depends on"), "{planned}");

    // A decision file declining the delete of `top` under `ask`: `base`, which it needs, stays.
    let env_dir = tempfile::tempdir().unwrap();
    let decisions = env_dir.path().join("decisions.yaml");
    std::fs::write(&decisions, "\"**::top\": decline\n").unwrap();
    let decisions = decisions.display().to_string();
    let planned = preview_tells_what_up_does(
        || changed(BASE_TOP, ONE),
        &["--approve", "deletes=ask", "--decisions", &decisions],
        &["base", "top"],
    );
    assert!(!planned.contains("base delete"), "{planned}");

    let planned = preview_tells_what_up_does(
        crate::console_support::followers_project,
        &["--approve", "replacements=decline"],
        &["db", "app", "backup", "report"],
    );
    assert!(!planned.contains("db replace"), "{planned}");
}
