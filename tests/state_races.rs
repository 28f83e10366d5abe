//! Races between real processes of the binary: concurrent first uses of a stack, and the
//! stack lock's lease (renewed while a deployment runs, taken over once its holder stopped).

#![allow(clippy::unwrap_used, clippy::panic)]

mod cli_support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use cli_support::*;
use serde_json::{Value, json};
use stepdeck::state::{Backend, BackendUrl, FileBackend, StackRef, StateError};

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
    env.root.path().join("state/.stepdeck/stacks/e2e/dev")
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
        let checkpoint = read_json(&stack_dir(&env).join("checkpoint.json"));
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

/// Waits until the stack's lock is held for `operation`; returns the lock file's content.
fn wait_for_lock(env: &Env, operation: &str) -> Value {
    let path = stack_dir(env).join("lock.json");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok(text) = std::fs::read_to_string(&path)
            && let Ok(v) = serde_json::from_str::<Value>(&text)
            && v["operation"] == operation
        {
            return v;
        }
        assert!(Instant::now() < deadline, "never locked for {operation}");
        std::thread::sleep(Duration::from_millis(20));
    }
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
    std::thread::sleep(Duration::from_secs(3));
    let renewed = read_json(&stack_dir(&env).join("lock.json"));
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
    std::thread::sleep(Duration::from_secs(3));
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
    let lock_path = b.stack_dir(&dev).join("lock.json");
    let write = |expires: chrono::DateTime<chrono::Utc>| {
        let info = json!({"pid": 1, "hostname": "some-other-host", "user": "op",
            "time": "2026-01-01T00:00:00Z", "operation": "up", "id": "x",
            "expires": expires.to_rfc3339()});
        std::fs::write(&lock_path, info.to_string()).unwrap();
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
