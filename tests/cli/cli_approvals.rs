//! Approval policies from the command line: `--approve` rules, a decision file answering the
//! gates of a non-interactive run, and what the summary and the `--json` stream say about it.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::cli_support;
use crate::json_support;
use cli_support::*;
use json_support::*;
use serde_json::Value;

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
