//! The `postgres://` backend against a real PostgreSQL server (tests/pg_support), through the
//! real binary: the same scenarios as on `file://`, lease locks between two hosts, expired
//! leases taken over with a warning, bad input refused with exit 2, stacks moved between
//! backends, rounds of simultaneous `up`s and lock takers, a holder paused past its lease, the
//! writes of a holder that lost its lock, refused, and first users of a new database that
//! waited on each other all opening it.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::cli_support;
use crate::crash_support;
use crate::lock_support;
use crate::pg_support;
use std::process::Output;
use std::sync::{Arc, Barrier};

use cli_support::{Env, NET_AND_DB, stderr, stdout};
use lock_support::*;
use stepdeck::engine::JournalError;
use stepdeck::engine::ResourceState;
use stepdeck::engine::Snapshot;
use stepdeck::engine::Urn;
use stepdeck::engine::journal::SnapshotManager;
use stepdeck::engine::model::resource::OperationType;
use stepdeck::state::{Backend, BackendUrl, LostReason, PgBackend, StackRef, StateError};

/// A server, or a skipped test (the message says how to install PostgreSQL).
macro_rules! server {
    () => {
        match pg_support::server() {
            Some(s) => s,
            None => return,
        }
    };
}

fn run_on(env: &Env, url: &str, host: &str, args: &[&str]) -> Output {
    env.command(args)
        .env("STEPDECK_BACKEND_URL", url)
        .env("STEPDECK_HOST", host)
        .output()
        .expect("run stepdeck")
}

fn ok_on(env: &Env, url: &str, args: &[&str]) -> String {
    let out = run_on(env, url, "alpha", args);
    assert!(
        out.status.success(),
        "stepdeck {args:?} on {url} failed ({:?}):\n{}\n{}",
        out.status.code(),
        stdout(&out),
        stderr(&out)
    );
    stdout(&out)
}

/// The URN of the program's network on `stack`.
fn net_urn(stack: &str) -> String {
    format!("urn:pulumi:{stack}::e2e::sim:index:Network::net")
}

/// The scenario both backends must pass alike; returns what it observed, to compare.
fn lifecycle(env: &Env, url: &str) -> Vec<String> {
    let mut seen = Vec::new();
    let export = |stack: &str| -> serde_json::Value {
        serde_json::from_str(&ok_on(env, url, &["stack", "export", "--stack", stack])).unwrap()
    };
    ok_on(env, url, &["stack", "init", "dev"]);
    ok_on(
        env,
        url,
        &[
            "config",
            "set",
            "--secret",
            "dbPassword",
            "s3cr3t",
            "--stack",
            "dev",
        ],
    );
    ok_on(env, url, &["up", "--yes", "--stack", "dev"]);
    let exported = export("dev");
    let resources = exported["deployment"]["resources"]
        .as_array()
        .unwrap()
        .len();
    seen.push(format!("after up: {resources} resources"));
    seen.push(format!(
        "secrets provider: {}",
        exported["deployment"]["secrets_providers"]["type"]
    ));
    env.write(
        "Pulumi.yaml",
        &format!(
            "name: e2e\nruntime: yaml\n{}",
            NET_AND_DB.replace("10.0.0.0/16", "10.1.0.0/16")
        ),
    );
    ok_on(env, url, &["up", "--yes", "--stack", "dev"]);
    let history: serde_json::Value = serde_json::from_str(&ok_on(
        env,
        url,
        &["stack", "history", "--json", "--stack", "dev"],
    ))
    .unwrap();
    seen.push(format!(
        "history: {} updates",
        history.as_array().unwrap().len()
    ));
    ok_on(
        env,
        url,
        &[
            "state",
            "protect",
            &net_urn("dev"),
            "--stack",
            "dev",
            "--yes",
        ],
    );
    let protected = export("dev")["deployment"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["urn"] == net_urn("dev") && r["protect"] == true);
    seen.push(format!("protected: {protected}"));
    ok_on(
        env,
        url,
        &[
            "state",
            "unprotect",
            &net_urn("dev"),
            "--stack",
            "dev",
            "--yes",
        ],
    );
    ok_on(
        env,
        url,
        &["stack", "tag", "set", "team", "infra", "--stack", "dev"],
    );
    seen.push(format!(
        "tag: {}",
        ok_on(env, url, &["stack", "tag", "get", "team", "--stack", "dev"]).trim()
    ));
    let ls = ok_on(env, url, &["stack", "ls"]);
    seen.push(format!("ls names dev: {}", ls.contains("dev")));
    // export | import round trip onto a second stack of the same backend.
    let doc = ok_on(env, url, &["stack", "export", "--stack", "dev"]);
    let file = env.project().join("dev.json");
    std::fs::write(
        &file,
        doc.replace("urn:pulumi:dev::", "urn:pulumi:qa::")
            .replace("e2e-dev", "e2e-qa"),
    )
    .unwrap();
    ok_on(env, url, &["stack", "init", "qa"]);
    ok_on(
        env,
        url,
        &[
            "stack",
            "import",
            "--stack",
            "qa",
            "--file",
            file.to_str().unwrap(),
        ],
    );
    let qa = export("qa");
    seen.push(format!(
        "imported: {} resources",
        qa["deployment"]["resources"].as_array().unwrap().len()
    ));
    ok_on(env, url, &["stack", "rm", "qa", "--force", "--yes"]);
    let removed = run_on(env, url, "alpha", &["stack", "rm", "dev", "--yes"]);
    seen.push(format!(
        "rm with resources exits {:?}",
        removed.status.code()
    ));
    ok_on(env, url, &["stack", "rename", "prod", "--stack", "dev"]);
    let renamed = export("prod");
    seen.push(format!(
        "renamed: net is {}",
        renamed["deployment"]["resources"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["urn"] == net_urn("prod"))
    ));
    seen.push(format!(
        "renamed keeps its tag: {}",
        ok_on(
            env,
            url,
            &["stack", "tag", "get", "team", "--stack", "prod"]
        )
        .trim()
    ));
    ok_on(env, url, &["destroy", "--yes", "--stack", "prod"]);
    ok_on(env, url, &["stack", "rm", "prod", "--yes"]);
    seen.push(format!(
        "ls after rm names prod: {}",
        ok_on(env, url, &["stack", "ls"]).contains("prod")
    ));
    seen
}

#[test]
fn the_same_scenario_passes_alike_on_file_and_postgres() {
    let server = server!();
    let file_env = Env::with_passphrase(NET_AND_DB);
    let on_file = lifecycle(&file_env, &file_env.backend_url());
    let pg_env = Env::with_passphrase(NET_AND_DB);
    let (_, pg_url) = server.database();
    let on_pg = lifecycle(&pg_env, &pg_url);
    assert_eq!(on_pg, on_file);
    assert_eq!(
        on_pg,
        [
            "after up: 4 resources",
            "secrets provider: \"passphrase\"",
            "history: 2 updates",
            "protected: true",
            "tag: infra",
            "ls names dev: true",
            "imported: 4 resources",
            "rm with resources exits Some(2)",
            "renamed: net is true",
            "renamed keeps its tag: infra",
            "ls after rm names prod: false",
        ]
    );
    assert!(pg_env.world().is_empty(), "destroy removed everything");
}

#[test]
fn a_second_host_is_refused_naming_the_holder_and_an_expired_lease_is_taken_over() {
    let server = server!();
    let env = Env::new(NET_AND_DB);
    let (db, url) = server.database();
    ok_on(&env, &url, &["stack", "init", "dev"]);
    // A live lock of host "alpha" (a pid that runs on no host we can check, lease current).
    server.sql(
        &db,
        "INSERT INTO stepdeck_locks VALUES ('e2e', 'dev', 'held-1', 4242, 'alpha', 'ops', 'up', \
         '2026-01-01T00:00:00Z', now() + interval '10 minutes')",
    );
    let refused = run_on(&env, &url, "beta", &["up", "--yes", "--stack", "dev"]);
    // As on file://: a stack in use is not bad input, so the exit code is 1.
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    let e = stderr(&refused);
    assert!(e.contains("locked by pid 4242 on host alpha"), "{e}");
    assert!(e.contains("user ops"), "{e}");
    assert_eq!(
        server.sql(&db, "SELECT count(*) FROM stepdeck_journal"),
        "0"
    );
    // The lease ends: the next operator takes the lock over, and is told whose it was.
    server.sql(
        &db,
        "UPDATE stepdeck_locks SET expires = now() - interval '1 second'",
    );
    let taken = run_on(&env, &url, "beta", &["up", "--yes", "--stack", "dev"]);
    assert!(taken.status.success(), "{}", stderr(&taken));
    assert!(
        stderr(&taken).contains("removed a stale lock left by pid 4242 on alpha"),
        "{}",
        stderr(&taken)
    );
    assert_eq!(server.sql(&db, "SELECT count(*) FROM stepdeck_locks"), "0");
}

/// A network whose create takes `ms` milliseconds.
fn slow_program(ms: u64) -> String {
    format!(
        "resources:\n  net:\n    type: sim:index:Network\n    properties:\n      cidr: 10.0.0.0/16\n      latencyMs: {ms}\n"
    )
}

#[test]
fn two_ups_from_two_hosts_run_exactly_one_and_the_other_names_the_holder() {
    let server = server!();
    let env = Env::new(&slow_program(3000));
    let (db, url) = server.database();
    ok_on(&env, &url, &["stack", "init", "dev"]);
    let first = env
        .command(&["up", "--yes", "--stack", "dev"])
        .env("STEPDECK_BACKEND_URL", &url)
        .env("STEPDECK_HOST", "alpha")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while server.sql(&db, "SELECT count(*) FROM stepdeck_locks") != "1" {
        assert!(
            std::time::Instant::now() < deadline,
            "the first up never locked"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let second = run_on(&env, &url, "beta", &["up", "--yes", "--stack", "dev"]);
    let first = first.wait_with_output().unwrap();
    assert!(first.status.success(), "{}", stderr(&first));
    assert_eq!(second.status.code(), Some(1), "{}", stderr(&second));
    let e = stderr(&second);
    assert!(
        e.contains("is locked by pid") && e.contains("on host alpha"),
        "{e}"
    );
    assert_eq!(env.world().len(), 1, "one network, created once");
}

/// `cancel` on a postgres backend: the run holding the stack's row lock on this host is
/// signalled and waited for; a run on another host is refused.
#[test]
fn cancel_stops_the_run_holding_the_postgres_lock() {
    use std::io::BufRead;
    let server = server!();
    let env = Env::new(NET_AND_DB);
    let (_, url) = server.database();
    ok_on(&env, &url, &["stack", "init", "dev"]);
    let mut up = env
        .command(&[
            "up",
            "--yes",
            "--stack",
            "dev",
            "--non-interactive",
            "--pause-before",
            "**",
        ])
        .env("STEPDECK_BACKEND_URL", &url)
        .env("STEPDECK_HOST", "alpha")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(up.stdout.take().unwrap()).lines();
    lines
        .by_ref()
        .map(Result::unwrap)
        .find(|l| l.contains("paused before it"))
        .expect("the up pauses");
    let elsewhere = run_on(&env, &url, "beta", &["cancel", "--yes", "--stack", "dev"]);
    assert_eq!(elsewhere.status.code(), Some(2), "{}", stderr(&elsewhere));
    assert!(stderr(&elsewhere).contains("which this host cannot signal"));
    let out = ok_on(&env, &url, &["cancel", "--yes", "--stack", "dev"]);
    assert!(out.contains("has been canceled!"), "{out}");
    assert_eq!(up.wait().unwrap().code(), Some(8));
    ok_on(
        &env,
        &url,
        &["up", "--yes", "--stack", "dev", "--non-interactive"],
    );
}

/// `stack init dev` on `url` must fail with exit code 2 and a message containing `says`.
fn refused(env: &Env, url: &str, says: &str) -> String {
    let out = run_on(env, url, "alpha", &["stack", "init", "dev"]);
    let e = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(e.contains(says), "expected {says:?} in: {e}");
    e
}

/// How many tables of ours the database holds.
fn our_tables(server: &pg_support::Server, db: &str) -> String {
    server.sql(
        db,
        "SELECT count(*) FROM pg_tables WHERE tablename LIKE 'stepdeck%'",
    )
}

#[test]
fn bad_servers_credentials_schemas_and_roles_exit_2_writing_nothing() {
    let server = server!();
    let env = Env::new(NET_AND_DB);
    let unused = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let unreachable = format!("postgres://postgres:x@127.0.0.1:{unused}/db?sslmode=disable");
    let e = refused(&env, &unreachable, &format!("127.0.0.1:{unused}"));
    assert!(e.contains("is the server running"), "{e}");

    let missing = server.url("postgres", pg_support::PASSWORD, "no_such_db");
    refused(&env, &missing, "create the database first");

    let (db, _) = server.database();
    let wrong = server.url("postgres", "not-the-password", &db);
    let e = refused(&env, &wrong, "password authentication failed");
    assert!(
        !e.contains("not-the-password"),
        "the password is masked: {e}"
    );
    assert_eq!(our_tables(server, &db), "0");

    let (db, url) = server.database();
    server.sql(
        &db,
        "CREATE TABLE stepdeck_schema (version integer NOT NULL); \
         INSERT INTO stepdeck_schema VALUES (99)",
    );
    refused(&env, &url, "schema version 99");
    assert_eq!(our_tables(server, &db), "1");

    let (db, url) = server.database();
    ok_on(&env, &url, &["stack", "ls"]);
    let role = format!("ro_{db}");
    server.sql(
        &db,
        &format!(
            "CREATE ROLE {role} LOGIN PASSWORD 'ro'; \
             GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role}"
        ),
    );
    refused(&env, &server.url(&role, "ro", &db), "permission denied");
    assert_eq!(
        server.sql(
            &db,
            "SELECT count(*) FROM pulumi_state WHERE key LIKE '%/.pulumi/stacks/%'"
        ),
        "0"
    );
    assert_eq!(server.sql(&db, "SELECT count(*) FROM stepdeck_locks"), "0");
}

#[test]
fn export_and_import_move_a_stack_from_file_to_postgres_and_back() {
    let server = server!();
    let env = Env::new(NET_AND_DB);
    let file_url = format!("file://{}", env.root.path().join("state").display());
    let (db, pg_url) = server.database();
    ok_on(&env, &file_url, &["up", "--yes", "--stack", "dev"]);
    let doc = ok_on(&env, &file_url, &["stack", "export", "--stack", "dev"]);
    let path = env.project().join("moved.json");
    std::fs::write(&path, &doc).unwrap();
    ok_on(&env, &pg_url, &["stack", "init", "dev"]);
    ok_on(
        &env,
        &pg_url,
        &[
            "stack",
            "import",
            "--stack",
            "dev",
            "--file",
            path.to_str().unwrap(),
        ],
    );
    let back = ok_on(&env, &pg_url, &["stack", "export", "--stack", "dev"]);
    let (a, b): (serde_json::Value, serde_json::Value) = (
        serde_json::from_str(&doc).unwrap(),
        serde_json::from_str(&back).unwrap(),
    );
    assert_eq!(a["deployment"]["resources"], b["deployment"]["resources"]);
    // The moved stack deploys with no changes, journaling into the database.
    let out = ok_on(
        &env,
        &pg_url,
        &["up", "--yes", "--stack", "dev", "--expect-no-changes"],
    );
    assert!(!out.is_empty());
    assert_eq!(
        server.sql(
            &db,
            "SELECT count(*) FROM pulumi_state WHERE key LIKE '%.history.json'"
        ),
        "1"
    );
}

#[test]
fn a_lost_connection_stops_new_steps_and_names_the_unfinished_operations() {
    let server = server!();
    // Three networks one after another, each create taking 1.5 s.
    let program = "resources:
  a:
    type: sim:index:Network
    properties:
      cidr: 10.0.0.0/16
      latencyMs: 1500
  b:
    type: sim:index:Network
    properties:
      cidr: 10.1.0.0/16
      latencyMs: 1500
    options:
      dependsOn:
        - ${a}
  c:
    type: sim:index:Network
    properties:
      cidr: 10.2.0.0/16
      latencyMs: 1500
    options:
      dependsOn:
        - ${b}
";
    let mut env = Env::new(program);
    let (db, url) = server.database();
    env.backend = Some(url);
    env.ok(&["stack", "init", "dev"]);
    let run = env.spawn(&["up", "--yes", "--stack", "dev", "--non-interactive"]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while server.sql(&db, "SELECT count(*) FROM stepdeck_journal") == "0" {
        assert!(
            std::time::Instant::now() < deadline,
            "nothing was journaled"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // The database goes away for this deployment: its sessions end, no new one is accepted.
    server.sql(
        "postgres",
        &format!(
            "ALTER DATABASE {db} ALLOW_CONNECTIONS false; \
             SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '{db}'"
        ),
    );
    let out = run.wait_with_output().unwrap();
    let (o, e) = (stdout(&out), stderr(&out));
    assert!(!out.status.success(), "{o}\n{e}");
    assert!(
        e.contains(&format!("/{db}")),
        "the error names the database:\n{o}\n{e}"
    );
    assert!(
        format!("{o}{e}").contains("not recorded as finished"),
        "the unfinished operations are named:\n{o}\n{e}"
    );
    assert!(
        env.world().len() < 3,
        "no new step started after the connection was lost: {:?}",
        env.world().keys()
    );
    // The server is back: the state loads with what was recorded, nothing resumed silently.
    server.sql(
        "postgres",
        &format!("ALTER DATABASE {db} ALLOW_CONNECTIONS true"),
    );
    let exported = env.export("dev");
    let recorded = exported["deployment"]["resources"]
        .as_array()
        .map_or(0, Vec::len)
        + exported["deployment"]["pending_operations"]
            .as_array()
            .map_or(0, Vec::len);
    assert!(recorded > 0, "what ran stays recorded: {exported}");
    env.ok(&["refresh", "--yes", "--stack", "dev", "--non-interactive"]);
    env.ok(&["up", "--yes", "--stack", "dev", "--non-interactive"]);
    env.assert_no_leaks("dev");
    assert_eq!(env.managed("dev").len(), 3);
}

#[test]
fn kill_9_at_the_fault_points_converges_on_postgres() {
    let server = server!();
    let mut compactions_killed = 0;
    for (point, n) in [
        ("after-provider-write", 1),
        ("after-provider-write", 4),
        ("before-journal", 1),
        ("before-journal", 4),
        ("after-journal", 1),
        ("after-journal", 4),
        // The compactions that start and end the run, killed before they commit.
        ("in-checkpoint-write", 1),
        ("in-checkpoint-write", 2),
    ] {
        let mut env = Env::new(crash_support::PROGRAM);
        env.write("Pulumi.dev.yaml", crash_support::CONFIG_DEFAULT);
        env.backend = Some(server.database().1);
        if !crash_support::killed_run(&env, "up", point, n) {
            continue;
        }
        if point == "in-checkpoint-write" {
            compactions_killed += 1;
        }
        let again = env.run(&crash_support::args("up"));
        if !(again.status.success() && crash_support::pending_operations(&env).is_empty()) {
            env.ok(&crash_support::args("refresh"));
            env.ok(&crash_support::args("up"));
        }
        assert!(
            crash_support::pending_operations(&env).is_empty(),
            "{point}:{n}: pending operations left"
        );
        assert_eq!(
            env.managed("dev").len(),
            crash_support::MANAGED,
            "{point}:{n}"
        );
        env.assert_no_leaks("dev");
    }
    assert!(compactions_killed > 0, "no compaction was killed");
}

#[test]
fn tls_through_rustls_encrypts_and_verifies_as_sslmode_says() {
    let server = server!();
    let Some(cert) = server.ca_cert() else {
        eprintln!("openssl is not installed: the server runs without TLS, skipping");
        return;
    };
    let env = Env::new(NET_AND_DB);
    let (db, _) = server.database();
    let user = pg_support::TLS_ONLY_USER;
    server.sql(
        &db,
        &format!(
            "DO $$ BEGIN CREATE ROLE {user} LOGIN PASSWORD 'tls'; EXCEPTION WHEN duplicate_object THEN NULL; END $$; \
             GRANT ALL ON SCHEMA public TO {user}"
        ),
    );
    let url = |mode: &str| {
        format!(
            "postgres://{user}:tls@127.0.0.1:{}/{db}?sslmode={mode}",
            server.port
        )
    };
    // The server refuses this role without encryption.
    let plain = run_on(&env, &url("disable"), "alpha", &["stack", "ls"]);
    assert_eq!(plain.status.code(), Some(2), "{}", stderr(&plain));
    assert!(
        stderr(&plain).contains("no encryption"),
        "{}",
        stderr(&plain)
    );
    // Encrypted, certificate unchecked (libpq's require), and verified against the CA given.
    ok_on(&env, &url("require"), &["stack", "init", "dev"]);
    let verified = format!("{}&sslrootcert={}", url("verify-full"), cert.display());
    assert!(ok_on(&env, &verified, &["stack", "ls"]).contains("dev"));
    // A certificate the built-in roots do not vouch for is refused under verify-full.
    let unknown = run_on(&env, &url("verify-full"), "alpha", &["stack", "ls"]);
    assert_eq!(unknown.status.code(), Some(2), "{}", stderr(&unknown));
    assert!(
        stderr(&unknown).to_lowercase().contains("certificate"),
        "{}",
        stderr(&unknown)
    );
}

/// An environment on a fresh database of `server` (its tables made), and the database.
fn pg_env(server: &pg_support::Server, program: &str) -> (Env, String) {
    let (db, url) = server.database();
    let mut env = Env::new(program);
    env.backend = Some(url);
    env.ok(&["stack", "ls"]);
    (env, db)
}

#[test]
fn simultaneous_ups_take_the_lock_once_and_lose_nothing_on_postgres() {
    let server = server!();
    let (env, db) = pg_env(server, &chain_program(3, 400));
    // Odd rounds race to take over an expired lock, even ones to create the stack.
    let tally = race_rounds(&env, 10, 4, |stack, round| {
        if round % 2 == 1 {
            env.ok(&["stack", "init", stack]);
            server.sql(
                &db,
                &format!(
                    "INSERT INTO stepdeck_locks VALUES ('e2e', '{stack}', 'stale', 999999999, \
                     'elsewhere', 'op', 'up', '2020-01-01T00:00:00Z', now() - interval '1 second')"
                ),
            );
        }
    });
    assert!(tally.taken_twice.is_empty(), "{:#?}", tally.taken_twice);
    assert!(tally.lost.is_empty(), "{:#?}", tally.lost);
}

#[test]
fn lock_takers_racing_on_a_new_stack_get_one_lock_per_round() {
    let server = server!();
    let (_, url) = server.database();
    let url = BackendUrl::parse(&url).unwrap();
    const TAKERS: usize = 6;
    let backends: Vec<Arc<PgBackend>> = (0..TAKERS)
        .map(|_| Arc::new(PgBackend::open(&url).unwrap()))
        .collect();
    let mut doubled = Vec::new();
    for round in 0..40 {
        let stack = StackRef::new("proj", &format!("s{round}")).unwrap();
        let (start, hold) = (
            Arc::new(Barrier::new(TAKERS)),
            Arc::new(Barrier::new(TAKERS)),
        );
        let takers: Vec<_> = backends
            .iter()
            .map(|b| {
                let (b, stack, start, hold) =
                    (b.clone(), stack.clone(), start.clone(), hold.clone());
                std::thread::spawn(move || {
                    start.wait();
                    let taken = b.lock_or_create(&stack, "up");
                    // Every taker holds what it took until all have tried.
                    hold.wait();
                    match taken {
                        Ok(_) => true,
                        Err(StateError::Locked(_)) => false,
                        Err(e) => panic!("round {round}: {e}"),
                    }
                })
            })
            .collect();
        let held = takers
            .into_iter()
            .filter_map(|t| t.join().unwrap().then_some(()))
            .count();
        if held != 1 {
            doubled.push(format!("round {round}: {held} takers held the lock"));
        }
    }
    assert!(doubled.is_empty(), "{doubled:#?}");
}

#[test]
fn a_holder_paused_past_its_lease_stops_before_its_next_provider_call_on_postgres() {
    let server = server!();
    let (env, db) = pg_env(server, &chain_program(8, 300));
    env.ok(&["stack", "init", "dev"]);
    let probe = paused_holder(&env, "dev", 2, || {
        server.sql(
            &db,
            "SELECT count(*) FROM stepdeck_locks WHERE operation = 'up' AND expires < now()",
        ) == "1"
    });
    assert_paused_holder_stopped(&probe);
    // The state is the second run's, whole: a third run has nothing to create.
    let third = spawn_up(&env, "dev", "third", 30)
        .wait_with_output()
        .unwrap();
    assert!(third.status.success(), "{}", stderr(&third));
    assert!(world(&env, "third").is_empty(), "{}", stdout(&third));
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

#[tokio::test]
async fn a_holder_that_lost_its_lock_on_postgres_writes_no_row_nor_checkpoint() {
    let server = server!();
    let (db, url) = server.database();
    let b = PgBackend::open(&BackendUrl::parse(&url).unwrap()).unwrap();
    let dev = StackRef::new("proj", "dev").unwrap();
    b.create_stack(&dev).unwrap();
    let first = b.lock(&dev, "up").unwrap();
    let (base, journal) = b.begin_deployment(&first, None).unwrap();
    let mgr = SnapshotManager::new(&base, journal);
    mgr.begin(OperationType::Creating, &resource("x")).unwrap();
    mgr.durable().await.unwrap();

    // The first holder's lease ends (as if it were paused); another takes the lock over.
    server.sql(
        &db,
        "UPDATE stepdeck_locks SET expires = now() - interval '1 second'",
    );
    let second = b.lock(&dev, "up").unwrap();
    assert!(second.info().generation > first.info().generation);
    assert_eq!(second.broke_stale().map(|l| &l.id), Some(&first.info().id));

    // The next step's `Begin` row is refused in its own statement: no provider call follows.
    mgr.begin(OperationType::Creating, &resource("y")).unwrap();
    let lost = mgr.durable().await.unwrap_err();
    assert!(matches!(lost, JournalError::LockLost(_)), "{lost}");
    assert!(
        lost.to_string()
            .contains(&format!("lock generation {}", second.info().generation)),
        "{lost}"
    );
    drop(mgr);
    assert_eq!(
        server.sql(&db, "SELECT count(*) FROM stepdeck_journal"),
        "1"
    );

    // Nor does its compaction, checkpoint or history land.
    const CHECKPOINT: &str =
        "SELECT md5(data::text) FROM pulumi_state WHERE key LIKE '%/.pulumi/stacks/proj/dev.json'";
    let checkpoint = server.sql(&db, CHECKPOINT);
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
    assert_eq!(server.sql(&db, CHECKPOINT), checkpoint);
    assert_eq!(
        server.sql(&db, "SELECT count(*) FROM stepdeck_journal"),
        "1"
    );
    drop(first);
    assert_eq!(
        server.sql(&db, "SELECT generation FROM stepdeck_locks"),
        second.info().generation.to_string(),
        "the old holder's release leaves the new lock alone"
    );

    // The new holder sees what the old one began, and recorded, as a pending operation.
    let (base, _journal) = b.begin_deployment(&second, None).unwrap();
    let pending: Vec<&str> = base
        .pending_operations
        .iter()
        .map(|p| p.resource.urn.name())
        .collect();
    assert_eq!(pending, ["x"]);
}

#[test]
fn a_stack_at_the_last_epoch_is_refused_before_its_deployment_starts_on_postgres() {
    let server = server!();
    let (env, db) = pg_env(server, NET_AND_DB);
    env.ok(&["stack", "init", "dev"]);
    server.sql(
        &db,
        "UPDATE pulumi_state SET data = json_build_object('data', translate(encode(convert_to( \
           jsonb_set(convert_from(decode(data->>'data', 'base64'), 'UTF8')::jsonb, \
             '{stepdeck,journalEpoch}', '9223372036854775807')::text, 'UTF8'), 'base64'), E'\\n', '')) \
         WHERE key LIKE '%/.pulumi/stacks/e2e/dev.json'",
    );
    let out = env.run(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("the last epoch there is") && err.contains("stack export --file"),
        "{err}"
    );
    assert!(env.world().is_empty(), "a provider was called");
    assert_eq!(
        server.sql(&db, "SELECT count(*) FROM stepdeck_journal"),
        "0"
    );
}

#[test]
fn first_uses_of_a_new_database_waiting_on_each_other_all_open_it() {
    use std::io::{BufRead, BufReader, Write};
    let server = server!();
    let (db, url) = server.database();
    let env = Env::new(NET_AND_DB);
    // Hold the lock the schema is created under, so that every first user has found no tables
    // and waits for it: the first to get it creates them, the others must then see them.
    let mut holder = server.session(&db);
    let mut input = holder.stdin.take().unwrap();
    writeln!(
        input,
        "SELECT pg_advisory_lock(hashtext('stepdeck')); SELECT 'held';"
    )
    .unwrap();
    let held = BufReader::new(holder.stdout.take().unwrap())
        .lines()
        .any(|line| line.unwrap() == "held");
    assert!(held, "psql ended before it held the lock");
    const USERS: usize = 4;
    let mut users: Vec<_> = (0..USERS)
        .map(|_| {
            env.command(&["stack", "ls"])
                .env("STEPDECK_BACKEND_URL", &url)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let waiting = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted \
                   AND database = (SELECT oid FROM pg_database WHERE datname = current_database())";
    // Until every user waits for the lock (or one ended without it: the assertion says why).
    while server.sql(&db, waiting) != USERS.to_string()
        && users.iter_mut().all(|u| u.try_wait().unwrap().is_none())
    {
        std::thread::yield_now();
    }
    drop(input);
    holder.wait().unwrap();
    let failed: Vec<String> = users
        .into_iter()
        .map(|u| u.wait_with_output().unwrap())
        .filter(|out| !out.status.success())
        .map(|out| stderr(&out))
        .collect();
    assert!(failed.is_empty(), "{failed:#?}");
    assert_eq!(server.sql(&db, "SELECT version FROM stepdeck_schema"), "4");
}
