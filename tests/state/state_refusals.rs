//! State files that must be refused, never "repaired" by deleting data: a journal without its
//! checkpoint, an epoch that cannot advance, a stray journal, operations ended before they
//! began, removing a stack whose resources are only journaled, integrity faults named by file.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::cli_support;
use crate::state_support;
use std::fs;
use std::path::Path;

use serde_json::{Value, json};
use stepdeck::engine::Snapshot;
use stepdeck::state::{Backend, FileBackend, StateError};

use state_support::{backend, dev, journaled, killed_first_deployment, res};

fn names(s: &Snapshot) -> Vec<String> {
    s.resources
        .iter()
        .map(|r| r.urn.name().to_string())
        .collect()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&fs::read(path).unwrap()).unwrap()
}

#[test]
fn a_journal_without_its_checkpoint_is_refused_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let (b, journal) = killed_first_deployment(dir.path());
    let recorded = fs::read(&journal).unwrap();
    fs::remove_file(b.checkpoint_path(&dev())).unwrap();

    for e in [
        b.load(&dev(), None).unwrap_err(),
        b.check_exists(&dev()).unwrap_err(),
        b.create_stack(&dev()).unwrap_err(),
        b.lock(&dev(), "up").unwrap_err(),
        b.remove_stack(&dev(), false).unwrap_err(),
    ] {
        let msg = e.to_string();
        assert!(matches!(e, StateError::OrphanJournal { .. }), "{msg}");
        assert!(
            msg.contains(&journal.display().to_string())
                && msg.contains("dev.json")
                && msg.contains("mv "),
            "{msg}"
        );
    }
    assert_eq!(fs::read(&journal).unwrap(), recorded, "the journal is kept");
    assert!(!b.stack_exists(&dev()));
    // The operator's explicit choice: removed with --force.
    b.remove_stack(&dev(), true).unwrap();
    assert!(!b.stack_dir(&dev()).exists());
    b.create_stack(&dev()).unwrap();
}

#[test]
fn preview_and_up_refuse_a_stack_whose_checkpoint_is_gone() {
    let env = cli_support::Env::new(
        "resources:\n  a:\n    type: sim:index:Resource\n    properties:\n      v: 1\n",
    );
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    let stack_dir = env
        .root
        .path()
        .join("state/.pulumi/.stepdeck/stacks/e2e/dev");
    // A killed second run leaves its journal; then the checkpoint is lost.
    let journal = stack_dir.join("journal.1.jsonl");
    let begin = json!({"kind": "begin", "op": 1, "operation": "creating",
        "state": {"urn": "urn:pulumi:dev::e2e::sim:index:Resource::b", "custom": true,
                  "type": "sim:index:Resource"}});
    fs::write(&journal, format!("{begin}\n")).unwrap();
    fs::remove_file(env.checkpoint_path("dev")).unwrap();
    let world = env.world();

    for cmd in ["preview", "up"] {
        let out = env.run(&[cmd, "--stack", "dev", "--yes", "--non-interactive"]);
        let err = cli_support::stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{cmd}: {err}");
        assert!(
            err.contains("journal.1.jsonl") && !err.contains("Created stack"),
            "{cmd}: {err}"
        );
        assert!(journal.exists(), "{cmd} deleted the journal");
        assert_eq!(env.world(), world, "{cmd} changed the world");
    }
}

/// Sets the checkpoint's `stepdeck.journalEpoch`.
fn set_epoch(b: &FileBackend, epoch: u64) {
    let path = b.checkpoint_path(&dev());
    let mut file = read_json(&path);
    file["stepdeck"]["journalEpoch"] = json!(epoch);
    fs::write(&path, serde_json::to_vec(&file).unwrap()).unwrap();
}

#[test]
fn the_last_epoch_is_refused_at_compaction_without_wrapping() {
    let dir = tempfile::tempdir().unwrap();
    let b = backend(dir.path());
    b.create_stack(&dev()).unwrap();
    let lock = b.lock(&dev(), "up").unwrap();
    b.save(&lock, &Snapshot::default(), None).unwrap();
    let journal = journaled(&b, &lock);
    let last = b.journal_path(&dev(), u64::MAX);
    fs::rename(&journal, &last).unwrap();
    set_epoch(&b, u64::MAX);
    let checkpoint = fs::read(b.checkpoint_path(&dev())).unwrap();

    let loaded = b.load(&dev(), None).unwrap();
    assert_eq!(loaded.epoch, u64::MAX);
    assert_eq!(names(&loaded.snapshot), ["x", "y"], "its journal is read");
    for e in [
        b.compact(&lock, None).unwrap_err(),
        b.begin_deployment(&lock, None).map(|_| ()).unwrap_err(),
        b.save(&lock, &Snapshot::default(), None).unwrap_err(),
    ] {
        let msg = e.to_string();
        assert!(
            msg.contains("dev.json") && msg.contains("journalEpoch"),
            "{msg}"
        );
    }
    assert!(last.exists(), "the journal is kept");
    assert_eq!(fs::read(b.checkpoint_path(&dev())).unwrap(), checkpoint);
}

#[test]
fn a_stray_journal_of_a_later_epoch_is_not_adopted() {
    let dir = tempfile::tempdir().unwrap();
    let b = backend(dir.path());
    b.create_stack(&dev()).unwrap();
    let lock = b.lock(&dev(), "up").unwrap();
    let journal = journaled(&b, &lock);
    let epoch = b.load(&dev(), None).unwrap().epoch;
    let text = fs::read_to_string(&journal).unwrap();
    // The stray claims entries against a base this checkpoint never had.
    let stray = b.journal_path(&dev(), epoch + 1);
    fs::write(&stray, "{\"kind\":\"success\",\"removeOld\":5}\n").unwrap();
    let far = b.journal_path(&dev(), epoch + 7);
    fs::write(&far, &text).unwrap();

    let e = b.begin_deployment(&lock, None).map(|_| ()).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, StateError::StrayJournal { .. }), "{msg}");
    assert!(msg.contains(&stray.display().to_string()), "{msg}");
    assert!(stray.exists() && far.exists() && journal.exists());
    assert_eq!(names(&b.load(&dev(), None).unwrap().snapshot), ["x", "y"]);

    // Moved aside as the message says, the next is still refused, then compaction goes on.
    fs::rename(&stray, stray.with_extension("jsonl.stray")).unwrap();
    let msg = b.compact(&lock, None).unwrap_err().to_string();
    assert!(msg.contains(&far.display().to_string()), "{msg}");
    fs::rename(&far, far.with_extension("jsonl.stray")).unwrap();
    let state = b.compact(&lock, None).unwrap();
    assert_eq!(state.epoch, epoch + 1);
    assert_eq!(names(&state.snapshot), ["x", "y"]);
}

#[test]
fn an_operation_ended_before_it_began_is_named_by_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let b = backend(dir.path());
    b.create_stack(&dev()).unwrap();
    let lock = b.lock(&dev(), "up").unwrap();
    let journal = journaled(&b, &lock);
    let good = fs::read_to_string(&journal).unwrap();
    let lines: Vec<&str> = good.lines().collect();
    assert_eq!(lines.len(), 4);

    let cases = [
        // The success of x before its begin.
        (vec![lines[1], lines[0], lines[2], lines[3]], 1),
        // The success of x twice.
        (vec![lines[0], lines[1], lines[2], lines[1]], 4),
        // A success of an operation that never began.
        (vec![lines[0], lines[1], lines[3]], 3),
    ];
    for (entries, line) in cases {
        fs::write(&journal, entries.join("\n") + "\n").unwrap();
        let e = b.load(&dev(), None).unwrap_err();
        let msg = e.to_string();
        assert!(
            matches!(e, StateError::Corrupt { line: Some(l), .. } if l == line),
            "{msg}"
        );
        assert!(
            msg.contains(&format!("{}:{line}", journal.display())) && msg.contains("not begun"),
            "{msg}"
        );
    }
    fs::write(
        &journal,
        format!("{}\n{{\"kind\":\"failure\",\"op\":99}}\n", lines[0]),
    )
    .unwrap();
    let msg = b.load(&dev(), None).unwrap_err().to_string();
    assert!(
        msg.contains(":2") && msg.contains("failure of operation 99"),
        "{msg}"
    );
    assert!(journal.exists(), "a refused journal is kept");
}

#[test]
fn removing_a_stack_whose_resources_are_only_journaled_needs_force() {
    let dir = tempfile::tempdir().unwrap();
    let (b, journal) = killed_first_deployment(dir.path());
    let e = b.remove_stack(&dev(), false).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, StateError::UnfinishedJournal { .. }), "{msg}");
    assert!(
        msg.contains(&journal.display().to_string()) && msg.contains("--force"),
        "{msg}"
    );
    assert!(journal.exists() && b.stack_exists(&dev()));
    b.remove_stack(&dev(), true).unwrap();
    assert!(!b.stack_exists(&dev()));
}

#[test]
fn removing_a_stack_whose_resources_cannot_be_counted_needs_force() {
    let dir = tempfile::tempdir().unwrap();
    let b = backend(dir.path());
    b.create_stack(&dev()).unwrap();
    let path = b.checkpoint_path(&dev());
    let mut file = read_json(&path);
    for bad in [json!({"0": {"urn": "x"}}), json!("many"), json!(3)] {
        file["checkpoint"]["latest"]["resources"] = bad;
        fs::write(&path, serde_json::to_vec(&file).unwrap()).unwrap();
        let msg = b.remove_stack(&dev(), false).unwrap_err().to_string();
        assert!(
            msg.contains("dev.json") && msg.contains("resources is not an array"),
            "{msg}"
        );
        assert!(b.stack_exists(&dev()));
    }
    file["checkpoint"]["latest"] = json!([1, 2]);
    fs::write(&path, serde_json::to_vec(&file).unwrap()).unwrap();
    assert!(b.remove_stack(&dev(), false).is_err());
    b.remove_stack(&dev(), true).unwrap();
}

#[test]
fn an_integrity_fault_of_the_checkpoint_names_the_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let b = backend(dir.path());
    b.create_stack(&dev()).unwrap();
    let a = res("a", &[]);
    let lock = b.lock(&dev(), "up").unwrap();
    b.save(
        &lock,
        &Snapshot {
            resources: vec![a.clone(), res("b", &[&a])],
            ..Default::default()
        },
        None,
    )
    .unwrap();
    let journal = journaled(&b, &lock);
    let path = b.checkpoint_path(&dev());
    let mut file = read_json(&path);
    file["checkpoint"]["latest"]["resources"]
        .as_array_mut()
        .unwrap()
        .reverse();
    fs::write(&path, serde_json::to_vec(&file).unwrap()).unwrap();
    let e = b.load(&dev(), None).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, StateError::Integrity { .. }), "{msg}");
    assert!(
        msg.starts_with(&path.display().to_string())
            && !msg.contains(&journal.display().to_string()),
        "{msg}"
    );

    // A fault the journal brings is still the journal's.
    file["checkpoint"]["latest"]["resources"]
        .as_array_mut()
        .unwrap()
        .reverse();
    fs::write(&path, serde_json::to_vec(&file).unwrap()).unwrap();
    let dangling = res("z", &[&res("nowhere", &[])]);
    let line = json!({"kind": "success", "new": serde_json::to_value(&dangling).unwrap()});
    let mut text = fs::read_to_string(&journal).unwrap();
    text.push_str(&format!("{line}\n"));
    fs::write(&journal, text).unwrap();
    let msg = b.load(&dev(), None).unwrap_err().to_string();
    assert!(
        msg.starts_with(&journal.display().to_string()) && msg.contains("integrity"),
        "{msg}"
    );
}

#[test]
fn a_stack_at_the_last_epoch_is_refused_before_its_deployment_starts() {
    let env = cli_support::Env::new(
        "resources:\n  a:\n    type: sim:index:Resource\n    properties:\n      v: 1\n",
    );
    env.ok(&["stack", "init", "dev"]);
    let dir = env.stack_dir("dev");
    let path = env.checkpoint_path("dev");
    let mut file = read_json(&path);
    file["stepdeck"]["journalEpoch"] = json!(u64::MAX);
    fs::write(&path, serde_json::to_vec(&file).unwrap()).unwrap();

    let up = ["up", "--stack", "dev", "--yes", "--non-interactive"];
    let out = env.run(&up);
    let err = cli_support::stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("dev.json")
            && err.contains("journalEpoch")
            && err.contains("stack export --file"),
        "{err}"
    );
    assert!(env.world().is_empty(), "a provider was called");
    let journals = fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("journal."))
        .count();
    assert_eq!(journals, 0, "no journal is left to refuse the next run");

    // The way out the message gives works.
    let saved = env.root.path().join("state.json");
    let saved = saved.to_str().unwrap();
    env.ok(&["stack", "export", "--stack", "dev", "--file", saved]);
    env.ok(&["stack", "rm", "dev", "--force", "--yes"]);
    env.ok(&["stack", "init", "dev"]);
    env.ok(&["stack", "import", "--stack", "dev", "--file", saved]);
    env.ok(&up);
    assert_eq!(env.world().len(), 1);
}

#[test]
fn a_journal_of_an_older_epoch_is_reported_before_it_is_removed() {
    let env = cli_support::Env::new(
        "resources:\n  a:\n    type: sim:index:Resource\n    properties:\n      v: 1\n",
    );
    let up = ["up", "--stack", "dev", "--yes", "--non-interactive"];
    env.ok(&up);
    let dir = env.stack_dir("dev");
    let epoch = read_json(&env.checkpoint_path("dev"))["stepdeck"]["journalEpoch"]
        .as_u64()
        .unwrap();
    assert!(epoch >= 1, "{epoch}");
    // Left by a compaction interrupted before it removed the journal it folded in.
    let older = dir.join(format!("journal.{}.jsonl", epoch - 1));
    let begin = json!({"kind": "begin", "op": 1, "operation": "creating",
        "state": {"urn": "urn:pulumi:dev::e2e::sim:index:Resource::b", "custom": true,
                  "type": "sim:index:Resource"}});
    fs::write(&older, format!("{begin}\n")).unwrap();
    let before = env.managed("dev");

    let out = env.run(&up);
    let err = cli_support::stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("warning")
            && err.contains(&older.display().to_string())
            && err.contains("older than the checkpoint"),
        "{err}"
    );
    assert!(!older.exists());
    assert_eq!(env.managed("dev"), before, "the state is the checkpoint's");
}
