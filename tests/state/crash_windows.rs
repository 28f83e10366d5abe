//! The narrow crash windows, one by one: the real binary killed (through `STEPDECK_FAULT`)
//! right after a provider changed the sim world and before the journal recorded it, then
//! brought back with the plain commands an operator would run.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::cli_support;
use crate::crash_support;
use std::collections::BTreeSet;

use cli_support::*;
use crash_support::*;

const AFTER_WRITE: &str = "after-provider-write";

/// The state's IDs and the world's agree, and nothing is pending.
fn assert_converged(env: &Env, managed: usize) {
    let recorded = env.recorded("dev");
    assert!(
        recorded.iter().all(|(_, _, delete)| !delete),
        "copies left to delete: {recorded:?}"
    );
    assert_eq!(recorded.len(), managed, "{recorded:?}");
    env.assert_no_leaks("dev");
    assert_eq!(pending_operations(env), Vec::<serde_json::Value>::new());
}

#[test]
fn destroy_again_after_a_kill_mid_delete_succeeds() {
    let env = stack(true);
    assert!(killed_run(&env, "destroy", AFTER_WRITE, 1));
    assert_eq!(env.world().len(), MANAGED - 1);
    assert_eq!(
        env.recorded("dev").len(),
        MANAGED,
        "the delete was not recorded"
    );
    env.ok(&args("destroy"));
    assert_converged(&env, 0);
    assert!(env.world().is_empty());
}

/// The last provider write of the create-before-delete update is the delete of an old copy;
/// killed right after it, the state still records that copy with `delete: true`.
fn killed_after_deleting_an_old_copy() -> Env {
    let env = stack(true);
    env.write("Pulumi.dev.yaml", CONFIG_CBD);
    // Two creates, one update, two deletes of old copies.
    assert!(killed_run(&env, "up", AFTER_WRITE, 5));
    let world = env.world();
    let gone: Vec<_> = env
        .recorded("dev")
        .into_iter()
        .filter(|(_, id, delete)| *delete && !world.contains_key(id))
        .collect();
    assert!(!gone.is_empty(), "a deleted old copy is still recorded");
    env
}

#[test]
fn up_again_after_a_kill_once_an_old_copy_was_deleted_converges() {
    let env = killed_after_deleting_an_old_copy();
    env.ok(&args("up"));
    assert_converged(&env, MANAGED);
}

#[test]
fn refresh_removes_an_old_copy_that_is_already_gone() {
    let env = killed_after_deleting_an_old_copy();
    env.ok(&args("refresh"));
    let world = env.world();
    let stale: Vec<_> = env
        .recorded("dev")
        .into_iter()
        .filter(|(_, id, _)| !world.contains_key(id))
        .collect();
    assert!(stale.is_empty(), "refresh kept what is gone: {stale:?}");
    env.ok(&args("up"));
    assert_converged(&env, MANAGED);
}

#[test]
fn up_again_after_a_kill_inside_a_delete_before_replace_window_converges() {
    for n in [1, 2] {
        let env = stack(true);
        env.write("Pulumi.dev.yaml", CONFIG_DBR);
        // The server's delete, then the database's; neither recorded at the kill.
        assert!(killed_run(&env, "up", AFTER_WRITE, n));
        assert_eq!(env.world().len(), MANAGED - n);
        env.ok(&args("up"));
        assert_converged(&env, MANAGED);
    }
}

/// Killed right after the first create reached the world: a pending create whose resource
/// exists and whose ID nobody recorded.
fn killed_after_first_create() -> Env {
    let env = stack(false);
    assert!(killed_run(&env, "up", AFTER_WRITE, 1));
    assert_eq!(env.world().len(), 1);
    // The creates that began beside it are pending too.
    assert!(!pending_operations(&env).is_empty());
    env
}

#[test]
fn refresh_records_what_an_interrupted_create_made() {
    let env = killed_after_first_create();
    let made: BTreeSet<String> = env.world().keys().cloned().collect();
    let out = env.ok(&args("refresh"));
    assert!(out.contains("that an interrupted create made"), "{out}");
    assert_eq!(pending_operations(&env), Vec::<serde_json::Value>::new());
    let ids: BTreeSet<String> = env
        .recorded("dev")
        .into_iter()
        .map(|(_, id, _)| id)
        .collect();
    assert_eq!(ids, made);
    env.ok(&args("up"));
    assert_converged(&env, MANAGED);
    assert!(
        env.world().keys().any(|id| made.contains(id)),
        "adopted, not recreated"
    );
}

#[test]
fn pending_creates_from_repeated_kills_are_resolved_not_piled_up() {
    let env = killed_after_first_create();
    let first = pending_operations(&env).len();
    // Each further kill lands after a first create again: orphans pile up in the world.
    for _ in 0..2 {
        assert!(killed_run(&env, "up", AFTER_WRITE, 1));
    }
    assert!(pending_operations(&env).len() > first);
    env.ok(&args("up"));
    env.ok(&args("refresh"));
    assert_eq!(pending_operations(&env), Vec::<serde_json::Value>::new());
    env.ok(&args("up"));
    assert_converged(&env, MANAGED);
}

#[test]
fn clear_pending_creates_drops_them_and_says_so() {
    let env = killed_after_first_create();
    let mut refresh = args("refresh").to_vec();
    refresh.push("--clear-pending-creates");
    let out = env.ok(&refresh);
    assert!(out.contains("cleared the pending create"), "{out}");
    assert_eq!(pending_operations(&env), Vec::<serde_json::Value>::new());
    assert!(
        env.recorded("dev").is_empty(),
        "the operator's call: nothing recorded"
    );
}
