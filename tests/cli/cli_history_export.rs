//! `stack history --export N [FILE]`: an update's kept events written as an event log, Pulumi's
//! stream without stepdeck's detail lines, so that `line N` of the update's replay is line N
//! of the file, and the file is the `--event-log` the run wrote, line for line.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::cli_support::{Env, stderr, stdout};
use crate::console_support::Tmux;
use serde_json::Value;

/// A resource, then one that fails to create after it.
const FAILS_AFTER_NET: &str = "resources:\n  net:\n    type: sim:index:Resource\n    properties:\n      n: 1\n  broken:\n    type: sim:index:Resource\n    properties:\n      failOn: [create]\n      after: ${net.id}\n";

/// The event kind of each line, and its `sequence`.
fn kinds(log: &str) -> Vec<(String, u64)> {
    log.lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            let kind = v
                .as_object()
                .unwrap()
                .keys()
                .find(|k| k.ends_with("Event"))
                .unwrap()
                .clone();
            (kind, v["sequence"].as_u64().unwrap())
        })
        .collect()
}

/// A failed update recorded with `--event-log run.jsonl`: its environment and the log.
fn failed_update() -> (Env, String) {
    let env = Env::new(FAILS_AFTER_NET);
    let log = env.root.path().join("run.jsonl");
    let out = env.up_with_event_log(&log);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    (env, std::fs::read_to_string(&log).unwrap())
}

/// `stack history --export 1 FILE` on stack dev.
fn export(env: &Env, file: &std::path::Path) -> std::process::Output {
    let file = file.display().to_string();
    env.run(&["stack", "history", "--stack", "dev", "--export", "1", &file])
}

#[test]
fn an_exported_update_is_the_event_log_its_run_wrote_without_stepdeck_s_detail_lines() {
    let (env, log) = failed_update();
    let file = env.root.path().join("update-1.jsonl");
    let out = export(&env, &file);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "", "the events went to the file");
    let exported = std::fs::read_to_string(&file).unwrap();
    // The same events in the same order, numbered from 0 as Pulumi numbers them.
    assert_eq!(kinds(&exported), kinds(&log));
    let sequences: Vec<u64> = kinds(&exported).into_iter().map(|(_, s)| s).collect();
    assert_eq!(sequences, (0..sequences.len() as u64).collect::<Vec<_>>());
    for detail in ["Registration", "Plan", "Chain", "Step", "Diff"] {
        assert!(
            !exported.contains(&format!("stepdeck{detail}Event")),
            "{exported}"
        );
    }
    // Without FILE, standard output gets the same lines.
    let printed = env.ok(&["stack", "history", "--stack", "dev", "--export", "1"]);
    assert_eq!(printed, exported);
}

#[test]
fn line_n_of_an_update_s_replay_is_line_n_of_its_export() {
    let (env, _) = failed_update();
    let file = env.root.path().join("update-1.jsonl");
    assert!(export(&env, &file).status.success());
    let exported = std::fs::read_to_string(&file).unwrap();

    let t = Tmux::start(
        &env,
        140,
        42,
        &["stack", "history", "--open", "1", "--stack", "dev"],
    );
    t.wait("the start", |s| s.contains("line 0/"));
    t.keys(&["!"]);
    let s = t.wait("the first failure", |s| s.contains("✗1 failed"));
    let at: usize = s
        .split_once("first failure: line ")
        .and_then(|(_, r)| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("the failure's line is named:\n{s}"));
    let line = exported.lines().nth(at - 1).unwrap();
    assert!(
        line.contains("resOpFailedEvent") && line.contains("::broken"),
        "line {at} of the export is the failure: {line}"
    );
    let total = format!("line {at}/{} ", exported.lines().count());
    assert!(
        s.contains(&total),
        "the timeline counts the export's lines:\n{s}"
    );
    t.keys(&["$"]);
    let s = t.wait_for("The update failed");
    assert!(s.contains("edges: as the run recorded"), "{s}");
    t.quit_and_expect_restored(0);
}

#[test]
fn export_names_an_update_the_stack_does_not_have_and_is_not_asked_with_open() {
    let (env, _) = failed_update();
    let out = env.run(&["stack", "history", "--stack", "dev", "--export", "7"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("stack dev has no update 7 (its updates are 1 to 1"),
        "{}",
        stderr(&out)
    );
    let out = env.run(&[
        "stack", "history", "--stack", "dev", "--export", "1", "--open", "1",
    ]);
    // A flag conflict fails as cobra's do, with its wording.
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("'--export <N>' cannot be used with '--open <N>'"),
        "{}",
        stderr(&out)
    );
}
