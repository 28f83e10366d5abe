//! The kill-point sweep: the real binary is killed (SIGKILL, through `STEPDECK_FAULT`) right
//! after its Nth provider write and right before and after its Nth journal write, during a
//! create, an update with create-before-delete replacements, an update with a
//! delete-before-replace cascade, and a destroy. After each kill the stack is brought back the
//! way an operator would: the same command again, and `refresh` first only when the state
//! records interrupted operations (the cloud changed behind the journal). Then the sim world is
//! compared with the state: nothing may be stuck, lost or leaked.
//!
//! The default test runs every third kill point; `full_kill_point_sweep` (ignored) runs all.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::cli_support;
use crate::crash_support;
use std::collections::BTreeSet;

use cli_support::*;
use crash_support::*;

/// What runs while the kills land.
#[derive(Clone, Copy, Debug)]
enum Scenario {
    Create,
    /// With [`CONFIG_CBD`].
    UpdateCbd,
    /// With [`CONFIG_DBR`].
    UpdateDbr,
    Destroy,
}

impl Scenario {
    const ALL: [Scenario; 4] = [
        Scenario::Create,
        Scenario::UpdateCbd,
        Scenario::UpdateDbr,
        Scenario::Destroy,
    ];

    /// The stack configuration of the run that is killed.
    fn config(self) -> &'static str {
        match self {
            Scenario::Create | Scenario::Destroy => CONFIG_DEFAULT,
            Scenario::UpdateCbd => CONFIG_CBD,
            Scenario::UpdateDbr => CONFIG_DBR,
        }
    }

    fn command(self) -> &'static str {
        match self {
            Scenario::Destroy => "destroy",
            _ => "up",
        }
    }
}

const POINTS: [&str; 3] = ["after-provider-write", "before-journal", "after-journal"];

#[derive(Default)]
struct Tally {
    points: usize,
    /// Kill points after which the state recorded interrupted operations.
    pending_after_kill: usize,
    /// Kill points that needed a refresh to converge.
    needed_refresh: usize,
    stuck: Vec<String>,
    lost: Vec<String>,
    leaked: Vec<String>,
    silently_leaked: Vec<String>,
}

/// Brings the stack back as an operator would; `Err` with the last output when it cannot.
fn converge(env: &Env, scenario: Scenario, tally: &mut Tally) -> Result<(), String> {
    let again = env.run(&args(scenario.command()));
    if again.status.success() && pending_operations(env).is_empty() {
        return Ok(());
    }
    tally.needed_refresh += 1;
    let refresh = env.run(&args("refresh"));
    let again = env.run(&args(scenario.command()));
    if again.status.success() {
        return Ok(());
    }
    Err(format!(
        "refresh:\n{}{}\n{}:\n{}{}",
        stdout(&refresh),
        stderr(&refresh),
        scenario.command(),
        stdout(&again),
        stderr(&again)
    ))
}

/// Compares the world with the converged state.
fn compare(env: &Env, scenario: Scenario, label: &str, tally: &mut Tally) {
    let state = env.managed("dev");
    let pending = pending_operations(env);
    let in_state: BTreeSet<String> = state.iter().map(|(_, id)| id.clone()).collect();
    let world = env.world();
    let expected = match scenario {
        Scenario::Destroy => 0,
        _ => MANAGED,
    };
    if state.len() != expected || in_state.iter().any(|id| !world.contains_key(id)) {
        tally.lost.push(format!(
            "{label}: state {state:?}, world {:?}",
            world.keys()
        ));
    }
    for (id, r) in &world {
        if in_state.contains(id) {
            continue;
        }
        let name = r["name"].as_str().unwrap_or_default();
        let reported = pending.iter().any(|p| {
            p["resource"]["urn"]
                .as_str()
                .is_some_and(|u| u.ends_with(&format!("::{name}")))
        });
        let entry = format!("{label}: {id}");
        if reported {
            tally.leaked.push(entry);
        } else {
            tally.silently_leaked.push(entry);
        }
    }
    if !pending.is_empty() {
        tally
            .stuck
            .push(format!("{label}: pending operations left {pending:?}"));
    }
}

/// One kill point: a fresh stack, the setup, the killed run, convergence, comparison.
fn one_point(scenario: Scenario, point: &str, n: usize, tally: &mut Tally) -> bool {
    let env = stack(!matches!(scenario, Scenario::Create));
    env.write("Pulumi.dev.yaml", scenario.config());
    if !killed_run(&env, scenario.command(), point, n) {
        return false;
    }
    tally.points += 1;
    let label = format!("{scenario:?} {point}:{n}");
    if !pending_operations(&env).is_empty() {
        tally.pending_after_kill += 1;
    }
    match converge(&env, scenario, tally) {
        Ok(()) => compare(&env, scenario, &label, tally),
        Err(out) => tally.stuck.push(format!("{label}: {out}")),
    }
    true
}

/// Sweeps every `stride`th kill point of every scenario and point kind; prints the figures.
fn sweep(stride: usize) -> Tally {
    let mut tally = Tally::default();
    for scenario in Scenario::ALL {
        for point in POINTS {
            let mut n = 1;
            while one_point(scenario, point, n, &mut tally) {
                n += stride;
            }
        }
    }
    println!(
        "kill-point sweep (every {stride}): {} kill points, {} left interrupted operations, \
         {} needed a refresh; stuck {}, lost {}, leaked {} (silently {})",
        tally.points,
        tally.pending_after_kill,
        tally.needed_refresh,
        tally.stuck.len(),
        tally.lost.len(),
        tally.leaked.len(),
        tally.silently_leaked.len()
    );
    tally
}

fn assert_clean(tally: &Tally) {
    assert!(tally.points > 0, "no kill point was reached");
    assert!(tally.stuck.is_empty(), "stuck: {:#?}", tally.stuck);
    assert!(tally.lost.is_empty(), "lost: {:#?}", tally.lost);
    assert!(tally.leaked.is_empty(), "leaked: {:#?}", tally.leaked);
    assert!(
        tally.silently_leaked.is_empty(),
        "silently leaked: {:#?}",
        tally.silently_leaked
    );
}

#[test]
fn kill_points_every_third_converge_with_nothing_stuck_lost_or_leaked() {
    assert_clean(&sweep(3));
}

#[test]
#[ignore = "the full sweep takes minutes: cargo test --test state crash_sweep -- --ignored"]
fn full_kill_point_sweep() {
    assert_clean(&sweep(1));
}
