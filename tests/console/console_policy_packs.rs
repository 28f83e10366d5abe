//! Policy packs in the console, in a real terminal (tmux) with a real `pulumi_policy` pack:
//! the rows' markers, `y` refused with the mandatory policy's name, and the violations gate
//! waiting for the operator.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::cli_support;
use crate::console_support;
use crate::policy_support;
use cli_support::Env;
use console_support::Tmux;
use policy_support::{PROGRAM, pack};

fn env() -> Env {
    let env = Env::with_passphrase(PROGRAM);
    env.ok(&["stack", "init", "dev"]);
    env
}

#[test]
fn a_mandatory_violation_marks_its_row_and_y_names_it_instead_of_applying() {
    let env = env();
    let pack = pack(&env, "py_pack");
    let t = Tmux::start(
        &env,
        120,
        40,
        &["up", "--stack", "dev", "--policy-pack", &pack],
    );
    let s = t.wait("the failed plan with its markers", |s| {
        s.contains("PREVIEW FAILED") && s.contains("✖ db") && s.contains("⚠ net")
    });
    assert!(!s.contains("⚠ db"), "the worst level marks the row: {s}");
    t.keys(&["y"]);
    t.wait_for("a mandatory policy refuses it: no-pg15 (py-pack@v1.2.3) on db; n aborts");
    let s = t.wait_for("Policies:");
    assert!(
        s.contains("✖ py-pack@v1.2.3: 1 mandatory, 2 advisory, 1")
            && s.contains("[mandatory]  no-pg15"),
        "{s}"
    );
    t.keys(&["P"]);
    let s = t.wait_for("Policy packs");
    assert!(
        s.contains("py-pack@v1.2.3  1 mandatory · 2 advisory · 1 remediated")
            && s.contains("[mandatory]  no-pg15  on db"),
        "{s}"
    );
    t.keys(&["Escape"]);
    t.wait("the overlay closed", |s| !s.contains("Policy packs"));
    t.keys(&["n"]);
    t.wait_for("TTY-");
    assert!(env.world().is_empty(), "nothing ran");
}

#[test]
fn the_violations_gate_waits_for_the_operator_and_a_approves() {
    let env = env();
    let pack = pack(&env, "py_pack");
    let config = env.root.path().join("policy-config.json");
    std::fs::write(&config, r#"{"no-pg15": "advisory", "watched": "disabled"}"#).unwrap();
    let t = Tmux::start(
        &env,
        120,
        40,
        &[
            "up",
            "--stack",
            "dev",
            "--yes",
            "--policy-pack",
            &pack,
            "--policy-pack-config",
            config.to_str().unwrap(),
            "--approve",
            "violations=ask",
        ],
    );
    // The frame that shows the gate in the header shows it on db's row too; waiting for both
    // leaves no half-drawn frame to judge.
    t.wait("the violations gate on db's row", |s| {
        s.contains("AWAITING APPROVAL") && s.contains("⚠ db") && s.contains("waiting for approval")
    });
    assert_eq!(
        env.world().len(),
        1,
        "only the network ran: {:?}",
        env.world()
    );
    t.keys(&["a"]);
    t.wait_for("DONE");
    t.quit_and_expect_restored(0);
    assert_eq!(env.world().len(), 2);
    env.assert_no_leaks("dev");
}
