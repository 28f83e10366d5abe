//! Frame time of the resource tree over a 100,000-resource stack: the view builds tree items
//! only for the visible window, so scrolling anywhere costs about the same as a small stack.
//! The bound here is loose (debug builds, shared CI machines); run with `--release
//! --nocapture` for the real figure.

#![allow(clippy::unwrap_used, clippy::panic)]

use std::time::{Duration, Instant};

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::StatefulWidget;
use stepdeck::app::model::Model;
use stepdeck::app::sample::{sample_urn, step_info};
use stepdeck::app::ui_state::{Move, UiState};
use stepdeck::app::{ConsoleMode, Title};
use stepdeck::engine::{EngineEvent, StepOp};
use stepdeck::views::Theme;
use stepdeck::views::resources::ResourcesView;

/// 10 tiers × 100 groups × 99 leaves under the stack: 100,011 resources, three levels deep.
fn big_model() -> Model {
    let mut m = Model::new();
    let stack = sample_urn("pulumi:pulumi:Stack", "");
    let mut chain = 0;
    let mut plan = |m: &mut Model, op, urn: &_, parent: Option<&_>| {
        chain += 1;
        m.apply(&EngineEvent::StepPlanned(Box::new(step_info(
            op, urn, parent, chain,
        ))));
    };
    plan(&mut m, StepOp::Same, &stack, None);
    for t in 0..10 {
        let tier = sample_urn("demo:component:Tier", &format!("tier-{t}"));
        plan(&mut m, StepOp::Create, &tier, Some(&stack));
        for g in 0..100 {
            let group = sample_urn("demo:component:Group", &format!("group-{t}-{g:03}"));
            plan(&mut m, StepOp::Create, &group, Some(&tier));
            for l in 0..99 {
                let leaf = sample_urn("sim:index:Resource", &format!("r-{t}-{g:03}-{l:02}"));
                plan(&mut m, StepOp::Update, &leaf, Some(&group));
            }
        }
    }
    m
}

fn draw(m: &Model, ui: &mut UiState, buf: &mut Buffer) -> Duration {
    let started = Instant::now();
    let view = ResourcesView {
        model: m,
        theme: Theme::colored(),
        focused: true,
    };
    view.render(buf.area, buf, ui);
    started.elapsed()
}

#[test]
fn a_frame_of_a_100k_resource_tree_costs_only_its_visible_rows() {
    let m = big_model();
    assert!(m.resources().len() > 100_000);
    let mut ui = UiState::new(
        ConsoleMode::Live,
        Title {
            operation: "up".into(),
            stack: "dev".into(),
            project: "myproj".into(),
            phase: None,
        },
    );
    let mut buf = Buffer::empty(Rect::new(0, 0, 200, 60));
    // The first frame flattens the tree once; frames after it draw from the flat index.
    draw(&m, &mut ui, &mut buf);
    let rows = ui.layout.tree.len();
    let mut times = Vec::new();
    for k in 0..200 {
        let scroll = &mut ui.scroll.resources;
        scroll.go(Move::Home);
        scroll.go(Move::Rows(((k * 7919 * 61) % rows) as isize));
        ui.nav.selected = None;
        times.push(draw(&m, &mut ui, &mut buf));
    }
    times.sort();
    let median = times[times.len() / 2];
    let p95 = times[times.len() * 95 / 100];
    let worst = times[times.len() - 1];
    println!("100k tree frame at 200x60: median {median:?}, p95 {p95:?}, worst {worst:?}");
    let text: String = (0..buf.area.width)
        .map(|x| buf[(x, 5)].symbol().to_string())
        .collect();
    assert!(text.contains("r-") || text.contains("group-"), "{text}");
    assert!(median < Duration::from_millis(40), "median {median:?}");
}
