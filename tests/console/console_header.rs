//! The top bar: a long phase is cut to the room left, the title stays; a failed preview counts
//! what its body counts.

use std::collections::BTreeMap;
use std::time::Duration;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use stepdeck::app::model::Model;
use stepdeck::app::sample::sample_timeline;
use stepdeck::app::ui_state::{UiState, ViewId};
use stepdeck::app::{ConsoleMode, Title};
use stepdeck::engine::{EngineEvent, FailureCause, Outcome, RunFailure, StepOp};
use stepdeck::views::{Theme, draw};

use crate::console_views::planned_preview;

fn top_bar(m: &Model, phase: Option<&str>, mode: ConsoleMode, w: u16) -> String {
    let title = Title {
        operation: "up".into(),
        stack: "dev".into(),
        project: "myproj".into(),
        phase: phase.map(str::to_string),
    };
    let mut ui = UiState::new(mode, title);
    ui.nav.focus = ViewId::Summary;
    ui.settle(m);
    let mut t = Terminal::new(TestBackend::new(w, 60)).unwrap();
    t.draw(|f| draw(f, m, &mut ui, Theme::colored())).unwrap();
    format!("{}", t.backend())
}

#[test]
fn a_long_phase_is_cut_and_the_title_stays() {
    let mut m = Model::new();
    for (at, e) in sample_timeline() {
        m.set_now(at);
        m.apply(&e);
    }
    let phase =
        "demo 2/2 second rollout: the database is replaced and what reads its endpoint follows it";
    let s = top_bar(&m, Some(phase), ConsoleMode::Live, 160);
    let bar = s.lines().next().unwrap();
    assert!(bar.contains("up dev ▸ myproj"), "{bar}");
    assert!(bar.contains("demo 2/2 second rollout"), "{bar}");
    assert!(bar.contains('…'), "the phase is cut: {bar}");
    assert!(bar.contains("AWAITING APPROVAL"), "{bar}");
}

#[test]
fn a_failed_preview_s_top_bar_counts_what_its_summary_counts() {
    let mut m = planned_preview();
    // The preview planned more than it got to count before it failed.
    assert!(m.counts.planned(StepOp::Create) > 2);
    m.apply(&EngineEvent::Summary {
        counts: BTreeMap::from([(StepOp::Create, 2)]),
        declined: 0,
        duration: Duration::from_secs(1),
        outcome: Outcome::Failed(RunFailure::new(FailureCause::Step, "1 step failed")),
        preview: true,
        policy_packs: Default::default(),
    });
    let s = top_bar(
        &m,
        None,
        ConsoleMode::Preview {
            awaiting_decision: true,
        },
        200,
    );
    let bar = s.lines().next().unwrap();
    assert!(s.contains("+ 2 to create"), "the summary says so:\n{s}");
    let creates: Vec<&str> = bar
        .split_whitespace()
        .filter(|w| w.starts_with('+'))
        .collect();
    assert_eq!(creates, ["+2"], "{bar}");
}
