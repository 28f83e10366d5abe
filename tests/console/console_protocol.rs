//! The console protocol over real gRPC on a Unix socket, serving a real deployment of the
//! engine (built-in providers, a generated program): tokens, watch-only refusals, a late
//! joiner's model against the local console's, and resuming a stream.

#![allow(clippy::unwrap_used, clippy::panic)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use stepdeck::app::model::Model;
use stepdeck::bench_support::{DagProgram, DagSpec, GeneratedDag, builtin_factory};
use stepdeck::engine::{
    Control, Deployment, EngineEvent, EventSink, NullJournal, Operation, Options, Snapshot,
};
use stepdeck::rpc::console::addr::ConsoleAddress;
use stepdeck::rpc::console::client::{AttachOptions, Attached, ServedEvent, attach, client};
use stepdeck::rpc::console::server::{
    Limits, SERVING_NICE, SERVING_POLICY, SERVING_THREAD, Served, ServingConsole, serve,
};
use stepdeck::rpc::console::tee::tee;
use stepdeck::rpc::console::token::Tokens;
use stepdeck::rpc::console::wire::frames;
use stepdeck::rpc::console_proto::console_client::ConsoleClient;
use stepdeck::rpc::console_proto::{ActRequest, Action, WatchReply, WatchRequest, watch_reply};
use tokio::sync::mpsc::UnboundedReceiver;
use tonic::Code;

const CONTROL: &str = "control-token";
const WATCH: &str = "watch-token";

/// A console served on a fresh socket, and its address.
async fn served(dir: &tempfile::TempDir) -> (Arc<Served>, ServingConsole, ConsoleAddress) {
    served_with(dir, Limits::default()).await
}

/// `served`, with these limits.
async fn served_with(
    dir: &tempfile::TempDir,
    limits: Limits,
) -> (Arc<Served>, ServingConsole, ConsoleAddress) {
    let address = ConsoleAddress::Unix(dir.path().join("console.sock"));
    let served = Served::new();
    let tokens = Tokens {
        control: CONTROL.into(),
        watch: WATCH.into(),
    };
    let serving = serve(&address, tokens, None, limits, served.clone())
        .await
        .expect("serves");
    (served, serving, address)
}

fn options(address: &ConsoleAddress, token: &str) -> AttachOptions {
    AttachOptions {
        address: address.clone(),
        token: token.into(),
        client: "alice@laptop".into(),
        tls_ca: None,
        tls_domain: None,
    }
}

/// A deployment of `n` generated resources (each step taking `latency_ms`), served through
/// the tee; returns its control, its event sink (to add notes as a program would) and the
/// local display's stream.
fn deploy(
    served: &Arc<Served>,
    dir: &tempfile::TempDir,
    n: usize,
    latency_ms: u64,
) -> (
    Control,
    EventSink,
    UnboundedReceiver<EngineEvent>,
    tokio::task::JoinHandle<()>,
) {
    let mut spec = DagSpec::new(n);
    spec.latency_ms = latency_ms;
    spec.dbr_every = 0;
    let dag = Arc::new(GeneratedDag::generate(&spec));
    let (sink, events) = EventSink::channel();
    let options = Options {
        stack: "dev".into(),
        project: "p".into(),
        operation: Operation::Update,
        parallel: 4,
        ..Options::default()
    };
    let d = Deployment::new(
        options,
        Snapshot::default(),
        builtin_factory(dir.path()),
        Box::new(NullJournal),
        sink.clone(),
    );
    let control = d.control();
    let local = tee(
        served,
        (control.clone(), sink.clone()),
        Default::default(),
        events,
        None,
    );
    let run = tokio::spawn(async move {
        let result = d.run(Some(Box::new(DagProgram::new(dag, 16)))).await;
        assert!(result.outcome.is_success(), "{:?}", result.outcome);
    });
    (control, sink, local, run)
}

/// The served events without when the run saw them, as a local console receives its own.
fn untimed(mut served: UnboundedReceiver<ServedEvent>) -> UnboundedReceiver<EngineEvent> {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Some((e, _)) = served.recv().await {
            if tx.send(e).is_err() {
                return;
            }
        }
    });
    rx
}

/// Applies whatever `events` holds now (waiting `quiet` for more) to `model`.
async fn drain(events: &mut UnboundedReceiver<EngineEvent>, model: &mut Model, quiet: Duration) {
    while let Ok(Some(e)) = tokio::time::timeout(quiet, events.recv()).await {
        model.apply(&e);
    }
}

/// What the console shows of each resource and of the run.
fn statuses(m: &Model) -> String {
    format!("{:?}\n{:?}", m.resources(), m.run_state())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_or_wrong_token_is_unauthenticated_and_reveals_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (served, _serving, address) = served(&dir).await;
    served.hub.push(&EngineEvent::Paused);
    let channel = stepdeck::rpc::transport::server::connect(&address.to_string())
        .await
        .unwrap();
    let mut bare = ConsoleClient::new(channel);
    let watch = bare
        .watch(WatchRequest {
            client: "mallory".into(),
            from: 0,
        })
        .await;
    assert_eq!(watch.err().map(|s| s.code()), Some(Code::Unauthenticated));
    let act = bare
        .act(ActRequest {
            client: "mallory".into(),
            action: Action::Cancel as i32,
            cascade: 0,
            kind: String::new(),
        })
        .await;
    assert_eq!(act.err().map(|s| s.code()), Some(Code::Unauthenticated));

    let err = attach(options(&address, "not-the-token"))
        .await
        .err()
        .expect("refused");
    assert!(
        err.to_string().contains("a valid token is required"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_only_token_watches_but_its_actions_are_refused_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let (served, _serving, address) = served(&dir).await;
    let (control, _, mut local, run) = deploy(&served, &dir, 20, 50);
    let Attached {
        events,
        actions,
        may_act,
        ..
    } = attach(options(&address, WATCH)).await.unwrap();
    let mut events = untimed(events);
    assert!(!may_act);
    actions.send(Action::Pause, 0);
    let refusal = loop {
        match tokio::time::timeout(Duration::from_secs(10), events.recv()).await {
            Ok(Some(EngineEvent::Diagnostic { message, .. })) if message.contains("refused") => {
                break message;
            }
            Ok(Some(_)) => {}
            other => panic!("no refusal came: {other:?}"),
        }
    };
    assert_eq!(refusal, "pause refused: this token may only watch");
    assert!(!control.is_paused(), "a watch-only token paused the run");
    while local.recv().await.is_some() {}
    run.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_joiner_sees_what_the_local_console_sees_mid_run_and_at_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let (served, _serving, address) = served(&dir).await;
    let (control, _, mut local, run) = deploy(&served, &dir, 60, 30);
    let mut here = Model::new();
    // Some steps ran before the watcher comes; the pause holds the rest.
    while here.resources().len() < 20 {
        let e = local.recv().await.expect("events");
        here.apply(&e);
    }
    control.pause();
    drain(&mut local, &mut here, Duration::from_millis(500)).await;

    let Attached {
        events,
        actions,
        may_act,
        ..
    } = attach(options(&address, CONTROL)).await.unwrap();
    let mut events = untimed(events);
    assert!(may_act);
    let mut there = Model::new();
    drain(&mut events, &mut there, Duration::from_millis(500)).await;
    assert!(there.resources().len() >= 20);
    assert_eq!(statuses(&there), statuses(&here), "mid-run");

    actions.send(Action::Resume, 0);
    drain(&mut local, &mut here, Duration::from_secs(3)).await;
    run.await.unwrap();
    while let Some(e) = local.recv().await {
        here.apply(&e);
    }
    while let Ok(Some(e)) = tokio::time::timeout(Duration::from_secs(5), events.recv()).await {
        there.apply(&e);
    }
    assert!(here.run_state().is_over());
    assert_eq!(statuses(&there), statuses(&here), "at the end");
    // The resume was recorded with who asked for it, in both.
    let log = |m: &Model| format!("{:?}", m.log.entries());
    assert!(log(&here).contains("deployment resumed by alice@laptop"));
    assert!(log(&there).contains("deployment resumed by alice@laptop"));
    // Credited to the watcher once, not to the local operator as well.
    for m in [&here, &there] {
        assert!(log(m).contains("\"resumed by alice@laptop\""), "{}", log(m));
        assert!(!log(m).contains("resumed by the operator"), "{}", log(m));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_from_a_position_resumes_there_and_the_end_closes_the_stream() {
    let dir = tempfile::tempdir().unwrap();
    let (served, _serving, address) = served(&dir).await;
    for _ in 0..5 {
        served.hub.push(&EngineEvent::Paused);
    }
    served.hub.close();
    let mut client = client(&options(&address, WATCH)).await.unwrap();
    let mut stream = client
        .watch(WatchRequest {
            client: "bob".into(),
            from: 3,
        })
        .await
        .unwrap()
        .into_inner();
    let mut seqs = Vec::new();
    while let Some(reply) = stream.message().await.unwrap() {
        if let Some(watch_reply::Item::Events(batch)) = reply.item {
            seqs.extend((batch.first..).take(frames(&batch.runs).count()));
        }
    }
    assert_eq!(seqs, [3, 4]);
}

/// The nice value and the scheduling policy (fields 19 and 41 of their stat) of this
/// process's threads named `name`.
fn priority_of_threads_named(name: &str) -> Vec<(i32, i32)> {
    let mut found = Vec::new();
    for task in std::fs::read_dir("/proc/self/task").unwrap() {
        let dir = task.unwrap().path();
        let comm = std::fs::read_to_string(dir.join("comm")).unwrap_or_default();
        if comm.trim_end() != name {
            continue;
        }
        let stat = std::fs::read_to_string(dir.join("stat")).unwrap();
        let after_name = &stat[stat.rfind(')').unwrap() + 2..];
        let fields: Vec<&str> = after_name.split(' ').collect();
        let field = |n: usize| fields[n - 3].parse().unwrap();
        found.push((field(19), field(41)));
    }
    found
}

/// The console is served from a thread of its own at the lowest priority, as a batch thread
/// that does not preempt others when it wakes, so a busy deployment keeps nearly every cycle
/// (other tests of this file serve too: every serving thread is at that priority).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_console_is_served_on_spare_cycles_by_a_thread_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let (served, _serving, address) = served(&dir).await;
    let found = priority_of_threads_named(SERVING_THREAD);
    assert!(!found.is_empty(), "no thread named {SERVING_THREAD}");
    assert!(
        found.iter().all(|p| *p == (SERVING_NICE, SERVING_POLICY)),
        "{found:?}"
    );
    served.hub.push(&EngineEvent::Paused);
    served.hub.close();
    let mut a = attach(options(&address, WATCH)).await.unwrap();
    assert!(matches!(
        a.events.recv().await,
        Some((EngineEvent::Paused, Some(_)))
    ));
}

/// How many events the next reply of `stream` that carries events holds.
async fn events_in_next_reply(stream: &mut tonic::Streaming<WatchReply>) -> usize {
    loop {
        let reply = stream.message().await.unwrap().expect("a reply");
        if let Some(watch_reply::Item::Events(batch)) = reply.item {
            return frames(&batch.runs).count();
        }
    }
}

/// A watcher gets an isolated event at once, and the events of a burst that follows together
/// in one reply rather than a reply each.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_after_a_reply_goes_out_gathered_in_one_reply() {
    let dir = tempfile::tempdir().unwrap();
    let gather = Duration::from_millis(400);
    let limits = Limits {
        gather,
        ..Limits::default()
    };
    let (served, _serving, address) = served_with(&dir, limits).await;
    let mut client = client(&options(&address, WATCH)).await.unwrap();
    let req = WatchRequest {
        client: "bob".into(),
        from: 0,
    };
    let mut stream = client.watch(req).await.unwrap().into_inner();
    let started = Instant::now();
    served.hub.push(&EngineEvent::Paused);
    assert_eq!(events_in_next_reply(&mut stream).await, 1);
    assert!(
        started.elapsed() < gather,
        "an isolated event waits for nothing"
    );
    for _ in 0..3 {
        served.hub.push(&EngineEvent::Resumed);
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(
        events_in_next_reply(&mut stream).await,
        3,
        "the burst comes in one reply"
    );
    served.hub.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watchers_beyond_the_limit_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let address = ConsoleAddress::Unix(dir.path().join("console.sock"));
    let served = Served::new();
    let tokens = Tokens {
        control: CONTROL.into(),
        watch: WATCH.into(),
    };
    let limits = Limits {
        max_watchers: 1,
        ..Limits::default()
    };
    let _serving = serve(&address, tokens, None, limits, served.clone())
        .await
        .unwrap();
    served.hub.push(&EngineEvent::Paused);
    let _first = attach(options(&address, WATCH)).await.unwrap();
    let err = attach(options(&address, WATCH))
        .await
        .err()
        .expect("refused");
    assert!(err.to_string().contains("1 watchers already"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_socket_is_its_owners_only_and_oversized_or_too_many_requests_are_refused() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let address = ConsoleAddress::Unix(dir.path().join("console.sock"));
    let tokens = Tokens {
        control: CONTROL.into(),
        watch: WATCH.into(),
    };
    let limits = Limits {
        actions_per_second: 1,
        ..Limits::default()
    };
    let _serving = serve(&address, tokens, None, limits, Served::new())
        .await
        .unwrap();
    let mode = std::fs::metadata(dir.path().join("console.sock"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);

    let mut client = client(&options(&address, CONTROL)).await.unwrap();
    let act = |client: String| ActRequest {
        client,
        action: Action::Pause as i32,
        cascade: 0,
        kind: String::new(),
    };
    let huge = client.act(act("x".repeat(64 * 1024))).await.unwrap_err();
    assert_eq!(huge.code(), Code::OutOfRange, "{huge:?}");
    // A burst of twice the rate passes the limiter (no deployment yet: unavailable), the
    // next is refused.
    let mut codes = Vec::new();
    for _ in 0..3 {
        codes.push(client.act(act("bob".into())).await.unwrap_err().code());
    }
    assert_eq!(
        codes,
        [
            Code::Unavailable,
            Code::Unavailable,
            Code::ResourceExhausted
        ]
    );
}

/// Runs openssl (a real CA and a certificate for `localhost` signed by it) in `dir`.
fn certificates(dir: &std::path::Path) {
    std::fs::write(
        dir.join("ext.cnf"),
        "subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    let steps: [Vec<&str>; 3] = [
        [
            &["req", "-x509"][..],
            &ec,
            &["-keyout", "ca.key", "-out", "ca.pem"],
        ]
        .concat(),
        [
            &["req"][..],
            &ec,
            &["-keyout", "key.pem", "-out", "leaf.csr"],
        ]
        .concat(),
        vec![
            "x509",
            "-req",
            "-in",
            "leaf.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "cert.pem",
            "-extfile",
            "ext.cnf",
        ],
    ];
    for (i, args) in steps.iter().enumerate() {
        let subject = if i == 0 {
            "/CN=test-ca"
        } else {
            "/CN=localhost"
        };
        let mut c = std::process::Command::new("openssl");
        c.current_dir(dir).args(args).args(["-days", "2"]);
        if i < 2 {
            c.args(["-subj", subject]);
        }
        let out = c.output().expect("openssl runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_tls_a_watcher_trusting_the_ca_attaches_and_a_plaintext_one_does_not() {
    use stepdeck::rpc::console::server::TlsFiles;
    let dir = tempfile::tempdir().unwrap();
    certificates(dir.path());
    let served = Served::new();
    served.hub.push(&EngineEvent::Paused);
    let tls = TlsFiles {
        cert: dir.path().join("cert.pem"),
        key: dir.path().join("key.pem"),
    };
    let tokens = Tokens {
        control: CONTROL.into(),
        watch: WATCH.into(),
    };
    let serving = serve(
        &ConsoleAddress::Tcp("127.0.0.1:0".into()),
        tokens,
        Some(&tls),
        Limits::default(),
        served,
    )
    .await
    .unwrap();
    let mut opts = options(&serving.address, WATCH);
    assert!(attach(opts.clone()).await.is_err(), "plaintext attached");
    opts.tls_ca = Some(dir.path().join("ca.pem"));
    opts.tls_domain = Some("localhost".into());
    let mut attached = attach(opts).await.unwrap();
    assert!(matches!(
        attached.events.recv().await,
        Some((EngineEvent::Paused, Some(_)))
    ));
}

/// A Unix socket that forwards every connection to `to`; `cut` breaks the open ones (the
/// listener stays, so a client can connect again).
struct Proxy {
    connections: Arc<std::sync::Mutex<Vec<tokio::task::JoinHandle<()>>>>,
    accept: tokio::task::JoinHandle<()>,
}

impl Proxy {
    fn start(at: std::path::PathBuf, to: std::path::PathBuf) -> Proxy {
        let listener = tokio::net::UnixListener::bind(at).unwrap();
        let connections: Arc<std::sync::Mutex<Vec<tokio::task::JoinHandle<()>>>> = Arc::default();
        let held = connections.clone();
        let accept = tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                let to = to.clone();
                let task = tokio::spawn(async move {
                    let mut outbound = tokio::net::UnixStream::connect(to).await.unwrap();
                    let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                });
                held.lock().unwrap().push(task);
            }
        });
        Proxy {
            connections,
            accept,
        }
    }

    fn cut(&self) {
        for task in self.connections.lock().unwrap().drain(..) {
            task.abort();
        }
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.cut();
        self.accept.abort();
    }
}

/// A console served on a fresh socket and reached through a proxy that can break the
/// connection: the proxy and the address to attach to.
async fn served_through_proxy(
    dir: &tempfile::TempDir,
) -> (Arc<Served>, ServingConsole, Proxy, ConsoleAddress) {
    let (served, serving, address) = served(dir).await;
    let ConsoleAddress::Unix(server) = &address else {
        unreachable!("served on a socket")
    };
    let front = dir.path().join("front.sock");
    let proxy = Proxy::start(front.clone(), server.clone());
    (served, serving, proxy, ConsoleAddress::Unix(front))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watcher_whose_connection_breaks_reconnects_and_misses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (served, _serving, proxy, front) = served_through_proxy(&dir).await;
    let urn = |i: usize| {
        stepdeck::engine::Urn::parse(&format!("urn:pulumi:dev::p::sim:index:Resource::r{i}"))
            .unwrap()
    };
    for i in 0..100 {
        served.hub.push(&EngineEvent::DiffQueued { urn: urn(i) });
    }
    let Attached {
        events, actions, ..
    } = attach(options(&front, WATCH)).await.unwrap();
    let mut events = untimed(events);
    // Without actions the stream closes when the served deployment ends.
    drop(actions);
    let mut got = Vec::new();
    while got.len() < 100 {
        got.push(events.recv().await.unwrap());
    }
    proxy.cut();
    for i in 100..200 {
        served.hub.push(&EngineEvent::DiffQueued { urn: urn(i) });
    }
    served.hub.close();
    while let Ok(Some(e)) = tokio::time::timeout(Duration::from_secs(10), events.recv()).await {
        got.push(e);
    }
    let expected: Vec<EngineEvent> = (0..200)
        .map(|i| EngineEvent::DiffQueued { urn: urn(i) })
        .collect();
    assert_eq!(got, expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_that_breaks_after_the_summary_ends_the_stream_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let (served, _serving, proxy, front) = served_through_proxy(&dir).await;
    let summary = EngineEvent::Summary {
        counts: Default::default(),
        declined: 0,
        duration: Duration::from_secs(1),
        outcome: stepdeck::engine::Outcome::Succeeded,
        preview: false,
        policy_packs: Default::default(),
    };
    served.hub.push(&EngineEvent::Paused);
    served.hub.push(&summary);
    let Attached {
        events, actions, ..
    } = attach(options(&front, WATCH)).await.unwrap();
    let mut events = untimed(events);
    drop(actions);
    assert_eq!(events.recv().await, Some(EngineEvent::Paused));
    assert_eq!(events.recv().await, Some(summary));
    // The serving process exits before its stream ends cleanly: the connection breaks and
    // nothing listens any more.
    drop(proxy);
    let after = tokio::time::timeout(Duration::from_secs(5), events.recv()).await;
    assert_eq!(
        after,
        Ok(None),
        "the stream ends, without retrying or a lost-connection error"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_joiner_after_notes_were_compacted_sees_the_local_model() {
    let dir = tempfile::tempdir().unwrap();
    let (served, _serving, address) = served(&dir).await;
    let (_control, sink, mut local, run) = deploy(&served, &dir, 40, 5);
    // A chatty program: three status notes on every resource once it is created, and one on
    // the run; the model keeps only the last of each.
    let mut here = Model::new();
    let mut notes = 0;
    while let Some(e) = local.recv().await {
        if let EngineEvent::StepFinished { urn, .. } = &e {
            for i in 0..3 {
                sink.send(EngineEvent::Diagnostic {
                    urn: Some(urn.clone()),
                    severity: stepdeck::engine::Severity::Info,
                    message: format!("{} status {i}", urn.name()),
                    ephemeral: true,
                });
                sink.send(EngineEvent::Diagnostic {
                    urn: None,
                    severity: stepdeck::engine::Severity::Info,
                    message: format!("run status {notes}"),
                    ephemeral: true,
                });
                notes += 2;
            }
        }
        here.apply(&e);
    }
    run.await.unwrap();
    assert!(here.run_state().is_over());
    let pushed = usize::try_from(served.hub.end()).unwrap();
    assert!(notes > 200, "{notes} notes");
    assert!(
        served.hub.held() + notes * 3 / 4 <= pushed,
        "the hub holds {} of {pushed} events after {notes} notes",
        served.hub.held()
    );

    let Attached { events, .. } = attach(options(&address, WATCH)).await.unwrap();
    let mut events = untimed(events);
    let mut there = Model::new();
    while let Ok(Some(e)) = tokio::time::timeout(Duration::from_secs(5), events.recv()).await {
        there.apply(&e);
    }
    assert_eq!(statuses(&there), statuses(&here));
    assert_eq!(
        format!("{:?}", there.log.entries()),
        format!("{:?}", here.log.entries())
    );
    assert!(
        format!("{:?}", there.resources()).contains("status 2"),
        "the last note on each row is kept"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watcher_that_stops_reading_is_dropped_with_a_message_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits {
        stall: Duration::from_secs(1),
        ..Limits::default()
    };
    let (served, _serving, address) = served_with(&dir, limits).await;
    // A watcher that opens its stream and then reads nothing, as a stopped process would.
    let mut stalled = client(&options(&address, WATCH))
        .await
        .unwrap()
        .watch(WatchRequest {
            client: "stopped".into(),
            from: 0,
        })
        .await
        .unwrap()
        .into_inner();
    // Enough events to overflow its HTTP/2 windows and its buffer on the server, even with
    // URNs sent by reference.
    let (_control, _, mut local, run) = deploy(&served, &dir, 8_000, 0);
    while local.recv().await.is_some() {}
    run.await.unwrap();
    let end = served.hub.end();

    // It left its buffer full, so it was dropped and its place freed.
    let dropped = tokio::time::timeout(Duration::from_secs(10), async {
        while served.hub.watchers() > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    assert!(dropped.is_ok(), "the stalled watcher still holds its place");

    // Waking up, it reads what was buffered for it, then why it was dropped.
    let mut next = 0;
    let status = loop {
        match stalled.message().await {
            Ok(Some(reply)) => {
                if let Some(watch_reply::Item::Events(batch)) = reply.item {
                    next = batch.next;
                }
            }
            Ok(None) => panic!("the stream ended without saying the watcher was dropped"),
            Err(status) => break status,
        }
    };
    assert_eq!(status.code(), Code::Aborted);
    assert!(
        status
            .message()
            .contains(&format!("fell behind: it read nothing for 1s while the deployment went on, so it was dropped; attach again from event {next}")),
        "{}",
        status.message()
    );
    assert!(next < end, "everything fit in the buffer: {next} of {end}");

    // Attaching again from there catches up to the summary.
    let mut resumed = client(&options(&address, WATCH))
        .await
        .unwrap()
        .watch(WatchRequest {
            client: "stopped".into(),
            from: next,
        })
        .await
        .unwrap()
        .into_inner();
    while let Some(reply) = resumed.message().await.unwrap() {
        if let Some(watch_reply::Item::Events(batch)) = reply.item {
            assert!(batch.first >= next);
            next = batch.next;
        }
    }
    assert_eq!(next, end);
}
