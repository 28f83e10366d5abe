//! The file backend in Pulumi's DIY ("self-managed") layout, so that `pulumi` and stepdeck
//! share stacks: what stepdeck writes is where and in the shape Pulumi's DIY backend reads it,
//! a state in Pulumi's layout is read, updated and destroyed by the real binary, a Pulumi lock
//! file refuses an update in Pulumi's words, and a backend in stepdeck's earlier layout is
//! moved into Pulumi's when it is opened.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::cli_support;

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use sha2::Digest;

use cli_support::{Env, stderr};
use stepdeck::state::{Backend, BackendUrl, FileBackend, StackRef};

const PROGRAM_V1: &str =
    "resources:\n  a:\n    type: sim:index:Resource\n    properties:\n      v: 1\n";
pub(crate) const PROGRAM_V2: &str =
    "resources:\n  a:\n    type: sim:index:Resource\n    properties:\n      v: 2\n";

fn state(env: &Env) -> PathBuf {
    env.root.path().join("state")
}

fn read_json(path: &Path) -> Value {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn names(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = match fs::read_dir(dir) {
        Ok(entries) => entries
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect(),
        Err(_) => Vec::new(),
    };
    out.sort();
    out
}

/// The stacks Pulumi's DIY backend finds (its `projectReferenceStore.ListReferences`): files
/// exactly two levels under `.pulumi/stacks`, whose extension (after `.gz`/`.zst`) is a
/// marshaler's (`.json`, `.yaml`, `.yml`).
fn pulumi_lists(root: &Path) -> Vec<String> {
    let stacks = root.join(".pulumi/stacks");
    let mut out = Vec::new();
    for project in names(&stacks) {
        let dir = stacks.join(&project);
        if !dir.is_dir() {
            continue;
        }
        for file in names(&dir) {
            if dir.join(&file).is_dir() {
                continue;
            }
            let plain = file
                .strip_suffix(".gz")
                .or_else(|| file.strip_suffix(".zst"))
                .unwrap_or(&file);
            let Some((name, ext)) = plain.rsplit_once('.') else {
                continue;
            };
            if ["json", "yaml", "yml"].contains(&ext) {
                out.push(format!("{project}/{name}"));
            }
        }
    }
    out
}

#[test]
fn a_state_stepdeck_writes_has_the_paths_and_keys_pulumis_diy_backend_reads() {
    let env = Env::new(PROGRAM_V1);
    let up = ["up", "--stack", "dev", "--yes", "--non-interactive"];
    env.ok(&up);
    env.write(
        "Pulumi.yaml",
        &format!("name: e2e\nruntime: yaml\n{PROGRAM_V2}"),
    );
    env.ok(&up);
    let root = state(&env);

    // meta.yaml: the project-scoped layout, as Pulumi's `ensurePulumiMeta` writes it.
    assert_eq!(
        fs::read_to_string(root.join(".pulumi/meta.yaml")).unwrap(),
        "version: 1\n"
    );
    // The stack file Pulumi finds, and nothing else it would take for a stack.
    assert_eq!(pulumi_lists(&root), ["e2e/dev"]);
    assert_eq!(
        names(&root.join(".pulumi/stacks/e2e")),
        ["dev.json", "dev.json.bak"]
    );
    // Pulumi's `apitype.VersionedCheckpoint` holding a `CheckpointV3`.
    let file = read_json(&root.join(".pulumi/stacks/e2e/dev.json"));
    assert_eq!(file["version"], 3);
    let checkpoint = &file["checkpoint"];
    assert_eq!(checkpoint["stack"], "organization/e2e/dev");
    let latest = &checkpoint["latest"];
    for key in ["time", "magic", "version"] {
        assert!(
            latest["manifest"][key].is_string(),
            "manifest.{key}: {latest}"
        );
    }
    let resources = latest["resources"].as_array().expect("latest.resources");
    let a = resources
        .iter()
        .find(|r| r["urn"] == "urn:pulumi:dev::e2e::sim:index:Resource::a")
        .expect("resource a");
    assert_eq!(a["type"], "sim:index:Resource");
    assert_eq!(a["custom"], true);
    assert!(a["id"].is_string(), "{a}");
    assert_eq!(a["inputs"], json!({"v": 2}));
    // Our own bookkeeping rides along in a key Go's decoder ignores.
    let top: Vec<&str> = file
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(top, ["version", "checkpoint", "stepdeck"]);
    // The previous checkpoint, kept as Pulumi keeps it.
    let bak = read_json(&root.join(".pulumi/stacks/e2e/dev.json.bak"));
    assert_eq!(bak["checkpoint"]["stack"], "organization/e2e/dev");
    assert!(bak.to_string().contains(r#""inputs":{"v":1}"#), "{bak}");

    // History: `<stack>-<nanos>.history.json` and `.checkpoint.json` per update, and beside
    // them (suffixes Pulumi does not read) the events each update kept for a replay.
    let history = root.join(".pulumi/history/e2e/dev");
    let files = names(&history);
    assert_eq!(files.len(), 6, "{files:?}");
    for events in ["dev-v1.events.json.gz", "dev-v2.events.json.gz"] {
        assert!(files.iter().any(|f| f == events), "{files:?}");
    }
    let records: Vec<&String> = files
        .iter()
        .filter(|f| f.ends_with(".history.json"))
        .collect();
    assert_eq!(records.len(), 2, "{files:?}");
    for record in records {
        let base = record.strip_suffix(".history.json").unwrap();
        assert!(
            files.contains(&format!("{base}.checkpoint.json")),
            "{files:?}"
        );
        let info = read_json(&history.join(record));
        for key in [
            "kind",
            "startTime",
            "message",
            "environment",
            "config",
            "result",
            "endTime",
            "resourceChanges",
        ] {
            assert!(info.get(key).is_some(), "{key} in {info}");
        }
        assert_eq!(info["kind"], "update");
        assert_eq!(info["result"], "succeeded");
    }
    assert_eq!(names(&root.join(".pulumi/backups/e2e/dev")).len(), 2);
    // No lock left behind once stepdeck is done with the stack.
    assert!(
        names(&root.join(".pulumi/locks/organization/e2e/dev")).is_empty(),
        "{:?}",
        names(&root.join(".pulumi/locks/organization/e2e/dev"))
    );
    // stepdeck's own records live where Pulumi never looks.
    assert_eq!(
        names(&root.join(".pulumi")),
        [
            ".stepdeck",
            "backups",
            "history",
            "locks",
            "meta.yaml",
            "stacks"
        ]
    );
}

/// A checkpoint as Pulumi's DIY backend writes it (compact JSON, no `stepdeck` key): the
/// stack, the default sim provider and one resource, as `pulumi up` leaves them.
pub(crate) fn pulumi_checkpoint() -> Value {
    let provider = "urn:pulumi:dev::e2e::pulumi:providers:sim::default";
    let provider_id = "0b5f7ad6-8c0e-4a53-9a8d-1d1c3e0f7a11";
    json!({
        "version": 3,
        "checkpoint": {
            "stack": "organization/e2e/dev",
            "latest": {
                "manifest": {
                    "time": "2024-05-01T10:00:00.123456789Z",
                    // Pulumi's magic: the SHA-256 of the version, in hex.
                    "magic": hex::encode(sha2::Sha256::digest(b"v3.113.0")),
                    "version": "v3.113.0"
                },
                "secrets_providers": {"type": "passphrase", "state": {
                    "salt": "v1:YEtclPJTP/c=:v1:JCLJb+LQk2sgG1lo:JeiiHgyABFRIRQaZrIXjxd5jWzN+IA=="}},
                "resources": [
                    {
                        "urn": "urn:pulumi:dev::e2e::pulumi:pulumi:Stack::e2e-dev",
                        "custom": false,
                        "type": "pulumi:pulumi:Stack",
                        "created": "2024-05-01T09:59:58.000000000Z",
                        "modified": "2024-05-01T09:59:58.000000000Z"
                    },
                    {
                        "urn": provider,
                        "custom": true,
                        "id": provider_id,
                        "type": "pulumi:providers:sim",
                        "created": "2024-05-01T09:59:59.000000000Z",
                        "modified": "2024-05-01T09:59:59.000000000Z"
                    },
                    {
                        "urn": "urn:pulumi:dev::e2e::sim:index:Resource::a",
                        "custom": true,
                        "id": "a-pulumi",
                        "type": "sim:index:Resource",
                        "inputs": {"v": 1},
                        "outputs": {"uid": "u-pulumi", "v": 1},
                        "parent": "urn:pulumi:dev::e2e::pulumi:pulumi:Stack::e2e-dev",
                        "provider": format!("{provider}::{provider_id}"),
                        "propertyDependencies": {"v": []},
                        "created": "2024-05-01T10:00:00.000000000Z",
                        "modified": "2024-05-01T10:00:00.000000000Z"
                    }
                ],
                "metadata": {}
            }
        }
    })
}

/// A backend directory as `pulumi login file://…` and `pulumi up` leave it.
fn write_pulumi_backend(env: &Env) -> Vec<u8> {
    let root = state(env).join(".pulumi");
    fs::create_dir_all(root.join("stacks/e2e")).unwrap();
    fs::write(root.join("meta.yaml"), "version: 1\n").unwrap();
    let bytes = serde_json::to_vec(&pulumi_checkpoint()).unwrap();
    fs::write(root.join("stacks/e2e/dev.json"), &bytes).unwrap();
    let history = root.join("history/e2e/dev");
    fs::create_dir_all(&history).unwrap();
    fs::write(
        history.join("dev-1714557600123456789.history.json"),
        json!({"kind": "update", "startTime": 1714557598, "message": "",
               "environment": {"exec.kind": "cli"}, "config": {"e2e:region": "eu-west-1"},
               "version": 0, "result": "succeeded", "endTime": 1714557600,
               "resourceChanges": {"create": 3}})
        .to_string(),
    )
    .unwrap();
    fs::write(
        history.join("dev-1714557600123456789.checkpoint.json"),
        &bytes,
    )
    .unwrap();
    // The sim world the resource lives in.
    fs::write(
        env.world_path(),
        json!({"resources": {"a-pulumi": {"type": "sim:index:Resource", "name": "a",
            "urn": "urn:pulumi:dev::e2e::sim:index:Resource::a",
            "properties": {"uid": "u-pulumi", "v": 1}}}})
        .to_string(),
    )
    .unwrap();
    bytes
}

#[test]
fn a_stack_pulumi_wrote_is_listed_previewed_updated_and_destroyed() {
    let env = Env::new(PROGRAM_V2);
    let written = write_pulumi_backend(&env);
    let root = state(&env);
    let file = root.join(".pulumi/stacks/e2e/dev.json");

    let ls = env.ok(&["stack", "ls"]);
    assert!(ls.contains("dev"), "{ls}");
    assert!(
        ls.lines().any(|l| l.starts_with("dev") && l.contains('1')),
        "{ls}"
    );
    let history = env.ok(&["stack", "history", "--stack", "dev", "--json"]);
    let history: Value = serde_json::from_str(&history).unwrap();
    assert_eq!(history[0]["version"], 1, "{history}");
    assert_eq!(history[0]["resourceChanges"]["create"], 3, "{history}");

    let preview = env.ok(&["preview", "--stack", "dev", "--non-interactive"]);
    assert!(preview.contains("1 to update"), "{preview}");
    assert_eq!(
        fs::read(&file).unwrap(),
        written,
        "a preview writes nothing"
    );

    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    assert_eq!(env.world()["a-pulumi"]["properties"]["v"], 2);
    let after = read_json(&file);
    assert_eq!(after["checkpoint"]["stack"], "organization/e2e/dev");
    let a = after["checkpoint"]["latest"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "a-pulumi")
        .cloned()
        .expect("the resource keeps Pulumi's id");
    assert_eq!(a["inputs"], json!({"v": 2}));
    // The state before the update is kept as the backup, as Pulumi keeps its own (first
    // given our epoch, so that the update's journal continues it).
    let bak = read_json(&root.join(".pulumi/stacks/e2e/dev.json.bak"));
    assert_eq!(
        bak["checkpoint"]["latest"]["resources"],
        pulumi_checkpoint()["checkpoint"]["latest"]["resources"]
    );
    let history = env.ok(&["stack", "history", "--stack", "dev", "--json"]);
    let history: Value = serde_json::from_str(&history).unwrap();
    assert_eq!(history.as_array().unwrap().len(), 2, "{history}");
    assert_eq!(history[0]["version"], 2, "{history}");

    env.ok(&["destroy", "--stack", "dev", "--yes", "--non-interactive"]);
    assert!(env.world().is_empty(), "{:?}", env.world());
    let after = read_json(&file);
    assert_eq!(
        after["checkpoint"]["latest"]["resources"],
        json!([]),
        "{after}"
    );
    assert_eq!(pulumi_lists(&root), ["e2e/dev"]);
}

#[test]
fn a_pulumi_lock_file_refuses_an_update_in_pulumis_words_and_changes_nothing() {
    let env = Env::new(PROGRAM_V2);
    let written = write_pulumi_backend(&env);
    let root = state(&env);
    let locks = root.join(".pulumi/locks/organization/e2e/dev");
    fs::create_dir_all(&locks).unwrap();
    let lock = locks.join("5d2c6a8e-7f1b-4c3a-9e0d-2b4f6a8c0e1d.json");
    fs::write(
        &lock,
        r#"{"pid":4242,"username":"alice","hostname":"build-7","timestamp":"2024-05-01T10:00:00.123456789Z"}"#,
    )
    .unwrap();
    let world = env.world();

    for cmd in ["up", "destroy"] {
        let out = env.run(&[cmd, "--stack", "dev", "--yes", "--non-interactive"]);
        let err = stderr(&out);
        assert!(!out.status.success(), "{cmd}: {err}");
        assert!(
            err.contains(
                "the stack is currently locked by 1 lock(s). Either wait for the other \
                 process(es) to end or delete the lock file with `pulumi cancel`."
            ),
            "{cmd}: {err}"
        );
        assert!(
            err.contains(&format!(
                "file://{}: created by alice@build-7 (pid 4242) at 2024-05-01T10:00:00Z",
                lock.display()
            )),
            "{cmd}: {err}"
        );
    }
    assert_eq!(
        fs::read(root.join(".pulumi/stacks/e2e/dev.json")).unwrap(),
        written
    );
    assert!(!root.join(".pulumi/stacks/e2e/dev.json.bak").exists());
    assert_eq!(env.world(), world);
    assert_eq!(names(&locks), [lock.file_name().unwrap().to_string_lossy()]);
    assert_eq!(names(&root.join(".pulumi/history/e2e/dev")).len(), 2);

    // Once Pulumi is done, the update goes ahead.
    fs::remove_file(&lock).unwrap();
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    assert_eq!(env.world()["a-pulumi"]["properties"]["v"], 2);
}

#[test]
fn while_stepdeck_holds_a_stack_pulumi_finds_a_lock_file_of_its_shape() {
    let dir = tempfile::tempdir().unwrap();
    let url = BackendUrl::parse(&format!("file://{}", dir.path().display())).unwrap();
    let b = FileBackend::open(&url).unwrap();
    let dev = StackRef::new("proj", "dev").unwrap();
    b.create_stack(&dev).unwrap();
    let locks = dir.path().join(".pulumi/locks/organization/proj/dev");
    assert!(names(&locks).is_empty());

    let held = b.lock(&dev, "up").unwrap();
    let files = names(&locks);
    assert_eq!(files, [format!("{}.json", held.info().id)]);
    let content = read_json(&locks.join(&files[0]));
    let keys: Vec<&str> = content
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["pid", "username", "hostname", "timestamp"]);
    assert_eq!(content["pid"], std::process::id());
    assert!(
        chrono::DateTime::parse_from_rfc3339(content["timestamp"].as_str().unwrap()).is_ok(),
        "{content}"
    );
    drop(held);
    assert!(names(&locks).is_empty(), "{:?}", names(&locks));
}

#[test]
fn a_backend_in_stepdecks_earlier_layout_is_moved_into_pulumis_when_opened() {
    let env = Env::new(PROGRAM_V2);
    let old = state(&env).join(".stepdeck");
    let stack = old.join("stacks/e2e/dev");
    fs::create_dir_all(stack.join("history")).unwrap();
    let mut checkpoint = pulumi_checkpoint();
    checkpoint["stepdeck"] = json!({"journalEpoch": 3});
    let checkpoint = serde_json::to_vec(&checkpoint).unwrap();
    fs::write(stack.join("checkpoint.json"), &checkpoint).unwrap();
    // A journal of a run killed before its first entry, and a released lock of generation 2.
    fs::write(stack.join("journal.3.jsonl"), "").unwrap();
    let lock = json!({"pid": 1, "hostname": "h", "user": "u", "time": "2024-05-01T10:00:00Z",
        "operation": "up", "id": "old-holder", "generation": 2,
        "released": "2024-05-01T10:00:01Z"});
    fs::write(stack.join("lock.2.json"), lock.to_string()).unwrap();
    let record = json!({"kind": "update", "startTime": 1714557598, "message": "first",
        "environment": {}, "config": {"e2e:region": {"string": "eu-west-1", "secret": false,
        "object": false}}, "result": "succeeded", "endTime": 1714557600, "version": 1,
        "resourceChanges": {"create": 3}});
    fs::write(
        stack.join("history/dev-1714557600123456789.history.json"),
        record.to_string(),
    )
    .unwrap();
    fs::write(stack.join("tags.json"), r#"{"owner":"ops"}"#).unwrap();
    fs::create_dir_all(old.join("workspaces")).unwrap();
    fs::write(old.join("workspaces/e2e.json"), r#"{"stack":"dev"}"#).unwrap();
    fs::write(
        env.world_path(),
        json!({"resources": {"a-pulumi": {"type": "sim:index:Resource", "name": "a",
            "urn": "urn:pulumi:dev::e2e::sim:index:Resource::a",
            "properties": {"uid": "u-pulumi", "v": 1}}}})
        .to_string(),
    )
    .unwrap();

    let ls = env.ok(&["stack", "ls"]);
    assert!(ls.contains("dev*"), "the selection moves too: {ls}");
    let root = state(&env).join(".pulumi");
    // Moved, byte for byte: the checkpoint, the journal and lock (keeping their epoch and
    // generation), the history record; the tags in Pulumi's tags file.
    assert_eq!(
        fs::read(root.join("stacks/e2e/dev.json")).unwrap(),
        checkpoint
    );
    let ours = root.join(".stepdeck/stacks/e2e/dev");
    assert_eq!(names(&ours), ["journal.3.jsonl", "lock.2.json"]);
    assert_eq!(
        read_json(&root.join("history/e2e/dev/dev-1714557600123456789.history.json")),
        record
    );
    assert_eq!(
        read_json(&root.join("stacks/e2e/dev.pulumi-tags")),
        json!({"version": 1, "tags": {"owner": "ops"}})
    );
    assert!(!old.join("stacks").exists(), "{:?}", names(&old));
    assert!(!old.join("workspaces").exists(), "{:?}", names(&old));
    assert_eq!(pulumi_lists(&state(&env)), ["e2e/dev"]);

    let history = env.ok(&["stack", "history", "--stack", "dev", "--json"]);
    let history: Value = serde_json::from_str(&history).unwrap();
    assert_eq!(history[0]["message"], "first", "{history}");
    assert_eq!(
        history[0]["config"]["e2e:region"]["value"], "eu-west-1",
        "{history}"
    );
    let tags = env.ok(&["stack", "tag", "get", "owner", "--stack", "dev"]);
    assert_eq!(tags.trim(), "ops");
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    assert_eq!(env.world()["a-pulumi"]["properties"]["v"], 2);
    let after = read_json(&root.join("stacks/e2e/dev.json"));
    assert!(
        after["stepdeck"]["journalEpoch"].as_u64().unwrap() > 3,
        "{after}"
    );
}

fn open(dir: &Path) -> FileBackend {
    let url = BackendUrl::parse(&format!("file://{}", dir.display())).unwrap();
    FileBackend::open(&url).unwrap()
}

#[test]
fn a_checkpoint_pulumi_rewrote_is_not_continued_by_a_journal_it_never_saw() {
    let dir = tempfile::tempdir().unwrap();
    let b = open(dir.path());
    let dev = StackRef::new("proj", "dev").unwrap();
    b.create_stack(&dev).unwrap();
    // A stepdeck run killed after it began creating `b`: its journal continues epoch 0.
    let begin = json!({"kind": "begin", "op": 1, "operation": "creating",
        "state": {"urn": "urn:pulumi:dev::proj::sim:index:Resource::b", "custom": true,
                  "type": "sim:index:Resource"}});
    let journal = b.journal_path(&dev, 0);
    fs::write(&journal, format!("{begin}\n")).unwrap();
    assert_eq!(
        b.load(&dev, None)
            .unwrap()
            .snapshot
            .pending_operations
            .len(),
        1
    );

    // Then `pulumi` wrote the stack (it never reads our journal): no `stepdeck` key.
    let mut pulumi = read_json(&b.checkpoint_path(&dev));
    pulumi.as_object_mut().unwrap().remove("stepdeck");
    fs::write(b.checkpoint_path(&dev), pulumi.to_string()).unwrap();
    let loaded = b.load(&dev, None).unwrap();
    assert!(
        loaded.snapshot.pending_operations.is_empty(),
        "the journal was replayed onto Pulumi's checkpoint"
    );

    // The next run starts from Pulumi's state under an epoch of ours; the journal goes.
    let lock = b.lock(&dev, "up").unwrap();
    let (base, run) = b.begin_deployment(&lock, None).unwrap();
    assert!(base.pending_operations.is_empty());
    drop(run);
    b.finish_deployment(&lock, None).unwrap();
    drop(lock);
    assert!(!journal.exists(), "{}", journal.display());
    let written = read_json(&b.checkpoint_path(&dev));
    assert!(
        written["stepdeck"]["journalEpoch"].as_u64().unwrap() >= 2,
        "{written}"
    );
    assert!(
        b.load(&dev, None)
            .unwrap()
            .snapshot
            .pending_operations
            .is_empty()
    );
}

#[test]
fn pulumis_legacy_layout_and_unknown_layout_versions_are_refused_with_the_way_out() {
    let dir = tempfile::tempdir().unwrap();
    let stacks = dir.path().join(".pulumi/stacks");
    fs::create_dir_all(&stacks).unwrap();
    fs::write(stacks.join("dev.json"), pulumi_checkpoint().to_string()).unwrap();
    let url = BackendUrl::parse(&format!("file://{}", dir.path().display())).unwrap();
    let e = FileBackend::open(&url).unwrap_err().to_string();
    assert!(
        e.contains("dev.json") && e.contains("legacy") && e.contains("pulumi state upgrade"),
        "{e}"
    );
    assert!(!dir.path().join(".pulumi/meta.yaml").exists());

    fs::remove_file(stacks.join("dev.json")).unwrap();
    fs::write(dir.path().join(".pulumi/meta.yaml"), "version: 2\n").unwrap();
    let e = FileBackend::open(&url).unwrap_err().to_string();
    assert!(e.contains("meta.yaml") && e.contains("version 2"), "{e}");
}

#[test]
fn the_pulumi_lock_file_of_a_stepdeck_run_that_died_goes_with_its_lease() {
    let env = Env::new(PROGRAM_V2);
    write_pulumi_backend(&env);
    // A stepdeck run whose lease ran out, with the Pulumi lock file it wrote.
    let holder = json!({"pid": 4242, "hostname": "elsewhere", "user": "u",
        "time": "2024-05-01T10:00:00Z", "operation": "up", "id": "dead-run",
        "expires": "2024-05-01T10:00:30Z"});
    fs::create_dir_all(env.stack_dir("dev")).unwrap();
    cli_support::plant_lock(&env.stack_dir("dev"), holder);
    let locks = state(&env).join(".pulumi/locks/organization/e2e/dev");
    fs::create_dir_all(&locks).unwrap();
    fs::write(
        locks.join("dead-run.json"),
        r#"{"pid":4294967294,"username":"u","hostname":"h","timestamp":"2024-05-01T10:00:00Z"}"#,
    )
    .unwrap();

    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    assert_eq!(env.world()["a-pulumi"]["properties"]["v"], 2);
    assert!(names(&locks).is_empty(), "{:?}", names(&locks));
}

#[test]
fn retained_checkpoints_and_disabled_backups_follow_pulumis_variables() {
    let env = Env::new(PROGRAM_V1);
    let up = |vars: &[(&str, &str)]| {
        let mut c = env.command(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
        for (k, v) in vars {
            c.env(k, v);
        }
        let out = c.output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
    };
    up(&[
        ("PULUMI_DIY_BACKEND_RETAIN_CHECKPOINTS", "true"),
        ("PULUMI_DIY_BACKEND_DISABLE_CHECKPOINT_BACKUPS", "1"),
    ]);
    let root = state(&env).join(".pulumi");
    let files = names(&root.join("stacks/e2e"));
    let retained: Vec<&String> = files
        .iter()
        .filter(|f| {
            f.strip_prefix("dev.json.")
                .is_some_and(|n| n.parse::<i64>().is_ok())
        })
        .collect();
    assert!(!retained.is_empty(), "{files:?}");
    let last = root.join("stacks/e2e").join(retained.iter().max().unwrap());
    assert_eq!(
        fs::read(last).unwrap(),
        fs::read(root.join("stacks/e2e/dev.json")).unwrap()
    );
    assert!(names(&root.join("backups/e2e/dev")).is_empty());
    assert_eq!(pulumi_lists(&state(&env)), ["e2e/dev"]);
    up(&[]);
    assert_eq!(names(&root.join("backups/e2e/dev")).len(), 1);
}

#[test]
fn a_zstd_stack_file_is_refused_and_never_shadowed_by_a_new_stack() {
    let env = Env::new(PROGRAM_V1);
    let stacks = state(&env).join(".pulumi/stacks/e2e");
    fs::create_dir_all(&stacks).unwrap();
    fs::write(state(&env).join(".pulumi/meta.yaml"), "version: 1\n").unwrap();
    fs::write(stacks.join("dev.json.zst"), [0x28, 0xb5, 0x2f, 0xfd]).unwrap();
    let out = env.run(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    let err = stderr(&out);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("dev.json.zst") && err.contains("PULUMI_DIY_BACKEND_ZSTD"),
        "{err}"
    );
    assert_eq!(names(&stacks), ["dev.json.zst"]);
    assert!(env.world().is_empty());
}

/// Pulumi's passphrase test vector (`pkg/secrets/passphrase/manager_test.go`): the salt state
/// of the passphrase `password`.
const PULUMI_SALT: &str = "v1:fozI5u6B030=:v1:F+6ZduKKd8G0/V7L:PGMFeIzwobWRKmEAzUdaQHqC5mMRIQ==";

#[test]
fn a_pulumi_stack_with_passphrase_secrets_is_read_and_updated_keeping_its_salt() {
    let env = Env::new(PROGRAM_V2);
    write_pulumi_backend(&env);
    env.write(
        "Pulumi.dev.yaml",
        &format!("encryptionsalt: {PULUMI_SALT}\n"),
    );
    let run = |args: &[&str]| {
        let out = env
            .command(args)
            .env("PULUMI_CONFIG_PASSPHRASE", "password")
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        cli_support::stdout(&out)
    };
    // A secret config value, encrypted as Pulumi encrypts it with that salt; its text is JSON,
    // as a secret's plaintext in state is, so that the same ciphertext serves both.
    run(&[
        "config",
        "set",
        "--secret",
        "token",
        "\"hunter2\"",
        "--stack",
        "dev",
    ]);
    let settings = fs::read_to_string(env.project().join("Pulumi.dev.yaml")).unwrap();
    assert!(settings.contains(PULUMI_SALT), "{settings}");
    let ciphertext = settings
        .lines()
        .find_map(|l| l.trim().strip_prefix("secure: "))
        .expect(&settings)
        .to_string();
    // The same ciphertext as a secret stack output in Pulumi's state (a secret's signature).
    let file = state(&env).join(".pulumi/stacks/e2e/dev.json");
    let mut checkpoint = pulumi_checkpoint();
    checkpoint["checkpoint"]["latest"]["secrets_providers"] =
        json!({"type": "passphrase", "state": {"salt": PULUMI_SALT}});
    checkpoint["checkpoint"]["latest"]["resources"][0]["outputs"] = json!({"token": {
        "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
        "ciphertext": ciphertext}});
    fs::write(&file, checkpoint.to_string()).unwrap();

    let shown = run(&[
        "stack",
        "output",
        "token",
        "--show-secrets",
        "--stack",
        "dev",
    ]);
    assert_eq!(shown.trim(), "hunter2");
    assert_eq!(
        run(&["config", "get", "token", "--stack", "dev"]).trim(),
        "\"hunter2\""
    );
    run(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    assert_eq!(env.world()["a-pulumi"]["properties"]["v"], 2);
    let after = read_json(&file);
    assert_eq!(
        after["checkpoint"]["latest"]["secrets_providers"],
        json!({"type": "passphrase", "state": {"salt": PULUMI_SALT}})
    );
    assert!(!after.to_string().contains("hunter2"), "{after}");
}

#[test]
fn a_gzip_stack_file_pulumi_wrote_is_read_and_written_as_pulumis_gzip_switch_says() {
    use std::io::{Read, Write};
    let env = Env::new(PROGRAM_V2);
    write_pulumi_backend(&env);
    let stacks = state(&env).join(".pulumi/stacks/e2e");
    // As `PULUMI_DIY_BACKEND_GZIP=1 pulumi up` leaves it: only the compressed file.
    let plain = fs::read(stacks.join("dev.json")).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&plain).unwrap();
    fs::write(stacks.join("dev.json.gz"), gz.finish().unwrap()).unwrap();
    fs::remove_file(stacks.join("dev.json")).unwrap();

    let ls = env.ok(&["stack", "ls"]);
    assert!(ls.lines().any(|l| l.starts_with("dev")), "{ls}");
    let up = env
        .command(&["up", "--stack", "dev", "--yes", "--non-interactive"])
        .env("PULUMI_DIY_BACKEND_GZIP", "true")
        .output()
        .unwrap();
    assert!(
        up.status.success(),
        "{}",
        String::from_utf8_lossy(&up.stderr)
    );
    assert_eq!(env.world()["a-pulumi"]["properties"]["v"], 2);
    assert_eq!(names(&stacks), ["dev.json.gz", "dev.json.gz.bak"]);
    let mut text = String::new();
    flate2::read::GzDecoder::new(fs::File::open(stacks.join("dev.json.gz")).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    let after: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(after["checkpoint"]["stack"], "organization/e2e/dev");
    assert!(text.contains(r#""inputs":{"v":2}"#), "{text}");
    assert_eq!(pulumi_lists(&state(&env)), ["e2e/dev"]);
    let history = names(&state(&env).join(".pulumi/history/e2e/dev"));
    for suffix in [".checkpoint.json.gz", ".history.json.gz"] {
        assert!(
            history.iter().any(|f| f.ends_with(suffix)),
            "{suffix} in {history:?}"
        );
    }
    let history: Value =
        serde_json::from_str(&env.ok(&["stack", "history", "--stack", "dev", "--json"])).unwrap();
    assert_eq!(history[0]["result"], "succeeded", "{history}");

    // Without the switch the stack is written plain; the compressed file goes, kept as `.bak`.
    env.ok(&["destroy", "--stack", "dev", "--yes", "--non-interactive"]);
    assert_eq!(names(&stacks), ["dev.json", "dev.json.gz.bak"]);
    let plain: Value = serde_json::from_slice(&fs::read(stacks.join("dev.json")).unwrap()).unwrap();
    assert_eq!(plain["checkpoint"]["latest"]["resources"], json!([]));
}

#[test]
fn a_move_from_the_earlier_layout_that_was_interrupted_is_finished_by_the_next_open() {
    let dir = tempfile::tempdir().unwrap();
    // Killed after the stack's directory was moved whole, before its checkpoint was.
    let ours = dir.path().join(".pulumi/.stepdeck/stacks/proj/dev");
    fs::create_dir_all(ours.join("history")).unwrap();
    let mut checkpoint = pulumi_checkpoint();
    checkpoint["checkpoint"]["stack"] = json!("organization/proj/dev");
    checkpoint["checkpoint"]["latest"]["resources"] = json!([]);
    checkpoint["stepdeck"] = json!({"journalEpoch": 1});
    let bytes = serde_json::to_vec(&checkpoint).unwrap();
    fs::write(ours.join("checkpoint.json"), &bytes).unwrap();
    fs::write(ours.join("history/dev-1.history.json"), "{}").unwrap();
    fs::create_dir_all(dir.path().join(".stepdeck/stacks/proj")).unwrap();

    let b = open(dir.path());
    let dev = StackRef::new("proj", "dev").unwrap();
    assert_eq!(fs::read(b.checkpoint_path(&dev)).unwrap(), bytes);
    assert!(names(&ours).is_empty(), "{:?}", names(&ours));
    assert_eq!(
        names(&dir.path().join(".pulumi/history/proj/dev")),
        ["dev-1.history.json"]
    );
    assert_eq!(b.load(&dev, None).unwrap().epoch, 1);
    assert!(!dir.path().join(".stepdeck/stacks").exists());

    // A stack in both layouts is refused, naming both, and neither is touched.
    let old = dir.path().join(".stepdeck/stacks/proj/dev");
    fs::create_dir_all(&old).unwrap();
    fs::write(old.join("checkpoint.json"), b"{}").unwrap();
    let url = BackendUrl::parse(&format!("file://{}", dir.path().display())).unwrap();
    let e = FileBackend::open(&url).unwrap_err().to_string();
    assert!(
        e.contains(&old.display().to_string()) && e.contains("dev.json") && e.contains("both"),
        "{e}"
    );
    assert_eq!(fs::read(old.join("checkpoint.json")).unwrap(), b"{}");
    assert_eq!(fs::read(b.checkpoint_path(&dev)).unwrap(), bytes);
}

#[test]
fn stack_unlock_removes_a_pulumi_lock_file_whose_process_is_gone_or_any_with_force() {
    let env = Env::new(PROGRAM_V2);
    write_pulumi_backend(&env);
    let locks = state(&env).join(".pulumi/locks/organization/e2e/dev");
    fs::create_dir_all(&locks).unwrap();
    let lock = locks.join("5d2c6a8e-7f1b-4c3a-9e0d-2b4f6a8c0e1d.json");
    fs::write(
        &lock,
        r#"{"pid":4242,"username":"alice","hostname":"build-7","timestamp":"2024-05-01T10:00:00Z"}"#,
    )
    .unwrap();
    // Another host's: it may still run.
    let out = env.run(&["stack", "unlock", "--stack", "dev"]);
    let err = stderr(&out);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("pid 4242 on host build-7") && err.contains("--force"),
        "{err}"
    );
    assert!(lock.exists());
    let out = env.ok(&["stack", "unlock", "--stack", "dev", "--force"]);
    assert!(out.contains("pid 4242 on build-7"), "{out}");
    assert!(names(&locks).is_empty(), "{:?}", names(&locks));
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    assert_eq!(env.world()["a-pulumi"]["properties"]["v"], 2);
}
