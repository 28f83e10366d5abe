//! What the walkthrough of issue 39 found in the views, each from a real run of the binary:
//! the details' history in plain words, `x` on a provider refused by its label, kept lanes
//! shown once and no diff gauge without diffs, no wait logged for a gate the preview decided,
//! and a failure said once.

use stepdeck::app::ConsoleMode;
use stepdeck::app::keymap::Action;
use stepdeck::app::ui_state::ViewId;
use stepdeck::app::update::update;
use stepdeck::engine::EngineEvent;

use super::console_one_truth::{idle_control, masked, model_until, recorded, screen, ui};
use crate::cli_support::Env;
use crate::console_support::cascade_project;

const UP: [&str; 5] = ["up", "--stack", "dev", "--yes", "--non-interactive"];
const ONE_BOX: &str =
    "resources:\n  box:\n    type: sim:index:Resource\n    properties:\n      v: 1\n";

fn preview_deciding() -> ConsoleMode {
    ConsoleMode::Preview {
        awaiting_decision: true,
    }
}

#[test]
fn the_details_history_says_no_changes_and_would_stay_the_same() {
    let env = Env::new(ONE_BOX);
    env.ok(&UP);
    let events = recorded(&env, &["preview", "--stack", "dev"], 0);
    let m = model_until(&events, |_| false);
    let mut u = ui(preview_deciding(), "up");
    let unchanged = m
        .resources()
        .iter()
        .find(|r| r.name() == "box")
        .expect("box")
        .urn
        .clone();
    u.nav.selected = Some(unchanged);
    let dir = tempfile::tempdir().unwrap();
    update(&mut u, &m, &idle_control(dir.path()), Action::OpenDetails);
    let s = screen(&m, &mut u, 200, 60);
    assert!(s.contains("would stay the same"), "{s}");
    assert!(
        !s.contains("none changes") && !s.contains("would same"),
        "{s}"
    );
    // The sim draws each resource a random `uid`.
    let uid = regex::Regex::new(r#"uid: "[0-9a-f]+""#).unwrap();
    let s = uid.replace_all(&s, r#"uid: "…""#);
    insta::assert_snapshot!("details_history_same_200x60", masked(&s));
}

#[test]
fn x_on_a_default_provider_is_refused_by_its_label_and_leaves_the_counts() {
    let env = Env::new(ONE_BOX);
    let events = recorded(&env, &["preview", "--stack", "dev"], 0);
    let m = model_until(&events, |_| false);
    let mut u = ui(preview_deciding(), "up");
    let provider = m
        .resources()
        .iter()
        .find(|r| r.type_() == "pulumi:providers:sim")
        .expect("the default provider")
        .urn
        .clone();
    let before = screen(&m, &mut u, 160, 45);
    u.nav.selected = Some(provider);
    let dir = tempfile::tempdir().unwrap();
    update(&mut u, &m, &idle_control(dir.path()), Action::ToggleExclude);
    let notice = u.overlay.notice.clone().unwrap_or_default();
    assert!(
        notice.starts_with("sim (default) is a provider"),
        "{notice}"
    );
    assert!(!notice.contains("default excluded"), "{notice}");
    let s = screen(&m, &mut u, 160, 45);
    assert_eq!(
        s.lines().next(),
        before.lines().next(),
        "nothing was left out"
    );
    insta::assert_snapshot!("provider_exclude_refused_160x45", masked(&s));
}

#[test]
fn a_declined_lane_shows_each_resource_once_marked_kept() {
    let env = cascade_project();
    let events = recorded(&env, &["preview", "--stack", "dev"], 0);
    let m = model_until(&events, |_| false);
    let mut u = ui(preview_deciding(), "up");
    let dir = tempfile::tempdir().unwrap();
    update(&mut u, &m, &idle_control(dir.path()), Action::Decline);
    u.nav.focus = ViewId::Chains;
    let s = screen(&m, &mut u, 160, 45);
    for lane in s
        .lines()
        .filter(|l| l.contains("declined: kept") && l.contains('#'))
    {
        for name in [" db ", " app "] {
            assert!(
                lane.split("││")
                    .next()
                    .unwrap()
                    .matches(name.trim())
                    .count()
                    <= 1,
                "{name} once in a kept lane: {lane}"
            );
        }
        assert!(!lane.contains("▸  "), "{lane}");
    }
    insta::assert_snapshot!("chains_declined_kept_160x45", masked(&s));
}

#[test]
fn a_lane_declined_in_the_run_shows_each_resource_once_marked_kept() {
    let env = cascade_project();
    env.write("decisions.yaml", "\"**\": decline\n");
    let mut all = UP.to_vec();
    all.extend([
        "--approve",
        "replacements=ask",
        "--decisions",
        "decisions.yaml",
    ]);
    let events = recorded(&env, &all, 0);
    let m = model_until(&events, |_| false);
    let mut u = ui(ConsoleMode::Live, "up");
    u.nav.focus = ViewId::Chains;
    let s = screen(&m, &mut u, 160, 45);
    let declined: Vec<&str> = s
        .lines()
        .map(|l| l.split("││").next().unwrap())
        .filter(|l| l.contains('#') && l.contains("declined"))
        .collect();
    assert!(!declined.is_empty(), "{s}");
    for lane in declined {
        assert!(lane.contains("declined: kept"), "{lane}");
        for name in ["db", "app"] {
            assert!(lane.matches(name).count() <= 1, "{name} once: {lane}");
        }
        assert!(!lane.contains("+-") && !lane.contains("--"), "{lane}");
    }
    insta::assert_snapshot!("chains_declined_in_run_160x45", masked(&s));
}

#[test]
fn a_destroy_has_no_diff_gauge() {
    let env = Env::new(ONE_BOX);
    env.ok(&UP);
    let events = recorded(
        &env,
        &["destroy", "--stack", "dev", "--yes", "--non-interactive"],
        0,
    );
    let m = model_until(&events, |_| false);
    let mut u = ui(ConsoleMode::Live, "destroy");
    u.nav.focus = ViewId::Chains;
    let s = screen(&m, &mut u, 160, 45);
    assert!(
        !s.contains("diffs 0/0") && !s.contains("0/0  running"),
        "{s}"
    );
    insta::assert_snapshot!("destroy_no_diff_gauge_160x45", masked(&s));
}

#[test]
fn a_gate_declined_in_the_preview_is_not_logged_as_waiting_in_the_apply() {
    let env = cascade_project();
    let preview = recorded(&env, &["preview", "--stack", "dev"], 0);
    let planned = model_until(&preview, |_| false);
    let mut u = ui(preview_deciding(), "up");
    let dir = tempfile::tempdir().unwrap();
    update(&mut u, &planned, &idle_control(dir.path()), Action::Decline);
    let presets = std::mem::take(&mut u.presets);

    env.write("decisions.yaml", "\"**\": decline\n");
    let mut all = UP.to_vec();
    all.extend([
        "--approve",
        "replacements=ask",
        "--decisions",
        "decisions.yaml",
    ]);
    let events = recorded(&env, &all, 0);
    let mut m = model_until(&events, |e| matches!(e, EngineEvent::Decision { .. }));
    m.apply(&EngineEvent::Paused);
    m.log_new_waits(|c| presets.decides(c));
    let mut live = ui(ConsoleMode::Live, "up");
    live.nav.focus = ViewId::Log;
    let s = screen(&m, &mut live, 160, 45);
    assert!(s.contains("PAUSED"), "{s}");
    let log: Vec<&str> = s.lines().filter(|l| l.contains("+00:")).collect();
    assert!(!log.is_empty(), "{s}");
    for line in log {
        assert!(!line.contains("waiting for approval"), "{line}");
    }
    insta::assert_snapshot!("log_preview_declined_paused_160x45", masked(&s));
}

#[test]
fn a_failure_is_said_failed_once() {
    let env = Env::new(
        "resources:\n  bad:\n    type: sim:index:Resource\n    properties:\n      failOn: [create]\n",
    );
    let events = recorded(&env, &UP, 1);
    let m = model_until(&events, |_| false);
    let mut u = ui(ConsoleMode::Live, "up");
    u.nav.focus = ViewId::Summary;
    let s = screen(&m, &mut u, 200, 45);
    let failure = s
        .lines()
        .skip_while(|l| !l.contains("Failures:"))
        .nth(1)
        .unwrap_or_else(|| panic!("no Failures:\n{s}"));
    assert_eq!(failure.matches("failed").count(), 1, "{failure}");
    insta::assert_snapshot!("failure_said_once_200x45", masked(&s));
}
