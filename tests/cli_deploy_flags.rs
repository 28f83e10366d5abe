//! Pulumi's deployment flags through the real binary: `--json` keeps stdout to JSON,
//! `--expect-no-changes`, `--config KEY=VALUE` (saved to the stack's settings first, as Pulumi
//! does), `--suppress-outputs`, and outputs that cannot be written (`--event-log`, stdout).

#![allow(clippy::unwrap_used, clippy::panic)]

mod cli_support;

use std::process::Output;

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

/// `preview` or `up` (with `--yes`) on stack `dev` with plain output and `extra` flags.
fn deploy(env: &Env, op: &str, extra: &[&str]) -> Output {
    let mut args = vec![op, "--stack", "dev", "--non-interactive"];
    if op == "up" {
        args.push("--yes");
    }
    args.extend_from_slice(extra);
    env.run(&args)
}

/// Asserts the run failed with `code` and said `message` on stderr.
fn assert_fails(out: &Output, code: i32, message: &str) {
    assert_eq!(out.status.code(), Some(code), "{}", stderr(out));
    assert!(stderr(out).contains(message), "{}", stderr(out));
}

fn settings(env: &Env) -> String {
    std::fs::read_to_string(env.project().join("Pulumi.dev.yaml")).unwrap()
}

fn shown_tag(env: &Env) -> String {
    env.ok(&["stack", "output", "shownTag", "--stack", "dev"])
        .trim()
        .to_string()
}

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
    for (op, extra) in [
        ("up", &[][..]),
        ("preview", &["--expect-no-changes"][..]),
        ("up", &["--expect-no-changes"][..]),
    ] {
        let out = deploy(&env, op, extra);
        assert!(out.status.success(), "{op} {extra:?}: {}", stderr(&out));
    }

    let preview = deploy(
        &env,
        "preview",
        &["--expect-no-changes", "--config", "tag=two"],
    );
    assert_fails(
        &preview,
        7,
        "no changes were expected for preview but changes were proposed",
    );
    assert_eq!(settings(&env), "config:\n  e2e:tag: two\n");

    // Pulumi's update runs, then reports the unexpected changes.
    let up = deploy(&env, "up", &["--expect-no-changes", "-c", "tag=three"]);
    assert_fails(&up, 7, "no changes were expected for update");
    assert_eq!(shown_tag(&env), "three");
}

#[test]
fn config_paths_on_the_command_line_are_saved_before_the_update() {
    let env = Env::new(PROGRAM);
    let out = deploy(
        &env,
        "up",
        &[
            "--config-path",
            "--config",
            "tag=from-flag",
            "--config",
            "extra.list[0]=1",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        settings(&env),
        "config:\n  e2e:extra:\n    list:\n      - 1\n  e2e:tag: from-flag\n"
    );
    assert_eq!(shown_tag(&env), "from-flag");
    let bad = deploy(&env, "up", &["--config", "novalue"]);
    assert_fails(&bad, 2, "expected KEY=VALUE");
}

#[test]
fn suppress_outputs_hides_the_stack_outputs() {
    let env = Env::new(PROGRAM);
    let shown = stdout(&deploy(&env, "up", &[]));
    assert!(
        shown.contains("Outputs:") && shown.contains("shownTag"),
        "{shown}"
    );
    let hidden = stdout(&deploy(&env, "up", &["--suppress-outputs"]));
    assert!(
        !hidden.contains("Outputs:") && !hidden.contains("shownTag"),
        "{hidden}"
    );
}

/// A program of `n` sim resources in a chain.
fn chain(n: usize) -> String {
    let mut program = String::from("resources:\n");
    for i in 1..=n {
        program.push_str(&format!(
            "  r{i}:\n    type: sim:index:Resource\n    properties:\n      step: {i}\n"
        ));
        if i > 1 {
            program.push_str(&format!("      after: ${{r{}.id}}\n", i - 1));
        }
    }
    program
}

/// After a run whose output could not be written: every resource is in the state and in the
/// world, and another `up` has nothing to do.
fn assert_state_whole(env: &Env, n: usize) {
    assert_eq!(env.managed("dev").len(), n);
    assert_eq!(env.world().len(), n);
    let again = deploy(env, "up", &["--expect-no-changes"]);
    assert!(again.status.success(), "{}", stderr(&again));
    env.assert_no_leaks("dev");
}

#[test]
fn an_event_log_that_cannot_be_written_fails_the_command_naming_it_and_the_state_is_whole() {
    let env = Env::new(&chain(5));
    let out = deploy(&env, "up", &["--event-log", "/dev/full"]);
    assert_fails(
        &out,
        1,
        "/dev/full: cannot write the event log: No space left",
    );
    // The run went on (as Pulumi's engine does when its event log fails) and said so once.
    assert!(stdout(&out).contains("+ 6 created"), "{}", stdout(&out));
    assert_eq!(
        stderr(&out).matches("/dev/full").count(),
        1,
        "{}",
        stderr(&out)
    );
    assert_state_whole(&env, 5);
}

#[test]
fn json_events_to_a_full_disk_or_a_closed_pipe_fail_the_command_and_the_state_is_whole() {
    let env = Env::new(&chain(5));
    let full = std::fs::File::options()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = env
        .command(&["up", "--stack", "dev", "--yes", "--json"])
        .stdout(full)
        .output()
        .unwrap();
    assert_fails(
        &out,
        1,
        "standard output: cannot write the engine events: No space left",
    );
    assert_state_whole(&env, 5);

    // A reader that went away: the run is not killed by the broken pipe, it finishes.
    let env = Env::new(&chain(5));
    let mut child = env
        .command(&["up", "--stack", "dev", "--yes", "--json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_fails(
        &out,
        1,
        "standard output: cannot write the engine events: Broken pipe",
    );
    assert_state_whole(&env, 5);
}
