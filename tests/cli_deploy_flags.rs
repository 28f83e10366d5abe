//! Pulumi's deployment flags through the real binary: `--json` keeps stdout to JSON,
//! `--expect-no-changes`, `--config KEY=VALUE` (saved to the stack's settings first, as Pulumi
//! does) and `--suppress-outputs`.

mod cli_support;

use cli_support::*;

const PROGRAM: &str = r#"
config:
  tag:
    type: string
    default: one
resources:
  box:
    type: sim:index:Resource
    properties:
      tag: ${tag}
outputs:
  shownTag: ${box.tag}
"#;

#[test]
fn json_output_is_json_only_and_notices_go_to_stderr() {
    let env = Env::new(PROGRAM);
    let out = env.run(&["up", "--stack", "dev", "--yes", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("Created stack 'dev'"),
        "{}",
        stderr(&out)
    );
    let text = stdout(&out);
    assert!(!text.trim().is_empty());
    for line in text.lines() {
        serde_json::from_str::<serde_json::Value>(line)
            .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
    }
    let preview = env.run(&["preview", "--stack", "dev", "--json"]);
    assert!(preview.status.success(), "{}", stderr(&preview));
    serde_json::from_str::<serde_json::Value>(&stdout(&preview))
        .expect("the preview digest is JSON");
}

#[test]
fn expect_no_changes_fails_with_exit_code_7_when_something_changes() {
    let env = Env::new(PROGRAM);
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    env.ok(&[
        "preview",
        "--stack",
        "dev",
        "--non-interactive",
        "--expect-no-changes",
    ]);
    env.ok(&[
        "up",
        "--stack",
        "dev",
        "--yes",
        "--non-interactive",
        "--expect-no-changes",
    ]);

    let preview = env.run(&[
        "preview",
        "--stack",
        "dev",
        "--non-interactive",
        "--expect-no-changes",
        "--config",
        "tag=two",
    ]);
    assert_eq!(preview.status.code(), Some(7), "{}", stderr(&preview));
    assert!(
        stderr(&preview).contains("no changes were expected for preview but changes were proposed"),
        "{}",
        stderr(&preview)
    );
    let settings = std::fs::read_to_string(env.project().join("Pulumi.dev.yaml")).unwrap();
    assert_eq!(settings, "config:\n  e2e:tag: two\n");

    // Pulumi's update runs, then reports the unexpected changes.
    let up = env.run(&[
        "up",
        "--stack",
        "dev",
        "--yes",
        "--non-interactive",
        "--expect-no-changes",
        "-c",
        "tag=three",
    ]);
    assert_eq!(up.status.code(), Some(7), "{}", stderr(&up));
    assert!(
        stderr(&up).contains("no changes were expected for update"),
        "{}",
        stderr(&up)
    );
    let tag = env.ok(&["stack", "output", "shownTag", "--stack", "dev"]);
    assert_eq!(tag.trim(), "three");
}

#[test]
fn config_paths_on_the_command_line_are_saved_before_the_update() {
    let env = Env::new(PROGRAM);
    env.ok(&[
        "up",
        "--stack",
        "dev",
        "--yes",
        "--non-interactive",
        "--config-path",
        "--config",
        "tag=from-flag",
        "--config",
        "extra.list[0]=1",
    ]);
    let settings = std::fs::read_to_string(env.project().join("Pulumi.dev.yaml")).unwrap();
    assert_eq!(
        settings,
        "config:\n  e2e:extra:\n    list:\n      - 1\n  e2e:tag: from-flag\n"
    );
    let tag = env.ok(&["stack", "output", "shownTag", "--stack", "dev"]);
    assert_eq!(tag.trim(), "from-flag");
    let bad = env.run(&[
        "up",
        "--stack",
        "dev",
        "--yes",
        "--non-interactive",
        "--config",
        "novalue",
    ]);
    assert_eq!(bad.status.code(), Some(2), "{}", stderr(&bad));
    assert!(
        stderr(&bad).contains("expected KEY=VALUE"),
        "{}",
        stderr(&bad)
    );
}

#[test]
fn suppress_outputs_hides_the_stack_outputs() {
    let env = Env::new(PROGRAM);
    let shown = env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    assert!(
        shown.contains("Outputs:") && shown.contains("shownTag"),
        "{shown}"
    );
    let hidden = env.ok(&[
        "up",
        "--stack",
        "dev",
        "--yes",
        "--non-interactive",
        "--suppress-outputs",
    ]);
    assert!(
        !hidden.contains("Outputs:") && !hidden.contains("shownTag"),
        "{hidden}"
    );
}
