//! One truth across the console's panes, from real runs of the binary (their `--event-log`
//! fed to the model): default providers are told apart by their package, a decline in the preview keeps its rows and
//! leaves the counts, a declined cascade is counted declined rather than done, a cascade that
//! waits keeps the progress short of 100%, and a paused run busies no worker.

use std::sync::Arc;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use stepdeck::app::keymap::Action;
use stepdeck::app::model::Model;
use stepdeck::app::sample::sample_urn;
use stepdeck::app::ui_state::{UiState, ViewId};
use stepdeck::app::update::update;
use stepdeck::app::{ConsoleExit, ConsoleMode, Title};
use stepdeck::bench_support::builtin_factory;
use stepdeck::engine::{
    Deployment, EngineEvent, EventSink, NullJournal, Operation, Options, PropertyMap, Snapshot,
    StepOp,
};
use stepdeck::output::event_log_reader::{RecordedEvent, read_event_log};
use stepdeck::views::{Theme, draw};

use crate::cli_support::{Env, stderr};
use crate::console_support::{cascade_project, followers_project};

/// Runs `stepdeck <args> --event-log FILE` (exiting `status`) and reads back its events.
pub(crate) fn recorded(env: &Env, args: &[&str], status: i32) -> Vec<RecordedEvent> {
    let log = env.root.path().join("events.jsonl");
    let log_arg = log.display().to_string();
    let mut all = args.to_vec();
    all.extend(["--event-log", &log_arg]);
    let out = env.run(&all);
    assert_eq!(out.status.code(), Some(status), "{}", stderr(&out));
    let text = std::fs::read_to_string(&log).unwrap();
    read_event_log(&text, "events.jsonl").unwrap().events
}

/// The model after every event up to (not including) the first `stop` matches.
pub(crate) fn model_until(events: &[RecordedEvent], stop: impl Fn(&EngineEvent) -> bool) -> Model {
    let mut m = Model::new();
    for e in events.iter().take_while(|e| !stop(&e.event)) {
        m.set_now(e.at);
        m.apply(&e.event);
    }
    m
}

pub(crate) fn ui(mode: ConsoleMode, operation: &str) -> UiState {
    let title = Title {
        operation: operation.into(),
        stack: "dev".into(),
        project: "e2e".into(),
        phase: None,
    };
    let mut ui = UiState::new(mode, title);
    ui.overlay.notice = None;
    ui
}

pub(crate) fn screen(m: &Model, ui: &mut UiState, w: u16, h: u16) -> String {
    ui.settle(m);
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| draw(f, m, ui, Theme::colored())).unwrap();
    format!("{}", t.backend())
}

/// `screen` with its times (`1.2s`, `⏱ 00:01`, `Duration: 1s`) masked, for a snapshot of a real run.
pub(crate) fn masked(s: &str) -> String {
    let times = regex::Regex::new(r"\d+\.\ds|\d\d:\d\d|Duration: \d+s").unwrap();
    times
        .replace_all(s, |c: &regex::Captures| {
            c[0].replace(|d: char| d.is_ascii_digit(), "#")
        })
        .into_owned()
}

pub(crate) fn line_with<'a>(s: &'a str, what: &str) -> &'a str {
    s.lines()
        .find(|l| l.contains(what))
        .unwrap_or_else(|| panic!("no line holds {what:?}:\n{s}"))
}

#[test]
fn default_providers_are_told_apart_by_their_package() {
    let env = Env::new(
        "resources:\n  box:\n    type: sim:index:Resource\n    properties:\n      v: 1\n  pet:\n    type: random:index:RandomPet\n    options:\n      dependsOn:\n        - ${box}\n",
    );
    let events = recorded(
        &env,
        &[
            "up",
            "--stack",
            "dev",
            "--yes",
            "--non-interactive",
            "--parallel",
            "1",
        ],
        0,
    );
    let m = model_until(&events, |_| false);
    let mut u = ui(ConsoleMode::Live, "up");
    let s = screen(&m, &mut u, 200, 60);
    assert!(
        line_with(&s, "sim (default)").contains("pulumi:providers:sim"),
        "{s}"
    );
    assert!(
        line_with(&s, "random (default)").contains("pulumi:providers:random"),
        "{s}"
    );
    for provider in ["sim (default)", "random (default)"] {
        let lanes = s
            .lines()
            .filter(|l| l.contains('#') && l.contains(provider));
        assert_eq!(lanes.count(), 1, "the lanes name {provider} too:\n{s}");
    }
    insta::assert_snapshot!("default_providers_200x60", masked(&s));
}

/// A deployment's control that nothing runs behind: keys act on the console only.
pub(crate) fn idle_control(dir: &std::path::Path) -> stepdeck::engine::Control {
    Deployment::new(
        Options::default(),
        Snapshot::default(),
        builtin_factory(dir),
        Box::new(NullJournal),
        EventSink::none(),
    )
    .control()
}

#[test]
fn a_cascade_declined_in_the_preview_reads_kept_and_leaves_the_counts() {
    let env = cascade_project();
    let events = recorded(&env, &["preview", "--stack", "dev"], 0);
    let m = model_until(&events, |_| false);
    let mut u = ui(
        ConsoleMode::Preview {
            awaiting_decision: true,
        },
        "up",
    );
    let before = screen(&m, &mut u, 200, 60);
    assert!(before.lines().next().unwrap().contains("+-2"), "{before}");
    assert!(line_with(&before, "── db").contains("│+-"), "{before}");

    let dir = tempfile::tempdir().unwrap();
    update(&mut u, &m, &idle_control(dir.path()), Action::Decline);
    let s = screen(&m, &mut u, 200, 60);
    let bar = s.lines().next().unwrap();
    assert!(!bar.contains("+-"), "declined rows leave the counts: {bar}");
    for name in ["── db", "── app"] {
        let row = line_with(&s, name);
        assert!(row.contains("declined: kept"), "{row}");
        assert!(!row.contains("+-"), "no replace sign: {row}");
    }
    for lane in s.lines().filter(|l| l.contains('#') && l.contains(" db")) {
        assert!(lane.contains("declined: kept"), "{lane}");
        assert!(!lane.contains("+- db") && !lane.contains("-- db"), "{lane}");
    }
    u.nav.focus = ViewId::Pending;
    insta::assert_snapshot!(
        "preview_declined_200x60",
        masked(&screen(&m, &mut u, 200, 60))
    );
}

#[test]
fn a_cascade_declined_in_the_preview_is_kept_in_the_summary_and_the_details() {
    let env = cascade_project();
    let events = recorded(&env, &["preview", "--stack", "dev"], 0);
    let m = model_until(&events, |_| false);
    let mut u = ui(
        ConsoleMode::Preview {
            awaiting_decision: true,
        },
        "up",
    );
    let dir = tempfile::tempdir().unwrap();
    update(&mut u, &m, &idle_control(dir.path()), Action::Decline);

    u.nav.focus = ViewId::Summary;
    let s = screen(&m, &mut u, 200, 60);
    let resources = s
        .lines()
        .skip_while(|l| !l.contains("Resources:"))
        .take(4)
        .collect::<Vec<_>>()
        .join("\n");
    assert!(!resources.contains("to replace"), "{resources}");
    assert!(
        resources.contains("2 kept as they are (declined in this preview)"),
        "{resources}"
    );
    let kept_at = resources.find("kept as they are").unwrap();
    assert!(
        resources.find("to update").is_none_or(|at| at < kept_at),
        "the ops first, then what is kept: {resources}"
    );

    let db = m
        .resources()
        .iter()
        .find(|r| r.name() == "db")
        .expect("db")
        .urn
        .clone();
    // Enter in the Pending pane opens the gate under its cursor (db), not the tree's row.
    u.nav.focus = ViewId::Pending;
    update(&mut u, &m, &idle_control(dir.path()), Action::OpenDetails);
    assert_eq!(u.nav.selected, Some(db));
    assert!(u.overlay.details);
    let s = screen(&m, &mut u, 200, 60);
    let head = line_with(&s, "not run (preview)");
    assert!(head.contains("declined: kept"), "{head}");
    assert!(!head.contains("+- replace"), "{head}");
    assert!(!head.contains("delete-before-replace"), "{head}");
}

/// The header's `done/total steps N%`.
fn progress(s: &str) -> (usize, usize) {
    let bar = s.lines().next().unwrap();
    let words: Vec<&str> = bar.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "steps").expect("progress");
    let (done, total) = words[at - 1].split_once('/').unwrap();
    (done.parse().unwrap(), total.parse().unwrap())
}

#[test]
fn a_declined_cascade_is_counted_declined_and_a_waiting_one_keeps_the_run_short_of_done() {
    let env = cascade_project();
    env.write("decisions.yaml", "\"**\": decline\n");
    let events = recorded(
        &env,
        &[
            "up",
            "--stack",
            "dev",
            "--yes",
            "--non-interactive",
            "--approve",
            "replacements=ask",
            "--decisions",
            "decisions.yaml",
        ],
        0,
    );
    let waiting = model_until(&events, |e| matches!(e, EngineEvent::Decision { .. }));
    let mut u = ui(ConsoleMode::Live, "up");
    let s = screen(&waiting, &mut u, 200, 60);
    assert!(s.contains("AWAITING APPROVAL"), "{s}");
    let (done, total) = progress(&s);
    assert!(done < total, "a waiting cascade is not done: {s}");

    let m = model_until(&events, |_| false);
    let s = screen(&m, &mut u, 200, 60);
    let bar = s.lines().next().unwrap();
    assert!(bar.contains("DONE"), "{bar}");
    // The tree's rows of the cascade: each says it was declined (and kept).
    let declined = s
        .lines()
        .filter(|l| l.contains("sim:index:") && l.contains("declined by decision file"))
        .count();
    assert_eq!(declined, 2, "db and app:\n{s}");
    // One unit and wording in the header and the Summary: the cascade, with the rows it kept.
    assert!(bar.contains("· 1 replacement declined (2 kept)"), "{bar}");
    u.nav.focus = ViewId::Summary;
    let summary = screen(&m, &mut u, 200, 60);
    assert!(
        summary
            .lines()
            .skip_while(|l| !l.contains("Resources:"))
            .any(|l| l.contains("    1 replacement declined (2 kept)")),
        "{summary}"
    );
    let (done, total) = progress(&s);
    let finished = events
        .iter()
        .filter(|e| matches!(e.event, EngineEvent::StepFinished { .. }))
        .count();
    assert_eq!((done, total), (finished, finished), "{bar}");
    assert!(line_with(&s, " db ").contains("declined: kept"), "{s}");
}

#[test]
fn a_paused_run_busies_no_worker_between_the_steps_of_a_chain() {
    let urn = sample_urn("sim:index:Server", "app");
    let mut m = Model::new();
    for e in [
        EngineEvent::Prelude {
            operation: Operation::Update,
            preview: false,
            stack: "dev".into(),
            project: "e2e".into(),
            parallel: 8,
            parallel_diff: true,
        },
        EngineEvent::ChainQueued {
            chain: 1,
            steps: Arc::from(vec![
                (StepOp::CreateReplacement, urn.clone()),
                (StepOp::Replace, urn.clone()),
            ]),
        },
        EngineEvent::ChainStarted {
            chain: 1,
            worker: 0,
        },
        EngineEvent::StepStarted {
            chain: 1,
            op: StepOp::CreateReplacement,
            urn: urn.clone(),
            worker: 0,
        },
    ] {
        m.apply(&e);
    }
    let mut u = ui(ConsoleMode::Live, "up");
    assert!(screen(&m, &mut u, 200, 60).contains("workers 1/8"));
    m.apply(&EngineEvent::Paused);
    m.apply(&EngineEvent::StepFinished {
        chain: 1,
        op: StepOp::CreateReplacement,
        urn,
        id: Some("id-1".into()),
        outputs: PropertyMap::default(),
        duration: std::time::Duration::from_millis(10),
    });
    let s = screen(&m, &mut u, 200, 60);
    let bar = s.lines().next().unwrap();
    assert!(bar.contains("PAUSED"), "{bar}");
    assert!(bar.contains("workers 0/8"), "{bar}");
}

#[test]
fn a_decline_in_the_apply_drops_the_preview_s_total_at_once() {
    let env = cascade_project();
    let preview = recorded(&env, &["preview", "--stack", "dev"], 0);
    let previewed = model_until(&preview, |_| false).counts;
    env.write("decisions.yaml", "\"**\": decline\n");
    let events = recorded(
        &env,
        &[
            "up",
            "--stack",
            "dev",
            "--yes",
            "--non-interactive",
            "--approve",
            "replacements=ask",
            "--decisions",
            "decisions.yaml",
        ],
        0,
    );
    let live = |stop: &dyn Fn(&EngineEvent) -> bool| {
        let mut m = Model::new();
        m.expect_steps(Some(previewed.previewed_steps()));
        m.expect_steps_of(previewed.previewed_by_urn().clone());
        for e in events.iter().take_while(|e| !stop(&e.event)) {
            m.set_now(e.at);
            m.apply(&e.event);
        }
        m
    };
    let mut u = ui(ConsoleMode::Live, "up");
    let decided = events
        .iter()
        .position(|e| matches!(e.event, EngineEvent::Decision { .. }))
        .unwrap();
    let after = &events[decided + 1].event;
    let m = live(&|e| std::ptr::eq(e, after));
    let (_, total_then) = progress(&screen(&m, &mut u, 200, 60));
    let m = live(&|_| false);
    let s = screen(&m, &mut u, 200, 60);
    let (done, total) = progress(&s);
    assert_eq!(done, total, "{s}");
    assert_eq!(
        total_then, total,
        "the decline drops the total when it is known: {s}"
    );
}

#[test]
fn a_destroy_whose_picks_take_in_every_resource_still_asks_for_the_stack_s_name() {
    let env = cascade_project();
    let events = recorded(
        &env,
        &[
            "destroy",
            "--stack",
            "dev",
            "--preview-only",
            "--non-interactive",
        ],
        0,
    );
    let m = model_until(&events, |_| false);
    let mut u = ui(
        ConsoleMode::Preview {
            awaiting_decision: true,
        },
        "destroy",
    );
    u.name_to_apply = Some("dev".into());
    for r in m.resources() {
        u.presets.selection.toggle_selected(&r.urn);
    }
    let dir = tempfile::tempdir().unwrap();
    let exit = update(&mut u, &m, &idle_control(dir.path()), Action::PreviewApply);
    assert_eq!(exit, None, "y alone destroys nothing");
    assert_eq!(
        u.overlay.typed_name.as_deref(),
        Some(""),
        "the name is asked"
    );
}

/// The Summary pane's block that opens with `heading`, up to its blank line (the pane is the
/// right one of a 200-column screen).
fn block(s: &str, heading: &str) -> Vec<String> {
    s.lines()
        .map(|l| {
            let pane = l.rsplit("││").next().unwrap_or(l);
            let pane = pane.strip_suffix('"').unwrap_or(pane);
            pane.trim_matches(|c| c == '│' || c == ' ').to_string()
        })
        .skip_while(|l| l != heading)
        .take_while(|l| !l.is_empty())
        .collect()
}

#[test]
fn a_decline_in_the_plan_previews_again_and_the_plan_then_says_what_the_apply_does() {
    let env = followers_project();
    let first = model_until(&recorded(&env, &["preview", "--stack", "dev"], 0), |_| {
        false
    });
    let mut u = ui(
        ConsoleMode::Preview {
            awaiting_decision: true,
        },
        "up",
    );
    let before = screen(&first, &mut u, 200, 60);
    // backup and report update only because the replaced database's outputs are unknown.
    assert!(
        before.lines().next().unwrap().contains("~2 +-2"),
        "{before}"
    );
    u.nav.focus = ViewId::Pending;
    let dir = tempfile::tempdir().unwrap();
    let exit = update(&mut u, &first, &idle_control(dir.path()), Action::Decline);
    assert_eq!(
        exit,
        Some(ConsoleExit::Repreview),
        "the plan is previewed again"
    );
    let db = first
        .resources()
        .iter()
        .find(|r| r.name() == "db")
        .unwrap()
        .urn
        .clone();
    assert_eq!(u.presets.declined_roots(), vec![db]);

    // The preview again declines the cascade as its apply will (the engine's path for an
    // operator's decline and a policy's is one): what followed the kept database is the same.
    let declined = ["--approve", "replacements=decline"];
    let mut args = vec!["preview", "--stack", "dev"];
    args.extend(declined);
    let again = model_until(&recorded(&env, &args, 0), |_| false);
    u.nav.focus = ViewId::Resources;
    let s = screen(&again, &mut u, 200, 60);
    let bar = s.lines().next().unwrap();
    assert!(!bar.contains('~') && !bar.contains("+-"), "{bar}");
    for name in ["── backup", "── report"] {
        assert!(line_with(&s, name).contains(" same "), "{s}");
    }
    u.nav.focus = ViewId::Summary;
    let summary = screen(&again, &mut u, 200, 60);
    let outputs = block(&summary, "Outputs:").join("\n");
    assert!(outputs.contains("dbId: \"db-"), "the kept value: {outputs}");
    assert!(
        outputs.contains("dbEngine: \"pg15\""),
        "the kept value: {outputs}"
    );
    assert!(!outputs.contains("unknown"), "{outputs}");

    let mut args = vec!["up", "--stack", "dev", "--yes", "--non-interactive"];
    args.extend(declined);
    let applied = model_until(&recorded(&env, &args, 0), |_| false);
    let mut live = ui(ConsoleMode::Live, "up");
    live.nav.focus = ViewId::Summary;
    let done = screen(&applied, &mut live, 200, 60);
    assert_eq!(
        block(&summary, "Resources:"),
        vec![
            "Resources:",
            "1 replacement declined (2 kept)",
            "5 unchanged"
        ],
        "{summary}"
    );
    assert_eq!(
        block(&summary, "Resources:"),
        block(&done, "Resources:"),
        "the apply did what the plan counted"
    );
    // The Summary pane (the chains beside it are in registration order, which varies).
    let pane = ["Outputs:", "Decisions:", "Resources:"]
        .map(|heading| block(&summary, heading).join("\n"))
        .join("\n\n");
    let ids = regex::Regex::new(r"db-[0-9a-f]{8}").unwrap();
    insta::assert_snapshot!(
        "preview_declined_again_summary",
        ids.replace_all(&pane, "db-########")
    );
}
