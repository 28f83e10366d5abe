//! The lock probes both backends run with real `stepdeck` processes: rounds of simultaneous
//! `up`s (was the lock taken twice, was anything the cloud holds lost from the state), and a
//! holder paused (SIGSTOP) past its lease while a second `up` takes the lock over.
//!
//! Each process gets a sim world of its own (`STEPDECK_SIM_WORLD`): two clients of one cloud,
//! whose resources are the union of the worlds. Two processes never write one world file, so
//! what the worlds hold is exactly what each process created.

#![allow(dead_code)]

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::cli_support::{Env, stderr, stdout};

/// Generous bounds for waits that only end a test that already failed.
const PATIENCE: Duration = Duration::from_secs(120);

/// A chain of `n` sim resources, each created after the one before, each taking `latency` ms.
pub(crate) fn chain_program(n: usize, latency: u64) -> String {
    let mut program = String::from("resources:\n");
    for i in 0..n {
        let after = if i == 0 {
            "start".to_string()
        } else {
            format!("${{r{}.id}}", i - 1)
        };
        program.push_str(&format!(
            "  r{i}:\n    type: sim:index:Resource\n    properties:\n      after: {after}\n      latencyMs: {latency}\n"
        ));
    }
    program
}

/// The world file of the process named `who`.
pub(crate) fn world_path(env: &Env, who: &str) -> PathBuf {
    env.root.path().join(format!("world-{who}.json"))
}

/// The resources of a world file, by ID.
pub(crate) fn world(env: &Env, who: &str) -> serde_json::Map<String, Value> {
    std::fs::read_to_string(world_path(env, who))
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .and_then(|v| v["resources"].as_object().cloned())
        .unwrap_or_default()
}

/// `up` on `stack` as the process `who` (its own world), with a lease of `lease` seconds.
pub(crate) fn spawn_up(env: &Env, stack: &str, who: &str, lease: u64) -> Child {
    env.command(&["up", "--stack", stack, "--yes", "--non-interactive"])
        .env("STEPDECK_SIM_WORLD", world_path(env, who))
        .env("STEPDECK_LOCK_LEASE_SECS", lease.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn stepdeck")
}

/// Waits until `done` holds, polling; panics with `what` past [`PATIENCE`].
pub(crate) fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + PATIENCE;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// What the worlds of `clients` hold against the state of `stack`.
#[derive(Debug, Default)]
pub(crate) struct Accounting {
    /// In a world, but neither in the state nor named by a pending operation: lost.
    pub lost: Vec<String>,
    /// In the state, but in no world.
    pub phantom: Vec<String>,
}

/// Compares the union of the `clients`' worlds with the exported state of `stack`.
pub(crate) fn account(env: &Env, stack: &str, clients: &[String]) -> Accounting {
    let doc = env.export(stack);
    let deployment = &doc["deployment"];
    let ids: BTreeSet<String> = deployment["resources"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r["type"].as_str().is_some_and(|t| t.starts_with("sim:")))
        .filter_map(|r| r["id"].as_str().map(str::to_string))
        .collect();
    let pending: Vec<String> = deployment["pending_operations"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["resource"]["urn"].as_str().map(str::to_string))
        .collect();
    let mut accounting = Accounting::default();
    let mut seen = BTreeSet::new();
    for who in clients {
        for (id, r) in world(env, who) {
            seen.insert(id.clone());
            let name = r["name"].as_str().unwrap_or_default();
            let reported = pending.iter().any(|u| u.ends_with(&format!("::{name}")));
            if !ids.contains(&id) && !reported {
                accounting.lost.push(format!("{who}: {id} ({name})"));
            }
        }
    }
    accounting.phantom = ids.difference(&seen).cloned().collect();
    accounting
}

/// What rounds of simultaneous `up`s found.
#[derive(Debug, Default)]
pub(crate) struct RaceTally {
    pub rounds: usize,
    /// Rounds in which more than one racer held the lock while another did: more than one
    /// racer created something, or a racer failed for any reason but being refused the lock.
    pub taken_twice: Vec<String>,
    pub lost: Vec<String>,
}

/// Runs `rounds` rounds of `racers` simultaneous `up`s of `program`'s stack, each round on a
/// stack of its own that `prepare` sets up first (created, a stale lock planted, …).
pub(crate) fn race_rounds(
    env: &Env,
    rounds: usize,
    racers: usize,
    mut prepare: impl FnMut(&str, usize),
) -> RaceTally {
    let mut tally = RaceTally {
        rounds,
        ..RaceTally::default()
    };
    for round in 0..rounds {
        let stack = format!("race{round}");
        prepare(&stack, round);
        let names: Vec<String> = (0..racers).map(|i| format!("{stack}-{i}")).collect();
        let children: Vec<Child> = names
            .iter()
            .map(|who| spawn_up(env, &stack, who, 30))
            .collect();
        let outputs: Vec<Output> = children
            .into_iter()
            .map(|c| c.wait_with_output().expect("wait for stepdeck"))
            .collect();
        let mut holders = Vec::new();
        for (who, out) in names.iter().zip(&outputs) {
            // Refused by stepdeck's lease, or on `file://` by the Pulumi lock file the holder
            // writes beside it (Pulumi's words).
            let refused = !out.status.success()
                && (stderr(out).contains("is locked by pid")
                    || stderr(out).contains("the stack is currently locked by"));
            let created = !world(env, who).is_empty();
            if !out.status.success() && !refused {
                holders.push(format!("{who} failed: {}", stderr(out).trim()));
            } else if created {
                holders.push(format!("{who} created resources"));
            }
        }
        if holders.len() > 1 {
            tally
                .taken_twice
                .push(format!("round {round}: {}", holders.join("; ")));
        }
        let accounting = account(env, &stack, &names);
        tally.lost.extend(accounting.lost);
        assert!(
            accounting.phantom.is_empty(),
            "round {round}: the state tracks what no world holds: {:?}",
            accounting.phantom
        );
    }
    tally
}

/// What the SIGSTOP probe saw.
#[derive(Debug)]
pub(crate) struct PausedHolder {
    pub first: Output,
    pub second: Output,
    pub second_pid: u32,
    /// Resources the first process created after it was resumed.
    pub created_after_resume: usize,
    pub accounting: Accounting,
}

/// The first `up` of `stack` (lease `lease` seconds) is stopped with SIGSTOP once it created
/// two resources; once `expired` says its lease ran out, a second `up` starts and, once it
/// created a resource (it holds the lock and writes), the first is resumed.
pub(crate) fn paused_holder(
    env: &Env,
    stack: &str,
    lease: u64,
    mut expired: impl FnMut() -> bool,
) -> PausedHolder {
    let mut first = spawn_up(env, stack, "first", lease);
    let pid = first.id() as libc::pid_t;
    wait_until("the first up creates two resources", || {
        world(env, "first").len() >= 2 || first.try_wait().unwrap().is_some()
    });
    // SAFETY: kill has no memory preconditions; the pid is our child, not yet reaped.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGSTOP) }, 0);
    wait_until("the first up's lease runs out", &mut expired);
    let mut second = spawn_up(env, stack, "second", lease);
    let second_pid = second.id();
    wait_until("the second up creates a resource", || {
        !world(env, "second").is_empty() || second.try_wait().unwrap().is_some()
    });
    let before_resume = world(env, "first").len();
    // SAFETY: as above.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGCONT) }, 0);
    let first = first.wait_with_output().expect("wait for the first up");
    let second = second.wait_with_output().expect("wait for the second up");
    let created_after_resume = world(env, "first").len() - before_resume;
    let accounting = account(env, stack, &["first".into(), "second".into()]);
    PausedHolder {
        first,
        second,
        second_pid,
        created_after_resume,
        accounting,
    }
}

/// Asserts what the SIGSTOP probe must show on any backend.
pub(crate) fn assert_paused_holder_stopped(probe: &PausedHolder) {
    let (first, second) = (&probe.first, &probe.second);
    let err = stderr(first);
    assert!(
        !first.status.success(),
        "the resumed holder must fail:\n{}\n{err}",
        stdout(first)
    );
    assert!(
        err.contains("lost the lock") && err.contains(&format!("pid {}", probe.second_pid)),
        "the resumed holder must say it lost the lock and to whom:\n{err}"
    );
    assert!(
        second.status.success(),
        "the second up must succeed:\n{}\n{}",
        stdout(second),
        stderr(second)
    );
    assert!(
        stderr(second).contains("removed a stale lock"),
        "{}",
        stderr(second)
    );
    // Only the call in flight when it was stopped may finish: no new provider call.
    assert!(
        probe.created_after_resume <= 1,
        "the resumed holder created {} resources",
        probe.created_after_resume
    );
    assert!(
        probe.accounting.lost.is_empty() && probe.accounting.phantom.is_empty(),
        "{:?}",
        probe.accounting
    );
}
