//! `up --serve` and `stepdeck attach` end to end: the served deployment is a real process,
//! each watcher another (the console ones in tmux), talking real gRPC over a Unix socket.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::cli_support;
use crate::console_support;
use std::path::PathBuf;
use std::process::{Child, Output};
use std::time::{Duration, Instant};

use cli_support::{Env, stderr, stdout};
use console_support::{Tmux, cascade_project, chain_project, world_engine_of_db};

const CONTROL: &str = "control-token-for-tests";
const WATCH: &str = "watch-token-for-tests";

fn socket(env: &Env) -> PathBuf {
    env.root.path().join("console.sock")
}

/// `stepdeck <op and flags> --serve unix:<socket>` with the test tokens, non-interactive.
fn serve(env: &Env, op: &[&str]) -> Child {
    let address = format!("unix:{}", socket(env).display());
    let mut args = op.to_vec();
    args.extend(["--stack", "dev", "--yes", "--non-interactive", "--serve"]);
    args.push(&address);
    let mut c = env.command(&args);
    c.env("STEPDECK_SERVE_TOKEN", CONTROL)
        .env("STEPDECK_SERVE_WATCH_TOKEN", WATCH)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = c.spawn().expect("spawn the served deployment");
    let end = Instant::now() + Duration::from_secs(20);
    while !socket(env).exists() {
        assert!(Instant::now() < end, "the console was never served");
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

fn up_ask(env: &Env, extra: &[&str]) -> Child {
    let mut args = vec!["up", "--approve-replacements", "ask"];
    args.extend_from_slice(extra);
    serve(env, &args)
}

/// A console attached in tmux with `token`, recording its actions as `name`.
fn attach_console(env: &Env, token: &str, name: &str) -> Tmux {
    let address = format!("unix:{}", socket(env).display());
    Tmux::start_with(
        env,
        160,
        45,
        &[("STEPDECK_TOKEN", token)],
        &["attach", "--name", name, &address],
    )
}

/// `up` in the local console (in tmux), served with the test tokens.
fn serve_in_console(env: &Env, extra: &[&str]) -> Tmux {
    let address = format!("unix:{}", socket(env).display());
    let mut args = vec!["up", "--stack", "dev", "--serve", &address];
    args.extend_from_slice(extra);
    Tmux::start_with(
        env,
        160,
        45,
        &[
            ("STEPDECK_SERVE_TOKEN", CONTROL),
            ("STEPDECK_SERVE_WATCH_TOKEN", WATCH),
        ],
        &args,
    )
}

/// `attach --json` as a process.
fn attach_json(env: &Env, token: &str) -> Child {
    let address = format!("unix:{}", socket(env).display());
    let mut c = env.command(&["attach", "--json", &address]);
    c.env("STEPDECK_TOKEN", token)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    c.spawn().expect("spawn attach --json")
}

fn finish(child: Child) -> Output {
    child.wait_with_output().expect("the process ends")
}

#[test]
fn a_watcher_in_another_process_approves_the_served_cascade() {
    let env = cascade_project();
    let (old_id, _) = world_engine_of_db(&env);
    let up = up_ask(&env, &[]);
    let reader = attach_console(&env, WATCH, "carol@ci");
    let operator = attach_console(&env, CONTROL, "alice@laptop");
    for t in [&reader, &operator] {
        let s = t.wait_for("AWAITING APPROVAL");
        assert!(s.contains("waiting for approval"), "{s}");
    }
    // The watch-only console says so and offers no action; the operator's offers them.
    let s = reader.wait("the watch-only marker", |s| s.contains("WATCH ONLY"));
    assert!(!s.contains("a approve") && !s.contains("c cancel"), "{s}");
    let s = operator.wait("the operator's actions", |s| s.contains("a approve"));
    assert!(!s.contains("WATCH ONLY"), "{s}");
    // The watch-only watcher's approval is refused, and it is told why.
    reader.keys(&["a"]);
    reader.wait_for("approve refused: this token may only watch");
    std::thread::sleep(Duration::from_millis(300));
    assert!(operator.screen().contains("AWAITING APPROVAL"));

    operator.keys(&["a"]);
    for t in [&operator, &reader] {
        t.wait_for("DONE");
    }
    let out = finish(up);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("(sim:index:Database): approved by remote alice@laptop"),
        "{}",
        stdout(&out)
    );
    let (new_id, engine) = world_engine_of_db(&env);
    assert_eq!(engine, "pg16");
    assert_ne!(new_id, old_id, "the database was replaced");
    // Leaving an attached console only detaches: nothing is asked, nothing cancelled.
    operator.quit_and_expect_restored(0);
    reader.quit_and_expect_restored(0);
    // Before the console opened, attaching said what it waited for.
    let s = reader.screen();
    assert!(s.contains("(waiting for its run to start)"), "{s}");
    assert!(!socket(&env).exists(), "the socket is removed at the end");
    env.assert_no_leaks("dev");
}

#[test]
fn a_watcher_approves_a_step_gate_and_the_summary_names_it() {
    let env = chain_project(3, 50);
    let up = serve(&env, &["up", "--approve", "creates[**::r2]=ask"]);
    let operator = attach_console(&env, CONTROL, "alice@laptop");
    operator.wait("the step gate", |s| {
        s.contains("AWAITING APPROVAL") && s.contains("create  creates=ask")
    });
    operator.keys(&["a"]);
    operator.wait_for("DONE");
    let out = finish(up);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("create r2 (sim:index:Resource): approved by remote alice@laptop"),
        "{text}"
    );
    assert_eq!(env.managed("dev").len(), 3);
    operator.quit_and_expect_restored(0);
}

#[test]
fn without_a_decision_the_approval_timeout_declines_the_cascade() {
    let env = cascade_project();
    let (old_id, _) = world_engine_of_db(&env);
    let watcher = attach_json_after(&env, &["--approval-timeout", "1"]);
    let out = finish(watcher.1);
    let up = finish(watcher.0);
    assert!(up.status.success(), "{}", stderr(&up));
    assert!(
        stdout(&up).contains("db cascade declined: no decision within 1s"),
        "{}",
        stdout(&up)
    );
    assert_eq!(world_engine_of_db(&env), (old_id, "pg15".to_string()));
    // The watcher's stream carried the note and ended with the summary.
    let json = stdout(&out);
    assert!(json.contains("no decision within 1s"), "{json}");
    assert!(json.contains("\"summaryEvent\""), "{json}");
}

/// The seconds an approval countdown on `s` has left (`declined in 57s`).
fn countdown(s: &str) -> Option<u64> {
    let (_, after) = s.split_once("declined in ")?;
    after.split('s').next()?.parse().ok()
}

#[test]
fn a_late_watcher_counts_down_from_when_the_gate_opened_and_logs_the_approval_once() {
    let env = cascade_project();
    let up = up_ask(&env, &["--approval-timeout", "60"]);
    let early = attach_console(&env, WATCH, "carol@ci");
    // The gate has waited a few seconds when the second watcher attaches.
    let s = early.wait("the gate waiting 4s", |s| {
        countdown(s).is_some_and(|n| n <= 56)
    });
    // A watch-only console's `q` only detaches: it says so.
    assert!(s.contains("q detach") && !s.contains("q quit"), "{s}");
    let late = attach_console(&env, CONTROL, "alice@laptop");
    let s = late.wait("the late watcher's countdown", |s| countdown(s).is_some());
    let left = countdown(&s).unwrap_or_default();
    assert!(
        left <= 56,
        "the countdown runs from when the gate opened, not from the attach:\n{s}"
    );
    // So does the run's clock.
    assert!(!s.contains("⏱ 00:00"), "{s}");
    late.keys(&["a"]);
    late.wait_for("DONE");
    late.keys(&["5", "z"]);
    let s = late.wait("the zoomed Log", |s| s.contains("┌ Log"));
    // The gate was logged when it began to wait, and the approval once, naming who.
    let waited = s.find("waiting for approval: urn:pulumi:dev::");
    let approved = s.find("approved by remote alice@laptop");
    assert!(waited.is_some() && waited < approved, "{s}");
    assert_eq!(s.matches("approved by").count(), 1, "{s}");
    let out = finish(up);
    assert!(out.status.success(), "{}", stderr(&out));
    late.quit_and_expect_restored(0);
    early.quit_and_expect_restored(0);
}

/// The served `up --approve-replacements ask` and an `attach --json` watcher of it.
fn attach_json_after(env: &Env, extra: &[&str]) -> (Child, Child) {
    let up = up_ask(env, extra);
    (up, attach_json(env, WATCH))
}

#[test]
fn a_wrong_or_missing_token_is_refused_and_the_deployment_goes_on() {
    // Long enough that both refused watchers connect while it runs, even on a loaded machine
    // (at 3 × 300 ms, CI once saw the run end first: a transport error, not a refusal).
    let env = chain_project(4, 1000);
    let up = serve(&env, &["up"]);
    for token in ["wrong", ""] {
        let out = finish(attach_json(&env, token));
        assert!(!out.status.success());
        assert!(stdout(&out).is_empty(), "nothing leaks: {}", stdout(&out));
        let err = stderr(&out);
        if token.is_empty() {
            assert!(err.contains("no token"), "{err}");
        } else {
            assert!(err.contains("a valid token is required"), "{err}");
        }
    }
    let out = finish(up);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(env.world().len(), 4);
}

#[test]
fn attaching_where_nothing_serves_says_so_in_the_os_s_words_once() {
    let env = chain_project(1, 0);
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    for address in [
        format!("127.0.0.1:{port}"),
        format!("unix:{}", socket(&env).display()),
    ] {
        let out = env
            .command(&["attach", "--json", &address])
            .env("STEPDECK_TOKEN", WATCH)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains(&format!("cannot connect to {address}")),
            "{err}"
        );
        assert!(err.contains("nothing serves a console there"), "{err}");
        assert!(
            !err.contains("transport error"),
            "the root cause only: {err}"
        );
    }
}

#[test]
fn a_killed_and_a_stalled_watcher_neither_stop_nor_hold_the_deployment() {
    let env = chain_project(6, 200);
    let up = serve(&env, &["up"]);
    let mut killed = attach_json(&env, WATCH);
    let stalled = attach_json(&env, WATCH);
    std::thread::sleep(Duration::from_millis(400));
    killed.kill().unwrap();
    let _ = killed.wait();
    // SIGSTOP: the watcher still holds its connection but reads nothing more.
    signal(stalled.id(), "STOP");
    let started = Instant::now();
    let out = finish(up);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(env.world().len(), 6);
    // Six steps of 200 ms one after another, plus at most the few seconds the end waits for
    // watchers to read the summary.
    assert!(
        started.elapsed() < Duration::from_secs(12),
        "{:?}",
        started.elapsed()
    );
    signal(stalled.id(), "KILL");
    let _ = finish(stalled);
}

/// Sends `signal` to `pid` with kill(1).
fn signal(pid: u32, signal: &str) {
    let ok = std::process::Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(pid.to_string())
        .status()
        .expect("kill runs")
        .success();
    assert!(ok, "kill -{signal} {pid}");
}

#[test]
fn a_run_in_the_local_console_is_served_too_and_its_watchers_get_the_summary() {
    let env = cascade_project();
    let local = serve_in_console(&env, &["--yes"]);
    local.wait_for("AWAITING APPROVAL");
    let watcher = attach_json(&env, WATCH);
    local.keys(&["a"]);
    local.wait_for("DONE");
    let out = finish(watcher);
    assert!(out.status.success(), "{}", stderr(&out));
    let json = stdout(&out);
    assert!(json.contains("\"result\":\"succeeded\""), "{json}");
    assert!(json.contains("\"resourcePreEvent\""), "{json}");
    local.quit_and_expect_restored(0);
    assert_eq!(world_engine_of_db(&env).1, "pg16");
}

/// The `done/total steps` of a console's top bar.
fn steps_total(screen: &str) -> Option<u64> {
    let at = screen.find(" steps ")?;
    let count = screen[..at].rsplit(' ').next()?;
    count.split_once('/')?.1.parse().ok()
}

#[test]
fn a_watcher_counts_the_run_against_the_operators_preview_and_shows_what_waits_behind_the_cascade()
{
    // `backup` reads the database's ID outside its cascade: the run registers it only after
    // the decision, so only the preview's plan knows it while the cascade waits.
    let env = Env::new(&format!(
        "{}  backup:\n    type: sim:index:Resource\n    properties:\n      database: ${{db.id}}\n",
        console_support::cascade()
    ));
    env.write("Pulumi.dev.yaml", "config:\n  sim:latencyMs: 150\n");
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    env.ok(&["config", "set", "engine", "pg16", "--stack", "dev"]);
    let local = serve_in_console(&env, &[]);
    local.wait_for("PREVIEW — y apply");
    local.keys(&["y"]);
    let operator = local.wait_for("AWAITING APPROVAL");
    let watcher = attach_console(&env, WATCH, "bob@desk");
    let seen = watcher.wait_for("AWAITING APPROVAL");
    let total = steps_total(&operator).unwrap_or_else(|| panic!("no progress:\n{operator}"));
    assert_eq!(
        steps_total(&seen),
        Some(total),
        "one total for both:\n{seen}"
    );
    let row = seen
        .lines()
        .find(|l| l.contains("── backup"))
        .unwrap_or_else(|| panic!("the watcher shows what waits behind the cascade:\n{seen}"));
    assert!(row.contains("waiting for db"), "{row}");
    local.keys(&["a"]);
    local.wait_for("DONE");
    watcher.wait_for("DONE");
    watcher.quit_and_expect_restored(0);
    local.quit_and_expect_restored(0);
    env.assert_no_leaks("dev");
}

/// A JSON event stream without its timestamps (the only field that may differ between two
/// writers of the same events).
fn untimed(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
            v.as_object_mut().expect("an object").remove("timestamp");
            v
        })
        .collect()
}

#[test]
fn attach_json_prints_the_same_engine_events_as_the_served_run_itself() {
    let env = cascade_project();
    let (up, watcher) = attach_json_after(&env, &["--json", "--approval-timeout", "1"]);
    let watched = finish(watcher);
    let served = finish(up);
    assert!(served.status.success(), "{}", stderr(&served));
    assert!(watched.status.success(), "{}", stderr(&watched));
    let events = untimed(&stdout(&served));
    assert!(events.len() >= 8, "{}", stdout(&served));
    assert_eq!(untimed(&stdout(&watched)), events);
    // The prelude carries the served run's configuration.
    assert_eq!(events[0]["preludeEvent"]["config"]["e2e:engine"], "pg16");
}

#[test]
fn tokens_not_given_are_generated_and_printed_once_and_they_work() {
    use std::io::{BufRead, BufReader};
    // Long enough that the watcher connects while it runs, even on a loaded machine (at
    // 3 × 300 ms, CI once saw the run end first: a transport error, not a stream).
    let env = chain_project(4, 1000);
    let address = format!("unix:{}", socket(&env).display());
    let mut up = env
        .command(&[
            "up",
            "--stack",
            "dev",
            "--yes",
            "--non-interactive",
            "--serve",
            &address,
        ])
        .env_remove("STEPDECK_SERVE_TOKEN")
        .env_remove("STEPDECK_SERVE_WATCH_TOKEN")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn the served deployment");
    let mut lines = BufReader::new(up.stderr.take().unwrap()).lines();
    // The value after `label` on the next line that has it.
    let mut token = |label: &str| loop {
        let line = lines.next().expect("a line").unwrap();
        if let Some((_, token)) = line.split_once(label) {
            break token.trim().to_string();
        }
    };
    assert!(token("Serving the console on").ends_with("console.sock"));
    let control = token("token (may act):");
    let watch = token("token (watch only):");
    assert_eq!(control.len(), 64);
    assert_ne!(control, watch);
    let out = finish(attach_json(&env, &watch));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("\"summaryEvent\""));
    assert!(up.wait().unwrap().success());
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    assert!(
        !rest
            .iter()
            .any(|l| l.contains(&control) || l.contains(&watch)),
        "printed once: {rest:?}"
    );
}

/// `stepdeck <op and flags> --serve 127.0.0.1:0` with the test tokens, non-interactive, its
/// descriptor limit (soft and hard) set to `limit`; returns it, the address it serves on, and
/// the rest of its standard error.
fn serve_tcp_limited(
    env: &Env,
    limit: u64,
    op: &[&str],
) -> (
    Child,
    String,
    std::io::Lines<std::io::BufReader<std::process::ChildStderr>>,
) {
    use std::io::BufRead;
    use std::os::unix::process::CommandExt;
    let mut args = op.to_vec();
    args.extend(["--stack", "dev", "--yes", "--non-interactive"]);
    args.extend(["--serve", "127.0.0.1:0"]);
    let mut c = env.command(&args);
    c.env("STEPDECK_SERVE_TOKEN", CONTROL)
        .env("STEPDECK_SERVE_WATCH_TOKEN", WATCH)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    // SAFETY: setrlimit is async-signal-safe and touches only the child.
    unsafe {
        c.pre_exec(move || {
            let r = libc::rlimit {
                rlim_cur: limit,
                rlim_max: limit,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &r) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
    let mut child = c.spawn().expect("spawn the served deployment");
    let mut lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let address = loop {
        let line = lines.next().expect("the console is served").unwrap();
        if let Some((_, a)) = line.split_once("Serving the console on ") {
            break a.trim().to_string();
        }
    };
    (child, address, lines)
}

/// `count` idle TCP connections to `address` that never send a byte, from `peers` loopback
/// addresses (127.0.0.1 on); some may be refused or closed by the server, none is retried.
fn idle_connections(address: &str, count: usize, peers: u8) -> Vec<tokio::net::TcpStream> {
    use std::net::{IpAddr, Ipv4Addr, SocketAddr};
    raise_own_descriptor_limit(count as u64 + 256);
    let to: SocketAddr = address.parse().unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut held = Vec::with_capacity(count);
        for i in 0..count {
            let from = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 1 + (i % peers as usize) as u8));
            let socket = tokio::net::TcpSocket::new_v4().unwrap();
            socket.bind(SocketAddr::new(from, 0)).unwrap();
            let connect = tokio::time::timeout(Duration::from_secs(5), socket.connect(to));
            if let Ok(Ok(stream)) = connect.await {
                held.push(stream);
            }
        }
        held
    })
}

/// Lets this test process hold `needed` descriptors (up to its hard limit).
fn raise_own_descriptor_limit(needed: u64) {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: reads and sets this process's own limit, through a struct we own.
    unsafe {
        assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut r), 0);
        if r.rlim_cur < needed {
            r.rlim_cur = needed.min(r.rlim_max);
            assert_eq!(libc::setrlimit(libc::RLIMIT_NOFILE, &r), 0);
        }
    }
    assert!(r.rlim_cur >= needed, "the test needs {needed} descriptors");
}

/// A flood of idle connections without a token, from `peers` addresses, against a run whose
/// descriptor limit is `limit`: the run completes with every resource, a watcher with a token
/// attaches through the flood and approves the run's gate, and the connections turned away
/// are noted once in the run's log and counted once at the end.
fn a_flood_of_idle_connections_leaves_the_run_and_its_watchers_alone(limit: u64, peers: u8) {
    // The flood meets a run that opens files as it goes (the sim world is rewritten after every
    // step), and a gate at its end keeps it waiting for the watcher.
    let env = chain_project(30, 50);
    let (up, address, stderr_lines) =
        serve_tcp_limited(&env, limit, &["up", "--approve", "creates[**::r30]=ask"]);
    let flood = idle_connections(&address, 1_100, peers);
    let operator = Tmux::start_with(
        &env,
        160,
        45,
        &[("STEPDECK_TOKEN", CONTROL)],
        &["attach", "--name", "alice@laptop", &address],
    );
    operator.wait("the step gate", |s| {
        s.contains("AWAITING APPROVAL") && s.contains("create  creates=ask")
    });
    operator.keys(&["a"]);
    operator.wait_for("DONE");
    let out = finish(up);
    let errors: Vec<String> = stderr_lines.map_while(Result::ok).collect();
    assert!(out.status.success(), "{errors:?}\n{}", stdout(&out));
    assert_eq!(env.managed("dev").len(), 30);
    let text = stdout(&out);
    assert!(
        text.contains("create r30 (sim:index:Resource): approved by remote alice@laptop"),
        "{text}"
    );
    // Once in the summary's diagnostics (a live row may show it too, as the run goes).
    assert_eq!(
        text.lines()
            .filter(|l| !l.starts_with("    pulumi:pulumi:Stack "))
            .filter(|l| l.contains("the console server is turning connections away"))
            .count(),
        1,
        "{text}"
    );
    let counted: Vec<&String> = errors
        .iter()
        .filter(|l| l.contains("The console server turned away"))
        .collect();
    assert_eq!(counted.len(), 1, "{errors:?}");
    operator.quit_and_expect_restored(0);
    drop(flood);
}

#[test]
fn idle_connections_past_the_descriptor_limit_from_one_address_do_not_fail_the_run() {
    a_flood_of_idle_connections_leaves_the_run_and_its_watchers_alone(1024, 1);
}

#[test]
fn idle_connections_from_many_addresses_leave_the_run_its_descriptors() {
    // 32 of 64 descriptors are kept free: the server holds far fewer connections than its cap.
    a_flood_of_idle_connections_leaves_the_run_and_its_watchers_alone(64, 100);
}
