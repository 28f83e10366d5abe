//! What operators expect from k9s and lazygit, typed as keys into the console and drawn at
//! 80×24 and 200×60: `z` zooms the focused panel (the graph then shows full names), `:` jumps
//! to a resource by name, `/` `n` `N` search the Log, `f` follows or holds it, `Y` copies the
//! selected error, and `?` lists the keys of the mode the console is in, each once.

#![allow(clippy::unwrap_used, clippy::panic)]

use std::collections::BTreeMap;
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use stepdeck::app::keymap::{Action, map_key};
use stepdeck::app::model::Model;
use stepdeck::app::sample::{sample_timeline, sample_urn};
use stepdeck::app::ui_state::{UiState, ViewId};
use stepdeck::app::update::{key_context, update};
use stepdeck::app::{ConsoleMode, Title};
use stepdeck::bench_support::builtin_factory;
use stepdeck::engine::{
    Control, Deployment, EngineEvent, EventSink, NullJournal, Options, Outcome, Severity, Snapshot,
};
use stepdeck::views::{Theme, draw};

/// A name longer than the graph's node width (22 cells) outside a zoom.
const LONG: &str = "orders-database-read-replica-eu-west-1";

fn sample_model() -> Model {
    let mut m = Model::new();
    for (at, e) in sample_timeline() {
        m.set_now(at);
        m.apply(&e);
    }
    let stack = sample_urn("pulumi:pulumi:Stack", "myproj-dev");
    m.apply(&EngineEvent::RegistrationReceived {
        urn: sample_urn("sim:index:Database", LONG),
        type_: "sim:index:Database".into(),
        parent: Some(stack),
        custom: true,
        dependencies: vec![sample_urn("sim:index:Database", "db")].into(),
    });
    m.set_now(Duration::from_secs(4));
    m
}

fn ui(mode: ConsoleMode) -> UiState {
    let title = Title {
        operation: "up".into(),
        stack: "dev".into(),
        project: "myproj".into(),
        phase: None,
    };
    let mut u = UiState::new(mode, title);
    u.overlay.notice = None;
    u
}

fn screen(m: &Model, u: &mut UiState, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| draw(f, m, u, Theme::colored())).unwrap();
    format!("{}", t.backend())
}

/// A deployment's `Control` that nothing runs behind, and the directory its world lives in.
fn idle_control() -> (Control, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let control = Deployment::new(
        Options::default(),
        Snapshot::default(),
        builtin_factory(dir.path()),
        Box::new(NullJournal),
        EventSink::none(),
    )
    .control();
    (control, dir)
}

/// Types `keys` as the terminal would send them: each read through the key map in the
/// console's context, then applied.
fn type_keys(m: &Model, u: &mut UiState, keys: &[KeyCode]) {
    let (control, _dir) = idle_control();
    for &code in keys {
        let key = KeyEvent::new(code, KeyModifiers::NONE);
        if let Some(action) = map_key(key, key_context(u)) {
            update(u, m, &control, action);
        }
    }
}

fn text(s: &str) -> Vec<KeyCode> {
    s.chars().map(KeyCode::Char).collect()
}

fn lines_with<'a>(s: &'a str, what: &str) -> Vec<&'a str> {
    s.lines().filter(|l| l.contains(what)).collect()
}

#[test]
fn z_gives_the_focused_panel_the_screen_and_the_graph_full_names() {
    let m = sample_model();
    let mut u = ui(ConsoleMode::Live);
    type_keys(&m, &mut u, &[KeyCode::Char('2')]);
    let before = screen(&m, &mut u, 200, 60);
    assert!(
        !before.contains(LONG),
        "the wide layout cuts the name:\n{before}"
    );
    assert!(before.contains("Resources (10)"), "{before}");
    type_keys(&m, &mut u, &[KeyCode::Char('z')]);
    let zoomed = screen(&m, &mut u, 200, 60);
    assert!(zoomed.contains(&format!("[{LONG}]")), "{zoomed}");
    assert!(
        !zoomed.contains("Resources (10)") && !zoomed.contains("Pending replacements"),
        "the graph alone:\n{zoomed}"
    );
    assert!(
        zoomed.lines().last().unwrap().contains("z unzoom"),
        "{zoomed}"
    );
    insta::assert_snapshot!("zoomed_graph_200x60", zoomed);
    // Where the tree's rows were, a click selects nothing: the tree is not on screen.
    let selected = u.nav.selected.clone();
    let (control, _dir) = idle_control();
    update(&mut u, &m, &control, Action::Click { column: 20, row: 5 });
    assert_eq!(u.nav.selected, selected);
    assert_eq!(u.nav.focus, ViewId::Graph);
    type_keys(&m, &mut u, &[KeyCode::Char('z')]);
    assert_eq!(screen(&m, &mut u, 200, 60), before, "z again puts it back");
    type_keys(&m, &mut u, &[KeyCode::Char('5'), KeyCode::Char('z')]);
    let log = screen(&m, &mut u, 200, 60);
    assert!(
        log.lines().nth(1).unwrap().starts_with("\"┌ Log"),
        "the Log fills the body:\n{log}"
    );
    type_keys(&m, &mut u, &[KeyCode::Esc]);
    assert!(
        screen(&m, &mut u, 200, 60).contains("Resources (10)"),
        "Esc unzooms"
    );
}

#[test]
fn colon_jumps_to_a_resource_by_prefix_or_letters_in_order() {
    let m = sample_model();
    let mut u = ui(ConsoleMode::Live);
    type_keys(&m, &mut u, &[KeyCode::Char(':')]);
    type_keys(&m, &mut u, &text("sub"));
    let prompt = screen(&m, &mut u, 80, 24);
    assert!(prompt.contains("Jump to  2 matches"), "{prompt}");
    assert!(
        prompt.contains("▶ subnet-a"),
        "the best match is chosen:\n{prompt}"
    );
    assert!(
        prompt.lines().last().unwrap().contains(": sub█"),
        "{prompt}"
    );
    insta::assert_snapshot!("jump_prompt_80x24", prompt);
    type_keys(&m, &mut u, &[KeyCode::Tab]);
    assert!(screen(&m, &mut u, 80, 24).contains("▶ subnet-b"));
    type_keys(&m, &mut u, &[KeyCode::Up, KeyCode::Up]);
    assert!(screen(&m, &mut u, 80, 24).contains("▶ subnet-b"), "wraps");
    type_keys(&m, &mut u, &[KeyCode::Enter]);
    assert_eq!(u.nav.selected.as_ref().unwrap().name(), "subnet-b");
    assert_eq!(u.nav.focus, ViewId::Resources);
    assert!(u.jump.is_none());

    // Letters in order find a name; a collapsed parent opens; Esc leaves all as it was.
    let net = sample_urn("sim:index:Network", "net");
    u.nav.set_collapsed(&net, true);
    type_keys(&m, &mut u, &[KeyCode::Char(':')]);
    type_keys(&m, &mut u, &text("srv2"));
    type_keys(&m, &mut u, &[KeyCode::Enter]);
    assert_eq!(u.nav.selected.as_ref().unwrap().name(), "server-2");
    let s = screen(&m, &mut u, 80, 24);
    assert!(s.contains("server-2"), "its ancestors are expanded:\n{s}");
    type_keys(
        &m,
        &mut u,
        &[KeyCode::Char(':'), KeyCode::Char('d'), KeyCode::Esc],
    );
    assert_eq!(u.nav.selected.as_ref().unwrap().name(), "server-2");
    type_keys(&m, &mut u, &[KeyCode::Char(':')]);
    type_keys(&m, &mut u, &text("nothing-like-it"));
    assert!(screen(&m, &mut u, 80, 24).contains("Jump to  0 matches"));
    type_keys(&m, &mut u, &[KeyCode::Enter]);
    assert!(
        u.overlay
            .notice
            .as_deref()
            .unwrap()
            .contains("nothing-like-it"),
        "{:?}",
        u.overlay.notice
    );
}

#[test]
fn slash_in_the_log_searches_and_n_goes_from_match_to_match() {
    let mut m = sample_model();
    for k in 1..=40 {
        let what = if k % 10 == 0 { "disk full" } else { "all good" };
        m.note(Severity::Info, &format!("probe {k}: {what}"));
    }
    let mut u = ui(ConsoleMode::Live);
    type_keys(&m, &mut u, &[KeyCode::Char('5'), KeyCode::Char('/')]);
    type_keys(&m, &mut u, &text("DISK"));
    type_keys(&m, &mut u, &[KeyCode::Enter]);
    let s = screen(&m, &mut u, 80, 24);
    assert!(s.contains("/DISK 1/4"), "{s}");
    let current = lines_with(&s, "▶");
    assert_eq!(current.len(), 1, "{s}");
    assert!(current[0].contains("probe 10: disk full"), "{s}");
    insta::assert_snapshot!("log_search_80x24", s);
    type_keys(&m, &mut u, &[KeyCode::Char('n'), KeyCode::Char('n')]);
    let s = screen(&m, &mut u, 80, 24);
    assert!(s.contains("/DISK 3/4"), "{s}");
    assert!(
        lines_with(&s, "▶")[0].contains("probe 30: disk full"),
        "{s}"
    );
    type_keys(&m, &mut u, &[KeyCode::Char('n'), KeyCode::Char('n')]);
    let s = screen(&m, &mut u, 80, 24);
    assert!(s.contains("/DISK 1/4"), "n wraps to the first:\n{s}");
    type_keys(&m, &mut u, &[KeyCode::Char('N')]);
    let s = screen(&m, &mut u, 80, 24);
    assert!(
        lines_with(&s, "▶")[0].contains("probe 40: disk full"),
        "{s}"
    );

    // The match is highlighted in the buffer, not only marked.
    let mut t = Terminal::new(TestBackend::new(80, 24)).unwrap();
    t.draw(|f| draw(f, &m, &mut u, Theme::colored())).unwrap();
    let buf = t.backend().buffer().clone();
    let row = (0..24)
        .find(|&y| {
            let line: String = (0..80).map(|x| buf[(x, y)].symbol().to_string()).collect();
            line.contains("probe 40: disk full")
        })
        .unwrap();
    let line: String = (0..80)
        .map(|x| buf[(x, row)].symbol().to_string())
        .collect();
    let col = line
        .find("disk")
        .map(|b| line[..b].chars().count())
        .unwrap() as u16;
    let plain = line
        .find("probe")
        .map(|b| line[..b].chars().count())
        .unwrap() as u16;
    assert_ne!(
        buf[(col, row)].style(),
        buf[(plain, row)].style(),
        "the match stands out"
    );
    type_keys(&m, &mut u, &[KeyCode::Esc]);
    assert!(
        !screen(&m, &mut u, 80, 24).contains("/DISK"),
        "Esc ends the search"
    );
}

#[test]
fn n_aborts_a_preview_unless_the_log_holds_a_search() {
    let m = sample_model();
    let mut u = ui(ConsoleMode::Preview {
        awaiting_decision: true,
    });
    type_keys(&m, &mut u, &[KeyCode::Char('5'), KeyCode::Char('/')]);
    type_keys(&m, &mut u, &text("started"));
    type_keys(&m, &mut u, &[KeyCode::Enter]);
    let key = KeyEvent::new(KeyCode::Char('n'), KeyModifiers::NONE);
    assert_eq!(map_key(key, key_context(&u)), Some(Action::SearchNext));
    let hints = screen(&m, &mut u, 200, 60);
    let hints = hints.lines().last().unwrap();
    assert!(
        hints.contains("n N match") && !hints.contains("n abort"),
        "{hints}"
    );
    type_keys(&m, &mut u, &[KeyCode::Esc]);
    assert_eq!(map_key(key, key_context(&u)), Some(Action::PreviewAbort));
}

#[test]
fn f_holds_the_log_while_lines_arrive_and_follows_again() {
    let mut m = sample_model();
    let mut u = ui(ConsoleMode::Live);
    type_keys(&m, &mut u, &[KeyCode::Char('5')]);
    let s = screen(&m, &mut u, 80, 24);
    assert!(s.contains("· following"), "{s}");
    type_keys(&m, &mut u, &[KeyCode::Char('f')]);
    for k in 1..=30 {
        m.note(Severity::Info, &format!("arrived {k}"));
    }
    let held = screen(&m, &mut u, 80, 24);
    assert!(held.contains("· held · f follows"), "{held}");
    assert!(!held.contains("arrived 30"), "held lines stay put:\n{held}");
    assert!(held.lines().last().unwrap().contains("f follow"), "{held}");
    insta::assert_snapshot!("log_held_80x24", held);
    type_keys(&m, &mut u, &[KeyCode::Char('f')]);
    let s = screen(&m, &mut u, 80, 24);
    assert!(s.contains("· following") && s.contains("arrived 30"), "{s}");
    m.note(Severity::Info, "arrived 31");
    assert!(screen(&m, &mut u, 80, 24).contains("arrived 31"));
    // Scrolling up stops following, as the title says.
    type_keys(&m, &mut u, &[KeyCode::Up]);
    assert!(screen(&m, &mut u, 80, 24).contains("· held · f follows"));
}

#[test]
fn y_copies_the_selected_error_and_the_details_say_so() {
    let m = sample_model();
    let mut u = ui(ConsoleMode::Live);
    type_keys(&m, &mut u, &[KeyCode::Char('e')]);
    let s = screen(&m, &mut u, 80, 24);
    assert!(s.contains("Y copies the error"), "{s}");
    type_keys(&m, &mut u, &[KeyCode::Char('Y')]);
    assert_eq!(
        u.clipboard.as_deref(),
        Some("quota exceeded for instance type large")
    );
    assert!(screen(&m, &mut u, 80, 24).contains("copied the error of server-2"));
    u.clipboard = None;
    type_keys(
        &m,
        &mut u,
        &[KeyCode::Esc, KeyCode::Char('g'), KeyCode::Char('Y')],
    );
    assert_eq!(u.clipboard, None, "no error, nothing copied");
    assert!(
        u.overlay
            .notice
            .as_deref()
            .unwrap()
            .contains("has no error to copy"),
        "{:?}",
        u.overlay.notice
    );
}

fn finish(m: &mut Model, preview: bool) {
    m.apply(&EngineEvent::Summary {
        counts: BTreeMap::new(),
        declined: 0,
        duration: Duration::from_secs(4),
        outcome: Outcome::Succeeded,
        preview,
        policy_packs: Default::default(),
    });
}

/// The help box's key column (as wide as its longest keys, `Tab  Shift-Tab`, and two more),
/// one entry per line.
fn help_keys(s: &str) -> Vec<String> {
    let top = s.lines().position(|l| l.contains("┌ Keys")).unwrap();
    let line = s.lines().nth(top).unwrap();
    let col = line[..line.find("┌ Keys").unwrap()].chars().count();
    s.lines()
        .skip(top + 1)
        .take_while(|l| !l.contains("└ ↑↓ scroll"))
        .map(|l| l.chars().skip(col + 1).take(16).collect::<String>())
        .map(|k| k.trim().to_string())
        .filter(|k| !k.is_empty())
        .collect()
}

#[test]
fn help_lists_the_keys_of_the_current_mode_each_once() {
    let running = sample_model();
    let mut finished = sample_model();
    finish(&mut finished, false);
    let mut preview = sample_model();
    finish(&mut preview, true);
    let deciding = ConsoleMode::Preview {
        awaiting_decision: true,
    };
    let read_only = ConsoleMode::Preview {
        awaiting_decision: false,
    };
    let cases = [
        ("running", &running, ConsoleMode::Live, false),
        ("finished", &finished, ConsoleMode::Live, false),
        ("deciding", &preview, deciding, false),
        ("read_only_preview", &preview, read_only, false),
        ("watch_only", &running, ConsoleMode::Live, true),
    ];
    for (name, m, mode, watch_only) in cases {
        let mut u = ui(mode);
        u.watch_only = watch_only;
        type_keys(m, &mut u, &[KeyCode::Char('?')]);
        let s = screen(m, &mut u, 200, 60);
        insta::assert_snapshot!(format!("help_{name}_200x60"), s);
        let keys = help_keys(&s);
        let words: Vec<&str> = keys.iter().flat_map(|k| k.split_whitespace()).collect();
        let mut once = words.clone();
        once.sort();
        once.dedup();
        assert_eq!(words.len(), once.len(), "{name}: a key twice:\n{s}");
        let has = |k: &str| words.contains(&k);
        assert_eq!(has("y"), name == "deciding", "{name}:\n{s}");
        assert_eq!(has("space"), name == "deciding", "{name}:\n{s}");
        assert_eq!(
            has("p") && has("c") && has("K"),
            name == "running",
            "{name}:\n{s}"
        );
        assert_eq!(
            has("a"),
            matches!(name, "running" | "deciding"),
            "{name}:\n{s}"
        );
        for k in [":", "z", "Y", "/", "?"] {
            assert!(has(k), "{name} lacks {k}:\n{s}");
        }
    }
}
