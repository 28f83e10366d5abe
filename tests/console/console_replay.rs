//! Replaying a finished run: a real run (a delete-before-replace cascade that waits for an
//! approval, a failure after it, and in the console a pause) recorded by the binary, then
//! opened with `stepdeck replay FILE` and `stack history --open N` in a real terminal and
//! scrubbed to the start, the approval, the first failure and the end; the replay of a console
//! run compared with the live console at the gate and at the end (edges, chains, times, the
//! gated resource under its stack); the timeline counting the stream's lines and telling its
//! paused playback from the run's pause; the timeline drawn (insta); the refusals; the
//! parents of an event log's declined cascade root, `same` and `read` steps and a refresh's
//! deleted resource (insta).

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::widgets::Widget;
use stepdeck::app::replay::Timeline;
use stepdeck::output::event_log_reader::read_event_log;
use stepdeck::views::Theme;
use stepdeck::views::timeline::TimelineBar;

use crate::cli_support::{Env, stderr};
use crate::console_support::{OPERATOR, Tmux, cascade, cascade_project};

/// A resource created once the cascade's server is replaced, which fails to create.
const BROKEN: &str = "  broken:\n    type: sim:index:Resource\n    properties:\n      failOn: [create]\n      after: ${app.id}\n";

/// The cascade project after its first update, its engine changed (the database is replaced
/// delete-before-replace with the server) and a resource added that fails after them.
fn failing_cascade() -> Env {
    let env = cascade_project();
    env.write(
        "Pulumi.yaml",
        &format!("name: e2e\nruntime: yaml\n{}{BROKEN}", cascade()),
    );
    env
}

/// The line of the stream the timeline shows (`line N/M`).
fn event_number(screen: &str) -> (usize, usize) {
    let at = screen.find("  line ").expect("the timeline is drawn");
    let text = &screen[at + 7..];
    let end = text.find(' ').unwrap();
    let (n, m) = text[..end].split_once('/').unwrap();
    (n.parse().unwrap(), m.parse().unwrap())
}

#[test]
fn a_run_replays_from_its_event_log_at_the_start_the_approval_the_first_failure_and_the_end() {
    let env = failing_cascade();
    env.write("decisions.yaml", "\"**\": approve\n");
    let log = env.root.path().join("run.jsonl");
    let log_arg = log.display().to_string();
    let out = env.run(&[
        "up",
        "--stack",
        "dev",
        "--yes",
        "--non-interactive",
        "--approve",
        "replacements=ask",
        "--decisions",
        "decisions.yaml",
        "--event-log",
        &log_arg,
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));

    let t = Tmux::start(&env, 140, 40, &["replay", &log_arg]);
    let s = t.wait("the start", |s| {
        s.contains("REPLAY · read-only") && s.contains("line 0/")
    });
    assert!(s.contains("waiting for the first resource"), "{s}");
    assert!(s.contains("WATCH ONLY"), "{s}");

    t.keys(&["]"]);
    let s = t.wait_for("AWAITING APPROVAL");
    assert!(s.contains("waiting for approval"), "{s}");
    assert!(
        !s.contains("broken"),
        "nothing ran after the cascade yet:\n{s}"
    );

    t.keys(&["]"]);
    let s = t.wait_for("approved by decision file");
    assert!(!s.contains("AWAITING APPROVAL"), "{s}");
    assert!(!s.contains("failed"), "{s}");

    // The console's own keys that would act on a run act on nothing.
    t.keys(&["a"]);
    t.wait_for("a replay is read-only");

    t.keys(&["!"]);
    let s = t.wait("the first failure", |s| s.contains("✗1 failed"));
    let (at, total) = event_number(&s);
    assert!(at < total, "the failure comes before the run's end:\n{s}");
    assert!(s.contains("broken"), "{s}");
    assert!(
        !s.contains("The update failed"),
        "the run is not over yet:\n{s}"
    );
    assert!(s.contains(&format!("first failure: line {at}")), "{s}");
    // The timeline counts the file's lines: `line N` is the file's line N, here the failure.
    let file = std::fs::read_to_string(&log).unwrap();
    let failed = file.lines().nth(at - 1).unwrap();
    assert!(
        failed.contains("resOpFailedEvent") && failed.contains("::broken"),
        "line {at} of the event log is the failure: {failed}"
    );
    assert_eq!(total, file.lines().count(), "{s}");

    t.keys(&[","]);
    let s = t.wait("one event before the failure", |s| {
        event_number(s).0 == at - 1
    });
    assert!(!s.contains("✗1 failed"), "{s}");

    t.keys(&["$"]);
    let s = t.wait_for("The update failed");
    assert_eq!(event_number(&s), (total, total), "{s}");
    assert!(s.contains("FAILED"), "{s}");

    t.keys(&["0"]);
    let s = t.wait("back at the start", |s| s.contains("line 0/"));
    assert!(s.contains("waiting for the first resource"), "{s}");

    // Played at the highest speed (one event a frame), the run goes by to its end and stops.
    t.keys(&["+", "+", "+"]);
    t.wait_for("paused playback max");
    t.keys(&["Space"]);
    let s = t.wait("the end, played", |s| {
        s.contains("paused playback max") && s.contains("The update failed")
    });
    assert_eq!(event_number(&s), (total, total), "{s}");
    t.quit_and_expect_restored(0);
}

#[test]
fn a_console_run_with_a_pause_replays_from_the_stack_history() {
    let env = failing_cascade();
    let t = Tmux::start(&env, 140, 40, &["up", "--stack", "dev", "--yes"]);
    t.wait_for("AWAITING APPROVAL");
    t.keys(&["p"]);
    t.wait_for("PAUSED");
    t.keys(&["p"]);
    t.wait("resumed", |s| !s.contains("PAUSED"));
    t.keys(&["a"]);
    t.wait_for("FAILED");
    t.quit_and_expect_restored(1);
    drop(t);

    // The project's first update made the stack; this run was the second.
    let t = Tmux::start(
        &env,
        140,
        40,
        &["stack", "history", "--open", "2", "--stack", "dev"],
    );
    let s = t.wait("the start", |s| {
        s.contains("REPLAY · read-only") && s.contains("line 0/")
    });
    assert!(s.contains("waiting for the first resource"), "{s}");
    t.keys(&["]"]);
    t.wait_for("AWAITING APPROVAL");
    t.keys(&["]"]);
    let s = t.wait_for("PAUSED");
    assert!(
        s.contains("AWAITING APPROVAL"),
        "paused while the cascade waited:\n{s}"
    );
    t.keys(&["]"]);
    t.wait("resumed", |s| !s.contains("PAUSED"));
    t.keys(&["]"]);
    let s = t.wait_for(&format!("approved by operator {OPERATOR}"));
    assert!(!s.contains("✗1 failed"), "{s}");
    t.keys(&["!"]);
    let s = t.wait_for("✗1 failed");
    assert!(!s.contains("The update failed"), "{s}");
    t.keys(&["$"]);
    t.wait_for("The update failed");
    t.quit_and_expect_restored(0);
}

#[test]
fn replay_refuses_without_a_terminal_and_names_the_line_of_a_bad_file() {
    let env = Env::new("resources: {}\n");
    env.write(
        "good.jsonl",
        "{\"sequence\":0,\"timestamp\":1,\"preludeEvent\":{\"config\":{}}}\n",
    );
    let out = env.run(&["replay", "good.jsonl"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("needs a terminal"),
        "{}",
        stderr(&out)
    );
    let out = env.run(&["replay", "good.jsonl", "--json"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));

    env.write(
        "bad.jsonl",
        "{\"sequence\":0,\"timestamp\":1,\"preludeEvent\":{\"config\":{}}}\nnot json\n",
    );
    // In a terminal the file is read, and its first bad line named.
    let t = Tmux::start(&env, 120, 20, &["replay", "bad.jsonl"]);
    let s = t.wait_for("EXITED");
    assert!(s.contains("bad.jsonl:2: not a JSON engine event"), "{s}");
    assert!(s.contains("EXITED 1"), "{s}");
    assert!(!s.contains("EXITED 0"), "{s}");
}

#[test]
fn history_open_names_an_update_the_stack_does_not_have() {
    let env = Env::new("resources:\n  r:\n    type: sim:index:Resource\n");
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    let t = Tmux::start(
        &env,
        120,
        20,
        &["stack", "history", "--open", "7", "--stack", "dev"],
    );
    let s = t.wait_for("EXITED");
    assert!(s.contains("stack dev has no update 7"), "{s}");
    assert!(s.contains("EXITED 2"), "{s}");
}

/// A small recorded run: two creates, the second failing.
const SMALL_RUN: &str = r#"{"sequence":0,"timestamp":100,"preludeEvent":{"config":{}}}
{"sequence":1,"timestamp":100,"resourcePreEvent":{"metadata":{"op":"create","urn":"urn:pulumi:dev::p::sim:index:Resource::a","type":"sim:index:Resource","old":null,"new":{"type":"sim:index:Resource","urn":"urn:pulumi:dev::p::sim:index:Resource::a","custom":true,"id":"","parent":"","inputs":{},"outputs":{},"provider":""},"detailedDiff":null,"provider":""}}}
{"sequence":2,"timestamp":101,"resOutputsEvent":{"metadata":{"op":"create","urn":"urn:pulumi:dev::p::sim:index:Resource::a","type":"sim:index:Resource","old":null,"new":{"type":"sim:index:Resource","urn":"urn:pulumi:dev::p::sim:index:Resource::a","custom":true,"id":"a-1","parent":"","inputs":{},"outputs":{},"provider":""},"detailedDiff":null,"provider":""}}}
{"sequence":3,"timestamp":102,"resourcePreEvent":{"metadata":{"op":"create","urn":"urn:pulumi:dev::p::sim:index:Resource::b","type":"sim:index:Resource","old":null,"new":{"type":"sim:index:Resource","urn":"urn:pulumi:dev::p::sim:index:Resource::b","custom":true,"id":"","parent":"","inputs":{},"outputs":{},"provider":""},"detailedDiff":null,"provider":""}}}
{"sequence":4,"timestamp":103,"diagnosticEvent":{"urn":"urn:pulumi:dev::p::sim:index:Resource::b","message":"boom\n","color":"never","severity":"error"}}
{"sequence":5,"timestamp":103,"resOpFailedEvent":{"metadata":{"op":"create","urn":"urn:pulumi:dev::p::sim:index:Resource::b","type":"sim:index:Resource","old":null,"new":null,"detailedDiff":null,"provider":""},"status":0,"steps":1}}
{"sequence":6,"timestamp":104,"summaryEvent":{"maybeCorrupt":false,"durationSeconds":4,"resourceChanges":{"create":1},"PolicyPacks":{},"isPreview":false,"result":"failed"}}
{"sequence":7,"timestamp":104,"cancelEvent":{}}
"#;

/// The timeline of a recorded stream.
fn timeline(text: &str) -> Timeline {
    Timeline::new(read_event_log(text, "run.jsonl").unwrap())
}

fn bar(timeline: &Timeline) -> String {
    let mut t = Terminal::new(TestBackend::new(160, 2)).unwrap();
    t.draw(|f| {
        TimelineBar {
            timeline,
            theme: Theme::colored(),
        }
        .render(f.area(), f.buffer_mut())
    })
    .unwrap();
    format!("{}", t.backend())
}

#[test]
fn the_timeline_shows_the_cursor_the_time_and_the_first_failure() {
    let mut tl = timeline(SMALL_RUN);
    insta::assert_snapshot!("timeline_start", bar(&tl));
    assert!(tl.first_error());
    assert!(tl.model().run_state() != stepdeck::app::model::RunState::Failed);
    insta::assert_snapshot!("timeline_first_failure", bar(&tl));
    tl.speed = tl.speed.faster();
    tl.toggle_play();
    insta::assert_snapshot!("timeline_playing_4x", bar(&tl));
    tl.seek(tl.len());
    assert_eq!(
        tl.model().run_state(),
        stepdeck::app::model::RunState::Failed
    );
    assert!(!tl.playing, "play stops at the end");
    insta::assert_snapshot!("timeline_end", bar(&tl));
}

#[test]
fn a_bad_line_is_named_with_its_number() {
    let text = "{\"sequence\":0,\"timestamp\":1,\"preludeEvent\":{}}\n{\"sequence\":1,\"resourcePreEvent\":{\"metadata\":{\"op\":\"frobnicate\",\"urn\":\"x\"}}}\n";
    let err = read_event_log(text, "run.jsonl").unwrap_err();
    assert_eq!(
        err.to_string(),
        "run.jsonl:2: `op`: unknown step `frobnicate`"
    );
    let err = read_event_log("{\"a\":1}\n", "digest.json").unwrap_err();
    assert!(
        err.to_string()
            .starts_with("digest.json:1: not an engine event"),
        "{err}"
    );
}

/// A recorded run of `n` creates, one a second, every tenth failing.
fn long_run(n: usize) -> String {
    let mut lines =
        vec![r#"{"sequence":0,"timestamp":0,"preludeEvent":{"config":{}}}"#.to_string()];
    for i in 0..n {
        let urn = format!("urn:pulumi:dev::p::sim:index:Resource::r{i}");
        let side = format!(
            r#"{{"type":"sim:index:Resource","urn":"{urn}","custom":true,"id":"id-{i}","parent":"","inputs":{{"n":{i}}},"outputs":{{"n":{i}}},"provider":""}}"#
        );
        let meta = format!(
            r#"{{"op":"create","urn":"{urn}","type":"sim:index:Resource","old":null,"new":{side},"detailedDiff":null,"provider":""}}"#
        );
        lines.push(format!(
            r#"{{"sequence":0,"timestamp":{i},"resourcePreEvent":{{"metadata":{meta}}}}}"#
        ));
        if i % 10 == 9 {
            lines.push(format!(
                r#"{{"sequence":0,"timestamp":{i},"diagnosticEvent":{{"urn":"{urn}","message":"boom {i}\n","severity":"error"}}}}"#
            ));
            lines.push(format!(
                r#"{{"sequence":0,"timestamp":{i},"resOpFailedEvent":{{"metadata":{meta},"status":0,"steps":0}}}}"#
            ));
        } else {
            lines.push(format!(
                r#"{{"sequence":0,"timestamp":{i},"resOutputsEvent":{{"metadata":{meta}}}}}"#
            ));
        }
    }
    lines.join("\n")
}

fn whole_screen(timeline: &Timeline) -> String {
    whole_screen_of(timeline.model())
}

fn whole_screen_of(model: &stepdeck::app::model::Model) -> String {
    let mut t = Terminal::new(TestBackend::new(120, 30)).unwrap();
    let title = stepdeck::app::Title {
        operation: "up".into(),
        stack: "dev".into(),
        project: "p".into(),
        phase: None,
    };
    let mut ui = stepdeck::app::ui_state::UiState::new(stepdeck::app::ConsoleMode::Live, title);
    t.draw(|f| {
        stepdeck::views::render_screen(f.area(), f.buffer_mut(), model, &mut ui, Theme::colored())
    })
    .unwrap();
    format!("{}", t.backend())
}

#[test]
fn a_jump_anywhere_shows_what_reducing_from_the_start_shows() {
    let text = long_run(600);
    let run = read_event_log(&text, "long.jsonl").unwrap();
    assert!(run.events.len() > 3 * stepdeck::app::replay::timeline::SNAPSHOT_EVERY);
    let mut jumping = timeline(&text);
    jumping.seek(jumping.len());
    for at in [run.lines - 1, 1200, 1025, 1024, 700, 513, 512, 3, 0, 1250] {
        jumping.seek(at);
        let mut stepping = timeline(&text);
        for _ in 0..at {
            stepping.step_forward();
        }
        assert_eq!(jumping.cursor(), at);
        assert_eq!(
            whole_screen(&jumping),
            whole_screen(&stepping),
            "at event {at}"
        );
    }
}

/// The console's panels (every row but the top bar and the Log line under them, and the
/// timeline a replay adds), in a console of 40 rows.
fn panels(screen: &str) -> String {
    screen
        .lines()
        .skip(1)
        .take(38)
        .collect::<Vec<_>>()
        .join("\n")
}

/// A console run of the failing cascade, paused while the cascade waits, then approved, in a
/// 140×40 terminal: the screens while it waits, while it is paused and at its end.
struct LiveRun {
    env: Env,
    awaiting: String,
    paused: String,
    end: String,
}

fn live_run() -> LiveRun {
    let env = failing_cascade();
    let t = Tmux::start(&env, 140, 40, &["up", "--stack", "dev", "--yes"]);
    let awaiting = t.wait_for("AWAITING APPROVAL");
    t.keys(&["p"]);
    let paused = t.wait_for("PAUSED");
    t.keys(&["p"]);
    t.wait("resumed", |s| !s.contains("PAUSED"));
    t.keys(&["a"]);
    let end = t.wait("the end", |s| {
        s.contains("FAILED") && s.contains("The update failed")
    });
    t.quit_and_expect_restored(1);
    LiveRun {
        env,
        awaiting,
        paused,
        end,
    }
}

/// The live run's update (its second) opened from the history, in a terminal two rows taller
/// than the live one so that the console above the timeline has the live one's size.
fn replay_of(run: &LiveRun) -> Tmux {
    let t = Tmux::start(
        &run.env,
        140,
        42,
        &["stack", "history", "--open", "2", "--stack", "dev"],
    );
    t.wait("the start", |s| s.contains("line 0/"));
    t
}

#[test]
fn a_replay_from_the_history_ends_as_the_live_console_ended_with_its_edges_chains_and_times() {
    let run = live_run();
    let t = replay_of(&run);
    t.keys(&["$"]);
    let end = t.wait_for("The update failed");
    // The graph draws the dependencies (net ▶ db ▶ app ▶ broken), the chains are the
    // engine's (ids, workers, steps) and every time is the one the run measured.
    assert!(panels(&run.end).contains("┌─▶[+- db]"), "{}", run.end);
    assert!(panels(&run.end).contains("+- app ▸ ++ app"), "{}", run.end);
    assert_eq!(
        panels(&end),
        panels(&run.end),
        "live:\n{}\nreplayed:\n{end}",
        run.end
    );
    // The top bar's time, steps and counts too.
    let from_clock = |s: &str| {
        let top = s.lines().next().unwrap_or_default();
        top.split_once('⏱').map(|(_, r)| r.trim_end().to_string())
    };
    assert_eq!(from_clock(&end), from_clock(&run.end), "{end}");
    t.quit_and_expect_restored(0);
}

/// The tree's row of `name`, from its first cell to its name.
fn tree_row<'a>(screen: &'a str, name: &str) -> &'a str {
    let row = screen
        .lines()
        .find(|l| l.contains(&format!(" {name} ")) && l.starts_with('│'))
        .unwrap_or_else(|| panic!("no row {name}:\n{screen}"));
    let end = row.find(&format!(" {name} ")).unwrap() + name.len() + 1;
    &row[..end]
}

#[test]
fn a_resource_waiting_at_its_gate_is_replayed_under_its_stack_as_the_live_tree_shows_it() {
    let run = live_run();
    assert!(
        tree_row(&run.awaiting, "db").contains("├── db"),
        "{}",
        run.awaiting
    );
    let t = replay_of(&run);
    t.keys(&["]"]);
    let s = t.wait_for("AWAITING APPROVAL");
    assert_eq!(
        tree_row(&s, "db"),
        tree_row(&run.awaiting, "db"),
        "live:\n{}\nreplayed:\n{s}",
        run.awaiting
    );
    t.quit_and_expect_restored(0);
}

/// The timeline's first line.
fn timeline_line(screen: &str) -> &str {
    screen
        .lines()
        .find(|l| l.contains("REPLAY · read-only"))
        .expect("the timeline is drawn")
}

#[test]
fn the_replay_tells_its_paused_playback_from_the_run_paused_by_its_operator() {
    let run = live_run();
    assert!(run.paused.contains("PAUSED"), "{}", run.paused);
    let t = replay_of(&run);
    let s = t.wait_for("paused playback");
    assert!(!timeline_line(&s).contains('⏸'), "{s}");
    assert!(!timeline_line(&s).contains("run paused"), "{s}");
    t.keys(&["]", "]"]);
    let s = t.wait_for("run paused by the operator");
    assert!(
        s.contains("PAUSED"),
        "the run's own pause, as it was shown live:\n{s}"
    );
    let bar = timeline_line(&s);
    assert!(bar.contains("paused playback"), "{bar}");
    assert!(!bar.contains('⏸'), "{bar}");
    t.keys(&["Space"]);
    let s = t.wait_for("▶ playing");
    assert!(!timeline_line(&s).contains('⏸'), "{s}");
    t.keys(&["$"]);
    let s = t.wait_for("The update failed");
    assert!(!timeline_line(&s).contains("run paused"), "{s}");
    t.quit_and_expect_restored(0);
}

#[test]
fn the_timeline_counts_the_stream_s_lines_and_names_the_failure_s_line() {
    let mut tl = timeline(SMALL_RUN);
    assert_eq!(tl.len(), SMALL_RUN.lines().count());
    assert_eq!(tl.first_error_at(), Some(6));
    assert!(
        SMALL_RUN
            .lines()
            .nth(5)
            .unwrap()
            .contains("resOpFailedEvent"),
        "line 6 is the failure"
    );
    tl.seek(3);
    assert_eq!(tl.cursor(), 3);
    assert!(bar(&tl).contains("line 3/8"), "{}", bar(&tl));
    // Line 5 is the failure's diagnostic: the step fails with line 6, not before.
    tl.seek(5);
    assert_eq!(tl.model().counts.failed(), 0);
    tl.step_forward();
    assert_eq!(tl.model().counts.failed(), 1);
}

/// A run of a generated DAG on four workers, reduced live into a console model as it runs
/// and written as the history records it (and as `--event-log` writes it): the live model,
/// the record and the event log.
fn parallel_run() -> (stepdeck::app::model::Model, String, String) {
    use stepdeck::bench_support::{DagProgram, DagSpec, GeneratedDag, builtin_factory};
    use stepdeck::engine::{
        Deployment, EngineEvent, EventSink, NullJournal, Operation, Options, Snapshot,
    };
    use stepdeck::output::event_stream::EventWriter;

    let dir = tempfile::tempdir().unwrap();
    let dag = std::sync::Arc::new(GeneratedDag::generate(&DagSpec::new(60)));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let (sink, mut rx) = EventSink::channel();
        let options = Options {
            operation: Operation::Update,
            parallel: 4,
            ..Options::default()
        };
        let d = Deployment::new(
            options,
            Snapshot::default(),
            builtin_factory(dir.path()),
            Box::new(NullJournal),
            sink,
        );
        let watch = tokio::spawn(async move {
            let start = std::time::Instant::now();
            let mut live = stepdeck::app::model::Model::new();
            let (mut record, mut log) = (
                EventWriter::recording(Default::default()),
                EventWriter::new(Default::default()),
            );
            let (mut record_text, mut log_text) = (String::new(), String::new());
            while let Some(e) = rx.recv().await {
                live.set_now(start.elapsed());
                live.apply(&e);
                for (w, text) in [(&mut record, &mut record_text), (&mut log, &mut log_text)] {
                    for v in w.event(&e) {
                        text.push_str(&format!("{}\n", v.value));
                    }
                }
                if matches!(e, EngineEvent::Summary { .. }) {
                    break;
                }
            }
            record_text.push_str(&format!("{}\n", record.finish()));
            log_text.push_str(&format!("{}\n", log.finish()));
            (live, record_text, log_text)
        });
        let r = d.run(Some(Box::new(DagProgram::new(dag, 16)))).await;
        assert!(r.outcome.is_success());
        watch.await.unwrap()
    })
}

/// Each chain as the chains view knows it: id, worker, steps and state.
fn chains(m: &stepdeck::app::model::Model) -> Vec<String> {
    m.chains
        .all()
        .iter()
        .map(|c| format!("#{} {:?} {:?} {:?}", c.id, c.worker, c.steps, c.state))
        .collect()
}

/// Each row's parent and dependencies, by name.
fn structure(m: &stepdeck::app::model::Model) -> Vec<String> {
    let mut rows: Vec<String> = m
        .resources()
        .iter()
        .map(|r| {
            let parent = r.parent.map(|p| m.resource(p).urn.to_string());
            format!("{} < {parent:?} deps {:?}", r.urn, r.dependencies)
        })
        .collect();
    rows.sort();
    rows
}

#[test]
fn a_parallel_run_s_record_replays_its_chains_workers_parents_dependencies_and_durations() {
    let (live, record, log) = parallel_run();
    let replayed = {
        let mut tl = timeline(&record);
        tl.seek(tl.len());
        tl
    };
    let workers: std::collections::BTreeSet<_> =
        live.chains.all().iter().filter_map(|c| c.worker).collect();
    assert!(
        workers.len() > 1,
        "the run used several workers: {workers:?}"
    );
    assert_eq!(chains(replayed.model()), chains(&live));
    assert_eq!(structure(replayed.model()), structure(&live));
    let busy = |m: &stepdeck::app::model::Model| -> Vec<_> {
        // Kept to the microsecond.
        m.chains
            .all()
            .iter()
            .map(|c| (c.id, c.busy.as_micros()))
            .collect()
    };
    assert_eq!(busy(replayed.model()), busy(&live));
    assert_eq!(whole_screen(&replayed), whole_screen_of(&live));
    // Pulumi's stream alone (the event log) names no dependency.
    let mut from_log = timeline(&log);
    from_log.seek(from_log.len());
    assert_ne!(structure(from_log.model()), structure(&live));
}

/// A real run of three resources in a line (r1 ◀ r2 ◀ r3), with its `--event-log` file and
/// its `--json` output.
fn chain_run() -> (Env, String, String) {
    let env = crate::console_support::chain_project(3, 0);
    let log = env.root.path().join("run.jsonl");
    let out = env.up_with_event_log(&log);
    assert!(out.status.success(), "{}", stderr(&out));
    let json = env.run(&[
        "refresh",
        "--stack",
        "dev",
        "--yes",
        "--non-interactive",
        "--json",
    ]);
    assert!(json.status.success(), "{}", stderr(&json));
    let json = String::from_utf8(json.stdout).unwrap();
    (env, std::fs::read_to_string(&log).unwrap(), json)
}

/// The dependencies each resource of the stack's state holds, from `stack export`.
fn state_dependencies(
    env: &Env,
) -> std::collections::HashMap<stepdeck::engine::Urn, std::sync::Arc<[stepdeck::engine::Urn]>> {
    let doc = env.export("dev");
    let parse = |v: &serde_json::Value| stepdeck::engine::Urn::parse(v.as_str().unwrap()).unwrap();
    doc["deployment"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let deps: Vec<_> = r["dependencies"]
                .as_array()
                .map(|d| d.iter().map(parse).collect())
                .unwrap_or_default();
            (parse(&r["urn"]), std::sync::Arc::from(deps))
        })
        .collect()
}

/// The replay's resources and graph at the end of its run (the panels without a time: a
/// real run's times vary), and what the timeline says of its edges.
fn replayed_screen(run: stepdeck::output::event_log_reader::RecordedRun) -> String {
    let mut tl = Timeline::new(run);
    tl.seek(tl.len());
    let screen = whole_screen(&tl);
    let bar = bar(&tl);
    let edges = bar
        .lines()
        .find_map(|l| {
            l.find("edges: ")
                .map(|at| l[at..].trim_end_matches('"').trim_end())
        })
        .unwrap();
    let panels = screen
        .lines()
        .skip(1)
        .take(17)
        .collect::<Vec<_>>()
        .join("\n");
    // A step's duration shows once it reaches a second, which a run under load may.
    let durations = regex::Regex::new(r"\d+\.\ds").unwrap();
    let panels = durations.replace_all(&panels, |c: &regex::Captures| " ".repeat(c[0].len()));
    format!("{panels}\n{edges}")
}

#[test]
fn an_event_log_replays_with_the_dependencies_of_its_stack_s_state_and_says_so() {
    let (env, log, _) = chain_run();
    let run = read_event_log(&log, "run.jsonl").unwrap();
    insta::assert_snapshot!("event_log_without_state", replayed_screen(run.clone()));
    let mut with_state = run;
    assert!(with_state.add_dependencies("dev", &state_dependencies(&env)));
    insta::assert_snapshot!("event_log_with_state", replayed_screen(with_state));
}

#[test]
fn a_json_output_replays_with_the_dependencies_of_its_stack_s_state_and_says_so() {
    let (env, _, json) = chain_run();
    let mut run = read_event_log(&json, "refresh.json").unwrap();
    insta::assert_snapshot!("json_without_state", replayed_screen(run.clone()));
    assert!(run.add_dependencies("dev", &state_dependencies(&env)));
    insta::assert_snapshot!("json_with_state", replayed_screen(run));
}

#[test]
fn a_record_counts_its_lines_as_its_event_log_and_keeps_its_own_dependencies() {
    let (_, record, log) = parallel_run();
    let mut run = read_event_log(&record, "record").unwrap();
    assert_eq!(run.lines, log.lines().count());
    let exported = stepdeck::output::event_log_export::pulumi_stream(&record, "record").unwrap();
    assert_eq!(exported.lines().count(), log.lines().count());
    // The record names its dependencies: a state's never replace them.
    let urn = stepdeck::engine::Urn::parse("urn:pulumi:dev::p::sim:index:Resource::x").unwrap();
    let state = std::iter::once((urn, std::sync::Arc::from(Vec::new()))).collect();
    assert!(!run.add_dependencies("dev", &state));
    assert_eq!(
        run.edges,
        stepdeck::output::event_log_reader::Edges::Recorded
    );
}

/// Each resource's row and its parent's, by name, once the whole run is replayed.
fn parents(run: stepdeck::output::event_log_reader::RecordedRun) -> Vec<String> {
    let mut tl = Timeline::new(run);
    tl.seek(tl.len());
    let m = tl.model();
    let mut rows: Vec<String> = m
        .resources()
        .iter()
        .map(|r| {
            let parent = r.parent.map(|p| m.resource(p).urn.name().to_string());
            format!("{} < {}", r.urn.name(), parent.unwrap_or_default())
        })
        .collect();
    rows.sort();
    rows
}

/// The replay of the `--event-log` file a run of `args` wrote.
fn replayed_log(env: &Env, args: &[&str]) -> stepdeck::output::event_log_reader::RecordedRun {
    let log = env.root.path().join("run.jsonl");
    let log_arg = log.display().to_string();
    let args = [
        args,
        &["--yes", "--non-interactive", "--event-log", &log_arg],
    ]
    .concat();
    let out = env.run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    read_event_log(&std::fs::read_to_string(&log).unwrap(), "run.jsonl").unwrap()
}

#[test]
fn a_declined_cascade_replays_with_its_root_under_its_stack() {
    let env = cascade_project();
    let run = replayed_log(
        &env,
        &["up", "--stack", "dev", "--approve", "replacements=decline"],
    );
    assert!(
        parents(run.clone()).contains(&"db < e2e-dev".to_string()),
        "{:?}",
        parents(run)
    );
    insta::assert_snapshot!("declined_cascade", replayed_screen(run.clone()));
    let mut with_state = run;
    assert!(with_state.add_dependencies("dev", &state_dependencies(&env)));
    insta::assert_snapshot!("declined_cascade_with_state", replayed_screen(with_state));
}

#[test]
fn same_read_and_refreshed_away_resources_replay_under_their_stack() {
    let env = Env::new(concat!(
        "resources:\n",
        "  kept:\n    type: sim:index:Resource\n    properties:\n      step: 1\n",
        "  gone:\n    type: sim:index:Resource\n    properties:\n      step: 2\n",
        "  seen:\n    type: sim:index:Resource\n    get:\n      id: ${kept.id}\n",
    ));
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    let again = replayed_log(&env, &["up", "--stack", "dev"]);
    let under_stack = ["gone < e2e-dev", "kept < e2e-dev", "seen < e2e-dev"];
    let rows = parents(again);
    for row in under_stack {
        assert!(rows.contains(&row.to_string()), "{row}: {rows:?}");
    }

    let mut world: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(env.world_path()).unwrap()).unwrap();
    let resources = world["resources"].as_object_mut().unwrap();
    let gone = resources
        .iter()
        .find(|(_, r)| r["name"] == "gone")
        .map(|(id, _)| id.clone())
        .expect("gone is in the world");
    resources.remove(&gone);
    std::fs::write(env.world_path(), world.to_string()).unwrap();
    let refresh = replayed_log(&env, &["refresh", "--stack", "dev"]);
    let rows = parents(refresh);
    assert!(rows.contains(&"gone < e2e-dev".to_string()), "{rows:?}");
}
