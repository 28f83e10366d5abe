//! `--output json` on `up`, `preview`, `refresh` and `destroy`: standard output is Pulumi's one
//! JSON summary of the run (`display.SummaryJSON`) and nothing else; the progress goes to
//! standard error; other formats, and `--json` with it, are refused as
//! flag errors (in cobra's words, as other flags are).

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::cli_support;
use serde_json::Value;

use cli_support::*;

const PROGRAM: &str = r#"
resources:
  box:
    type: sim:index:Resource
    properties:
      tag: one
"#;

/// Runs `args` on stack `dev`, which must succeed; its stdout parsed as one JSON object, and
/// its stderr.
fn summary(env: &Env, args: &[&str]) -> (Value, String) {
    let mut all = args.to_vec();
    all.extend(["--stack", "dev", "--non-interactive", "--output", "json"]);
    let out = env.run(&all);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    let summary = serde_json::from_str(text.trim())
        .unwrap_or_else(|e| panic!("stdout is not one JSON object ({e}):\n{text}"));
    (summary, stderr(&out))
}

/// The (name, op) of each resource a summary lists.
fn acted_on(summary: &Value) -> Vec<(String, String)> {
    summary["resources"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_string(),
                r["op"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn each_operation_prints_only_its_summary_on_stdout() {
    let env = Env::new(PROGRAM);
    let (preview, _) = summary(&env, &["preview"]);
    assert_eq!(preview["result"], "succeeded", "{preview}");
    assert!(acted_on(&preview).contains(&("box".into(), "create".into())));

    let (up, progress) = summary(&env, &["up", "--yes", "--skip-preview"]);
    assert_eq!(up["result"], "succeeded", "{up}");
    assert!(up["summary"]["create"].as_u64() > Some(0), "{up}");
    assert!(up["duration"].as_u64().is_some(), "{up}");
    let boxed = up["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "box")
        .unwrap();
    assert_eq!(boxed["type"], "sim:index:Resource");
    assert!(boxed["urn"].as_str().unwrap().ends_with("::box"), "{boxed}");
    assert!(
        boxed["parent"]
            .as_str()
            .unwrap()
            .contains("pulumi:pulumi:Stack")
    );
    assert!(progress.contains("Resources:"), "{progress}");

    let (again, _) = summary(&env, &["up", "--yes", "--skip-preview"]);
    assert_eq!(acted_on(&again), vec![], "sames are left out: {again}");

    let (refresh, _) = summary(&env, &["refresh", "--yes", "--skip-preview"]);
    assert!(acted_on(&refresh).contains(&("box".into(), "refresh".into())));

    let (destroy, _) = summary(&env, &["destroy", "--yes", "--skip-preview"]);
    assert!(!acted_on(&destroy).is_empty(), "{destroy}");
    assert!(
        acted_on(&destroy).iter().all(|(_, op)| op == "delete"),
        "{destroy}"
    );
}

#[test]
fn other_formats_and_json_with_it_are_refused() {
    let env = Env::new(PROGRAM);
    for extra in [&["--output", "yaml"][..], &["--output", "json", "--json"]] {
        let mut args = vec!["preview", "--stack", "dev", "--non-interactive"];
        args.extend(extra);
        let out = env.run(&args);
        assert!(!out.status.success(), "{extra:?}: {}", stdout(&out));
        assert!(
            stderr(&out).contains("--output"),
            "{extra:?}: {}",
            stderr(&out)
        );
    }
}
