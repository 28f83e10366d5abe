//! One clock for step times: the tree, the chains and a late watcher all show the wall time of
//! a step (as Pulumi does), a pause while it runs included.

use std::time::Duration;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use stepdeck::app::model::Model;
use stepdeck::app::sample::sample_timeline;
use stepdeck::app::ui_state::UiState;
use stepdeck::app::{ConsoleMode, Title};
use stepdeck::engine::EngineEvent;
use stepdeck::views::text::offset;
use stepdeck::views::{Theme, draw};

fn screen(m: &Model) -> String {
    let title = Title {
        operation: "up".into(),
        stack: "dev".into(),
        project: "myproj".into(),
        phase: None,
    };
    let mut ui = UiState::new(ConsoleMode::Live, title);
    ui.settle(m);
    let mut t = Terminal::new(TestBackend::new(200, 60)).unwrap();
    t.draw(|f| draw(f, m, &mut ui, Theme::colored())).unwrap();
    format!("{}", t.backend())
}

/// The time the tree shows on `net`'s row and the one its chain's lane shows.
fn net_times(s: &str) -> (String, String) {
    let time = |line: &str| {
        line.split_whitespace()
            .find(|w| w.ends_with('s') && w.trim_end_matches('s').parse::<f64>().is_ok())
            .unwrap_or_default()
            .to_string()
    };
    let row = s.lines().find(|l| l.contains("─▾ net ")).unwrap();
    let lane = s.lines().find(|l| l.contains("#2 ")).unwrap();
    let lane = &lane[lane.find("#2 ").unwrap()..];
    (time(row), time(lane.split('│').next().unwrap()))
}

#[test]
fn a_pause_while_a_step_runs_counts_in_the_tree_and_the_chains_alike() {
    let mut m = Model::new();
    for (at, e) in sample_timeline() {
        m.set_now(at);
        m.apply(&e);
        // The net's step (0.2s to 1.4s) runs through a pause of half a second.
        if matches!(e, EngineEvent::StepStarted { chain: 2, .. }) {
            m.set_now(Duration::from_millis(500));
            m.apply(&EngineEvent::Paused);
            m.set_now(Duration::from_millis(1000));
            m.apply(&EngineEvent::Resumed);
        }
    }
    m.set_now(Duration::from_secs(4));
    let s = screen(&m);
    assert_eq!(net_times(&s), ("1.2s".into(), "1.2s".into()), "{s}");
    insta::assert_snapshot!("clock_paused_step_200x60", s);
}

#[test]
fn a_late_watcher_sees_the_steps_times_as_they_ran() {
    // A watcher that attaches after the run reads every event at once: no time passes
    // between them on its clock.
    let mut m = Model::new();
    for (_, e) in sample_timeline() {
        m.apply(&e);
    }
    let s = screen(&m);
    assert_eq!(net_times(&s), ("1.2s".into(), "1.2s".into()), "{s}");
}

#[test]
fn the_header_counts_the_log_s_wall_time_and_says_how_much_was_paused() {
    let mut m = Model::new();
    for (at, e) in sample_timeline() {
        if matches!(e, EngineEvent::Summary { .. }) {
            break;
        }
        m.set_now(at);
        m.apply(&e);
    }
    m.set_now(Duration::from_secs(10));
    m.apply(&EngineEvent::Paused);
    m.set_now(Duration::from_secs(15));
    m.apply(&EngineEvent::Resumed);
    m.set_now(Duration::from_secs(17));
    let s = screen(&m);
    let bar = s.lines().next().unwrap();
    // The Log stamps the resume +00:15 on the same wall clock: 00:17 is two seconds later.
    let resumed = m.log.entries().last().unwrap();
    assert!(
        offset(resumed.at).starts_with("+00:15"),
        "{}",
        resumed.message
    );
    assert!(bar.contains("⏱ 00:17 (00:05 paused)"), "{bar}");
}
