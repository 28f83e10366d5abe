//! What operators expect from k9s and lazygit, on a real run in a real terminal: `z` zooms the
//! focused panel (the graph then names every node in full), `:` jumps to a resource by name,
//! `/` `n` search the Log, `f` holds it while lines arrive and follows again, `Y` copies the
//! selected resource's error.

use std::time::{Duration, Instant};

use crate::cli_support::Env;
use crate::console_support::{Tmux, chain_project};

/// Longer than a graph node outside a zoom (22 cells).
const LONG: &str = "orders-database-read-replica-eu-west-1";

/// The Log pane's lines: those between its title and the bottom of its frame.
fn log_pane(s: &str) -> Vec<&str> {
    s.lines()
        .skip_while(|l| !l.contains("┌ Log"))
        .skip(1)
        .take_while(|l| !l.contains("└"))
        .collect()
}

#[test]
fn z_zooms_the_graph_to_the_screen_and_names_every_node_in_full() {
    let env = Env::new(&format!(
        "resources:\n  r1:\n    type: sim:index:Resource\n    properties:\n      step: 1\n  \
         {LONG}:\n    type: sim:index:Resource\n    properties:\n      after: ${{r1.id}}\n"
    ));
    let t = Tmux::start(&env, 120, 40, &["up", "--stack", "dev", "--yes"]);
    t.wait_for("DONE");
    t.keys(&["2"]);
    let s = t.wait_for("┌ Graph");
    assert!(
        !s.contains(&format!("{LONG}]")),
        "the graph's panel cuts the name:\n{s}"
    );
    assert!(s.contains("Resources ("), "{s}");
    t.keys(&["z"]);
    let s = t.wait("the zoomed graph", |s| s.contains(&format!("{LONG}]")));
    assert!(!s.contains("Resources ("), "the graph alone:\n{s}");
    assert!(s.contains("z unzoom"), "{s}");
    t.keys(&["z"]);
    let s = t.wait_for("Resources (");
    assert!(!s.contains(&format!("{LONG}]")), "{s}");
    t.quit_and_expect_restored(0);
}

#[test]
fn colon_jumps_to_a_resource_by_name_and_tab_chooses_among_the_matches() {
    let env = chain_project(12, 20);
    let t = Tmux::start(&env, 120, 40, &["up", "--stack", "dev", "--yes"]);
    t.wait_for("DONE");
    t.keys(&[":"]);
    t.keys(&["r", "1"]);
    // r1, then r10, r11 and r12: the shortest name first.
    let s = t.wait_for("Jump to  4 matches");
    assert!(s.contains("▶ r1 "), "{s}");
    t.keys(&["Tab"]);
    t.wait_for("▶ r10");
    t.keys(&["Enter"]);
    t.wait("the prompt gone", |s| !s.contains("Jump to"));
    t.keys(&["Enter"]);
    let s = t.wait_for(" r10  sim:index:Resource");
    assert!(s.contains("urn:pulumi:dev::"), "the details of r10:\n{s}");
    t.keys(&["Escape", ":"]);
    t.keys(&["n", "o", "p", "e"]);
    t.wait_for("Jump to  0 matches");
    t.keys(&["Escape"]);
    t.wait("the prompt closed", |s| !s.contains("Jump to"));
    t.quit_and_expect_restored(0);
}

#[test]
fn slash_searches_the_log_and_n_goes_to_the_next_match() {
    let env = chain_project(12, 20);
    let t = Tmux::start(&env, 100, 30, &["up", "--stack", "dev", "--yes"]);
    t.wait_for("DONE");
    t.keys(&["5", "/"]);
    t.keys(&["r", "7", ":"]);
    t.keys(&["Enter"]);
    // `r7: create started on worker n` and `r7: create finished`.
    let s = t.wait_for("/r7: 1/2");
    let current: Vec<&str> = log_pane(&s)
        .into_iter()
        .filter(|l| l.contains("▶"))
        .collect();
    assert_eq!(current.len(), 1, "{s}");
    assert!(current[0].contains("r7: create started"), "{s}");
    assert!(s.contains("n N match"), "{s}");
    t.keys(&["n"]);
    let s = t.wait_for("/r7: 2/2");
    let current: Vec<&str> = log_pane(&s)
        .into_iter()
        .filter(|l| l.contains("▶"))
        .collect();
    assert!(current[0].contains("r7: create finished"), "{s}");
    t.keys(&["Escape"]);
    t.wait("the search ended", |s| !s.contains("/r7:"));
    t.quit_and_expect_restored(0);
}

#[test]
fn f_holds_the_log_while_the_run_goes_on_and_follows_it_again() {
    let env = chain_project(20, 150);
    let t = Tmux::start(&env, 100, 30, &["up", "--stack", "dev", "--yes"]);
    t.keys(&["5"]);
    // The pane is full (25 rows) once r10 has finished.
    t.wait("the log following a running update", |s| {
        s.contains("· following") && log_pane(s).join("\n").contains("r10: create finished")
    });
    t.keys(&["f"]);
    let held = t.wait_for("· held · f follows");
    let shown = log_pane(&held).join("\n");
    assert!(
        !shown.contains("r20: create"),
        "held before the end:\n{held}"
    );
    let s = t.wait_for("DONE");
    assert_eq!(
        log_pane(&s).join("\n"),
        shown,
        "held lines stay put while the run goes on"
    );
    t.keys(&["f"]);
    let s = t.wait("the newest lines", |s| {
        s.contains("· following") && log_pane(s).join("\n").contains("r20: create finished")
    });
    assert!(s.contains("f hold"), "{s}");
    t.quit_and_expect_restored(0);
}

/// What the terminal was asked to put on the clipboard (tmux keeps it as its newest buffer),
/// once it holds `want`.
fn clipboard_holding(t: &Tmux, want: &str) -> String {
    let end = Instant::now() + Duration::from_secs(30);
    loop {
        let out = t.tmux().args(["show-buffer"]).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        if text.contains(want) {
            return text;
        }
        assert!(
            Instant::now() < end,
            "the clipboard never held {want:?}: {text:?}"
        );
        std::thread::sleep(Duration::from_millis(25));
    }
}

#[test]
fn shift_y_copies_the_failed_resource_s_error_not_its_urn() {
    let env = Env::new(
        "resources:\n  bad:\n    type: sim:index:Resource\n    properties:\n      failOn: [create]\n",
    );
    let t = Tmux::start(&env, 120, 40, &["up", "--stack", "dev", "--yes"]);
    // Applications may set tmux's clipboard (OSC 52), as a terminal lets them.
    let ok = t
        .tmux()
        .args(["set-option", "-g", "set-clipboard", "on"])
        .status()
        .unwrap()
        .success();
    assert!(ok);
    t.wait_for("FAILED");
    t.keys(&["e"]);
    let s = t.wait_for("Y copies the error");
    let error = s
        .lines()
        .find_map(|l| l.split("error: ").nth(1))
        .map(|e| e.trim_end_matches(['│', ' ']).to_string())
        .unwrap();
    t.keys(&["Y"]);
    t.wait_for("copied the error of bad");
    let copied = clipboard_holding(&t, &error);
    assert!(
        copied.contains("failed because its `failOn` input lists"),
        "the whole error, not the URN: {copied}"
    );
    t.keys(&["Escape"]);
    t.quit_and_expect_restored(1);
}
