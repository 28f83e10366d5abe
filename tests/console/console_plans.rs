//! The console's preview as a plan, end to end in tmux: `space` selects resources and `y`
//! applies only them and what they need (the rest is listed as skipped), `x` leaves one out
//! with its dependents, and a program edited between the preview and `y` is refused by the
//! preview's plan.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::cli_support;
use crate::console_support;
use cli_support::Env;
use console_support::Tmux;

/// A network, a box on it, and two more independent boxes.
const PROGRAM: &str = "resources:
  net:
    type: sim:index:Network
    properties:
      cidr: 10.0.0.0/16
  box1:
    type: sim:index:Resource
    properties:
      tag: one
      netId: ${net.networkId}
  box2:
    type: sim:index:Resource
    properties:
      tag: two
  box3:
    type: sim:index:Resource
    properties:
      tag: three
";

/// The sim world's resource names.
fn world_names(env: &Env) -> Vec<String> {
    let mut names: Vec<String> = env
        .world()
        .values()
        .map(|r| r["name"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    names
}

/// Moves the console's selection to the row of `name`: filters to it (its ancestors stay
/// shown above it), takes the last row, and clears the filter again.
fn select_row(t: &Tmux, name: &str) {
    t.keys(&["/"]);
    t.keys(&[name]);
    t.keys(&["Enter", "G"]);
}

/// Clears the filter with Esc and waits until the unfiltered list is back, so that the next
/// key acts on the screen the test has seen.
fn clear_filter(t: &Tmux) {
    t.keys(&["Escape"]);
    t.wait_for(" Resources (");
}

/// `up` in the console, at its finished preview.
fn previewed_up(env: &Env) -> Tmux {
    let t = Tmux::start(env, 160, 45, &["up", "--stack", "dev"]);
    t.wait_for("PREVIEW — y apply · n abort");
    t
}

#[test]
fn the_selection_in_the_preview_becomes_the_targets_of_the_apply() {
    let env = Env::new(PROGRAM);
    let t = previewed_up(&env);
    select_row(&t, "box1");
    t.keys(&["Space"]);
    t.wait_for("box1 selected");
    clear_filter(&t);
    select_row(&t, "box2");
    t.keys(&["Space"]);
    let s = t.wait_for("2 selected · 0 excluded");
    assert!(s.contains("[✓] box2"), "the row shows its mark:\n{s}");
    clear_filter(&t);
    t.keys(&["y"]);
    let s = t.wait_for("DONE");
    assert!(
        s.contains("Skipped (outside the preview's selection):"),
        "{s}"
    );
    t.quit_and_expect_restored(0);
    let report = t.screen();
    assert!(report.contains("    box3 (sim:index:Resource)"), "{report}");
    assert_eq!(world_names(&env), vec!["box1", "box2", "net"]);
    env.assert_no_leaks("dev");
}

#[test]
fn x_excludes_a_resource_and_what_depends_on_it() {
    let env = Env::new(PROGRAM);
    let t = previewed_up(&env);
    select_row(&t, "net");
    t.keys(&["x"]);
    t.wait_for("0 selected · 1 excluded");
    clear_filter(&t);
    t.keys(&["y"]);
    t.wait_for("DONE");
    t.quit_and_expect_restored(0);
    assert_eq!(world_names(&env), vec!["box2", "box3"]);
}

#[test]
fn a_program_edited_between_the_preview_and_y_is_refused_by_the_plan() {
    let env = Env::new(PROGRAM);
    let t = previewed_up(&env);
    env.write(
        "Pulumi.yaml",
        &format!(
            "name: e2e\nruntime: yaml\n{}",
            PROGRAM.replace("tag: two", "tag: changed")
        ),
    );
    t.keys(&["y"]);
    let s = t.wait_for("FAILED");
    assert!(s.contains("violates the plan"), "{s}");
    t.quit_and_expect_restored(1);
    assert!(
        !world_names(&env).contains(&"box2".to_string()),
        "box2 was created against the plan"
    );
}

#[test]
fn up_with_a_plan_checks_it_in_the_preview_and_offers_no_y_while_it_is_violated() {
    let env = Env::new(PROGRAM);
    let plan = env.root.path().join("p.json");
    let plan_arg = plan.display().to_string();
    env.ok(&["preview", "--stack", "dev", "--save-plan", &plan_arg]);
    env.write(
        "Pulumi.yaml",
        &format!(
            "name: e2e\nruntime: yaml\n{}",
            PROGRAM.replace("tag: two", "tag: changed")
        ),
    );
    let t = Tmux::start(
        &env,
        200,
        45,
        &["up", "--stack", "dev", "--plan", &plan_arg],
    );
    let s = t.wait("the preview's violation", |s| {
        s.contains("n abort") && s.contains("violates the plan") && !s.contains("PREVIEWING")
    });
    assert!(
        s.contains(&format!("plan {plan_arg}")),
        "the header names the plan:\n{s}"
    );
    assert!(
        !s.contains("y apply"),
        "no y while the plan is violated:\n{s}"
    );
    let row = s
        .lines()
        .find(|l| l.contains("── box2 "))
        .unwrap_or_default();
    assert!(
        row.contains("failed") && row.contains("tag"),
        "the violating row says why:\n{s}"
    );
    t.keys(&["y"]);
    t.wait_for("the preview did not succeed");
    t.keys(&["n"]);
    let s = t.wait_for("TTY-");
    assert!(!s.contains("EXITED 0"), "{s}");
    assert!(world_names(&env).is_empty(), "nothing ran");

    env.write(
        "Pulumi.yaml",
        &format!("name: e2e\nruntime: yaml\n{PROGRAM}"),
    );
    let t = Tmux::start(
        &env,
        200,
        45,
        &["up", "--stack", "dev", "--plan", &plan_arg],
    );
    let s = t.wait_for("PREVIEW — y apply · n abort");
    assert!(
        !s.contains("violates"),
        "a program within its plan previews cleanly:\n{s}"
    );
    t.keys(&["y"]);
    t.wait_for("DONE");
    t.quit_and_expect_restored(0);
    assert_eq!(world_names(&env), vec!["box1", "box2", "box3", "net"]);
}
