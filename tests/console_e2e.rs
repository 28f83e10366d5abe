//! The console end to end: the real binary in a real terminal (tmux), driven by keys, with the
//! state and the sim world checked afterwards. Every test has its own tmux server (`-L`), temp
//! project, backend and world, so the tests run in parallel.

#![allow(clippy::unwrap_used, clippy::panic)]

mod cli_support;
mod console_support;
mod crash_support;
#[path = "console_e2e/operator_keys.rs"]
mod operator_keys;

use std::os::unix::process::ExitStatusExt;
use std::time::{Duration, Instant};

use cli_support::Env;
use console_support::{
    OPERATOR, Tmux, cascade, cascade_project, chain_project, followers_project, world_engine_of_db,
};

#[test]
fn the_demo_starts_shows_its_resources_and_n_leaves_cleanly() {
    let env = Env::new("resources: {}\n");
    let dir = env.root.path().join("demo");
    let t = Tmux::start(
        &env,
        120,
        40,
        &["demo", "--state-dir", &dir.display().to_string()],
    );
    let s = t.wait("the demo's plan", |s| {
        s.contains("PREVIEW — y apply · n abort") && s.contains("subnet-a") && s.contains("db")
    });
    assert!(s.contains("Resources ("), "{s}");
    t.keys(&["n"]);
    t.expect_restored(0);
}

#[test]
fn the_demo_runs_both_phases_and_its_cascade_waits_for_approval() {
    let env = Env::new("resources: {}\n");
    let dir = env.root.path().join("demo");
    let t = Tmux::start(
        &env,
        200,
        60,
        &["demo", "--state-dir", &dir.display().to_string()],
    );
    t.wait("the first phase's plan", |s| {
        s.contains("PREVIEW — y apply · n abort") && s.contains("demo 1/2 first rollout")
    });
    t.keys(&["y"]);
    t.wait_for("creating…");
    // Phase 1 leaves by itself when done; phase 2's plan replaces and deletes.
    t.wait("the second phase's plan", |s| {
        s.contains("PREVIEW — y apply · n abort") && s.contains("+-") && s.contains("-4")
    });
    t.keys(&["y"]);
    let s = t.wait_for("AWAITING APPROVAL");
    assert!(s.contains("Pending replacements"), "{s}");
    assert!(s.contains("waiting for approval"), "{s}");
    assert!(s.contains("dbEndpoint"), "the pending panel says why:\n{s}");
    assert!(s.contains("demo 2/2"), "the phase is announced:\n{s}");
    t.keys(&["A"]);
    t.wait_for("Approve every pending replacement?");
    t.keys(&["y"]);
    let s = t.wait_for("DONE");
    assert!(
        !s.contains(": running"),
        "a finished run says nothing is running:\n{s}"
    );
    // The apply counts against the preview's plan, and ran no more than it showed.
    assert!(!s.contains("beyond the preview"), "{s}");
    let header = s.lines().next().unwrap_or_default();
    let steps = header
        .split_whitespace()
        .find(|w| w.contains('/') && w.chars().next().is_some_and(|c| c.is_ascii_digit()))
        .unwrap_or_default();
    let (done, total) = steps.split_once('/').unwrap_or_default();
    assert_eq!(done, total, "{header}");
    t.quit_and_expect_restored(0);
}

#[test]
fn p_pauses_and_no_step_starts_until_it_resumes() {
    let env = chain_project(6, 300);
    let t = Tmux::start(&env, 120, 40, &["up", "--stack", "dev", "--yes"]);
    t.wait_for("creating…");
    t.keys(&["p"]);
    // The step running when the pause came finishes; nothing starts after it.
    t.wait("paused with no worker busy", |s| {
        s.contains("PAUSED") && !s.contains("creating…")
    });
    let world = env.world();
    let resources = |env: &Env| env.export("dev")["deployment"]["resources"].clone();
    let state = resources(&env);
    assert!(
        !world.is_empty() && world.len() < 6,
        "{} resources",
        world.len()
    );
    std::thread::sleep(Duration::from_millis(1200));
    assert_eq!(env.world(), world, "a step ran while paused");
    assert_eq!(resources(&env), state, "the state changed while paused");
    assert!(t.screen().contains("PAUSED"));

    t.keys(&["p"]);
    t.wait_for("DONE");
    assert_eq!(env.world().len(), 6);
    t.quit_and_expect_restored(0);
    env.assert_no_leaks("dev");
}

#[test]
fn approving_the_pending_cascade_replaces_the_database() {
    let env = cascade_project();
    let (old_id, _) = world_engine_of_db(&env);
    let t = Tmux::start(&env, 120, 40, &["up", "--stack", "dev", "--yes"]);
    let s = t.wait_for("AWAITING APPROVAL");
    assert!(s.contains("waiting for approval"), "{s}");
    t.keys(&["a"]);
    t.wait_for("DONE");
    t.quit_and_expect_restored(0);
    let (new_id, engine) = world_engine_of_db(&env);
    assert_eq!(engine, "pg16");
    assert_ne!(new_id, old_id, "the database was replaced");
    env.assert_no_leaks("dev");
}

#[test]
fn what_the_preview_planned_behind_a_waiting_cascade_stays_in_the_tree_and_the_graph() {
    // `backup` reads the database's ID without being in its cascade: the program registers it
    // only once the database is replaced, after the decision.
    let env = Env::new(&format!(
        "{}  backup:\n    type: sim:index:Resource\n    properties:\n      database: ${{db.id}}\n",
        cascade()
    ));
    env.write("Pulumi.dev.yaml", "config:\n  sim:latencyMs: 150\n");
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    env.ok(&["config", "set", "engine", "pg16", "--stack", "dev"]);
    let t = Tmux::start(&env, 160, 45, &["up", "--stack", "dev"]);
    let s = t.wait_for("PREVIEW — y apply");
    assert!(s.contains("backup"), "{s}");
    t.keys(&["y"]);
    let s = t.wait_for("AWAITING APPROVAL");
    let row = s
        .lines()
        .find(|l| l.contains("── backup"))
        .unwrap_or_else(|| panic!("backup stays in the tree:\n{s}"));
    assert!(row.contains("waiting for db"), "{row}");
    assert!(row.trim_start_matches('│').starts_with('~'), "{row}");
    assert!(s.contains("[~ backup]"), "and in the graph:\n{s}");
    t.keys(&["a"]);
    let s = t.wait_for("DONE");
    let row = s.lines().find(|l| l.contains("── backup")).unwrap();
    assert!(row.contains("updated"), "{row}");
    t.quit_and_expect_restored(0);
    env.assert_no_leaks("dev");
}

#[test]
fn a_refresh_shows_the_same_op_in_the_chains_as_in_the_tree() {
    let env = Env::new(
        "resources:\n  kept:\n    type: sim:index:Resource\n    properties:\n      tag: one\n  gone:\n    type: sim:index:Resource\n    properties:\n      v: 1\n",
    );
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(env.world_path()).unwrap()).unwrap();
    let resources = doc["resources"].as_object_mut().unwrap();
    let id_of = |name: &str| {
        resources
            .iter()
            .find(|(_, r)| r["name"] == name)
            .unwrap()
            .0
            .clone()
    };
    let (kept, gone) = (id_of("kept"), id_of("gone"));
    resources[&kept]["properties"]["tag"] = "drifted".into();
    resources.remove(&gone);
    std::fs::write(env.world_path(), doc.to_string()).unwrap();

    let t = Tmux::start(&env, 160, 45, &["refresh", "--stack", "dev", "--yes"]);
    let s = t.wait_for("DONE");
    // The tree's sign, then the sign of the chains lane of the same resource.
    let signs = |name: &str| {
        let row = s
            .lines()
            .find(|l| l.contains(&format!("── {name} ")))
            .unwrap();
        let tree = row
            .trim_start_matches('│')
            .split_whitespace()
            .next()
            .unwrap();
        let lane = s
            .lines()
            .find(|l| l.contains('#') && l.contains(&format!(" {name} ")))
            .unwrap();
        let lane = &lane[lane.find('#').unwrap()..];
        let lane = &lane[..lane.find(&format!(" {name} ")).unwrap()];
        (tree, lane.split_whitespace().last().unwrap())
    };
    assert_eq!(signs("gone"), ("-", "-"), "{s}");
    assert_eq!(signs("kept"), ("~", "~"), "{s}");
    t.quit_and_expect_restored(0);
}

#[test]
fn declining_the_pending_cascade_keeps_the_old_database() {
    let env = cascade_project();
    let before = env.managed("dev");
    let (old_id, _) = world_engine_of_db(&env);
    let t = Tmux::start(&env, 120, 40, &["up", "--stack", "dev", "--yes"]);
    t.wait_for("AWAITING APPROVAL");
    t.keys(&["x"]);
    let s = t.wait("the end of the run", |s| {
        s.contains("DONE") || s.contains("FAILED")
    });
    assert!(s.contains("declined"), "{s}");
    t.keys(&["q"]);
    let s = t.wait_for("EXITED");
    assert!(!s.contains("Resources ("), "{s}");
    assert_eq!(world_engine_of_db(&env), (old_id, "pg15".to_string()));
    assert_eq!(env.managed("dev"), before);
    env.assert_no_leaks("dev");
}

#[test]
fn cancel_confirmed_ends_with_a_consistent_state() {
    let env = chain_project(8, 400);
    let t = Tmux::start(&env, 100, 30, &["up", "--stack", "dev", "--yes"]);
    t.wait_for("creating…");
    t.keys(&["c"]);
    t.wait_for("Cancel");
    t.keys(&["y"]);
    t.wait("the cancelled run", |s| {
        s.contains("CANCELLED") || s.contains("FAILED")
    });
    t.keys(&["q"]);
    let s = t.wait_for("TTY-");
    assert!(
        !s.contains("EXITED 0"),
        "a cancelled update reports failure:\n{s}"
    );
    let doc = env.export("dev");
    let pending = doc["deployment"]["pending_operations"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(pending.is_empty(), "cancel lets steps finish: {pending:?}");
    let created = env.managed("dev").len();
    assert!(
        created < 8,
        "the cancel stopped the chain ({created} created)"
    );
    env.assert_no_leaks("dev");
}

#[test]
fn ctrl_c_twice_terminates_and_restores_the_terminal() {
    let env = chain_project(6, 1500);
    let t = Tmux::start(&env, 100, 30, &["up", "--stack", "dev", "--yes"]);
    t.wait_for("creating…");
    t.keys(&["C-c"]);
    t.wait_for("CANCELLING");
    t.keys(&["C-c"]);
    let s = t.wait_for("TTY-");
    assert!(!s.contains("EXITED 0"), "{s}");
    assert_eq!(t.pane_flag("alternate_on"), "0", "{s}");
    assert!(s.contains("TTY-COOKED"), "{s}");
    assert!(!s.contains("Resources"), "{s}");
    // A terminated step stays a pending operation; the state still loads.
    let doc = env.export("dev");
    assert!(doc["deployment"]["resources"].is_array(), "{doc}");
}

#[test]
fn a_failed_step_ends_failed_and_q_restores_the_terminal() {
    let env = Env::new(
        "resources:\n  bad:\n    type: sim:index:Resource\n    properties:\n      failOn: [create]\n",
    );
    let t = Tmux::start(&env, 100, 30, &["up", "--stack", "dev", "--yes"]);
    t.wait_for("FAILED");
    t.quit_and_expect_restored(1);
}

/// Three resources created with the plain display, ready for a destroy or a refresh.
fn deployed_chain(n: usize) -> Env {
    let env = chain_project(n, 50);
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    assert_eq!(env.world().len(), n);
    env
}

#[test]
fn destroy_previews_first_and_deletes_the_whole_stack_only_once_its_name_is_typed() {
    let env = deployed_chain(3);
    let t = Tmux::start(&env, 120, 40, &["destroy", "--stack", "dev"]);
    let s = t.wait("the destroy's plan", |s| {
        s.contains("PREVIEW — y apply · n abort") && s.contains("to delete")
    });
    assert!(s.contains("destroy dev"), "{s}");
    assert_eq!(env.world().len(), 3, "a preview deletes nothing");
    t.keys(&["n"]);
    let s = t.wait_for("TTY-");
    assert!(s.contains("the destroy was aborted"), "{s}");
    assert_eq!(env.world().len(), 3, "n deletes nothing");
    drop(t);

    let t = Tmux::start(&env, 120, 40, &["destroy", "--stack", "dev"]);
    t.wait_for("PREVIEW — y apply · n abort");
    // The whole stack goes only once its name is typed, as `pulumi stack rm` asks.
    t.keys(&["y"]);
    t.wait_for("Type the stack's name (dev) to confirm");
    t.keys(&["d", "e", "Enter"]);
    let s = t.wait_for("is not the stack's name");
    assert!(s.contains("nothing was destroyed"), "{s}");
    assert_eq!(env.world().len(), 3, "a wrong name destroys nothing");
    t.keys(&["y"]);
    t.wait_for("Type the stack's name (dev) to confirm");
    t.keys(&["d", "e", "v", "Enter"]);
    let s = t.wait_for("DONE");
    assert!(
        !s.contains("RUNNING") && !s.contains(": running"),
        "a finished run says nothing is running:\n{s}"
    );
    t.quit_and_expect_restored(0);
    assert!(env.world().is_empty(), "y destroys");
}

#[test]
fn picking_a_resource_in_the_destroy_preview_destroys_it_with_its_dependents_only() {
    let env = deployed_chain(3);
    let t = Tmux::start(&env, 160, 45, &["destroy", "--stack", "dev"]);
    t.wait("the destroy's plan", |s| {
        s.contains("PREVIEW — y apply · n abort") && s.contains("to delete")
    });
    t.keys(&["j", "j", "j", "Space"]);
    let s = t.wait("r2 picked", |s| s.contains("r2 selected"));
    assert!(
        s.contains("what must go with it (1: r3"),
        "the dependent is named before y:\n{s}"
    );
    assert!(
        s.contains("── [+] r3 "),
        "the dependent's row is marked:\n{s}"
    );
    assert!(s.contains("1 selected · 0 excluded · 1 with it"), "{s}");
    t.keys(&["y"]);
    let s = t.wait("the destroy's end", |s| {
        s.contains("DONE") || s.contains("FAILED")
    });
    assert!(s.contains("DONE") && !s.contains("not specified"), "{s}");
    assert!(s.contains("e2e-dev"), "the tree keeps the stack:\n{s}");
    assert!(
        last_line_with(&s, "── [✓] r2 ").contains("deleted"),
        "the picked resource stays in the tree:\n{s}"
    );
    let names: Vec<String> = env.managed("dev").into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        vec!["r1".to_string()],
        "only r2 and r3 are destroyed"
    );
    assert_eq!(env.world().len(), 1);
}

#[test]
fn quitting_a_running_update_leaves_its_summary() {
    let env = chain_project(3, 1500);
    let t = Tmux::start(&env, 160, 45, &["up", "--stack", "dev", "--yes"]);
    t.wait_for("creating…");
    t.keys(&["q"]);
    t.wait_for("Quit while the deployment runs?");
    t.keys(&["y"]);
    let s = t.wait_for("TTY-");
    assert!(
        s.contains("The update was cancelled") && s.contains("Resources:"),
        "the summary is printed after exit:\n{s}"
    );
    assert!(
        s.contains(" created"),
        "what ran before the cancel is counted:\n{s}"
    );
}

#[test]
fn refresh_previews_first_and_n_changes_nothing() {
    let env = deployed_chain(2);
    let before = env.export("dev");
    let t = Tmux::start(&env, 120, 40, &["refresh", "--stack", "dev"]);
    let s = t.wait_for("PREVIEW — y apply · n abort");
    assert!(s.contains("modifies no resource"), "{s}");
    t.keys(&["n"]);
    t.wait_for("TTY-");
    assert_eq!(env.export("dev"), before);
}

/// Changes `r2`'s `step` to 99 and deletes `r3` in the sim world, behind the stack's back.
fn drift_out_of_band(env: &Env) {
    let path = env.world_path();
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let resources = doc["resources"].as_object_mut().unwrap();
    let id_of = |name: &str| {
        resources
            .iter()
            .find(|(_, r)| r["name"] == name)
            .unwrap()
            .0
            .clone()
    };
    let (r2, r3) = (id_of("r2"), id_of("r3"));
    resources[&r2]["properties"]["step"] = 99.into();
    resources.remove(&r3);
    std::fs::write(&path, serde_json::to_string(&doc).unwrap()).unwrap();
}

/// The last line that holds `needle` (a resource's row on screen, or its last plain line).
fn last_line_with<'a>(s: &'a str, needle: &str) -> &'a str {
    s.lines().rfind(|l| l.contains(needle)).unwrap_or_default()
}

#[test]
fn refresh_shows_drift_as_updates_and_deletes_with_the_diff() {
    let env = deployed_chain(3);
    drift_out_of_band(&env);
    let t = Tmux::start(&env, 160, 45, &["refresh", "--stack", "dev"]);
    let s = t.wait("the refresh's plan with its drift", |s| {
        s.contains("PREVIEW — y apply · n abort") && s.contains("to delete")
    });
    assert!(s.contains("~ 1 to update"), "{s}");
    assert!(s.contains("- 1 to delete"), "{s}");
    // r1 and the stack, which Pulumi's refresh reads too.
    assert!(s.contains("2 unchanged"), "{s}");
    let (r1, r2, r3) = (
        last_line_with(&s, "── r1 "),
        last_line_with(&s, "── r2 "),
        last_line_with(&s, "── r3 "),
    );
    assert!(r2.contains("~ ") && r2.contains("update"), "{r2}\n{s}");
    assert!(r2.contains("diff: step"), "{r2}\n{s}");
    assert!(r3.contains("- ") && r3.contains("delete"), "{r3}\n{s}");
    assert!(r1.contains("same") && !r1.contains("refresh"), "{r1}\n{s}");
    t.keys(&["/", "r", "2", "Enter", "j", "Enter"]);
    let s = t.wait("r2's details", |s| {
        s.contains("drift (read from the provider)")
    });
    assert!(s.contains("step: 2 => 99"), "{s}");
    t.keys(&["Escape", "Escape", "y"]);
    let s = t.wait("the refresh's result", |s| {
        s.contains("DONE") && s.contains("deleted")
    });
    assert!(s.contains("~ 1 updated"), "{s}");
    assert!(s.contains("- 1 deleted"), "{s}");
    let r2 = last_line_with(&s, "── r2 ");
    assert!(r2.contains("updated"), "{r2}\n{s}");
    t.keys(&["q"]);
    let s = t.wait_for("TTY-");
    assert!(
        s.contains("~ 1 updated") && s.contains("- 1 deleted"),
        "{s}"
    );
    let names: Vec<String> = env.managed("dev").into_iter().map(|(n, _)| n).collect();
    assert!(!names.contains(&"r3".to_string()), "{names:?}");
}

#[test]
fn refresh_drift_is_counted_in_plain_and_json_output() {
    let env = deployed_chain(3);
    drift_out_of_band(&env);
    let out = env.ok(&["refresh", "--stack", "dev", "--yes", "--non-interactive"]);
    let r2 = last_line_with(&out, " r2 ");
    assert!(r2.contains("~ ") && r2.contains("updated"), "{out}");
    let r3 = last_line_with(&out, " r3 ");
    assert!(r3.contains("- ") && r3.contains("deleted"), "{out}");
    assert!(
        out.contains("~ 1 updated") && out.contains("- 1 deleted"),
        "{out}"
    );
    assert!(out.contains("2 unchanged"), "{out}");
    let env = deployed_chain(3);
    drift_out_of_band(&env);
    let json = env.ok(&["refresh", "--stack", "dev", "--yes", "--json"]);
    let summary = json
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find_map(|v| v.get("summaryEvent").cloned())
        .unwrap();
    assert_eq!(
        summary["resourceChanges"],
        serde_json::json!({"same": 2, "update": 1, "delete": 1}),
        "{json}"
    );
}

#[test]
fn a_failure_is_shown_on_its_row_in_the_summary_and_after_exit() {
    let env = Env::new(
        "resources:\n  ok:\n    type: sim:index:Resource\n    properties:\n      step: 1\n  bad:\n    type: sim:index:Resource\n    properties:\n      failOn: [create]\n",
    );
    let t = Tmux::start(&env, 160, 45, &["up", "--stack", "dev", "--yes"]);
    let s = t.wait("the failed run and its summary", |s| {
        s.contains("FAILED") && s.contains("Failures:")
    });
    let row = s.lines().find(|l| l.contains("── bad")).unwrap_or_default();
    assert!(row.contains("failed"), "the row says so:\n{s}");
    assert!(s.contains("failOn"), "the error is on screen:\n{s}");
    t.keys(&["e"]);
    let s = t.wait("the failed resource's details", |s| s.contains("error: "));
    assert!(s.contains("sim:index:Resource::bad"), "{s}");
    t.keys(&["Escape"]);
    t.keys(&["q"]);
    let s = t.wait_for("TTY-");
    assert!(
        s.contains("Failures:"),
        "the summary is printed after exit:\n{s}"
    );
    assert!(s.contains("bad (sim:index:Resource)"), "{s}");
    assert!(!s.contains("cancelled"), "nobody cancelled:\n{s}");
}

#[test]
fn a_failed_run_leaves_its_error_once_after_exit() {
    let env = Env::new(
        "resources:\n  bad:\n    type: sim:index:Resource\n    properties:\n      failOn: [create]\n",
    );
    let t = Tmux::start(&env, 200, 45, &["up", "--stack", "dev", "--yes"]);
    t.wait_for("FAILED");
    t.keys(&["q"]);
    let s = t.wait_for("TTY-");
    let errors = s.matches("failOn").count();
    assert_eq!(errors, 1, "the error is printed once, under Failures:\n{s}");
    assert!(
        s.contains("bad (sim:index:Resource): sim: create of bad"),
        "the provider's words first, not the step's URN:\n{s}"
    );
    let failures = s.find("Failures:").unwrap();
    let headline = s.find("The update failed").unwrap();
    assert!(headline < failures, "{s}");
    assert!(
        s.contains("error: the deployment failed; the summary above says why"),
        "{s}"
    );
}

#[test]
fn the_summary_left_after_exit_breaks_a_long_error_at_spaces_not_in_a_name_or_a_quote() {
    let env = Env::new(
        "resources:\n  bad:\n    type: sim:index:Resource\n    properties:\n      failOn: [create]\n",
    );
    let t = Tmux::start(&env, 80, 30, &["up", "--stack", "dev", "--yes"]);
    t.wait_for("FAILED");
    t.keys(&["q"]);
    let s = t.wait_for("TTY-");
    let failure = s.lines().find(|l| l.contains("bad (sim:index:Resource):"));
    assert!(failure.is_some(), "{s}");
    // Each name and the quoted value stay on one line, and the error goes on indented.
    assert!(
        s.lines()
            .filter(|l| l.contains("(sim:"))
            .all(|l| l.matches("(sim:").count() == l.matches("(sim:index:Resource)").count()),
        "{s}"
    );
    assert!(s.lines().any(|l| l.contains("\"create\"")), "{s}");
    assert!(s.lines().any(|l| l.starts_with("        ")), "{s}");
}

#[test]
fn esc_closes_the_filter_prompt_and_q_quits_a_read_only_preview() {
    let env = chain_project(3, 20);
    let t = Tmux::start(&env, 120, 40, &["preview", "--stack", "dev"]);
    t.wait("the finished preview", |s| {
        s.contains("DONE") && s.contains("r3")
    });
    t.keys(&["/", "r", "2"]);
    t.wait_for("Enter keep");
    t.keys(&["Escape"]);
    t.wait("the prompt closed", |s| !s.contains("Enter keep"));
    let s = t.screen();
    assert!(
        !s.contains("a approve"),
        "a read-only preview offers no approval:\n{s}"
    );
    t.keys(&["q"]);
    let s = t.wait_for("TTY-");
    assert!(!s.contains("Quit while"), "{s}");
    t.expect_restored(0);
}

#[test]
fn after_a_cancel_no_approval_is_asked_and_chains_say_skipped() {
    let env = cascade_project();
    let t = Tmux::start(&env, 200, 60, &["up", "--stack", "dev", "--yes"]);
    t.wait_for("AWAITING APPROVAL");
    t.keys(&["c"]);
    t.wait_for("Cancel the deployment?");
    t.keys(&["y"]);
    let s = t.wait("the cancelled run", |s| s.contains("CANCELLED"));
    assert!(!s.contains("waiting for approval"), "{s}");
    assert!(!s.contains("a approve"), "{s}");
    assert!(!s.contains("AWAITING"), "{s}");
    t.keys(&["3"]);
    let s = t.wait("the Chains view", |s| s.contains("Chains ("));
    assert!(!s.contains("✗ failed"), "nothing failed:\n{s}");
    t.keys(&["q"]);
    t.wait_for("TTY-");
}

#[test]
fn a_failure_ends_the_run_without_asking_for_a_cascade() {
    let env = cascade_project();
    let program = format!(
        "{}  bad:\n    type: sim:index:Resource\n    properties:\n      failOn: [create]\n",
        cascade()
    );
    env.write(
        "Pulumi.yaml",
        &format!("name: e2e\nruntime: yaml\n{program}"),
    );
    let t = Tmux::start(&env, 200, 60, &["up", "--stack", "dev", "--yes"]);
    let s = t.wait("the failed run", |s| s.contains("FAILED"));
    assert!(!s.contains("waiting for approval"), "{s}");
    assert!(!s.contains("a approve"), "{s}");
    t.keys(&["q"]);
    let s = t.wait_for("TTY-");
    assert!(!s.contains("cancelled"), "nobody cancelled:\n{s}");
    assert!(s.contains("failOn"), "the real error is reported:\n{s}");
}

#[test]
fn approvals_made_in_the_preview_carry_into_the_apply() {
    let env = cascade_project();
    let (old_id, _) = world_engine_of_db(&env);
    let t = Tmux::start(&env, 200, 60, &["up", "--stack", "dev"]);
    let s = t.wait("the plan", |s| {
        s.contains("PREVIEW — y apply · n abort") && s.contains("a approve")
    });
    assert!(s.contains("input \"engine\" forces replacement"), "{s}");
    t.keys(&["a"]);
    t.wait_for("approved for the apply");
    t.keys(&["y"]);
    let s = t.wait("the apply's end", |s| {
        s.contains("DONE") || s.contains("AWAITING")
    });
    assert!(s.contains("DONE"), "the apply asked again:\n{s}");
    t.quit_and_expect_restored(0);
    let (new_id, engine) = world_engine_of_db(&env);
    assert_eq!(engine, "pg16");
    assert_ne!(new_id, old_id);
}

#[test]
fn quitting_after_a_resize_leaves_nothing_over_the_shell() {
    let env = chain_project(3, 20);
    let t = Tmux::start(&env, 160, 45, &["preview", "--stack", "dev"]);
    t.wait_for("DONE");
    for (w, h) in [(100, 30), (220, 60)] {
        let ok = t
            .tmux()
            .args(["resize-window", "-t", "e2e", "-x"])
            .arg(w.to_string())
            .arg("-y")
            .arg(h.to_string())
            .status()
            .expect("tmux resize-window")
            .success();
        assert!(ok);
        t.wait("the console at the new size", |s| {
            s.lines().count() == h
                && s.lines().last().is_some_and(|l| l.contains("quit"))
                && s.lines().next().is_some_and(|l| l.contains("stepdeck"))
        });
    }
    t.keys(&["q"]);
    t.expect_restored(0);
}

#[test]
fn a_pause_holds_queued_chains_off_the_workers() {
    let mut program = String::from("resources:\n");
    for i in 1..=6 {
        program.push_str(&format!(
            "  r{i}:\n    type: sim:index:Resource\n    properties:\n      step: {i}\n"
        ));
    }
    let env = Env::new(&program);
    env.write("Pulumi.dev.yaml", "config:\n  sim:latencyMs: 700\n");
    let t = Tmux::start(
        &env,
        160,
        45,
        &["up", "--stack", "dev", "--yes", "--parallel", "2"],
    );
    t.wait_for("creating…");
    t.keys(&["p"]);
    // What ran finishes; nothing queued takes a worker while paused.
    t.wait("paused with every worker free", |s| {
        s.contains("PAUSED") && s.contains("workers 0/2") && !s.contains("creating…")
    });
    let world = env.world();
    let end = Instant::now() + Duration::from_millis(1500);
    while Instant::now() < end {
        let s = t.screen();
        assert!(
            s.contains("workers 0/2"),
            "a worker was taken while paused:\n{s}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(env.world(), world, "a step ran while paused");
    t.keys(&["p"]);
    let s = t.wait_for("DONE");
    assert!(
        s.contains("paused for"),
        "the summary says how long it paused:\n{s}"
    );
    t.quit_and_expect_restored(0);
    assert_eq!(env.world().len(), 6);
}

#[test]
fn skip_preview_runs_the_update_without_previewing_first() {
    let env = chain_project(2, 50);
    let t = Tmux::start(&env, 120, 40, &["up", "--stack", "dev", "--skip-preview"]);
    let s = t.wait("the update's end or a preview", |s| {
        s.contains("DONE") || s.contains("PREVIEW")
    });
    assert!(!s.contains("PREVIEW"), "{s}");
    assert_eq!(env.world().len(), 2);
    t.quit_and_expect_restored(0);
    env.assert_no_leaks("dev");
}

#[test]
fn pending_creates_are_shown_in_the_plan_and_c_clears_them_in_the_apply() {
    // One step at a time, killed right after the first sim create's Begin reached the journal
    // (the stack's and the default provider's Begin and Success come first): pending creates
    // whose provider call never ran, so nothing of them is in the world.
    let env = crash_support::stack(false);
    let mut up = crash_support::args("up").to_vec();
    up.extend(["--parallel", "1"]);
    let killed = env
        .command(&up)
        .env("STEPDECK_FAULT", "after-journal:5")
        .output()
        .expect("run stepdeck");
    assert_eq!(killed.status.signal(), Some(9), "{killed:?}");
    let pending = crash_support::pending_operations(&env);
    let sim = pending
        .iter()
        .find(|p| p["resource"]["type"].as_str().unwrap().starts_with("sim:"))
        .expect("a sim create is pending");
    assert!(env.world().is_empty(), "{:?}", env.world());
    let count = pending.len();

    let t = Tmux::start(&env, 200, 100, &["up", "--stack", "dev"]);
    let s = t.wait("the plan with its pending creates", |s| {
        s.contains("PREVIEW — y apply · n abort") && s.contains("pending creates · C clear")
    });
    assert!(s.contains(&format!("⚠ {count} pending creates")), "{s}");
    t.keys(&["5"]);
    let urn = sim["resource"]["urn"].as_str().unwrap();
    let type_ = sim["resource"]["type"].as_str().unwrap();
    t.wait_for(&format!("pending create of {type_} {urn}"));
    t.keys(&["C"]);
    t.wait_for(&format!("{count} pending creates will be cleared"));
    t.keys(&["y"]);
    t.wait_for("DONE");
    t.keys(&["5"]);
    let s = t.wait_for(&format!(
        "marked {count} pending create(s) to clear in the preview"
    ));
    let who = format!("the operator ({OPERATOR}) marked");
    assert!(s.contains(&who), "the log names who cleared them:\n{s}");
    assert!(
        s.contains(&format!("cleared {count} pending create(s)")),
        "{s}"
    );
    assert!(!s.contains("pending creates · C clear"), "{s}");
    t.quit_and_expect_restored(0);
    assert_eq!(
        crash_support::pending_operations(&env),
        Vec::<serde_json::Value>::new()
    );
    assert_eq!(env.recorded("dev").len(), crash_support::MANAGED);
    env.assert_no_leaks("dev");
}

#[test]
fn without_pending_creates_c_offers_nothing() {
    let env = chain_project(1, 10);
    let t = Tmux::start(&env, 120, 40, &["up", "--stack", "dev"]);
    let s = t.wait_for("PREVIEW — y apply · n abort");
    assert!(!s.contains("pending creates"), "{s}");
    t.keys(&["C"]);
    t.wait_for("the stack has no pending creates");
    t.keys(&["n"]);
    t.wait_for("TTY-");
    assert!(env.world().is_empty());
}

/// A stale lock broken before the console starts (here when the passphrase's salt is recorded
/// under the stack's lock) is reported in the console's Log: printed to stderr, the console's
/// first repaint would wipe it before anyone could read it.
#[test]
fn a_broken_stale_lock_is_reported_in_the_log() {
    let env = deployed_chain(1);
    let hostname = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    let stale = serde_json::json!({
        "pid": 999_999_999u32,
        "hostname": hostname.trim(),
        "user": OPERATOR,
        "time": "2020-01-01T00:00:00+00:00",
        "operation": "up",
        "id": "stale-one",
        "expires": "2020-01-01T00:00:30+00:00",
    });
    cli_support::plant_lock(&env.stack_dir("dev"), stale);
    let t = Tmux::start(&env, 100, 30, &["up", "--stack", "dev", "--yes"]);
    t.wait_for("DONE");
    t.keys(&["5"]);
    let s = t.wait_for("removed a stale lock left by pid 999999999");
    assert!(s.contains("warning"), "{s}");
    t.quit_and_expect_restored(0);
}

#[test]
fn a_step_gate_is_approved_with_a_key_and_the_summary_names_who() {
    let env = chain_project(3, 50);
    let t = Tmux::start(
        &env,
        160,
        45,
        &[
            "up",
            "--stack",
            "dev",
            "--yes",
            "--approve",
            "creates[**::r2]=ask",
        ],
    );
    // The gate says what waits, in the panel named for approvals.
    t.wait("the step gate", |s| {
        s.contains("AWAITING APPROVAL")
            && s.contains("create  creates=ask")
            && s.contains("Pending approvals")
    });
    assert!(
        !env.world().values().any(|r| r["name"] == "r2"),
        "nothing is created before the decision"
    );
    t.keys(&["a"]);
    // The summary names who approved.
    let approved = format!("create r2 (sim:index:Resource): approved by operator {OPERATOR}");
    t.wait("the summary's decisions", |s| {
        s.contains("DONE") && s.contains("Decisions:") && s.contains(&approved)
    });
    assert_eq!(env.managed("dev").len(), 3);
    t.quit_and_expect_restored(0);
}

#[test]
fn quitting_a_running_preview_says_it_was_canceled_and_exits_8() {
    let env = chain_project(3, 0);
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    // Each resource's diff now takes 2 s (a quarter of its latency), one after another.
    let program = std::fs::read_to_string(env.project().join("Pulumi.yaml"))
        .unwrap()
        .replace("      step:", "      latencyMs: 8000\n      step:");
    env.write("Pulumi.yaml", &program);
    let t = Tmux::start(&env, 120, 40, &["preview", "--stack", "dev"]);
    t.wait("the preview under way", |s| {
        s.contains("diff: latencyMs") && !s.contains("DONE")
    });
    t.keys(&["q"]);
    let s = t.wait("a question or the shell", |s| {
        s.contains("Quit while the deployment runs?") || s.contains("TTY-")
    });
    if !s.contains("TTY-") {
        t.keys(&["y"]);
    }
    let s = t.wait_for("TTY-");
    assert!(s.contains("error: preview canceled"), "{s}");
    t.expect_restored(8);
}

#[test]
fn cancel_from_another_terminal_cancels_a_console_run_as_ctrl_c() {
    let env = Env::new(
        "\nresources:\n  net:\n    type: sim:index:Network\n    properties:\n      cidr: 10.0.0.0/16\n",
    );
    env.ok(&["stack", "init", "dev"]);
    let t = Tmux::start(
        &env,
        120,
        40,
        &["up", "--stack", "dev", "--yes", "--pause-before", "**"],
    );
    t.wait_for("PAUSED");
    // `cancel` signals the run and waits for its lock, which the console holds until it is left.
    let cancel = env.spawn(&["cancel", "--yes", "--stack", "dev"]);
    let s = t.wait("the run cancelled", |s| {
        s.to_lowercase().contains("cancel") && !s.contains("PAUSED")
    });
    assert!(env.world().is_empty(), "nothing was created:\n{s}");
    t.keys(&["q"]);
    let out = cancel.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    t.expect_restored(8);
}

/// A deployed `cfg` whose program now changes it: the next `up` plans a plain update.
fn deployed_cfg_changed() -> Env {
    let program = |n: u32| {
        format!("resources:\n  cfg:\n    type: sim:index:Resource\n    properties:\n      n: {n}\n")
    };
    let env = Env::new(&program(1));
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    env.write(
        "Pulumi.yaml",
        &format!("name: e2e\nruntime: yaml\n{}", program(2)),
    );
    env
}

#[test]
fn the_preview_lists_the_steps_a_policy_will_hold_and_each_gate_reads_as_its_kind() {
    let env = deployed_cfg_changed();
    let t = Tmux::start(
        &env,
        160,
        45,
        &["up", "--stack", "dev", "--approve", "updates=ask"],
    );
    let s = t.wait("the gate listed in the preview", |s| {
        s.contains("PREVIEW — y apply") && s.contains("Pending approvals")
    });
    let gate = last_line_with(&s, "update  updates=ask");
    assert!(
        gate.contains("cfg") && gate.contains("will wait for approval"),
        "{s}"
    );
    assert!(
        !s.contains("delete-before-replace"),
        "a plain update is no cascade:\n{s}"
    );
    t.keys(&["y"]);
    let s = t.wait("the apply at its gate", |s| {
        s.contains("AWAITING APPROVAL") && s.contains("~ cfg (updates=ask)")
    });
    assert!(!s.contains("delete-before-replace"), "{s}");
    t.keys(&["/", "c", "f", "g", "Enter", "j", "Enter"]);
    let s = t.wait_for("approval gate: update of cfg (updates=ask)");
    assert!(!s.contains("delete-before-replace"), "{s}");
    t.keys(&["Escape", "Escape", "a"]);
    t.wait_for("DONE");
    t.quit_and_expect_restored(0);
}

#[test]
fn the_preview_lists_a_delete_its_policy_will_hold() {
    let env = Env::new(
        "resources:\n  kept:\n    type: sim:index:Resource\n    properties:\n      n: 1\n  gone:\n    type: sim:index:Resource\n    properties:\n      n: 2\n",
    );
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    env.write(
        "Pulumi.yaml",
        "name: e2e\nruntime: yaml\nresources:\n  kept:\n    type: sim:index:Resource\n    properties:\n      n: 1\n",
    );
    let t = Tmux::start(
        &env,
        160,
        45,
        &["up", "--stack", "dev", "--approve", "deletes=ask"],
    );
    let s = t.wait("the delete's gate listed in the preview", |s| {
        s.contains("PREVIEW — y apply") && s.contains("Pending approvals")
    });
    let gate = last_line_with(&s, "delete  deletes=ask");
    assert!(
        gate.contains("gone") && gate.contains("will wait for approval"),
        "{s}"
    );
    t.keys(&["y"]);
    t.wait("the apply at the delete's gate", |s| {
        s.contains("AWAITING APPROVAL") && s.contains("gone")
    });
    t.keys(&["a"]);
    t.wait_for("DONE");
    t.quit_and_expect_restored(0);
    assert_eq!(env.world().len(), 1, "the approved delete ran");
}

#[test]
fn a_cascade_the_policy_approves_is_not_left_to_decide_in_the_preview() {
    let env = cascade_project();
    let t = Tmux::start(
        &env,
        160,
        45,
        &["up", "--stack", "dev", "--approve", "replacements=auto"],
    );
    let s = t.wait("the cascade in the preview", |s| {
        s.contains("PREVIEW — y apply") && s.contains("approved by policy")
    });
    assert!(!s.contains("to decide for the apply"), "{s}");
    t.keys(&["y"]);
    let s = t.wait_for("DONE");
    assert!(!s.contains("AWAITING APPROVAL"), "{s}");
    t.quit_and_expect_restored(0);
    assert_eq!(world_engine_of_db(&env).1, "pg16");
}

#[test]
fn the_approval_timeout_counts_down_on_the_waiting_gate() {
    let env = cascade_project();
    let socket = env.root.path().join("console.sock");
    let address = format!("unix:{}", socket.display());
    let t = Tmux::start_with(
        &env,
        160,
        45,
        &[("STEPDECK_SERVE_TOKEN", "control-token-for-tests")],
        &[
            "up",
            "--stack",
            "dev",
            "--yes",
            "--serve",
            &address,
            "--approval-timeout",
            "60",
        ],
    );
    let seconds = |s: &str| -> Option<u64> {
        let (_, after) = s.split_once("declined in ")?;
        after.split('s').next()?.parse().ok()
    };
    let s = t.wait("the countdown", |s| seconds(s).is_some());
    let first = seconds(&s).unwrap();
    assert!(first <= 60, "{s}");
    let s = t.wait("the countdown moving", |s| {
        seconds(s).is_some_and(|n| n < first)
    });
    assert!(s.contains("AWAITING APPROVAL"), "{s}");
    t.keys(&["a"]);
    t.wait_for("DONE");
    t.quit_and_expect_restored(0);
}

#[test]
fn a_failed_command_s_row_and_status_line_show_its_error_not_its_progress() {
    let program = |update: &str| {
        format!(
            "resources:\n  hook:\n    type: command:local:Command\n    properties:\n      create: echo created\n      update: {update:?}\n"
        )
    };
    let env = Env::new(&program("echo updated"));
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    env.write(
        "Pulumi.yaml",
        &format!(
            "name: e2e\nruntime: yaml\n{}",
            program("echo updating…; echo 'ERROR: disk full' >&2; exit 3")
        ),
    );
    let t = Tmux::start(&env, 200, 45, &["up", "--stack", "dev", "--yes"]);
    let s = t.wait_for("FAILED");
    let row = last_line_with(&s, "── hook ");
    assert!(
        row.contains("failed") && row.contains("ERROR: disk full"),
        "{row}\n{s}"
    );
    let (cause, command) = (row.find("ERROR: disk full"), row.find("command \""));
    assert!(
        command.is_none_or(|c| cause < Some(c)),
        "the cause comes before the command:\n{row}"
    );
    let status = s.lines().last().unwrap_or_default();
    assert!(status.contains("hook: ERROR: disk full"), "{status}\n{s}");
    assert!(!status.contains("update failed"), "{status}");
    t.quit_and_expect_restored(1);
}

#[test]
fn a_step_gate_approved_in_the_plan_runs_in_the_apply_without_asking() {
    let env = deployed_cfg_changed();
    let t = Tmux::start(
        &env,
        160,
        45,
        &["up", "--stack", "dev", "--approve", "updates=ask"],
    );
    t.wait("the gate listed in the preview", |s| {
        s.contains("PREVIEW — y apply") && s.contains("will wait for approval")
    });
    t.keys(&["4", "a"]);
    t.wait_for("the update of cfg will be approved when you apply (y)");
    t.keys(&["y"]);
    let approved = format!("update cfg (sim:index:Resource): approved by operator {OPERATOR}");
    let s = t.wait("the apply done", |s| {
        s.contains("DONE") && s.contains(&approved)
    });
    assert!(!s.contains("AWAITING APPROVAL"), "{s}");
    t.quit_and_expect_restored(0);
}

#[test]
fn a_replayed_event_log_draws_its_stack_s_dependencies_and_says_where_its_edges_came_from() {
    let env = chain_project(3, 0);
    // The file away from the project: only the project the replay runs in names its stack.
    let away = tempfile::tempdir().unwrap();
    let log = away.path().join("run.jsonl");
    assert!(env.up_with_event_log(&log).status.success());
    let log = log.display().to_string();

    let t = Tmux::start(&env, 140, 40, &["replay", &log]);
    t.wait_for("line 0/");
    t.keys(&["$"]);
    let s = t.wait_for("edges: from stack dev's state");
    assert!(s.contains("┌─▶[+ r2]") && s.contains("┌─▶[+ r3]"), "{s}");
    t.quit_and_expect_restored(0);

    // Run from where no project has the stack, the file alone records no dependencies: no
    // edge is drawn, and the timeline says why.
    let elsewhere = away.path().display().to_string();
    let t = Tmux::start(&env, 140, 40, &["--cwd", &elsewhere, "replay", &log]);
    t.wait_for("line 0/");
    t.keys(&["$"]);
    let s = t.wait_for("edges: none, not in this file");
    assert!(s.contains("[+ r2]") && !s.contains("─▶["), "{s}");
    t.quit_and_expect_restored(0);
}

/// The right pane's block of a 200-column screen opening with `heading`, to its blank line.
fn right_block(s: &str, heading: &str) -> Vec<String> {
    s.lines()
        .map(|l| {
            let pane = l.rsplit("││").next().unwrap_or(l);
            pane.trim_matches(|c| c == '│' || c == ' ').to_string()
        })
        .skip_while(|l| l != heading)
        .take_while(|l| !l.is_empty())
        .collect()
}

#[test]
fn a_decline_in_the_plan_previews_it_again_and_the_apply_does_what_it_then_counts() {
    let env = followers_project();
    let before = env.managed("dev");
    let (old_id, _) = world_engine_of_db(&env);
    let t = Tmux::start(&env, 200, 60, &["up", "--stack", "dev"]);
    let s = t.wait("the plan", |s| {
        s.contains("PREVIEW — y apply · n abort") && s.contains("will wait for approval")
    });
    // backup and report update only because the replaced database's outputs are unknown.
    assert!(s.lines().next().unwrap().contains("~2 +-2"), "{s}");
    t.keys(&["4", "x"]);
    let s = t.wait("the plan again", |s| {
        s.contains("PREVIEW — y apply · n abort")
            && s.contains(&format!("declined by operator {OPERATOR}@"))
    });
    let bar = s.lines().next().unwrap();
    assert!(!bar.contains('~') && !bar.contains("+-"), "{bar}");
    for name in ["── backup ", "── report "] {
        let row = s.lines().find(|l| l.contains(name)).unwrap();
        assert!(row.contains(" same "), "{row}");
    }
    t.keys(&["7"]);
    let s = t.wait_for("Preview of the update done");
    let planned = right_block(&s, "Resources:");
    assert_eq!(
        planned,
        vec![
            "Resources:",
            "1 replacement declined (2 kept)",
            "5 unchanged"
        ],
        "{s}"
    );
    assert!(
        right_block(&s, "Outputs:")
            .iter()
            .any(|l| l == "dbEngine: \"pg15\""),
        "{s}"
    );
    t.keys(&["y"]);
    let s = t.wait("the apply's end", |s| {
        s.contains("DONE") || s.contains("AWAITING") || s.contains("FAILED")
    });
    let bar = s.lines().next().unwrap();
    assert!(bar.contains("DONE"), "the apply asked again:\n{s}");
    assert!(bar.contains("6/6 steps 100%"), "{bar}");
    assert!(!bar.contains("beyond the preview"), "{bar}");
    t.keys(&["7"]);
    let s = t.wait_for("Duration:");
    assert_eq!(right_block(&s, "Resources:"), planned, "{s}");
    t.quit_and_expect_restored(0);
    assert_eq!(world_engine_of_db(&env), (old_id, "pg15".to_string()));
    assert_eq!(env.managed("dev"), before);
    env.assert_no_leaks("dev");
}

#[test]
fn approving_a_cascade_declined_in_the_plan_previews_its_replacement_again() {
    let env = followers_project();
    let t = Tmux::start(&env, 200, 60, &["up", "--stack", "dev"]);
    t.wait("the plan", |s| {
        s.contains("PREVIEW — y apply · n abort") && s.contains("will wait for approval")
    });
    t.keys(&["4", "x"]);
    t.wait("the plan with db kept", |s| {
        s.contains("PREVIEW — y apply · n abort") && s.contains("declined by operator")
    });
    t.keys(&["4", "a"]);
    let s = t.wait("the plan with db replaced", |s| {
        s.contains("PREVIEW — y apply · n abort") && s.contains("approved for the apply")
    });
    assert!(s.lines().next().unwrap().contains("~2 +-2"), "{s}");
    t.keys(&["n"]);
    let s = t.wait_for("TTY-");
    assert!(s.contains("the update was aborted"), "{s}");
}
