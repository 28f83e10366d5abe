//! Races between real processes of the binary: concurrent first uses of a stack, the stack
//! lock's lease (renewed while a deployment runs, taken over once its holder stopped), rounds
//! of simultaneous `up`s, a holder paused past its lease, and the writes of a holder that lost
//! its lock, refused.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::cli_support;
use crate::lock_support;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use cli_support::*;
use lock_support::*;
use serde_json::{Value, json};
use stepdeck::engine::JournalError;
use stepdeck::engine::ResourceState;
use stepdeck::engine::Snapshot;
use stepdeck::engine::Urn;
use stepdeck::engine::journal::{SnapshotManager, SuccessEntry};
use stepdeck::engine::model::resource::OperationType;
use stepdeck::state::{Backend, BackendUrl, FileBackend, LostReason, StackRef, StateError};

const SECRET_PROGRAM: &str = r#"
resources:
  box:
    type: sim:index:Resource
    properties:
      token:
        fn::secret: hunter2
outputs:
  token:
    fn::secret: hunter2
"#;

fn stack_dir(env: &Env) -> PathBuf {
    env.root
        .path()
        .join("state/.pulumi/.stepdeck/stacks/e2e/dev")
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn concurrent_first_ups_share_one_stack_and_one_salt() {
    for round in 0..3 {
        let mut env = Env::new(SECRET_PROGRAM);
        env.passphrase = true;
        let racers: Vec<_> = (0..4)
            .map(|_| env.spawn(&["up", "--stack", "dev", "--yes", "--non-interactive"]))
            .collect();
        let mut won = 0;
        for r in racers {
            let out = r.wait_with_output().unwrap();
            let err = stderr(&out);
            if out.status.success() {
                won += 1;
            } else {
                assert!(
                    err.contains("is locked by pid") && !err.contains("No such file"),
                    "round {round}: a loser must be told who holds the lock:\n{err}"
                );
            }
        }
        assert!(won >= 1, "round {round}: nobody won");
        // Whoever won, the salt on file is the one the state's secrets were written with.
        env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
        let token = env.ok(&[
            "stack",
            "output",
            "token",
            "--show-secrets",
            "--stack",
            "dev",
        ]);
        assert_eq!(token.trim(), "hunter2", "round {round}");
        let settings = std::fs::read_to_string(env.project().join("Pulumi.dev.yaml")).unwrap();
        let checkpoint = read_json(&env.checkpoint_path("dev"));
        let salt = checkpoint["checkpoint"]["latest"]["secrets_providers"]["state"]["salt"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(
            settings.contains(&salt),
            "round {round}: settings {settings} do not hold the state's salt {salt}"
        );
    }
}

/// The stack's current lock record, while it is held.
fn held_lock(env: &Env) -> Option<Value> {
    current_lock(&stack_dir(env))
        .map(|(_, v)| v)
        .filter(|v| v.get("released").is_none())
}

/// Waits until the stack's lock is held for `operation`; returns the lock file's content.
fn wait_for_lock(env: &Env, operation: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(v) = held_lock(env)
            && v["operation"] == operation
        {
            return v;
        }
        assert!(Instant::now() < deadline, "never locked for {operation}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether the stack's held lock has a lease that ran out (by this host's clock).
fn lease_ran_out(env: &Env, stack: &str) -> bool {
    current_lock(&env.stack_dir(stack))
        .map(|(_, v)| v)
        .filter(|v| v.get("released").is_none() && v["operation"] == "up")
        .and_then(|v| v["expires"].as_str().map(str::to_string))
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(&t).ok())
        .is_some_and(|t| t < chrono::Utc::now())
}

#[test]
fn a_running_deployment_renews_its_lease_and_a_zombie_holders_lease_expires() {
    let env = Env::new(
        "resources:\n  slow:\n    type: sim:index:Resource\n    properties:\n      v: 1\n",
    );
    env.write("Pulumi.dev.yaml", "config:\n  sim:latencyMs: 8000\n");
    let mut holder = env
        .command(&["up", "--stack", "dev", "--yes", "--non-interactive"])
        .env("STEPDECK_LOCK_LEASE_SECS", "2")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let first = wait_for_lock(&env, "up");
    assert_eq!(first["pid"], json!(holder.id()));
    assert!(first["expires"].is_string(), "{first}");

    // Past the first lease: the holder renewed it, so the lock still holds.
    let first_expiry =
        chrono::DateTime::parse_from_rfc3339(first["expires"].as_str().unwrap()).unwrap();
    wait_until("the first lease to run out", || {
        chrono::Utc::now() > first_expiry
    });
    let renewed = held_lock(&env).unwrap();
    assert_ne!(
        renewed["expires"], first["expires"],
        "the lease was renewed"
    );
    let out = env.run(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    let err = stderr(&out);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains(&format!("locked by pid {}", holder.id())) && err.contains("lease until"),
        "{err}"
    );

    // Killed and not reaped: a zombie whose pid still exists. Its lease runs out.
    holder.kill().unwrap();
    let proc = PathBuf::from(format!("/proc/{}", holder.id()));
    assert!(proc.exists(), "the holder is a zombie until reaped");
    wait_until("the zombie's lease to run out", || {
        lease_ran_out(&env, "dev")
    });
    let out = env.run(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("stale lock") && err.contains(&format!("pid {}", holder.id())),
        "{err}"
    );
    holder.wait().unwrap();
}

#[test]
fn another_hosts_lock_is_judged_by_its_lease() {
    let dir = tempfile::tempdir().unwrap();
    let url = BackendUrl::parse(&format!("file://{}", dir.path().display())).unwrap();
    let b = FileBackend::open(&url).unwrap();
    let dev = StackRef::new("proj", "dev").unwrap();
    b.create_stack(&dev).unwrap();
    let dir = b.stack_dir(&dev);
    let write = |expires: chrono::DateTime<chrono::Utc>| {
        let info = json!({"pid": 1, "hostname": "some-other-host", "user": "op",
            "time": "2026-01-01T00:00:00Z", "operation": "up", "id": "x",
            "expires": expires.to_rfc3339()});
        plant_lock(&dir, info);
    };

    write(chrono::Utc::now() + chrono::Duration::seconds(60));
    let e = b.lock(&dev, "up").unwrap_err();
    assert!(matches!(e, StateError::Locked(_)), "{e}");
    assert!(b.unlock(&dev, false).is_err(), "a live lease needs --force");

    write(chrono::Utc::now() - chrono::Duration::seconds(1));
    let lock = b.lock(&dev, "up").unwrap();
    assert_eq!(
        lock.broke_stale().map(|l| l.hostname.as_str()),
        Some("some-other-host")
    );
}

/// A lock nobody holds any more: a pid that runs nowhere, on another host, lease over.
fn stale_holder() -> Value {
    json!({"pid": 999_999_999u32, "hostname": "elsewhere", "user": "op",
        "time": "2020-01-01T00:00:00Z", "operation": "up", "id": "stale",
        "expires": "2020-01-01T00:00:30Z"})
}

#[test]
fn simultaneous_ups_take_the_lock_once_and_lose_nothing() {
    let env = Env::new(&chain_program(3, 400));
    // Odd rounds race to take over a stale lock, even ones to create the stack.
    let tally = race_rounds(&env, 10, 4, |stack, round| {
        if round % 2 == 1 {
            env.ok(&["stack", "init", stack]);
            plant_lock(&env.stack_dir(stack), stale_holder());
        }
    });
    assert!(tally.taken_twice.is_empty(), "{:#?}", tally.taken_twice);
    assert!(tally.lost.is_empty(), "{:#?}", tally.lost);
}

#[test]
fn a_holder_paused_past_its_lease_stops_before_its_next_provider_call() {
    let env = Env::new(&chain_program(8, 300));
    env.ok(&["stack", "init", "dev"]);
    let probe = paused_holder(&env, "dev", 2, || lease_ran_out(&env, "dev"));
    assert_paused_holder_stopped(&probe);
    assert!(
        stderr(&probe.first).contains("lock generation"),
        "{}",
        stderr(&probe.first)
    );
    // The state is the second run's, whole: a third run has nothing to create.
    let third = spawn_up(&env, "dev", "third", 30)
        .wait_with_output()
        .unwrap();
    assert!(third.status.success(), "{}", stderr(&third));
    assert!(world(&env, "third").is_empty(), "{}", stdout(&third));
}

#[test]
fn a_lease_out_of_range_is_refused_naming_the_variable_before_anything_runs() {
    let env = Env::new(&chain_program(2, 1500));
    env.ok(&["stack", "init", "dev"]);
    let checkpoint = std::fs::read(env.checkpoint_path("dev")).unwrap();
    for bad in ["9999999999999", "0", "3601", "soon"] {
        let out = env
            .command(&["up", "--stack", "dev", "--yes", "--non-interactive"])
            .env("STEPDECK_LOCK_LEASE_SECS", bad)
            .output()
            .unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{bad}: {err}");
        assert!(
            err.contains(&format!("STEPDECK_LOCK_LEASE_SECS=\"{bad}\"")) && err.contains("3600"),
            "{bad}: {err}"
        );
        assert!(env.world().is_empty(), "{bad}: a provider was called");
        assert!(held_lock(&env).is_none(), "{bad}: a lock was written");
    }
    assert_eq!(
        std::fs::read(env.checkpoint_path("dev")).unwrap(),
        checkpoint
    );

    // The longest lease is an hour from the lock's taking, never already over: a second
    // run is refused while the first holds it.
    let mut first = env
        .command(&["up", "--stack", "dev", "--yes", "--non-interactive"])
        .env("STEPDECK_LOCK_LEASE_SECS", "3600")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let held = wait_for_lock(&env, "up");
    let expires = chrono::DateTime::parse_from_rfc3339(held["expires"].as_str().unwrap()).unwrap();
    assert!(
        expires > chrono::Utc::now() + chrono::Duration::minutes(59),
        "{held}"
    );
    let second = env.run(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    assert!(
        stderr(&second).contains(&format!("locked by pid {}", first.id())),
        "{}",
        stderr(&second)
    );
    assert!(first.wait().unwrap().success());
}

fn resource(name: &str) -> ResourceState {
    ResourceState {
        urn: Urn::new("dev", "proj", None, "sim:index:Resource", name),
        custom: true,
        id: Some(format!("id-{name}")),
        type_: "sim:index:Resource".into(),
        ..ResourceState::default()
    }
}

/// Ends the lease of the lock of generation `generation` in `dir`, as if its holder had been
/// paused past it.
fn expire(dir: &Path, generation: u64) {
    let path = dir.join(format!("lock.{generation}.json"));
    let mut lock = read_json(&path);
    lock["expires"] = json!("2020-01-01T00:00:00Z");
    std::fs::write(&path, lock.to_string()).unwrap();
}

#[tokio::test]
async fn a_holder_that_lost_its_lock_writes_nothing_more_and_its_begun_steps_stay_pending() {
    let dir = tempfile::tempdir().unwrap();
    let url = BackendUrl::parse(&format!("file://{}", dir.path().display())).unwrap();
    let b = FileBackend::open(&url).unwrap();
    let dev = StackRef::new("proj", "dev").unwrap();
    b.create_stack(&dev).unwrap();
    let first = b.lock(&dev, "up").unwrap();
    let (base, journal) = b.begin_deployment(&first, None).unwrap();
    let journal_path = journal.path().to_path_buf();
    let mgr = SnapshotManager::new(&base, Box::new(journal));
    let x = mgr.begin(OperationType::Creating, &resource("x")).unwrap();
    mgr.durable().await.unwrap();

    expire(&b.stack_dir(&dev), first.info().generation);
    let second = b.lock(&dev, "up").unwrap();
    assert!(second.info().generation > first.info().generation);
    assert_eq!(second.broke_stale().map(|l| &l.id), Some(&first.info().id));

    // The next step's `Begin` is written, but the step may not call its provider.
    mgr.begin(OperationType::Creating, &resource("y")).unwrap();
    let lost = mgr.durable().await.unwrap_err();
    assert!(matches!(lost, JournalError::LockLost(_)), "{lost}");
    let message = lost.to_string();
    assert!(
        message.contains("lost the lock")
            && message.contains(&format!("lock generation {}", second.info().generation)),
        "{message}"
    );
    let ended = SuccessEntry {
        op: Some(x),
        new: Some(resource("x")),
        ..SuccessEntry::default()
    };
    assert!(matches!(mgr.success(ended), Err(JournalError::LockLost(_))));
    drop(mgr);

    // No checkpoint, compaction or journal of the old holder lands.
    let checkpoint = std::fs::read(b.checkpoint_path(&dev)).unwrap();
    for e in [
        b.finish_deployment(&first, None).unwrap_err(),
        b.save(&first, &Snapshot::default(), None).unwrap_err(),
        b.begin_deployment(&first, None).map(drop).unwrap_err(),
    ] {
        assert!(
            matches!(&e, StateError::LockLost(l) if l.reason == LostReason::TakenOver),
            "{e}"
        );
    }
    assert_eq!(std::fs::read(b.checkpoint_path(&dev)).unwrap(), checkpoint);
    assert!(
        journal_path.exists(),
        "the journal is the new holder's to fold"
    );
    drop(first);
    assert_eq!(
        b.lock_holder(&dev).unwrap().map(|l| l.generation),
        Some(second.info().generation),
        "the old holder's release leaves the new lock alone"
    );

    // The new holder sees what the old one began as pending operations.
    let (base, _journal) = b.begin_deployment(&second, None).unwrap();
    let pending: Vec<&str> = base
        .pending_operations
        .iter()
        .map(|p| p.resource.urn.name())
        .collect();
    assert_eq!(pending, ["x", "y"]);
}
