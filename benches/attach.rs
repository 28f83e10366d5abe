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
use stepdeck::rpc::console_addr::ConsoleAddress;
use stepdeck::rpc::console_client::{AttachOptions, attach, client};
use stepdeck::rpc::console_proto::{WatchRequest, watch_reply};
use stepdeck::rpc::console_server::{Limits, Served, ServingConsole, serve};
use stepdeck::rpc::console_tee::tee;
use stepdeck::rpc::console_token::Tokens;

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

/// A watcher elsewhere, as the served side sees it: a real gRPC stream read to the end (its
/// own decoding is its machine's cost, not the deployment's).
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
                n += batch.events.len();
            }
        }
        n
    })
}

/// One served update of `dag` with this many watchers reading every event; the time is the
/// deployment's, from start to its result (setting up the server and watchers is not timed).
fn served_update_once(
    rt: &tokio::runtime::Runtime,
    dag: &Arc<GeneratedDag>,
    watchers: usize,
) -> Duration {
    let dir = tempfile::tempdir().unwrap();
    let (served, _serving, address) = rt.block_on(served(dir.path()));
    let _readers: Vec<_> = (0..watchers)
        .map(|_| rt.block_on(raw_watcher(&address)))
        .collect();
    rt.block_on(async {
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
    })
}

/// Pairs of runs taken this many times.
const PAIRS: usize = 21;

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The cost of serving as a ratio that load on the machine does not skew: runs with 0 and 3
/// watchers taken in pairs, alternating which goes first, so that both see the same load.
/// Prints the median time of each, the median of the per-pair ratios and their spread
/// (quartiles); divan's own figure is the whole measurement.
#[divan::bench(sample_count = 1, sample_size = 1)]
fn watcher_cost_interleaved() {
    let rt = runtime();
    let dag = Arc::new(GeneratedDag::generate(&DagSpec::new(2_000)));
    served_update_once(&rt, &dag, 3);
    let (mut bare, mut watched, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for pair in 0..PAIRS {
        let (b, w) = if pair % 2 == 0 {
            let b = served_update_once(&rt, &dag, 0);
            (b, served_update_once(&rt, &dag, 3))
        } else {
            let w = served_update_once(&rt, &dag, 3);
            (served_update_once(&rt, &dag, 0), w)
        };
        bare.push(b.as_secs_f64());
        watched.push(w.as_secs_f64());
        ratios.push(w.as_secs_f64() / b.as_secs_f64());
    }
    let ms = |v: f64| v * 1000.0;
    let (b, w, r) = (median(&mut bare), median(&mut watched), median(&mut ratios));
    let quartile = |k: usize| ratios[k * (PAIRS - 1) / 4];
    eprintln!(
        "watcher cost over {PAIRS} interleaved pairs: 0 watchers {:.1} ms, 3 watchers {:.1} ms \
         (medians); ratio median {r:.3}, quartiles {:.3}..{:.3}, range {:.3}..{:.3}",
        ms(b),
        ms(w),
        quartile(1),
        quartile(3),
        ratios[0],
        ratios[PAIRS - 1],
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
