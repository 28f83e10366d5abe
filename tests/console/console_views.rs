//! Snapshot tests of every console view, drawn with ratatui's TestBackend at 80×24 (one view at
//! a time) and 200×60 (the wide layout), from a model reduced from a realistic event timeline.

#![allow(clippy::unwrap_used, clippy::panic)]

use std::collections::BTreeMap;
use std::time::Duration;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use stepdeck::app::keymap::Action;
use stepdeck::app::model::Model;
use stepdeck::app::sample::{as_preview, sample_timeline};
use stepdeck::app::ui_state::{Confirm, UiState, ViewId};
use stepdeck::app::update::update;
use stepdeck::app::{ConsoleMode, Title};
use stepdeck::bench_support::builtin_factory;
use stepdeck::engine::run::events::PendingCreate;
use stepdeck::engine::{
    Control, Deployment, EngineEvent, EventSink, NullJournal, Options, Outcome, Severity, Snapshot,
    StepOp, Urn,
};
use stepdeck::views::{Theme, draw};

fn sample_model() -> Model {
    let mut m = Model::new();
    for (at, e) in sample_timeline() {
        m.set_now(at);
        m.apply(&e);
    }
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
    UiState::new(mode, title)
}

fn screen(m: &Model, ui: &mut UiState, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| draw(f, m, ui, Theme::colored())).unwrap();
    format!("{}", t.backend())
}

fn select(ui: &mut UiState, m: &Model, name: &str) {
    let urn: &Urn = &m.resources().iter().find(|r| r.name() == name).unwrap().urn;
    ui.nav.selected = Some(urn.clone());
}

#[test]
fn every_view_at_80x24() {
    let m = sample_model();
    for v in ViewId::ALL {
        let mut u = ui(ConsoleMode::Live);
        u.nav.focus = v;
        select(&mut u, &m, "db");
        let name = format!("narrow_{}", v.title().replace(' ', "_").to_lowercase());
        insta::assert_snapshot!(name, screen(&m, &mut u, 80, 24));
    }
}

#[test]
fn every_view_at_200x60() {
    let m = sample_model();
    for v in ViewId::ALL {
        let mut u = ui(ConsoleMode::Live);
        u.nav.focus = v;
        select(&mut u, &m, "subnet-b");
        let name = format!("wide_{}", v.title().replace(' ', "_").to_lowercase());
        insta::assert_snapshot!(name, screen(&m, &mut u, 200, 60));
    }
}

#[test]
fn tabs_too_wide_for_the_terminal_keep_every_key_and_name_the_focused_view() {
    let m = sample_model();
    for (width, focus) in [(60, ViewId::Summary), (40, ViewId::Pending)] {
        let mut u = ui(ConsoleMode::Live);
        u.nav.focus = focus;
        let s = screen(&m, &mut u, width, 20);
        let tabs = s.lines().nth(1).unwrap();
        for v in ViewId::ALL {
            assert!(tabs.contains(&format!(" {} ", v.number())), "{tabs}");
        }
        let name = if focus == ViewId::Pending {
            "Pending"
        } else {
            focus.title()
        };
        assert!(
            tabs.contains(&format!("{} {name} ", focus.number())),
            "{tabs}"
        );
        assert!(
            !tabs.contains("Resources"),
            "the others by their key only: {tabs}"
        );
    }
}

#[test]
fn details_help_and_confirm_overlays() {
    let m = sample_model();
    for (w, h) in [(80, 24), (200, 60)] {
        let mut u = ui(ConsoleMode::Live);
        select(&mut u, &m, "db");
        u.overlay.details = true;
        insta::assert_snapshot!(format!("details_{w}x{h}"), screen(&m, &mut u, w, h));
        let mut u = ui(ConsoleMode::Live);
        u.overlay.help = true;
        insta::assert_snapshot!(format!("help_{w}x{h}"), screen(&m, &mut u, w, h));
    }
    let mut u = ui(ConsoleMode::Live);
    u.overlay.confirm = Some(Confirm::Cancel);
    insta::assert_snapshot!("confirm_cancel_80x24", screen(&m, &mut u, 80, 24));
}

#[test]
fn graph_focus_on_the_selection() {
    let m = sample_model();
    let mut u = ui(ConsoleMode::Live);
    u.nav.focus = ViewId::Graph;
    u.nav.graph_focus = true;
    select(&mut u, &m, "server-1");
    insta::assert_snapshot!("graph_focus_80x24", screen(&m, &mut u, 80, 24));
}

/// The sample timeline as a preview that finished.
fn finished_preview() -> Model {
    preview_ending(Outcome::Succeeded)
}

/// What a preview's summary counts: each op as planned (as the engine's summary does).
fn planned_counts(m: &Model) -> BTreeMap<StepOp, usize> {
    [
        StepOp::Create,
        StepOp::Update,
        StepOp::Replace,
        StepOp::Delete,
    ]
    .into_iter()
    .map(|op| (op, m.counts.planned(op)))
    .filter(|&(_, n)| n > 0)
    .collect()
}

/// The sample run as its preview shows it before it ends: planned, nothing run.
pub(crate) fn planned_preview() -> Model {
    let mut m = Model::new();
    for (at, e) in sample_timeline() {
        m.set_now(at);
        let e = match as_preview(e) {
            EngineEvent::StepStarted { .. }
            | EngineEvent::StepFinished { .. }
            | EngineEvent::StepFailed { .. }
            | EngineEvent::ChainStarted { .. }
            | EngineEvent::ChainFinished { .. } => continue,
            other => other,
        };
        m.apply(&e);
    }
    m
}

fn preview_ending(outcome: Outcome) -> Model {
    let mut m = planned_preview();
    m.apply(&EngineEvent::Summary {
        counts: planned_counts(&m),
        declined: 0,
        duration: Duration::from_secs(4),
        outcome,
        preview: true,
        policy_packs: Default::default(),
    });
    m
}

#[test]
fn a_failed_preview_offers_only_to_abort() {
    let m = preview_ending(Outcome::Failed(stepdeck::engine::RunFailure::new(
        stepdeck::engine::FailureCause::Step,
        "1 step failed",
    )));
    let mut u = ui(ConsoleMode::Preview {
        awaiting_decision: true,
    });
    u.nav.focus = ViewId::Resources;
    let s = screen(&m, &mut u, 200, 60);
    let hint = s.lines().last().unwrap_or_default();
    assert!(hint.contains("n abort"), "{hint}");
    assert!(
        !hint.contains("y apply")
            && !hint.contains("space select")
            && !hint.contains("x exclude")
            && !hint.contains("a approve"),
        "{hint}"
    );
}

#[test]
fn a_finished_preview_asks_to_apply() {
    let m = finished_preview();
    for (w, h) in [(80, 24), (200, 60)] {
        let mut u = ui(ConsoleMode::Preview {
            awaiting_decision: true,
        });
        let s = screen(&m, &mut u, w, h);
        assert!(s.contains("PREVIEW — y apply · n abort"), "{s}");
        insta::assert_snapshot!(format!("preview_{w}x{h}"), s);
    }
}

/// Too narrow for the panels side by side but tall enough (100x30), a plan keeps the Log in
/// view under the tree: its warnings show without switching to it.
#[test]
fn a_narrow_but_tall_plan_shows_the_log_under_the_tree() {
    let mut m = finished_preview();
    m.note(
        Severity::Warning,
        "create of r2 will wait for a decision (creates=ask)",
    );
    let mut u = ui(ConsoleMode::Preview {
        awaiting_decision: true,
    });
    let s = screen(&m, &mut u, 100, 30);
    assert!(s.contains("┌ Resources") && s.contains("┌ Log"), "{s}");
    assert!(s.contains("will wait for a decision"), "{s}");
    insta::assert_snapshot!("preview_100x30", s);
}

#[test]
fn a_plan_names_its_pending_creates_in_the_top_bar_and_lists_them_in_the_log() {
    let mut m = finished_preview();
    let creates = ["logs", "server-3"]
        .iter()
        .map(|n| PendingCreate {
            urn: Urn::parse(&format!("urn:pulumi:dev::myproj::sim:index:Bucket::{n}")).unwrap(),
            type_: "sim:index:Bucket".into(),
        })
        .collect();
    m.apply(&EngineEvent::PendingCreates { creates });
    for (w, h) in [(80, 24), (200, 60)] {
        let mut u = ui(ConsoleMode::Preview {
            awaiting_decision: true,
        });
        u.nav.focus = ViewId::Log;
        let s = screen(&m, &mut u, w, h);
        assert!(s.contains("⚠ 2 pending creates · C clear"), "{s}");
        insta::assert_snapshot!(format!("preview_pending_creates_{w}x{h}"), s);
        u.presets.mark_pending_creates(Some(2));
        let s = screen(&m, &mut u, w, h);
        assert!(s.contains("2 pending creates will be cleared"), "{s}");
    }
}

#[test]
fn awaiting_approval_is_in_the_top_bar_at_80_columns() {
    let m = sample_model();
    let mut u = ui(ConsoleMode::Live);
    let s = screen(&m, &mut u, 80, 24);
    let top = s.lines().next().unwrap();
    assert!(top.contains("AWAITING APPROVAL"), "{top}");
    assert!(s.contains("waiting for approval"));
}

#[test]
fn a_filter_shows_matches_with_their_ancestors() {
    let m = sample_model();
    let mut u = ui(ConsoleMode::Live);
    u.nav.filter = stepdeck::app::filter::Filter::parse("server").unwrap();
    let s = screen(&m, &mut u, 80, 24);
    for name in ["myproj-dev", "net", "subnet-a", "server-1", "server-2"] {
        assert!(s.contains(name), "{name} missing:\n{s}");
    }
    assert!(!s.contains("old-logs"), "{s}");
}

#[test]
fn a_large_stack_scrolls_to_its_last_resource() {
    use stepdeck::app::sample::{sample_urn, step_info};
    use stepdeck::engine::StepOp;
    let stack = sample_urn("pulumi:pulumi:Stack", "");
    let mut m = Model::new();
    m.apply(&EngineEvent::StepPlanned(Box::new(step_info(
        StepOp::Same,
        &stack,
        None,
        0,
    ))));
    for i in 0..10_000u64 {
        let u = sample_urn("sim:index:Thing", &format!("thing-{i:05}"));
        m.apply(&EngineEvent::StepPlanned(Box::new(step_info(
            StepOp::Create,
            &u,
            Some(&stack),
            i + 1,
        ))));
    }
    let mut u = ui(ConsoleMode::Live);
    select(&mut u, &m, "thing-09999");
    let s = screen(&m, &mut u, 80, 24);
    assert!(s.contains("thing-09999"), "{s}");
    assert!(
        s.contains("└── thing-09999"),
        "the last child closes the tree:\n{s}"
    );
    assert!(!s.contains("thing-00000"), "{s}");
    assert!(s.contains("Resources (10001)"), "{s}");
}

fn failed(mut m: Model) -> Model {
    m.apply(&EngineEvent::Summary {
        counts: BTreeMap::from([(stepdeck::engine::StepOp::Create, 2)]),
        declined: 0,
        duration: Duration::from_secs(4),
        outcome: Outcome::Failed(stepdeck::engine::RunFailure::new(
            stepdeck::engine::FailureCause::Step,
            "1 step failed",
        )),
        preview: false,
        policy_packs: Default::default(),
    });
    m
}

#[test]
fn the_failed_screen_sums_up_the_run() {
    let m = failed(sample_model());
    for (w, h) in [(80, 24), (160, 45)] {
        let mut u = ui(ConsoleMode::Live);
        u.settle(&m);
        let s = screen(&m, &mut u, w, h);
        assert!(s.contains("Failures:"), "{s}");
        assert!(s.contains("quota exceeded for instance type"), "{s}");
        assert!(
            !s.contains("waiting for approval"),
            "nothing waits after the end:\n{s}"
        );
        insta::assert_snapshot!(format!("failed_{w}x{h}"), s);
    }
}

#[test]
fn a_failure_of_several_errors_shows_one_per_line() {
    let mut m = sample_model();
    m.apply(&EngineEvent::Summary {
        counts: BTreeMap::new(),
        declined: 0,
        duration: Duration::from_secs(1),
        outcome: Outcome::Failed(stepdeck::engine::RunFailure::new(
            stepdeck::engine::FailureCause::Step,
            "first: app not run\nsecond: bad failed",
        )),
        preview: false,
        policy_packs: Default::default(),
    });
    let mut u = ui(ConsoleMode::Live);
    u.nav.focus = ViewId::Summary;
    let s = screen(&m, &mut u, 80, 24);
    assert!(!s.contains("runsecond"), "{s}");
    assert!(s.lines().any(|l| l.contains("│second: bad failed")), "{s}");
}

#[test]
fn a_skipped_step_s_row_shows_no_change_sign() {
    let mut m = sample_model();
    let db = m
        .resources()
        .iter()
        .find(|r| r.urn.name() == "db")
        .unwrap()
        .urn
        .clone();
    m.apply(&EngineEvent::StepSkipped {
        op: stepdeck::engine::StepOp::Replace,
        urn: db,
        reason: "declined by the operator".into(),
    });
    let mut u = ui(ConsoleMode::Live);
    u.settle(&m);
    let s = screen(&m, &mut u, 200, 60);
    let row = s.lines().find(|l| l.contains("── db ")).unwrap_or_default();
    assert!(row.contains("skipped"), "{row}\n{s}");
    let sign = &row[..row.find("├").unwrap_or_default()];
    assert!(
        !sign.contains('+') && !sign.contains('-'),
        "no +- on a skipped row: {row}"
    );
}

#[test]
fn a_multi_line_error_reads_as_one_line_on_its_row_root_cause_first() {
    let mut m = sample_model();
    let urn = stepdeck::app::sample::sample_urn("sim:index:Resource", "hook");
    m.apply(&EngineEvent::StepFailed {
        chain: 99,
        op: stepdeck::engine::StepOp::Create,
        urn,
        error: "command \"exit 3\" failed with exit status 3:\nERROR: disk full\n".into(),
        duration: Duration::from_millis(10),
    });
    let hook = m
        .resources()
        .iter()
        .find(|r| r.urn.name() == "hook")
        .unwrap();
    let (info, is_error) = stepdeck::views::resources::info_text(hook);
    assert!(is_error);
    assert_eq!(
        info,
        "ERROR: disk full · command \"exit 3\" failed with exit status 3"
    );
}

#[test]
fn the_graph_names_the_blast_radius_and_follows_the_filter() {
    let m = sample_model();
    let mut u = ui(ConsoleMode::Live);
    u.nav.focus = ViewId::Graph;
    select(&mut u, &m, "net");
    let s = screen(&m, &mut u, 80, 24);
    assert!(s.contains("depend on net: subnet-a"), "{s}");
    u.nav.filter = stepdeck::app::filter::Filter::parse("type:Server").unwrap();
    let s = screen(&m, &mut u, 80, 24);
    insta::assert_snapshot!("graph_filtered_80x24", s);
    assert!(s.contains("server-1") && !s.contains("subnet-a"), "{s}");
}

#[test]
fn status_and_urn_filters_keep_what_they_name() {
    let m = sample_model();
    let mut u = ui(ConsoleMode::Live);
    let names = |u: &mut UiState| -> Vec<String> {
        u.refresh_tree(&m);
        u.layout
            .tree
            .rows()
            .iter()
            .map(|r| m.resource(r.idx).name().to_string())
            .collect()
    };
    u.nav.filter = stepdeck::app::filter::Filter::parse("status:failed").unwrap();
    assert_eq!(names(&mut u), ["myproj-dev", "net", "subnet-a", "server-2"]);
    u.nav.filter = stepdeck::app::filter::Filter::parse("urn:Bucket").unwrap();
    assert_eq!(names(&mut u), ["myproj-dev", "old-logs"]);
    assert!(stepdeck::app::filter::Filter::parse("status:exploded").is_err());
}

#[test]
fn zooming_out_fits_more_of_the_graph() {
    let m = sample_model();
    let mut u = ui(ConsoleMode::Live);
    u.nav.focus = ViewId::Graph;
    select(&mut u, &m, "net");
    u.nav.graph_zoomed_out = true;
    let s = screen(&m, &mut u, 80, 24);
    insta::assert_snapshot!("graph_zoomed_out_80x24", s);
    assert!(s.contains("Z names"), "{s}");
}

/// `hideDiffs`: the details view shows a changed hidden property as one `~ key (hidden)` line,
/// without its values; the other changes are shown as usual.
#[test]
fn details_compact_hidden_diffs() {
    use stepdeck::app::sample::{sample_urn, step_info};
    use stepdeck::engine::{PropertyMap, PropertyValue, StepOp};

    let props = |v: serde_json::Value| -> PropertyMap {
        v.as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), PropertyValue::from_json(v).unwrap()))
            .collect()
    };
    let urn = sample_urn("sim:index:Resource", "quiet");
    let mut info = step_info(StepOp::Update, &urn, None, 1);
    info.old_inputs = Some(props(serde_json::json!(
        {"tags": {"owner": "old-owner"}, "size": "old-size", "name": "one"}
    )));
    info.new_inputs = Some(props(serde_json::json!(
        {"tags": {"owner": "new-owner"}, "size": "new-size", "name": "two"}
    )));
    info.diffs = vec!["name".into(), "size".into(), "tags".into()];
    info.hide_diffs = vec!["tags".into(), "size".into()];
    let mut m = Model::new();
    m.apply(&EngineEvent::StepPlanned(Box::new(info)));
    let mut u = ui(ConsoleMode::Live);
    select(&mut u, &m, "quiet");
    u.overlay.details = true;
    let text = screen(&m, &mut u, 80, 24);
    assert!(
        !text.contains("old-owner") && !text.contains("new-size"),
        "{text}"
    );
    insta::assert_snapshot!("details_hidden_diffs_80x24", text);
}

/// Moves the console as keys would, through `update`.
pub(crate) fn press(m: &Model, u: &mut UiState, actions: &[Action]) {
    let dir = tempfile::tempdir().unwrap();
    let control = idle_control(dir.path());
    for action in actions {
        update(u, m, &control, action.clone());
    }
}

/// `g` (Home) and PgUp in the Log go back to older entries and stop at the oldest: they used
/// to scroll past every entry and leave the pane empty. `G` follows the newest again.
#[test]
fn home_and_page_up_in_the_log_stop_at_the_oldest_entry() {
    let mut m = sample_model();
    let mut u = ui(ConsoleMode::Live);
    u.nav.focus = ViewId::Log;
    let newest = screen(&m, &mut u, 80, 24);
    for key in [Action::PageUp, Action::Home] {
        press(&m, &mut u, std::slice::from_ref(&key));
        let s = screen(&m, &mut u, 80, 24);
        assert_eq!(s, newest, "{key:?}: the whole log fits, nothing to scroll");
    }
    for k in 1..=30 {
        m.note(Severity::Info, &format!("note {k} from the operator"));
    }
    press(&m, &mut u, &[Action::End]);
    let newest = screen(&m, &mut u, 80, 24);
    assert!(newest.contains("note 30 from") && !newest.contains("note 1 from"));
    press(&m, &mut u, &[Action::Home]);
    let oldest = screen(&m, &mut u, 80, 24);
    let first = &m.log.entries()[0];
    assert!(
        oldest.contains(first.urn.as_ref().unwrap().name()) && !oldest.contains("note 30 from"),
        "{oldest}"
    );
    insta::assert_snapshot!("log_home_80x24", oldest);
    press(&m, &mut u, &[Action::PageDown]);
    let page = screen(&m, &mut u, 80, 24);
    assert!(page != oldest && page != newest, "{page}");
    press(&m, &mut u, &[Action::End]);
    m.note(Severity::Info, "note 31 from the operator");
    assert!(
        screen(&m, &mut u, 80, 24).contains("note 31 from"),
        "the tail is followed"
    );
}

/// `G` (End) in the Summary shows its last lines and goes no further: it used to scroll past
/// them and leave the panel empty.
#[test]
fn end_in_the_summary_stops_at_its_last_line() {
    let m = failed(sample_model());
    let text = stepdeck::views::summary::summary_text(
        &m,
        &stepdeck::app::preset::Presets::default(),
        None,
    )
    .unwrap();
    let last = text.lines().rev().find(|l| !l.trim().is_empty()).unwrap();
    let mut u = ui(ConsoleMode::Live);
    u.nav.focus = ViewId::Summary;
    let top = screen(&m, &mut u, 80, 16);
    assert!(
        !top.contains(last.trim()),
        "the summary is longer than the panel:\n{top}"
    );
    press(&m, &mut u, &[Action::End]);
    let end = screen(&m, &mut u, 80, 16);
    assert!(end.contains(last.trim()), "{end}");
    insta::assert_snapshot!("summary_end_80x16", end);
    press(&m, &mut u, &[Action::Down, Action::PageDown, Action::End]);
    assert_eq!(
        screen(&m, &mut u, 80, 16),
        end,
        "no further than the last line"
    );
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

/// The finished preview of the sample stack in which a policy pack remediated `net`, warned on
/// it, and refused `db` with a mandatory policy.
fn preview_with_violations() -> Model {
    use stepdeck::engine::run::events::{PolicyRemediation, PolicyViolation};
    use stepdeck::engine::run::policy::{EnforcementLevel, PolicySeverity};
    use stepdeck::engine::{PropertyMap, PropertyValue};
    let mut m = Model::new();
    for (at, e) in sample_timeline() {
        m.set_now(at);
        if let EngineEvent::StepStarted { .. }
        | EngineEvent::StepFinished { .. }
        | EngineEvent::StepFailed { .. }
        | EngineEvent::ChainStarted { .. }
        | EngineEvent::ChainFinished { .. } = e
        {
            continue;
        }
        m.apply(&as_preview(e));
    }
    let urn = |name: &str| {
        m.resources()
            .iter()
            .find(|r| r.name() == name)
            .unwrap()
            .urn
            .clone()
    };
    let violation = |name: &str, policy: &str, level, message: &str| {
        EngineEvent::PolicyViolation(Box::new(PolicyViolation {
            urn: urn(name),
            policy_name: policy.into(),
            pack_name: "py-pack".into(),
            pack_version: "1.2.3".into(),
            message: message.into(),
            level,
            severity: PolicySeverity::Unspecified,
        }))
    };
    let cidr = |c: &str| PropertyMap::from([("cidr".to_string(), PropertyValue::String(c.into()))]);
    let events = [
        EngineEvent::PolicyLoad {
            path: "../py_pack".into(),
        },
        EngineEvent::PolicyRemediation(Box::new(PolicyRemediation {
            urn: urn("net"),
            policy_name: "private-range".into(),
            pack_name: "py-pack".into(),
            pack_version: "1.2.3".into(),
            before: cidr("10.0.0.0/16"),
            after: cidr("10.1.0.0/16"),
        })),
        violation(
            "net",
            "watched",
            EnforcementLevel::Advisory,
            "Networks are watched\nnetworks are watched",
        ),
        violation(
            "db",
            "no-pg15",
            EnforcementLevel::Mandatory,
            "Databases run a supported engine\npg15 is end of life",
        ),
    ];
    for e in &events {
        m.apply(e);
    }
    m.apply(&EngineEvent::Summary {
        counts: planned_counts(&m),
        declined: 0,
        duration: Duration::from_secs(4),
        outcome: Outcome::Failed(stepdeck::engine::RunFailure::new(
            stepdeck::engine::FailureCause::Step,
            "preview failed",
        )),
        preview: true,
        policy_packs: Default::default(),
    });
    m
}

#[test]
fn policy_violations_mark_rows_fill_details_and_the_summary_and_block_y() {
    let m = preview_with_violations();
    let mode = ConsoleMode::Preview {
        awaiting_decision: true,
    };
    let mut u = ui(mode);
    u.nav.focus = ViewId::Resources;
    let s = screen(&m, &mut u, 80, 24);
    assert!(s.contains("✖ db") && s.contains("⚠ net"), "{s}");
    assert!(!s.contains("⚠ subnet-a"), "{s}");
    insta::assert_snapshot!("policy_rows_80x24", s);

    select(&mut u, &m, "db");
    u.overlay.details = true;
    let s = screen(&m, &mut u, 80, 24);
    assert!(
        s.contains("policy violations:")
            && s.contains("[mandatory]  no-pg15  (py-pack@v1.2.3)")
            && s.contains("pg15 is end of life"),
        "{s}"
    );
    select(&mut u, &m, "net");
    let s = screen(&m, &mut u, 80, 24);
    assert!(
        s.contains("[advisory]  watched  (py-pack@v1.2.3)")
            && s.contains("remediated by private-range (py-pack@v1.2.3):")
            && s.contains(r#"~ cidr: "10.0.0.0/16" => "10.1.0.0/16""#),
        "{s}"
    );
    insta::assert_snapshot!("policy_details_80x24", s);

    let mut u = ui(mode);
    u.nav.focus = ViewId::Summary;
    let s = screen(&m, &mut u, 80, 24);
    assert!(
        s.contains("Policies:")
            && s.contains("✖ py-pack@v1.2.3: 1 mandatory, 1 advisory, 1 remediated")
            && s.contains("[mandatory]  no-pg15  (sim:index:Database: db)"),
        "{s}"
    );
    insta::assert_snapshot!("policy_summary_80x24", s);

    u.nav.focus = ViewId::Log;
    let s = screen(&m, &mut u, 80, 24);
    assert!(
        s.contains("[mandatory] no-pg15 (py-pack@v1.2.3): pg15 is end of life")
            && s.contains("remediated by private-range (py-pack@v1.2.3)"),
        "{s}"
    );

    press(&m, &mut u, &[Action::TogglePolicies]);
    let s = screen(&m, &mut u, 80, 24);
    assert!(
        s.contains("py-pack@v1.2.3  1 mandatory · 1 advisory · 1 remediated")
            && s.contains("[mandatory]  no-pg15  on db")
            && s.contains("[advisory]  watched  on net"),
        "{s}"
    );
    insta::assert_snapshot!("policy_overlay_80x24", s);
    press(&m, &mut u, &[Action::Close]);
    assert!(!u.overlay.policies);

    press(&m, &mut u, &[Action::PreviewApply]);
    assert_eq!(
        u.overlay.notice.as_deref(),
        Some("a mandatory policy refuses it: no-pg15 (py-pack@v1.2.3) on db; n aborts")
    );
}
