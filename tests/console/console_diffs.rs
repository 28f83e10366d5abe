//! View 6 and the details pane over a real preview: the binary deploys a project, the project
//! changes (an update with secrets and assets, a replacement, a create and a delete), and the
//! preview's event log is reduced into the console's model and drawn (insta).

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use stepdeck::app::keymap::Action;
use stepdeck::app::model::Model;
use stepdeck::app::ui_state::{UiState, ViewId};
use stepdeck::app::{ConsoleMode, Title};
use stepdeck::output::event_log_reader::read_event_log;
use stepdeck::views::{Theme, draw};

use crate::cli_support::Env;

/// The first program: a site with a page (a file asset), a note (a text asset), a secret and
/// tags; a network; a resource the second program drops.
const FIRST: &str = "resources:
  site:
    type: sim:index:Resource
    properties:
      size: small
      page:
        fn::fileAsset: index.html
      note:
        fn::stringAsset: hello
      password:
        fn::secret: hunter2
      tags:
        env: dev
  net:
    type: sim:index:Network
    properties:
      cidr: 10.0.0.0/16
  old:
    type: sim:index:Resource
    properties:
      keep: true
";

/// The second program: the site's size, page, note, secret and tags change, the network's
/// CIDR forces its replacement, `old` is gone and `fresh` is new. Each waits for the one before,
/// so the steps (and view 6's blocks) come in one order.
const SECOND: &str = "resources:
  site:
    type: sim:index:Resource
    properties:
      size: large
      page:
        fn::fileAsset: index.html
      note:
        fn::stringAsset: \"good bye, and thanks for all the fish that we were given over the years\\nsecond line\"
      password:
        fn::secret: swordfish
      tags:
        env: dev
        owner: ops
  net:
    type: sim:index:Network
    properties:
      cidr: 10.1.0.0/16
    options:
      dependsOn:
        - ${site}
  fresh:
    type: sim:index:Resource
    properties:
      archive:
        fn::fileArchive: ./site
    options:
      dependsOn:
        - ${net}
";

/// The project updated with [`FIRST`], then changed to [`SECOND`].
fn changed_project() -> Env {
    let env = Env::with_passphrase(FIRST);
    env.write("index.html", "<h1>v1</h1>");
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    env.write(
        "Pulumi.yaml",
        &format!("name: e2e\nruntime: yaml\n{SECOND}"),
    );
    env.write("index.html", "<h1>v2</h1>");
    std::fs::create_dir_all(env.project().join("site")).unwrap();
    env.write("site/a.txt", "a");
    env
}

/// The model of the preview of `env`'s program, as the console reduces the preview's events.
fn previewed_in(env: &Env) -> Model {
    let log = env.root.path().join("preview.jsonl");
    env.ok(&[
        "preview",
        "--stack",
        "dev",
        "--non-interactive",
        "--event-log",
        &log.display().to_string(),
    ]);
    let text = std::fs::read_to_string(&log).unwrap();
    let mut m = Model::new();
    for e in read_event_log(&text, "preview.jsonl").unwrap().events {
        m.set_now(e.at);
        m.apply(&e.event);
    }
    m
}

/// The model of the preview of [`SECOND`] after an update of [`FIRST`].
fn previewed() -> Model {
    previewed_in(&changed_project())
}

fn preview_ui() -> UiState {
    let title = Title {
        operation: "preview".into(),
        stack: "dev".into(),
        project: "e2e".into(),
        phase: None,
    };
    UiState::new(
        ConsoleMode::Preview {
            awaiting_decision: true,
        },
        title,
    )
}

fn screen(m: &Model, ui: &mut UiState, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| draw(f, m, ui, Theme::colored())).unwrap();
    format!("{}", t.backend())
}

fn select(ui: &mut UiState, m: &Model, name: &str) {
    let r = m.resources().iter().find(|r| r.name() == name).unwrap();
    ui.nav.selected = Some(r.urn.clone());
}

/// The screen below its top bar (whose clock is the run's), with what changes from run to
/// run (the sim's random `uid`, a history entry's offset) written as placeholders.
fn stable(screen: &str) -> String {
    let mut out = String::new();
    for line in screen.lines().skip(1) {
        let mut line = line.to_string();
        if let Some(at) = line.find("uid: \"") {
            let start = at + 6;
            line.replace_range(start..start + 8, "<random>");
        }
        if let Some(at) = line.find("+00:0") {
            line.replace_range(at..at + 9, "+<offset>");
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// View 6 lists what each step changes as `pulumi preview --diff` does, under the diff gauge:
/// it used to show only which diffs ran in parallel, never a property.
#[test]
fn view_6_lists_each_change_property_by_property_under_the_diff_gauge() {
    let m = previewed();
    let mut u = preview_ui();
    u.nav.focus = ViewId::Diffs;
    select(&mut u, &m, "net");
    let s = screen(&m, &mut u, 100, 30);
    for line in [
        "│diffs ░░░",
        "0/0  running 0  queued 0",
        "~ sim:index:Resource site: (update)",
        r#"~ size: "small" => "large""#,
        "~ password: [secret] => [secret]",
        r#"+ owner: "ops""#,
        "+- sim:index:Network net: (replace)  [reasons: cidr]",
        r#"~ cidr: "10.0.0.0/16" => "10.1.0.0/16"  (forces replacement)"#,
        "+ sim:index:Resource fresh: (create)",
        "- sim:index:Resource old: (delete)",
        "- keep: true",
    ] {
        assert!(s.contains(line), "{line} missing:\n{s}");
    }
    assert!(
        !s.contains("hunter2") && !s.contains("swordfish") && !s.contains(r#"env: "dev""#),
        "secrets masked, kept properties left out:\n{s}"
    );
    insta::assert_snapshot!("diffs_view_preview_100x30", stable(&s));
}

/// A preview runs nothing: the details say what is planned and "not run (preview)", and name
/// no worker (they used to say `update` as if done, and `worker 0`).
#[test]
fn a_previewed_resource_s_details_say_not_run_and_name_no_worker() {
    let m = previewed();
    let mut u = preview_ui();
    select(&mut u, &m, "net");
    u.overlay.details = true;
    let s = screen(&m, &mut u, 100, 30);
    assert!(s.contains("+- replace   not run (preview)"), "{s}");
    assert!(!s.contains("worker"), "{s}");
    insta::assert_snapshot!("details_preview_not_run_100x30", stable(&s));
}

/// Assets and archives read as Pulumi prints them, by kind, short hash and source (a text
/// asset by its first line), in the details, in view 6 and in `preview --diff`: they used
/// to be the wire object with its signature key.
#[test]
fn assets_and_archives_read_by_kind_hash_and_source() {
    let env = changed_project();
    let m = previewed_in(&env);
    let mut u = preview_ui();
    select(&mut u, &m, "site");
    u.overlay.details = true;
    let s = screen(&m, &mut u, 100, 30);
    for text in [
        "~ page: asset(file:c5484ff->3a6666d) { index.html }",
        "~ note: asset(text:2cf24db) { hello } => asset(text:debd87b) { good bye, and thanks",
        "note: asset(text:debd87b) { good bye, and thanks for all the fish th… }",
    ] {
        assert!(s.contains(text), "{text} missing:\n{s}");
    }
    assert!(
        !s.contains(stepdeck::engine::model::property::SIG_KEY),
        "{s}"
    );
    insta::assert_snapshot!("details_assets_100x30", stable(&s));
    u.overlay.details = false;
    u.nav.focus = ViewId::Diffs;
    let s = screen(&m, &mut u, 100, 30);
    assert!(
        s.contains("+ archive: archive(file:3cea25a) { ./site }"),
        "{s}"
    );
    let plain = env.ok(&["preview", "--stack", "dev", "--non-interactive", "--diff"]);
    for text in [
        "~ page: asset(file:c5484ff->3a6666d) { index.html }",
        "+ archive: archive(file:3cea25a) { ./site }",
    ] {
        assert!(plain.contains(text), "{text} missing from --diff:\n{plain}");
    }
}

/// View 6 scrolls over its lines: End shows the last change (it used to scroll only over the
/// diffs running, none after a preview).
#[test]
fn view_6_scrolls_to_its_last_change() {
    let m = previewed();
    let mut u = preview_ui();
    u.nav.focus = ViewId::Diffs;
    let top = screen(&m, &mut u, 100, 12);
    assert!(!top.contains("- keep: true"), "{top}");
    crate::console_views::press(&m, &mut u, &[Action::End]);
    let end = screen(&m, &mut u, 100, 12);
    assert!(end.contains("- keep: true"), "{end}");
    assert!(end.contains("│diffs ░░░"), "the gauge stays on top:\n{end}");
}

/// View 6 sizes its scroll by counting each resource's diff lines without drawing them: the
/// count is what the drawing writes, with and without the properties kept as they are.
#[test]
fn view_6_counts_the_lines_it_draws() {
    use stepdeck::views::details::{input_diff_len, input_diff_lines};
    let sample = {
        let mut m = Model::new();
        for (at, e) in stepdeck::app::sample::sample_timeline() {
            m.set_now(at);
            m.apply(&e);
        }
        m
    };
    for m in [previewed(), sample] {
        for r in m.resources() {
            for unchanged in [false, true] {
                let mut lines = Vec::new();
                input_diff_lines(r, 1, unchanged, Theme::colored(), &mut lines);
                assert_eq!(input_diff_len(r, unchanged), lines.len(), "{}", r.name());
            }
        }
    }
}
