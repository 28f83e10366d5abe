//! The graph view's edges: small graphs whose old drawing merged unrelated edges (snapshots), a
//! trace over the drawn characters of generated graphs proving that every edge is one connected
//! path from its source to its target that joins no unrelated edge, and horizontal scrolling.

#![allow(clippy::unwrap_used, clippy::panic)]

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::StatefulWidget;
use stepdeck::app::keymap::Action;
use stepdeck::app::model::Model;
use stepdeck::app::sample::sample_urn;
use stepdeck::app::ui_state::{UiState, ViewId};
use stepdeck::app::update::update;
use stepdeck::app::{ConsoleMode, Title};
use stepdeck::bench_support::builtin_factory;
use stepdeck::engine::model::urn::ROOT_STACK_TYPE;
use stepdeck::engine::{
    Control, Deployment, EngineEvent, EventSink, NullJournal, Options, Snapshot, Urn,
};
use stepdeck::views::graph::GraphView;
use stepdeck::views::{Theme, draw};

/// A model of resources `names`, each with the dependencies listed by index.
fn model(names: &[String], deps: &[Vec<usize>]) -> Model {
    let stack = sample_urn(ROOT_STACK_TYPE, "");
    let urns: Vec<Urn> = names
        .iter()
        .map(|n| sample_urn("sim:index:Thing", n))
        .collect();
    let mut m = Model::new();
    m.apply(&EngineEvent::RegistrationReceived {
        urn: stack.clone(),
        type_: ROOT_STACK_TYPE.into(),
        parent: None,
        custom: false,
        dependencies: Default::default(),
    });
    for (i, urn) in urns.iter().enumerate() {
        m.apply(&EngineEvent::RegistrationReceived {
            urn: urn.clone(),
            type_: "sim:index:Thing".into(),
            parent: Some(stack.clone()),
            custom: true,
            dependencies: deps[i].iter().map(|&d| urns[d].clone()).collect(),
        });
    }
    m
}

fn named(edges: &[(&str, &str)]) -> (Vec<String>, Vec<Vec<usize>>) {
    let mut names: Vec<String> = Vec::new();
    for (a, b) in edges {
        for n in [a, b] {
            if !names.iter().any(|x| x == n) {
                names.push(n.to_string());
            }
        }
    }
    let mut deps = vec![Vec::new(); names.len()];
    for (a, b) in edges {
        let ia = names.iter().position(|x| x == a).unwrap();
        let ib = names.iter().position(|x| x == b).unwrap();
        deps[ib].push(ia);
    }
    (names, deps)
}

fn ui() -> UiState {
    let title = Title {
        operation: "up".into(),
        stack: "dev".into(),
        project: "myproj".into(),
        phase: None,
    };
    let mut u = UiState::new(ConsoleMode::Live, title);
    u.nav.focus = ViewId::Graph;
    u
}

/// Only the graph's box, without colours.
fn graph_only(m: &Model, u: &mut UiState, w: u16, h: u16) -> Buffer {
    let area = Rect::new(0, 0, w, h);
    let mut buf = Buffer::empty(area);
    GraphView {
        model: m,
        theme: Theme { color: false },
        focused: true,
    }
    .render(area, &mut buf, u);
    buf
}

fn lines(buf: &Buffer) -> Vec<Vec<String>> {
    let a = buf.area;
    (a.y..a.y + a.height)
        .map(|y| {
            (a.x..a.x + a.width)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect()
        })
        .collect()
}

fn text(buf: &Buffer) -> String {
    lines(buf)
        .iter()
        .map(|l| l.concat().trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn two_sources_feeding_two_targets_cross_and_never_merge() {
    // a and b both feed c and d: a→d and b→c cross. The old drawing ran them through a shared
    // junction, so that a looked like it fed only one of them.
    let (names, deps) = named(&[("a", "c"), ("a", "d"), ("b", "c"), ("b", "d")]);
    let m = model(&names, &deps);
    let mut u = ui();
    let s = text(&graph_only(&m, &mut u, 40, 8));
    insta::assert_snapshot!("graph_k22", s);
    assert!(s.contains('┼'), "{s}");
}

#[test]
fn sources_whose_lanes_used_to_merge_get_lanes_of_their_own() {
    // a and d sat three rows apart and shared a lane; p (fed by a, d) and q (fed by b, c) then
    // seemed fed by all four.
    let (names, deps) = named(&[("a", "p"), ("d", "p"), ("b", "q"), ("c", "q"), ("a", "x")]);
    let m = model(&names, &deps);
    let mut u = ui();
    let s = text(&graph_only(&m, &mut u, 40, 12));
    insta::assert_snapshot!("graph_shared_lanes", s);
    assert_paths(&m, &mut u, 40, 12);
    u.nav.selected = Some(sample_urn("sim:index:Thing", "d"));
    let s = text(&graph_only(&m, &mut u, 60, 12));
    assert!(s.contains("1 depends on d: p"), "{s}");
}

/// Where a drawn line leads from a cell, as (up, down, left, right).
fn bits(glyph: &str) -> Option<(bool, bool, bool, bool)> {
    Some(match glyph {
        "─" => (false, false, true, true),
        "│" => (true, true, false, false),
        "┼" => (true, true, true, true),
        "├" => (true, true, false, true),
        "┤" => (true, true, true, false),
        "┬" => (false, true, true, true),
        "┴" => (true, false, true, true),
        "┌" => (false, true, false, true),
        "┐" => (false, true, true, false),
        "└" => (true, false, false, true),
        "┘" => (true, false, true, false),
        _ => return None,
    })
}

/// The resource named right after an arrow at (x, y): `▶[name]` or `▶⇠n[name]`.
fn label_after(rows: &[Vec<String>], x: usize, y: usize) -> String {
    let rest: String = rows[y][x + 1..].concat();
    let rest = rest.trim_start_matches(|c: char| c == '⇠' || c.is_ascii_digit());
    let inner = rest.strip_prefix('[').expect("a label after an arrow");
    inner[..inner.find(']').unwrap()].to_string()
}

#[derive(Clone, Copy, PartialEq)]
enum Leg {
    Out,
    Up,
    Down,
    In,
}

/// Follows the lines drawn from the cell below a source's label the way an edge runs (right
/// along the source's row, up or down its lane, right into the target; `┼` always crosses) and
/// returns the targets the arrows reached name.
fn reached(rows: &[Vec<String>], x: usize, y: usize) -> Vec<String> {
    let mut found = Vec::new();
    let mut todo = vec![(x + 1, y, Leg::Out)];
    let mut steps = 0;
    while let Some((x, y, leg)) = todo.pop() {
        steps += 1;
        assert!(steps < 1_000_000, "a path loops");
        let Some(glyph) = rows.get(y).and_then(|r| r.get(x)) else {
            continue;
        };
        if glyph == "▶" && matches!(leg, Leg::Out | Leg::In) {
            found.push(label_after(rows, x, y));
            continue;
        }
        let Some((up, down, left, right)) = bits(glyph) else {
            continue;
        };
        let entered = match leg {
            Leg::Out | Leg::In => left,
            Leg::Up => down,
            Leg::Down => up,
        };
        assert!(entered, "a line ends abruptly at ({x}, {y}): {glyph}");
        let crossing = glyph == "┼";
        let go = |todo: &mut Vec<_>, leg| match leg {
            Leg::Up if y > 0 => todo.push((x, y - 1, leg)),
            Leg::Down => todo.push((x, y + 1, leg)),
            Leg::Out | Leg::In => todo.push((x + 1, y, leg)),
            Leg::Up => {}
        };
        match leg {
            Leg::In => {
                if right {
                    go(&mut todo, leg);
                }
            }
            Leg::Out if crossing => go(&mut todo, leg),
            Leg::Out => {
                if right {
                    go(&mut todo, Leg::Out);
                }
                if up {
                    go(&mut todo, Leg::Up);
                }
                if down {
                    go(&mut todo, Leg::Down);
                }
            }
            Leg::Up | Leg::Down => {
                let straight = if leg == Leg::Up { up } else { down };
                if straight {
                    go(&mut todo, leg);
                }
                if right && !crossing {
                    go(&mut todo, Leg::In);
                }
            }
        }
    }
    found.sort();
    found
}

/// Every source's drawn lines reach exactly its dependents in the next layer.
fn assert_paths(m: &Model, u: &mut UiState, w: u16, h: u16) {
    let buf = graph_only(m, u, w, h);
    let rows = lines(&buf);
    let g = &u.layout.graph;
    let mut checked = 0;
    for (y, row) in rows.iter().enumerate() {
        let line = row.concat();
        for r in m.resources().iter().filter(|r| r.custom) {
            let label = format!("[{}]", r.name());
            let Some(at) = line.find(&label) else {
                continue;
            };
            // Cells, not bytes: every glyph before the label is one cell.
            let start = line[..at].chars().count();
            let end = start + label.chars().count() - 1;
            let i = m.index_of(&r.urn).unwrap();
            let (c, _) = g.place(i).unwrap();
            let mut want: Vec<String> = m
                .graph()
                .dependents(i)
                .filter(|&d| g.place(d).is_some_and(|(dc, _)| dc == c + 1))
                .map(|d| m.resource(d).name().to_string())
                .collect();
            want.sort();
            if want.is_empty() {
                continue;
            }
            assert_eq!(rows[y + 1][end], "└", "{} leaves below its label", r.name());
            let got = reached(&rows, end, y + 1);
            assert_eq!(got, want, "edges of {}\n{}", r.name(), text(&buf));
            checked += 1;
        }
    }
    assert!(checked > 0, "{}", text(&buf));
}

#[test]
fn every_drawn_edge_of_generated_graphs_is_its_own_connected_path() {
    for seed in 0..40u64 {
        let mut rng = StdRng::seed_from_u64(seed);
        let n = rng.random_range(8..40);
        let names: Vec<String> = (0..n).map(|i| format!("n{i:02}")).collect();
        let deps: Vec<Vec<usize>> = (0..n)
            .map(|i| {
                let k = if i == 0 { 0 } else { rng.random_range(0..4) };
                let mut d: Vec<usize> = (0..k).map(|_| rng.random_range(0..i)).collect();
                d.sort();
                d.dedup();
                d
            })
            .collect();
        let m = model(&names, &deps);
        let mut u = ui();
        assert_paths(&m, &mut u, 1000, 2 * n as u16 + 4);
    }
}

#[test]
fn the_graph_scrolls_sideways_to_the_selection() {
    let edges: Vec<(String, String)> = (0..9)
        .map(|i| (format!("step{i}"), format!("step{}", i + 1)))
        .collect();
    let pairs: Vec<(&str, &str)> = edges.iter().map(|(a, b)| (&a[..], &b[..])).collect();
    let (names, deps) = named(&pairs);
    let m = model(&names, &deps);
    let mut u = ui();
    let screen = |u: &mut UiState| {
        let mut t = Terminal::new(TestBackend::new(80, 24)).unwrap();
        t.draw(|f| draw(f, &m, u, Theme { color: false })).unwrap();
        format!("{}", t.backend())
    };
    let first = screen(&mut u);
    assert!(
        first.contains("[step0]") && !first.contains("[step9]"),
        "{first}"
    );
    u.nav.selected = Some(sample_urn("sim:index:Thing", "step9"));
    let last = screen(&mut u);
    insta::assert_snapshot!("graph_scrolled_right_80x24", last);
    assert!(
        last.contains("[step9]") && !last.contains("[step0]"),
        "{last}"
    );
    u.nav.selected = Some(sample_urn("sim:index:Thing", "step0"));
    assert!(screen(&mut u).contains("[step0]"));
}

/// A frame of a large graph lays out once and orders only the columns up to what it shows:
/// later frames reuse the layout (the selection's blast radius, kept by the layout until it
/// is rebuilt, is the same one), and columns right of the view stay unordered.
#[test]
fn a_frame_of_a_large_graph_lays_out_once_and_orders_only_what_is_in_view() {
    // 40 layers of 500 resources, each depending on two of the layer before.
    let mut rng = StdRng::seed_from_u64(7);
    let (layers, width) = (40, 500);
    let n = layers * width;
    let names: Vec<String> = (0..n).map(|i| format!("r{i:05}")).collect();
    let deps: Vec<Vec<usize>> = (0..n)
        .map(|i| match i / width {
            0 => Vec::new(),
            l => (0..2)
                .map(|_| (l - 1) * width + rng.random_range(0..width))
                .collect(),
        })
        .collect();
    let m = model(&names, &deps);
    let mut u = ui();
    let row = |name: &str| m.index_of(&sample_urn("sim:index:Thing", name)).unwrap();
    let selected = row("r10250");
    u.nav.selected = Some(sample_urn("sim:index:Thing", "r10250"));
    graph_only(&m, &mut u, 160, 45);
    let blast = u.layout.graph.blast_radius(&m, selected);
    for _ in 0..20 {
        graph_only(&m, &mut u, 160, 45);
    }
    assert!(
        std::sync::Arc::ptr_eq(&blast, &u.layout.graph.blast_radius(&m, selected)),
        "a later frame laid the graph out again"
    );
    assert!(u.layout.graph.place(selected).is_some());
    assert!(u.layout.graph.place(row("r00000")).is_some());
    let last_layer = row(&names[(layers - 1) * width]);
    assert_eq!(u.layout.graph.column_of(&m, last_layer), Some(layers - 1));
    assert!(
        u.layout.graph.place(last_layer).is_none(),
        "the last column, far right of the view, was ordered"
    );
}

/// The blast radius that frames ask for again is kept, and a layout rebuilt for a grown graph
/// answers from the new edges, not from what was kept.
#[test]
fn the_blast_radius_follows_the_graph_as_it_grows() {
    let (names, deps) = named(&[("a", "b")]);
    let mut m = model(&names, &deps);
    let mut u = ui();
    u.refresh_graph(&m);
    let a = m.index_of(&sample_urn("sim:index:Thing", "a")).unwrap();
    let name_of = |m: &Model, reach: &[usize]| -> Vec<String> {
        reach
            .iter()
            .map(|&i| m.resource(i).name().to_string())
            .collect()
    };
    assert_eq!(name_of(&m, &u.layout.graph.blast_radius(&m, a)), ["b"]);
    assert_eq!(name_of(&m, &u.layout.graph.blast_radius(&m, a)), ["b"]);
    m.apply(&EngineEvent::RegistrationReceived {
        urn: sample_urn("sim:index:Thing", "c"),
        type_: "sim:index:Thing".into(),
        parent: None,
        custom: true,
        dependencies: [sample_urn("sim:index:Thing", "b")].into(),
    });
    // Rebuilds of a growing graph are spaced by their cost; this one is due.
    std::thread::sleep(std::time::Duration::from_millis(20));
    u.refresh_graph(&m);
    assert_eq!(name_of(&m, &u.layout.graph.blast_radius(&m, a)), ["b", "c"]);
}

/// A filter that keeps fewer columns than the view was scrolled past shows what it keeps: the
/// view used to stay scrolled past them, empty, until the selection moved (`h`).
#[test]
fn a_filter_brings_a_scrolled_graph_back_to_what_it_keeps() {
    let edges: Vec<(String, String)> = (0..9)
        .map(|i| (format!("step{i}"), format!("step{}", i + 1)))
        .collect();
    let pairs: Vec<(&str, &str)> = edges.iter().map(|(a, b)| (&a[..], &b[..])).collect();
    let (names, deps) = named(&pairs);
    let m = model(&names, &deps);
    let mut u = ui();
    let screen = |u: &mut UiState| {
        let mut t = Terminal::new(TestBackend::new(80, 24)).unwrap();
        t.draw(|f| draw(f, &m, u, Theme { color: false })).unwrap();
        format!("{}", t.backend())
    };
    u.nav.selected = Some(sample_urn("sim:index:Thing", "step9"));
    assert!(screen(&mut u).contains("[step9]"));
    let dir = tempfile::tempdir().unwrap();
    let control = idle_control(dir.path());
    for action in std::iter::once(Action::StartFilter)
        .chain("step1".chars().map(Action::FilterChar))
        .chain([Action::FilterCommit])
    {
        update(&mut u, &m, &control, action);
    }
    let filtered = screen(&mut u);
    insta::assert_snapshot!("graph_filtered_after_scrolling_80x24", filtered);
    assert!(filtered.contains("[step1]"), "{filtered}");
}

/// The control of a deployment that never runs: keys that only move the view ask nothing of
/// it.
fn idle_control(dir: &std::path::Path) -> Control {
    Deployment::new(
        Options::default(),
        Snapshot::default(),
        builtin_factory(dir),
        Box::new(NullJournal),
        EventSink::none(),
    )
    .control()
}
