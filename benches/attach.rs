//! Divan benchmarks of the console protocol (`cargo bench --bench attach`): a served
//! deployment's time with 0 and with 3 watchers reading its stream over real gRPC (their ratio
//! is the cost of serving, taken in alternating pairs and printed as medians and spread), and
//! 1,000,000 events streamed to one watcher.

#![allow(clippy::unwrap_used, clippy::panic)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use divan::Bencher;
use stepdeck::bench_support::{DagProgram, DagSpec, GeneratedDag, builtin_factory};
use stepdeck::engine::{
    Deployment, EngineEvent, EventSink, NullJournal, Operation, Options, Snapshot, Urn,
};
use stepdeck::rpc::console::addr::ConsoleAddress;
use stepdeck::rpc::console::client::{AttachOptions, attach, client};
use stepdeck::rpc::console::server::{Limits, Served, ServingConsole, serve};
use stepdeck::rpc::console::tee::tee;
use stepdeck::rpc::console::token::Tokens;
use stepdeck::rpc::console::wire::frames;
use stepdeck::rpc::console_proto::{WatchRequest, watch_reply};

/// The same allocator as the `stepdeck` binary, so that the figures are the binary's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    divan::main();
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime")
}

const TOKEN: &str = "bench-token";

async fn served(dir: &std::path::Path) -> (Arc<Served>, ServingConsole, ConsoleAddress) {
    let address = ConsoleAddress::Unix(dir.join("console.sock"));
    let served = Served::new();
    let tokens = Tokens {
        control: TOKEN.into(),
        watch: "bench-watch".into(),
    };
    let serving = serve(&address, tokens, None, Limits::default(), served.clone())
        .await
        .expect("serves");
    (served, serving, address)
}

fn watcher(address: &ConsoleAddress) -> AttachOptions {
    AttachOptions {
        address: address.clone(),
        token: TOKEN.into(),
        client: "bench".into(),
        tls_ca: None,
        tls_domain: None,
    }
}

/// Where the watchers run: elsewhere, as far as the deployment is concerned. On this machine
/// they share its cores, so their thread runs under `SCHED_IDLE`, only on cycles nothing else
/// wants: their own decoding is their machine's cost, not the served side's.
fn watchers_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .on_thread_start(|| {
            let param = libc::sched_param { sched_priority: 0 };
            // SAFETY: gettid cannot fail; sched_setscheduler names this thread by its own id
            // and reads `param` only during the call.
            unsafe { libc::sched_setscheduler(libc::gettid(), libc::SCHED_IDLE, &param) };
        })
        .enable_all()
        .build()
        .expect("tokio runtime")
}

/// A watcher elsewhere, as the served side sees it: a real gRPC stream read to the end.
async fn raw_watcher(address: &ConsoleAddress) -> tokio::task::JoinHandle<usize> {
    let mut client = client(&watcher(address)).await.unwrap();
    let req = WatchRequest {
        client: "bench".into(),
        from: 0,
    };
    let mut stream = client.watch(req).await.unwrap().into_inner();
    tokio::spawn(async move {
        let mut n = 0;
        while let Ok(Some(reply)) = stream.message().await {
            if let Some(watch_reply::Item::Events(batch)) = reply.item {
                n += frames(&batch.runs).count();
            }
        }
        n
    })
}

/// One served update of `dag` with this many watchers reading every event; the time is the
/// deployment's, from start to its result (setting up the server and watchers is not timed,
/// and the watchers finish reading and the server stops before the next run starts).
fn served_update_once(
    rt: &tokio::runtime::Runtime,
    elsewhere: &tokio::runtime::Runtime,
    dag: &Arc<GeneratedDag>,
    watchers: usize,
) -> Duration {
    let dir = tempfile::tempdir().unwrap();
    let (served, serving, address) = rt.block_on(served(dir.path()));
    let readers: Vec<_> = (0..watchers)
        .map(|_| elsewhere.block_on(raw_watcher(&address)))
        .collect();
    let took = rt.block_on(async {
        let (sink, events) = EventSink::channel();
        let options = Options {
            operation: Operation::Update,
            ..Options::default()
        };
        let d = Deployment::new(
            options,
            Snapshot::default(),
            builtin_factory(dir.path()),
            Box::new(NullJournal),
            sink.clone(),
        );
        let mut local = tee(
            &served,
            (d.control(), sink),
            Default::default(),
            events,
            None,
        );
        let display = tokio::spawn(async move { while local.recv().await.is_some() {} });
        let started = Instant::now();
        let r = d
            .run(Some(Box::new(DagProgram::new(dag.clone(), 256))))
            .await;
        let took = started.elapsed();
        assert!(r.outcome.is_success());
        let _ = display.await;
        took
    });
    for reader in readers {
        assert_eq!(elsewhere.block_on(reader).unwrap(), served.hub.held());
    }
    // The next run starts on a machine that serves nothing.
    serving.stop();
    took
}

/// Rounds of runs taken by `cargo bench`; `cargo test` runs each bench once as a test, where
/// two rounds check that it works.
fn rounds() -> usize {
    if std::env::args().any(|a| a == "--bench") {
        151
    } else {
        2
    }
}

/// The median, and the quartiles, of `v` (sorted in place).
fn spread(v: &mut [f64]) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    let at = |k: usize| v[k * (v.len() - 1) / 4];
    (at(2), at(1), at(3))
}

/// The cost of serving as a ratio that load on the machine does not skew: each round runs
/// the update unwatched, unwatched again and with 3 watchers, in an order that rotates, so all
/// three see the same load. Prints the medians and quartiles of the per-round ratios of the
/// watched run to the first unwatched one, and to both (their geometric mean, which halves
/// the noise the denominator brings), the median watched run against the median unwatched
/// one, and the median ratio of the second unwatched run to the first (the control: what
/// noise alone gives); divan's own figure is the whole measurement.
#[divan::bench(sample_count = 1, sample_size = 1)]
fn watcher_cost_interleaved() {
    let (rt, elsewhere) = (runtime(), watchers_runtime());
    let dag = Arc::new(GeneratedDag::generate(&DagSpec::new(2_000)));
    served_update_once(&rt, &elsewhere, &dag, 3);
    let (mut bare, mut watched, mut against_both, mut control) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut unwatched_times, mut watched_times) = (Vec::new(), Vec::new());
    let rounds = rounds();
    for round in 0..rounds {
        let mut took = [0.0; 3];
        for k in 0..3 {
            let which = (round + k) % 3;
            let watchers = if which == 2 { 3 } else { 0 };
            took[which] = served_update_once(&rt, &elsewhere, &dag, watchers).as_secs_f64();
        }
        let [first, second, with_three] = took;
        unwatched_times.extend([first, second]);
        watched_times.push(with_three);
        bare.push(first);
        watched.push(with_three / first);
        against_both.push(with_three / (first * second).sqrt());
        control.push(second / first);
    }
    let (b, _, _) = spread(&mut bare);
    let (w, w1, w3) = spread(&mut watched);
    let (g, g1, g3) = spread(&mut against_both);
    let (c, c1, c3) = spread(&mut control);
    let of_medians = spread(&mut watched_times).0 / spread(&mut unwatched_times).0;
    eprintln!(
        "watcher cost over {rounds} rounds (unwatched median {:.1} ms): 3 watchers / unwatched \
         median {w:.3}, quartiles {w1:.3}..{w3:.3}; against both unwatched runs median {g:.3}, \
         quartiles {g1:.3}..{g3:.3}; median watched run / median unwatched run {of_medians:.3}; \
         control, unwatched / unwatched median {c:.3}, quartiles {c1:.3}..{c3:.3}",
        b * 1000.0,
    );
}

/// 1,000,000 events (a URN each) pushed to the hub and streamed to one watcher, which decodes
/// every one back into an `EngineEvent`.
#[divan::bench(sample_count = 3)]
fn stream_a_million_events(bencher: Bencher) {
    const N: usize = 1_000_000;
    let rt = runtime();
    let urn = Urn::parse("urn:pulumi:dev::bench::sim:index:Resource::r").unwrap();
    bencher.counter(N).bench_local(|| {
        rt.block_on(async {
            let dir = tempfile::tempdir().unwrap();
            let (served, _serving, address) = served(dir.path()).await;
            for _ in 0..N {
                served
                    .hub
                    .push(&EngineEvent::DiffQueued { urn: urn.clone() });
            }
            served.hub.close();
            let mut a = attach(watcher(&address)).await.unwrap();
            let mut got = 0;
            while let Ok(Some(_)) =
                tokio::time::timeout(Duration::from_secs(30), a.events.recv()).await
            {
                got += 1;
                if got == N {
                    break;
                }
            }
            assert_eq!(got, N);
        });
    });
}
