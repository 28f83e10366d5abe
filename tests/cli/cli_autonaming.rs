//! `pulumi:autonaming` through the real binary: a `sim:index:Named` named by the stack's
//! pattern (its stack and random parts), and a bad config refused before anything runs.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::cli_support;
use cli_support::*;

const NAMED: &str = "resources:\n  thing:\n    type: sim:index:Named\n  \
                     given:\n    type: sim:index:Named\n    properties:\n      name: mine\n";

fn names(env: &Env) -> Vec<(String, String)> {
    let state = env.export("dev");
    let mut out: Vec<(String, String)> = state["deployment"]["resources"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r["type"] == "sim:index:Named")
        .map(|r| {
            let urn = r["urn"].as_str().unwrap();
            let name = urn.rsplit("::").next().unwrap().to_string();
            (name, r["outputs"]["name"].as_str().unwrap().to_string())
        })
        .collect();
    out.sort();
    out
}

#[test]
fn a_pattern_names_what_the_program_leaves_unnamed() {
    let env = Env::new(NAMED);
    env.ok(&["stack", "init", "dev"]);
    env.ok(&[
        "config",
        "set",
        "--path",
        "pulumi:autonaming.providers.sim.pattern",
        "${stack}-${name}-${hex(6)}",
    ]);
    env.ok(&["up", "--yes"]);
    let named = names(&env);
    assert_eq!(named[0], ("given".into(), "mine".into()));
    let (_, thing) = &named[1];
    let suffix = thing
        .strip_prefix("dev-thing-")
        .unwrap_or_else(|| panic!("{thing}"));
    assert!(
        suffix.len() == 6 && suffix.chars().all(|c| c.is_ascii_hexdigit()),
        "{thing}"
    );
    env.ok(&["preview", "--expect-no-changes"]);
}

#[test]
fn a_bad_autonaming_config_is_refused_before_the_update() {
    let env = Env::new(NAMED);
    env.ok(&["stack", "init", "dev"]);
    env.ok(&["config", "set", "--path", "pulumi:autonaming.mode", "loud"]);
    let up = env.run(&["up", "--yes"]);
    assert!(!up.status.success());
    assert!(
        stderr(&up).contains(
            "getting autonaming config: failed to resolve root naming config: \
             invalid naming mode: loud"
        ),
        "{}",
        stderr(&up)
    );
    assert!(names(&env).is_empty());
}
