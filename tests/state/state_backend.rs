//! The file backend on real files: stacks, checkpoints, journals and their crash windows,
//! secrets on disk, export/import and locks; and which backend the binary picks.

#![allow(clippy::unwrap_used, clippy::panic)]

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::{Value, json};
use stepdeck::engine::journal::{SnapshotManager, SuccessEntry};
use stepdeck::engine::model::resource::{OperationType, PendingOperation};
use stepdeck::engine::{PropertyValue, ResourceState, Snapshot};
use stepdeck::state::{
    Backend, Crypter, FileBackend, SecretsError, StackLock, StackRef, StateError, export_salt,
};

use crate::cli_support;
use crate::state_support;
use cli_support::plant_lock;
use state_support::{backend, begun, dev, journal_create, journaled, res};

const PASSPHRASE: &str = "correct horse battery staple";

fn crypter() -> &'static Crypter {
    static C: OnceLock<Crypter> = OnceLock::new();
    C.get_or_init(|| Crypter::new_salt(PASSPHRASE))
}

fn with_secret(mut r: ResourceState, value: &str) -> ResourceState {
    r.outputs.insert(
        "password".into(),
        PropertyValue::Secret(Box::new(PropertyValue::string(value))),
    );
    r
}

fn snap(resources: Vec<ResourceState>) -> Snapshot {
    Snapshot {
        resources,
        ..Default::default()
    }
}

fn urns(s: &Snapshot) -> Vec<String> {
    s.resources
        .iter()
        .map(|r| r.urn.name().to_string())
        .collect()
}

/// Every file under `dir`, with its contents.
fn all_files(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(all_files(&p));
        } else {
            out.push((
                p.clone(),
                String::from_utf8_lossy(&fs::read(&p).unwrap()).into(),
            ));
        }
    }
    out
}

fn journals(b: &FileBackend, s: &StackRef) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(b.stack_dir(s))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("journal."))
        .collect();
    names.sort();
    names
}

#[test]
fn stacks_are_created_listed_selected_and_removed() {
    let dir = tempfile::tempdir().unwrap();
    let b = backend(dir.path());
    assert!(b.list_stacks("proj").unwrap().is_empty());
    b.create_stack(&dev()).unwrap();
    let prod = StackRef::new("proj", "prod").unwrap();
    b.create_stack(&prod).unwrap();
    let e = b.create_stack(&dev()).unwrap_err();
    assert!(matches!(e, StateError::StackExists { .. }), "{e}");
    assert!(b.checkpoint_path(&dev()) == dir.path().join(".pulumi/stacks/proj/dev.json"));

    assert_eq!(b.current_stack("proj").unwrap(), None);
    b.select_stack(&prod).unwrap();
    assert_eq!(b.current_stack("proj").unwrap().as_deref(), Some("prod"));
    let ghost = StackRef::new("proj", "ghost").unwrap();
    let e = b.select_stack(&ghost).unwrap_err().to_string();
    assert!(e.contains("proj/ghost"), "{e}");

    {
        let lock = b.lock(&prod, "up").unwrap();
        b.save(&lock, &snap(vec![res("a", &[])]), None).unwrap();
    }
    let list = b.list_stacks("proj").unwrap();
    let names: Vec<_> = list
        .iter()
        .map(|s| (s.name.as_str(), s.current, s.resource_count))
        .collect();
    assert_eq!(names, [("dev", false, 0), ("prod", true, 1)]);
    assert!(list[1].last_update.is_some());

    let e = b.remove_stack(&prod, false).unwrap_err();
    assert!(
        matches!(e, StateError::HasResources { count: 1, .. }),
        "{e}"
    );
    b.remove_stack(&prod, true).unwrap();
    assert!(!b.stack_exists(&prod));
    assert_eq!(
        b.current_stack("proj").unwrap(),
        None,
        "the selection goes with the stack"
    );
    b.remove_stack(&dev(), false).unwrap();
    assert!(b.list_stacks("proj").unwrap().is_empty());
    let e = b.load(&dev(), None).unwrap_err();
    assert!(matches!(e, StateError::NoSuchStack { .. }), "{e}");
}

#[test]
fn checkpoint_has_pulumis_shape_and_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let b = backend(dir.path());
    b.create_stack(&dev()).unwrap();
    let a = res("a", &[]);
    let bb = res("b", &[&a]);
    let mut s = snap(vec![a.clone(), bb]);
    s.pending_operations.push(PendingOperation {
        resource: res("c", &[&a]),
        kind: OperationType::Creating,
    });
    let lock = b.lock(&dev(), "up").unwrap();
    b.save(&lock, &s, None).unwrap();
    let loaded = b.load(&dev(), None).unwrap();
    assert_eq!(loaded.snapshot, s);

    let file: Value =
        serde_json::from_slice(&fs::read(b.checkpoint_path(&dev())).unwrap()).unwrap();
    assert_eq!(file["version"], 3);
    assert_eq!(file["checkpoint"]["stack"], "organization/proj/dev");
    let latest = &file["checkpoint"]["latest"];
    assert_eq!(latest["manifest"]["version"], s.manifest.version);
    assert_eq!(latest["resources"][1]["dependencies"][0], a.urn.as_str());
    assert_eq!(latest["pending_operations"][0]["type"], "creating");
    assert_eq!(file["stepdeck"]["journalEpoch"], loaded.epoch);
}

#[test]
fn a_deployment_is_journaled_then_compacted() {
    let dir = tempfile::tempdir().unwrap();
    let b = backend(dir.path());
    b.create_stack(&dev()).unwrap();
    let a = res("a", &[]);
    let lock = b.lock(&dev(), "up").unwrap();
    b.save(&lock, &snap(vec![a.clone()]), None).unwrap();

    let (base, journal) = b.begin_deployment(&lock, None).unwrap();
    let epoch = b.load(&dev(), None).unwrap().epoch;
    assert_eq!(journals(&b, &dev()), [format!("journal.{epoch}.jsonl")]);
    let mgr = SnapshotManager::new(&base, Box::new(journal));
    mgr.success(SuccessEntry {
        keep_old: Some(0),
        ..Default::default()
    })
    .unwrap();
    let new = res("b", &[&a]);
    let op = mgr.begin(OperationType::Creating, &new).unwrap();
    mgr.success(SuccessEntry {
        op: Some(op),
        new: Some(new.clone()),
        ..Default::default()
    })
    .unwrap();
    let inflight = res("c", &[&a]);
    mgr.begin(OperationType::Creating, &inflight).unwrap();

    // Mid-deployment (or after a kill): checkpoint + journal, in-flight work pending.
    let mid = b.load(&dev(), None).unwrap();
    assert_eq!(urns(&mid.snapshot), ["a", "b"]);
    assert_eq!(mid.snapshot.pending_operations.len(), 1);
    assert_eq!(
        mid.snapshot.pending_operations[0].resource.urn,
        inflight.urn
    );
    assert_eq!(mid.snapshot.resources, mgr.snapshot().resources);
    drop(mgr);

    b.finish_deployment(&lock, None).unwrap();
    assert!(
        journals(&b, &dev()).is_empty(),
        "compaction removes the journal"
    );
    let after = b.load(&dev(), None).unwrap();
    assert_eq!(after.epoch, epoch + 1);
    assert_eq!(urns(&after.snapshot), ["a", "b"]);
    assert_eq!(after.snapshot.pending_operations.len(), 1);
    assert_eq!(after.snapshot.resources, mid.snapshot.resources);
}

#[test]
fn a_deployment_that_changed_nothing_leaves_the_checkpoint_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let b = backend(dir.path());
    b.create_stack(&dev()).unwrap();
    let a = res("a", &[]);
    let c = res("c", &[&a]);
    let lock = b.lock(&dev(), "up").unwrap();
    b.save(&lock, &snap(vec![a, c]), None).unwrap();
    let before = std::fs::read(b.checkpoint_path(&dev())).unwrap();
    let epoch = b.load(&dev(), None).unwrap().epoch;

    let (base, journal) = b.begin_deployment(&lock, None).unwrap();
    let mgr = SnapshotManager::new(&base, Box::new(journal));
    for i in [0, 1] {
        mgr.success(SuccessEntry {
            keep_old: Some(i),
            ..Default::default()
        })
        .unwrap();
    }
    drop(mgr);
    b.finish_deployment(&lock, None).unwrap();
    assert_eq!(
        b.load(&dev(), None).unwrap().snapshot.resources,
        base.resources
    );
    assert_eq!(
        std::fs::read(b.checkpoint_path(&dev())).unwrap(),
        before,
        "no rewrite"
    );
    assert!(journals(&b, &dev()).is_empty(), "the journal is gone");
    assert_eq!(b.load(&dev(), None).unwrap().epoch, epoch);

    // A journal with a real change is folded into a new checkpoint.
    journaled(&b, &lock);
    b.finish_deployment(&lock, None).unwrap();
    assert_ne!(std::fs::read(b.checkpoint_path(&dev())).unwrap(), before);
    assert_eq!(
        urns(&b.load(&dev(), None).unwrap().snapshot),
        ["x", "y", "a", "c"]
    );
}

#[test]
fn an_unchanged_deployment_finishes_on_the_epoch_it_began_without_reading_the_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let b = backend(dir.path());
    b.create_stack(&dev()).unwrap();
    let lock = b.lock(&dev(), "up").unwrap();
    b.save(&lock, &snap(vec![res("a", &[])]), None).unwrap();
    let checkpoint = b.checkpoint_path(&dev());
    let kept = |b: &FileBackend| {
        let (base, journal) = b.begin_deployment(&lock, None).unwrap();
        let mgr = SnapshotManager::new(&base, Box::new(journal));
        mgr.success(SuccessEntry {
            keep_old: Some(0),
            ..Default::default()
        })
        .unwrap();
        let snapshot = mgr.take_snapshot();
        drop(mgr);
        snapshot
    };

    let snapshot = kept(&b);
    let good = fs::read(&checkpoint).unwrap();
    fs::write(&checkpoint, b"not a checkpoint").unwrap();
    b.finish_deployment_from(&lock, None, &snapshot).unwrap();
    assert!(journals(&b, &dev()).is_empty(), "the journal is gone");

    // A checkpoint written since the deployment began is read again for its epoch.
    fs::write(&checkpoint, &good).unwrap();
    let snapshot = kept(&b);
    b.save(&lock, &snapshot, None).unwrap();
    fs::write(&checkpoint, b"not a checkpoint").unwrap();
    let err = b
        .finish_deployment_from(&lock, None, &snapshot)
        .unwrap_err();
    assert!(
        err.to_string().contains(&checkpoint.display().to_string()),
        "{err}"
    );
}

#[test]
fn a_deployment_s_final_snapshot_becomes_the_checkpoint_without_replaying_its_journal() {
    let dir = tempfile::tempdir().unwrap();
    let b = backend(dir.path());
    b.create_stack(&dev()).unwrap();
    let a = with_secret(res("a", &[]), "hunter2");
    let lock = b.lock(&dev(), "up").unwrap();
    b.save(&lock, &snap(vec![a.clone()]), Some(crypter()))
        .unwrap();
    let salt = b.recorded_salt(&dev()).unwrap();
    assert!(salt.is_some());
    let epoch = b.load(&dev(), Some(crypter())).unwrap().epoch;

    let (base, journal) = b.begin_deployment(&lock, Some(crypter())).unwrap();
    let path = journal.path().to_path_buf();
    let mgr = SnapshotManager::new(&base, Box::new(journal));
    mgr.success(SuccessEntry {
        keep_old: Some(0),
        ..Default::default()
    })
    .unwrap();
    journal_create(&mgr, with_secret(res("b", &[&a]), "swordfish"));
    let inflight = res("c", &[&a]);
    mgr.begin(OperationType::Creating, &inflight).unwrap();
    let snapshot = mgr.take_snapshot();
    drop(mgr);
    // A line replay would refuse: the checkpoint comes from the snapshot, not the journal.
    let mut text = fs::read_to_string(&path).unwrap();
    text.push_str("not json\n");
    fs::write(&path, text).unwrap();

    b.finish_deployment_from(&lock, Some(crypter()), &snapshot)
        .unwrap();
    assert!(journals(&b, &dev()).is_empty(), "the journal is gone");
    assert!(
        !fs::read_to_string(b.checkpoint_path(&dev()))
            .unwrap()
            .contains("swordfish"),
        "secrets are encrypted in the checkpoint"
    );
    let after = b.load(&dev(), Some(crypter())).unwrap();
    assert_eq!(after.epoch, epoch + 1);
    assert_eq!(after.snapshot.resources, snapshot.resources);
    assert_eq!(urns(&after.snapshot), ["a", "b"]);
    assert_eq!(after.snapshot.pending_operations.len(), 1);
    assert_eq!(
        after.snapshot.pending_operations[0].resource.urn,
        inflight.urn
    );
    assert_eq!(b.recorded_salt(&dev()).unwrap(), salt);

    // Without a passphrase, the checkpoint keeps the secrets provider it recorded.
    b.save(&lock, &snap(Vec::new()), Some(crypter())).unwrap();
    let (base, journal) = b.begin_deployment(&lock, None).unwrap();
    let mgr = SnapshotManager::new(&base, Box::new(journal));
    journal_create(&mgr, res("d", &[]));
    let snapshot = mgr.take_snapshot();
    drop(mgr);
    b.finish_deployment_from(&lock, None, &snapshot).unwrap();
    assert_eq!(urns(&b.load(&dev(), None).unwrap().snapshot), ["d"]);
    assert_eq!(b.recorded_salt(&dev()).unwrap(), salt);
}

#[test]
fn a_torn_last_line_is_ignored_and_other_bad_lines_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let b = backend(dir.path());
    b.create_stack(&dev()).unwrap();
    let lock = b.lock(&dev(), "up").unwrap();
    let path = journaled(&b, &lock);
    let good = fs::read_to_string(&path).unwrap();
    assert_eq!(good.lines().count(), 4);

    // kill -9 in the middle of a write: the last line has no newline.
    fs::write(
        &path,
        format!("{good}{{\"kind\":\"begin\",\"op\":3,\"opera"),
    )
    .unwrap();
    let s = b.load(&dev(), None).unwrap();
    assert_eq!(urns(&s.snapshot), ["x", "y"]);

    // Garbage on a complete line is corruption, reported with file and line.
    let mut lines: Vec<&str> = good.lines().collect();
    lines[2] = "{\"kind\":\"success\",";
    fs::write(&path, lines.join("\n") + "\n").unwrap();
    let e = b.load(&dev(), None).unwrap_err();
    let msg = e.to_string();
    assert!(
        matches!(e, StateError::Corrupt { line: Some(3), .. }),
        "{msg}"
    );
    assert!(msg.contains(&format!("{}:3", path.display())), "{msg}");

    // An entry that does not fit the base is named by line too.
    fs::write(&path, "{\"kind\":\"success\",\"removeOld\":7}\n").unwrap();
    let msg = b.load(&dev(), None).unwrap_err().to_string();
    assert!(msg.contains(":1") && msg.contains("out of range"), "{msg}");
}

#[test]
fn every_compaction_crash_window_loads_the_same_state() {
    let dir = tempfile::tempdir().unwrap();
    let b = backend(dir.path());
    b.create_stack(&dev()).unwrap();
    let lock = b.lock(&dev(), "up").unwrap();
    b.save(&lock, &snap(vec![res("a", &[])]), None).unwrap();
    let journal = journaled(&b, &lock);
    let expected = b.load(&dev(), None).unwrap();
    assert_eq!(urns(&expected.snapshot), ["x", "y", "a"]);
    let old_journal = fs::read(&journal).unwrap();
    let old_checkpoint = fs::read(b.checkpoint_path(&dev())).unwrap();
    let stack_dir = b.checkpoint_path(&dev()).parent().unwrap().to_path_buf();

    // 1. Killed while writing the new checkpoint's temporary file.
    fs::write(
        stack_dir.join(".dev.json.tmp-deadbeef"),
        "{\"version\": 3, \"chec",
    )
    .unwrap();
    assert_eq!(
        b.load(&dev(), None).unwrap().snapshot.resources,
        expected.snapshot.resources
    );

    // 2. After the rename, before the old journal is removed: the journal is stale.
    let compacted = b.compact(&lock, None).unwrap();
    assert_eq!(compacted.epoch, expected.epoch + 1);
    assert!(
        !stack_dir.join(".dev.json.tmp-deadbeef").exists(),
        "leftovers are cleaned"
    );
    fs::write(&journal, &old_journal).unwrap();
    let s = b.load(&dev(), None).unwrap();
    assert_eq!(
        s.snapshot.resources, expected.snapshot.resources,
        "no entry applied twice"
    );

    // 3. After the old journal is removed, before the next one is created.
    fs::remove_file(&journal).unwrap();
    assert_eq!(
        b.load(&dev(), None).unwrap().snapshot.resources,
        expected.snapshot.resources
    );

    // 4. The next deployment's empty journal exists.
    let (_, j) = b.begin_deployment(&lock, None).unwrap();
    drop(j);
    assert_eq!(
        b.load(&dev(), None).unwrap().snapshot.resources,
        expected.snapshot.resources
    );

    // And the state before compaction (old checkpoint + its journal) still loads the same.
    fs::write(b.checkpoint_path(&dev()), &old_checkpoint).unwrap();
    fs::write(&journal, &old_journal).unwrap();
    assert_eq!(
        b.load(&dev(), None).unwrap().snapshot.resources,
        expected.snapshot.resources
    );
}

#[test]
fn a_state_failing_integrity_is_refused_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let b = backend(dir.path());
    b.create_stack(&dev()).unwrap();
    let a = res("a", &[]);
    let bb = res("b", &[&a]);
    let lock = b.lock(&dev(), "up").unwrap();
    let e = b
        .save(&lock, &snap(vec![bb.clone(), a.clone()]), None)
        .unwrap_err();
    assert!(matches!(e, StateError::Integrity { .. }), "{e}");

    b.save(&lock, &snap(vec![a, bb]), None).unwrap();
    let path = b.checkpoint_path(&dev());
    let mut file: Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    file["checkpoint"]["latest"]["resources"]
        .as_array_mut()
        .unwrap()
        .reverse();
    fs::write(&path, serde_json::to_vec(&file).unwrap()).unwrap();
    let msg = b.load(&dev(), None).unwrap_err().to_string();
    assert!(
        msg.contains(&path.display().to_string()) && msg.contains("integrity"),
        "{msg}"
    );

    file["checkpoint"]["latest"]["resources"][0]["type"] = json!("");
    fs::write(&path, serde_json::to_vec(&file).unwrap()).unwrap();
    let msg = b.load(&dev(), None).unwrap_err().to_string();
    assert!(
        msg.contains("checkpoint.latest.resources[0].type: missing"),
        "{msg}"
    );
}

/// Saves `a`, which holds a secret: refused without a passphrase, written with one.
fn save_with_passphrase_only(b: &FileBackend, lock: &StackLock, a: &ResourceState) {
    let e = b
        .save(lock, &snap(vec![a.clone()]), None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("PULUMI_CONFIG_PASSPHRASE"), "{e}");
    b.save(lock, &snap(vec![a.clone()]), Some(crypter()))
        .unwrap();
}

#[test]
fn a_secret_replacement_trigger_is_encrypted_in_the_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let b = backend(dir.path());
    b.create_stack(&dev()).unwrap();
    let mut a = res("a", &[]);
    a.replacement_trigger = PropertyValue::Secret(Box::new(PropertyValue::string("hunter2")));
    let lock = b.lock(&dev(), "up").unwrap();
    save_with_passphrase_only(&b, &lock, &a);
    for (path, text) in all_files(dir.path()) {
        assert!(
            !text.contains("hunter2"),
            "plaintext secret in {}",
            path.display()
        );
    }
    let loaded = b.load(&dev(), Some(crypter())).unwrap();
    assert_eq!(loaded.snapshot.resources, vec![a]);
}

#[test]
fn secrets_never_reach_disk_in_plaintext() {
    let dir = tempfile::tempdir().unwrap();
    let b = backend(dir.path());
    b.create_stack(&dev()).unwrap();
    let c = crypter();
    let a = with_secret(res("a", &[]), "hunter2-in-checkpoint");
    let lock = b.lock(&dev(), "up").unwrap();
    save_with_passphrase_only(&b, &lock, &a);

    let (base, journal) = b.begin_deployment(&lock, Some(c)).unwrap();
    let mgr = SnapshotManager::new(&base, Box::new(journal));
    let j = with_secret(res("j", &[]), "hunter2-in-journal");
    let op = mgr.begin(OperationType::Creating, &j).unwrap();
    mgr.success(SuccessEntry {
        op: Some(op),
        new: Some(j.clone()),
        ..Default::default()
    })
    .unwrap();
    drop(mgr);

    let files = all_files(dir.path());
    assert!(
        files
            .iter()
            .any(|(p, _)| p.extension().is_some_and(|e| e == "jsonl"))
    );
    for (path, text) in &files {
        assert!(
            !text.contains("hunter2"),
            "plaintext secret in {}",
            path.display()
        );
    }
    assert!(files.iter().all(|(_, t)| !t.contains("plaintext")));
    assert!(files.iter().any(|(_, t)| t.contains("ciphertext")));

    let loaded = b.load(&dev(), Some(c)).unwrap();
    assert_eq!(loaded.snapshot.resources, vec![j, a]);
    assert_eq!(
        loaded.secrets_providers.unwrap().salt(),
        Some(c.salt_state())
    );

    let e = b.load(&dev(), None).unwrap_err();
    assert!(
        matches!(
            e,
            StateError::Secrets {
                source: SecretsError::NoPassphrase,
                ..
            }
        ),
        "{e}"
    );
    let e = Crypter::from_salt("not the passphrase", c.salt_state()).unwrap_err();
    assert!(matches!(e, SecretsError::WrongPassphrase));
    assert!(e.to_string().contains("incorrect passphrase"), "{e}");
    // The salt recorded beside the state decides, as in Pulumi: another salt of the same
    // passphrase reads it; another passphrase is told it is wrong.
    let other = Crypter::new_salt(PASSPHRASE);
    let read = b.load(&dev(), Some(&other)).unwrap();
    assert_eq!(read.snapshot.resources, loaded.snapshot.resources);
    let wrong = Crypter::new_salt("not the passphrase");
    let msg = b.load(&dev(), Some(&wrong)).unwrap_err().to_string();
    assert!(
        msg.contains("secrets_providers.state.salt") && msg.contains("incorrect passphrase"),
        "{msg}"
    );
}

#[test]
fn export_and_import_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let b = backend(dir.path());
    b.create_stack(&dev()).unwrap();
    let c = crypter();
    let a = with_secret(res("a", &[]), "s3cr3t-value");
    let bb = res("b", &[&a]);
    let lock = b.lock(&dev(), "up").unwrap();
    b.save(&lock, &snap(vec![a, bb]), Some(c)).unwrap();
    let before = b.load(&dev(), Some(c)).unwrap().snapshot;

    let doc = b.export(&dev(), Some(c)).unwrap();
    assert_eq!(doc["version"], 3);
    let d = &doc["deployment"];
    assert_eq!(d["secrets_providers"]["type"], "passphrase");
    assert_eq!(d["secrets_providers"]["state"]["salt"], c.salt_state());
    assert_eq!(export_salt(&doc).as_deref(), Some(c.salt_state()));
    assert!(!doc.to_string().contains("s3cr3t-value"));
    assert!(d["resources"][0]["outputs"]["password"]["ciphertext"].is_string());

    b.save(&lock, &Snapshot::default(), Some(c)).unwrap();
    assert!(
        b.load(&dev(), Some(c))
            .unwrap()
            .snapshot
            .resources
            .is_empty()
    );
    let imported = b.import(&lock, &doc, Some(c), Some(c)).unwrap();
    assert_eq!(imported.resources, before.resources);
    assert_eq!(
        b.load(&dev(), Some(c)).unwrap().snapshot.resources,
        before.resources
    );

    // Re-keyed into another salt: decrypted with the export's, stored with the new one.
    let other = Crypter::new_salt(PASSPHRASE);
    b.import(&lock, &doc, Some(c), Some(&other)).unwrap();
    assert_eq!(
        b.load(&dev(), Some(&other)).unwrap().snapshot.resources,
        before.resources
    );
}

#[test]
fn bad_imports_are_rejected_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let b = backend(dir.path());
    b.create_stack(&dev()).unwrap();
    let lock = b.lock(&dev(), "import").unwrap();
    let a = res("a", &[]);
    b.save(&lock, &snap(vec![a.clone(), res("b", &[&a])]), None)
        .unwrap();
    let good = b.export(&dev(), None).unwrap();
    let check = |doc: Value, field: &str, words: &str| {
        let e = b.import(&lock, &doc, None, None).unwrap_err();
        let msg = e.to_string();
        assert!(
            matches!(&e, StateError::Import { field: f, .. } if f == field),
            "{msg} (wanted {field})"
        );
        assert!(msg.contains(words), "{msg}");
    };
    let mut doc = good.clone();
    doc["version"] = json!(2);
    check(doc, "version", "expected 3, found 2");
    check(json!([1]), "(top)", "object");
    check(json!({"version": 3}), "deployment", "missing");
    let mut doc = good.clone();
    doc["deployment"]["resources"][1]
        .as_object_mut()
        .unwrap()
        .remove("urn");
    check(doc, "deployment.resources[1].urn", "missing");
    let mut doc = good.clone();
    doc["deployment"]["resources"][0]["type"] = json!(null);
    check(doc, "deployment.resources[0].type", "missing");
    let mut doc = good.clone();
    doc["deployment"]["resources"][0]["urn"] = json!("not-a-urn");
    check(doc, "deployment.resources[0].urn", "invalid URN");
    let mut doc = good.clone();
    doc["deployment"]["resources"] = json!({});
    check(doc, "deployment.resources", "array");
    let mut doc = good.clone();
    doc["deployment"]["manifest"]
        .as_object_mut()
        .unwrap()
        .remove("magic");
    check(doc, "deployment.manifest.magic", "missing");
    let mut doc = good.clone();
    doc["deployment"]["resources"]
        .as_array_mut()
        .unwrap()
        .reverse();
    check(doc, "deployment.resources", "comes after");
    let mut doc = good.clone();
    doc["deployment"]["resources"][0]["urn"] =
        json!("urn:pulumi:prod::proj::sim:index:Resource::a");
    check(doc, "deployment.resources[0].urn", "stack \"prod\"");
    let mut doc = good.clone();
    doc["deployment"]["pending_operations"] =
        json!([{"resource": good["deployment"]["resources"][0], "type": "exploding"}]);
    check(
        doc,
        "deployment.pending_operations[0].type",
        "\"exploding\"",
    );
    let mut doc = good.clone();
    doc["deployment"]["resources"][0]["outputs"]["pw"] = json!({"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", "ciphertext": "v1:x:y"});
    check(doc, "deployment.secrets_providers.type", "passphrase");

    // Nothing was written by the failed imports.
    assert_eq!(urns(&b.load(&dev(), None).unwrap().snapshot), ["a", "b"]);
}

#[test]
fn a_second_locker_is_told_who_holds_the_lock() {
    let dir = tempfile::tempdir().unwrap();
    let b = backend(dir.path());
    b.create_stack(&dev()).unwrap();
    let held = b.lock(&dev(), "up").unwrap();
    assert!(held.broke_stale().is_none());
    let e = b.lock(&dev(), "destroy").unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, StateError::Locked(_)), "{msg}");
    assert!(
        msg.contains(&format!("pid {}", std::process::id())),
        "{msg}"
    );
    assert!(
        msg.contains(&format!("on host {}", held.info().hostname)),
        "{msg}"
    );
    assert!(
        msg.contains("(up") && msg.contains("stepdeck stack unlock"),
        "{msg}"
    );
    assert_eq!(b.lock_holder(&dev()).unwrap().as_ref(), Some(held.info()));

    // A live holder is only removed by force.
    let e = b.unlock(&dev(), false).unwrap_err();
    assert!(matches!(e, StateError::LockHeldByLiveProcess { .. }), "{e}");
    assert!(e.to_string().contains("--force"));
    let removed = b.unlock(&dev(), true).unwrap().unwrap();
    assert_eq!(&removed, held.info());
    let again = b.lock(&dev(), "destroy").unwrap();
    drop(held); // the old guard must not remove the new holder's lock
    assert_eq!(b.lock_holder(&dev()).unwrap().as_ref(), Some(again.info()));
    drop(again);
    assert_eq!(b.lock_holder(&dev()).unwrap(), None);
}

#[test]
fn a_dead_holders_lock_is_broken_and_another_hosts_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let b = backend(dir.path());
    b.create_stack(&dev()).unwrap();
    let mine = b.lock(&dev(), "probe").unwrap();
    let host = mine.info().hostname.clone();
    drop(mine);
    let dir = b.stack_dir(&dev());
    let write = |pid: u32, hostname: &str| {
        let info = json!({"pid": pid, "hostname": hostname, "user": "op",
            "time": "2026-01-01T00:00:00Z", "operation": "up", "id": "x"});
        plant_lock(&dir, info)
    };

    write(999_999_999, &host);
    let lock = b.lock(&dev(), "up").unwrap();
    assert_eq!(lock.broke_stale().map(|l| l.pid), Some(999_999_999));
    drop(lock);

    write(999_999_999, &host);
    assert_eq!(
        b.unlock(&dev(), false).unwrap().map(|l| l.pid),
        Some(999_999_999)
    );

    write(999_999_999, "some-other-host");
    let msg = b.lock(&dev(), "up").unwrap_err().to_string();
    assert!(msg.contains("some-other-host"), "{msg}");
    assert!(b.unlock(&dev(), false).is_err());
    b.unlock(&dev(), true).unwrap();

    let lock_path = write(1, "corrupt");
    fs::write(&lock_path, "").unwrap();
    let msg = b.lock(&dev(), "up").unwrap_err().to_string();
    assert!(
        msg.contains(&lock_path.display().to_string()) && msg.contains("--force"),
        "{msg}"
    );
    assert_eq!(b.unlock(&dev(), true).unwrap(), None);
    b.lock(&dev(), "up").unwrap();
}

#[test]
fn readers_never_see_an_older_state_while_deployments_compact() {
    let dir = tempfile::tempdir().unwrap();
    let b = backend(dir.path());
    b.create_stack(&dev()).unwrap();
    let writer = {
        let b = b.clone();
        std::thread::spawn(move || {
            let lock = b.lock(&dev(), "up").unwrap();
            for i in 0..25 {
                let (base, journal) = b.begin_deployment(&lock, None).unwrap();
                let mgr = SnapshotManager::new(&base, Box::new(journal));
                for k in 0..base.resources.len() {
                    mgr.success(SuccessEntry {
                        keep_old: Some(k),
                        ..Default::default()
                    })
                    .unwrap();
                }
                journal_create(&mgr, res(&format!("r{i}"), &[]));
                drop(mgr);
                b.finish_deployment(&lock, None).unwrap();
            }
        })
    };
    let mut seen = 0;
    while !writer.is_finished() {
        let n = b.load(&dev(), None).unwrap().snapshot.resources.len();
        assert!(n >= seen, "read {n} resources after having read {seen}");
        seen = n;
    }
    writer.join().unwrap();
    assert_eq!(b.load(&dev(), None).unwrap().snapshot.resources.len(), 25);
}

#[test]
fn a_journal_without_a_passphrase_refuses_a_secret() {
    let dir = tempfile::tempdir().unwrap();
    let (b, _lock, mgr, path) = begun(dir.path());
    let r = with_secret(res("s", &[]), "leaky");
    let msg = mgr
        .begin(OperationType::Creating, &r)
        .unwrap_err()
        .to_string();
    assert!(msg.contains(&path.display().to_string()), "{msg}");
    assert!(msg.contains("PULUMI_CONFIG_PASSPHRASE"), "{msg}");
    drop(mgr);
    assert!(!fs::read_to_string(&path).unwrap().contains("leaky"));
    assert!(
        b.load(&dev(), None)
            .unwrap()
            .snapshot
            .pending_operations
            .is_empty()
    );
}

#[test]
fn an_import_is_written_only_if_its_checkpoint_reads_back() {
    use stepdeck::state::json_depth::{DEPLOYMENT_WRAP_DEPTH, MAX_JSON_DEPTH};
    let dir = tempfile::tempdir().unwrap();
    let b = backend(dir.path());
    b.create_stack(&dev()).unwrap();
    let lock = b.lock(&dev(), "import").unwrap();
    b.save(&lock, &snap(vec![res("a", &[])]), None).unwrap();
    let good = b.export(&dev(), None).unwrap();
    let nested = |levels: usize| (0..levels).fold(json!(1), |v, _| json!([v]));
    // In the deployment: its object, `resources`, the resource and `outputs`.
    let fits = MAX_JSON_DEPTH - DEPLOYMENT_WRAP_DEPTH - 4;
    let with_deep = |levels: usize| {
        let mut doc = good.clone();
        doc["deployment"]["resources"][0]["outputs"]["deep"] = nested(levels);
        doc
    };

    b.import(&lock, &with_deep(fits), None, None).unwrap();
    let loaded = b.load(&dev(), None).unwrap().snapshot;
    b.compact(&lock, None).unwrap();
    assert_eq!(b.load(&dev(), None).unwrap().snapshot, loaded);
    let exported = b.export(&dev(), None).unwrap();
    b.import(&lock, &exported, None, None).unwrap();

    let e = b
        .import(&lock, &with_deep(fits + 1), None, None)
        .unwrap_err();
    let msg = e.to_string();
    assert!(
        matches!(&e, StateError::Import { field, .. }
            if field.starts_with("deployment.resources[0].outputs.deep[0][0]")),
        "{msg}"
    );
    assert!(
        msg.contains(&format!("{} levels", MAX_JSON_DEPTH + 1))
            && msg.contains(&format!("the {MAX_JSON_DEPTH} stepdeck reads")),
        "{msg}"
    );
    assert_eq!(
        b.load(&dev(), None).unwrap().snapshot,
        loaded,
        "nothing was written"
    );
}

#[test]
fn the_backend_is_picked_as_pulumi_picks_it_flag_then_environment_then_project() {
    let env = cli_support::Env::new("");
    let dir = |name: &str| env.root.path().join(name);
    let url = |name: &str| format!("file://{}", dir(name).display());
    for name in ["project-state", "pulumi-env", "stepdeck-env", "flag"] {
        fs::create_dir_all(dir(name)).unwrap();
    }
    env.write(
        "Pulumi.yaml",
        &format!(
            "name: e2e\nruntime: yaml\nbackend:\n  url: {}\n",
            url("project-state")
        ),
    );
    let init = |stack: &str, vars: &[(&str, String)], flag: Option<String>| {
        let mut c = env.command(&["stack", "init", stack]);
        // HOME too: the default backend would be there.
        c.env_remove("STEPDECK_BACKEND_URL")
            .env_remove("PULUMI_BACKEND_URL")
            .env("HOME", env.root.path());
        for (k, v) in vars {
            c.env(k, v);
        }
        if let Some(f) = flag {
            c.args(["--backend", &f]);
        }
        let out = c.output().unwrap();
        assert!(out.status.success(), "{}", cli_support::stderr(&out));
    };
    let pulumi = ("PULUMI_BACKEND_URL", url("pulumi-env"));
    let ours = ("STEPDECK_BACKEND_URL", url("stepdeck-env"));
    init("a", &[], None);
    init("b", std::slice::from_ref(&pulumi), None);
    init("c", &[pulumi.clone(), ours.clone()], None);
    init("d", &[pulumi, ours], Some(url("flag")));
    let stacks = |name: &str| -> Vec<String> {
        let d = dir(name).join(".pulumi/stacks/e2e");
        let mut found: Vec<String> = fs::read_dir(&d)
            .unwrap_or_else(|e| panic!("{}: {e}", d.display()))
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter_map(|n| n.strip_suffix(".json").map(str::to_string))
            .collect();
        found.sort();
        found
    };
    assert_eq!(stacks("project-state"), ["a"]);
    assert_eq!(stacks("pulumi-env"), ["b"]);
    assert_eq!(stacks("stepdeck-env"), ["c"]);
    assert_eq!(stacks("flag"), ["d"]);

    // A URL the project names that stepdeck cannot use is refused, naming where it came from.
    env.write(
        "Pulumi.yaml",
        "name: e2e\nruntime: yaml\nbackend:\n  url: https://api.pulumi.com\n",
    );
    let out = env
        .command(&["stack", "ls"])
        .env_remove("STEPDECK_BACKEND_URL")
        .env_remove("PULUMI_BACKEND_URL")
        .output()
        .unwrap();
    let err = cli_support::stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("Pulumi Cloud and other http(s) backends are not supported")
            && err.contains("backend.url in ")
            && err.contains("Pulumi.yaml"),
        "{err}"
    );
}

#[test]
fn whoami_names_the_os_user_and_the_backend_commands_here_use() {
    let env = cli_support::Env::new("");
    let state = env.root.path().join("team-state");
    fs::create_dir_all(&state).unwrap();
    let url = format!("file://{}", state.display());
    let whoami = |args: &[&str]| {
        let mut all = vec!["whoami"];
        all.extend(args);
        let out = env
            .command(&all)
            .env_remove("STEPDECK_BACKEND_URL")
            .env("PULUMI_BACKEND_URL", &url)
            .env("USER", "ops")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", cli_support::stderr(&out));
        cli_support::stdout(&out)
    };
    assert_eq!(whoami(&[]), "ops\n");
    assert_eq!(
        whoami(&["--verbose"]),
        format!("User: ops\nOrganizations: \nBackend URL: {url}\nToken type: personal\n")
    );
    assert_eq!(
        whoami(&["--json"]),
        format!("{{\n  \"user\": \"ops\",\n  \"url\": \"{url}\"\n}}\n")
    );
}

#[test]
fn login_records_the_backend_in_pulumis_credentials_below_the_environment_and_logout_forgets_it() {
    let env = cli_support::Env::new("");
    let home = env.root.path().join("pulumi-home");
    let state = env.root.path().join("logged-in");
    fs::create_dir_all(&state).unwrap();
    let url = format!("file://{}", state.display());
    let run = |args: &[&str], vars: &[(&str, &str)]| {
        let mut c = env.command(args);
        c.env_remove("STEPDECK_BACKEND_URL")
            .env_remove("PULUMI_BACKEND_URL")
            .env("PULUMI_HOME", &home)
            .env("HOME", env.root.path())
            .env("STEPDECK_HOST", "box")
            .env("USER", "ops");
        for (k, v) in vars {
            c.env(k, v);
        }
        let out = c.output().unwrap();
        assert!(out.status.success(), "{}", cli_support::stderr(&out));
        cli_support::stdout(&out)
    };
    assert_eq!(
        run(&["login", &url], &[]),
        format!("Logged in to box as ops ({url})\n")
    );
    // Written as Pulumi writes it: 4-space indent, readable by the user only.
    let text = fs::read_to_string(home.join("credentials.json")).unwrap();
    assert!(text.starts_with("{\n    \"current\": "), "{text}");
    let mode = fs::metadata(home.join("credentials.json"))
        .unwrap()
        .permissions();
    assert_eq!(
        std::os::unix::fs::PermissionsExt::mode(&mode) & 0o777,
        0o600
    );
    let creds: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        creds,
        json!({"current": url, "accessTokens": {&url: ""},
               "accounts": {&url: {"lastValidatedAt": "0001-01-01T00:00:00Z"}}})
    );
    run(&["stack", "init", "dev"], &[]);
    assert!(state.join(".pulumi/stacks/e2e/dev.json").is_file());
    // The environment still comes first.
    let other = env.root.path().join("other");
    fs::create_dir_all(&other).unwrap();
    let other_url = format!("file://{}", other.display());
    run(
        &["stack", "init", "qa"],
        &[("PULUMI_BACKEND_URL", &other_url)],
    );
    assert!(other.join(".pulumi/stacks/e2e/qa.json").is_file());

    assert_eq!(run(&["logout"], &[]), format!("Logged out of {url}\n"));
    assert!(!home.join("credentials.json").exists());
    // Back on the default backend, under HOME.
    run(&["stack", "init", "after"], &[]);
    assert!(
        env.root
            .path()
            .join(".stepdeck/.pulumi/stacks/e2e/after.json")
            .is_file()
    );

    // Logged in to Pulumi Cloud: refused, naming the file, never another backend instead.
    fs::write(
        home.join("credentials.json"),
        r#"{"current": "https://api.pulumi.com", "accessTokens": {"https://api.pulumi.com": "t"}}"#,
    )
    .unwrap();
    let out = env
        .command(&["stack", "ls"])
        .env_remove("STEPDECK_BACKEND_URL")
        .env_remove("PULUMI_BACKEND_URL")
        .env("PULUMI_HOME", &home)
        .env("HOME", env.root.path())
        .output()
        .unwrap();
    let err = cli_support::stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("Pulumi Cloud")
            && err.contains(&home.join("credentials.json").display().to_string()),
        "{err}"
    );
}
