//! Divan benchmarks of the engine at modest sizes (`cargo bench --bench engine`). Bigger
//! sizes: set `STEPDECK_BENCH_BIG=1`. Whole-process figures come from `benches/scale.rs`.

#![allow(clippy::unwrap_used, clippy::panic)]

use std::sync::Arc;

use divan::Bencher;
use stepdeck::app::model::Model;
use stepdeck::bench_support::{
    DagSpec, FileStack, GeneratedDag, RunConfig, builtin_factory, run_unjournaled,
};
use stepdeck::engine::journal::{SnapshotManager, SuccessEntry};
use stepdeck::engine::model::graph::DependencyGraph;
use stepdeck::engine::model::snapshot::share_states;
use stepdeck::engine::{
    EngineEvent, EventSink, NullJournal, Operation, Outcome, ResourceState, Snapshot, Urn,
};

fn main() {
    divan::main();
}

fn sizes() -> Vec<usize> {
    if std::env::var_os("STEPDECK_BENCH_BIG").is_some() {
        vec![1_000, 10_000, 100_000]
    } else {
        vec![100, 1_000]
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime")
}

fn dag(n: usize) -> Arc<GeneratedDag> {
    Arc::new(GeneratedDag::generate(&DagSpec::new(n)))
}

/// A preview of a new stack: every resource a create.
#[divan::bench(args = sizes(), sample_count = 5)]
fn preview(bencher: Bencher, n: usize) {
    let rt = runtime();
    let dag = dag(n);
    let dir = tempfile::tempdir().unwrap();
    bencher.bench_local(|| {
        let r = rt.block_on(run_unjournaled(
            Operation::Preview,
            Some(&dag),
            Snapshot::default(),
            builtin_factory(dir.path()),
            &RunConfig::default(),
        ));
        assert_eq!(r.result.outcome, Outcome::Succeeded);
    });
}

/// An update creating everything, journaled to the file backend.
#[divan::bench(args = sizes(), sample_count = 3)]
fn up(bencher: Bencher, n: usize) {
    let rt = runtime();
    let dag = dag(n);
    bencher
        .with_inputs(|| tempfile::tempdir().unwrap())
        .bench_local_values(|dir| {
            let stack = FileStack::create(dir.path()).unwrap();
            let (r, _) = rt
                .block_on(stack.run(
                    Operation::Update,
                    Some(&dag),
                    builtin_factory(dir.path()),
                    &RunConfig::default(),
                ))
                .unwrap();
            assert_eq!(r.result.outcome, Outcome::Succeeded);
            dir
        });
}

/// The console model applying a preview's events.
#[divan::bench(args = sizes(), sample_count = 5)]
fn console_ingest(bencher: Bencher, n: usize) {
    let rt = runtime();
    let dag = dag(n);
    let dir = tempfile::tempdir().unwrap();
    let (events, mut rx) = EventSink::channel();
    let r = rt.block_on(async {
        let options = stepdeck::engine::Options {
            operation: Operation::Preview,
            ..Default::default()
        };
        stepdeck::engine::Deployment::new(
            options,
            Snapshot::default(),
            builtin_factory(dir.path()),
            Box::new(stepdeck::engine::NullJournal),
            events,
        )
        .run(Some(Box::new(stepdeck::bench_support::DagProgram::new(
            dag, 256,
        ))))
        .await
    });
    assert_eq!(r.outcome, Outcome::Succeeded);
    let mut all: Vec<EngineEvent> = Vec::new();
    while let Ok(e) = rx.try_recv() {
        all.push(e);
    }
    bencher.counter(all.len()).bench_local(|| {
        let mut model = Model::new();
        for e in &all {
            model.apply(e);
        }
        model
    });
}

/// A `--target` glob with `stars` stars (each `*a`, then `*c`) that fails to match a URN
/// of 400 `a`s: the cost grows linearly with the stars (a backtracking matcher doubles it
/// with each one).
#[divan::bench(args = [1, 4, 13, 32, 64])]
fn target_glob_stars(bencher: Bencher, stars: usize) {
    use stepdeck::engine::model::targets::UrnGlob;
    let urn = format!("urn:pulumi:dev::p::sim:index:Server::{}b", "a".repeat(400));
    let glob = UrnGlob::new(&format!(
        "urn:pulumi:dev::p::sim:index:Server::{}*c",
        "*a".repeat(stars)
    ));
    bencher.bench(|| assert!(!glob.matches(divan::black_box(&urn))));
}

/// A `--target` glob over the URNs of a 100,000-resource stack: what selecting targets (or an
/// approval rule's scope) costs at a size users have.
#[divan::bench(args = ["**::r1*", "urn:pulumi:prod::shop::bench:index:Group$sim:index:*::r*7"])]
fn urn_glob_over_100k_urns(bencher: Bencher, glob: &str) {
    use stepdeck::engine::model::targets::UrnGlob;
    let urns: Vec<String> = (0..100_000)
        .map(|i| {
            let kind = if i % 100 == 0 { "Queue" } else { "Resource" };
            format!("urn:pulumi:prod::shop::bench:index:Group$sim:index:{kind}::r{i}")
        })
        .collect();
    let glob = UrnGlob::new(glob);
    bencher
        .counter(urns.len())
        .bench(|| urns.iter().filter(|u| glob.matches(u)).count());
}

/// The timestamp every created and modified resource records.
#[divan::bench]
fn resource_timestamp(bencher: Bencher) {
    use stepdeck::engine::model::clock::Clock;
    let clock = Clock::fixed(chrono::DateTime::from_timestamp(1_764_370_000, 123_000_000).unwrap());
    bencher.bench(|| divan::black_box(&clock).timestamp());
}

/// The passphrase provider's key for a new salt: 1,000,000 rounds of PBKDF2-HMAC-SHA256, paid
/// once per stack and passphrase by every command that reads or writes its secrets.
#[divan::bench(sample_count = 3, sample_size = 1)]
fn passphrase_key(bencher: Bencher) {
    bencher
        .bench(|| stepdeck::state::passphrase::Crypter::new_salt("correct horse battery staple"));
}

/// `n` custom states, each depending on the one before (a loaded stack's shape for the checks
/// below, which look every reference up).
fn chained_states(n: usize) -> Vec<ResourceState> {
    let mut states: Vec<ResourceState> = Vec::with_capacity(n);
    for i in 0..n {
        let urn = Urn::new(
            "bench",
            "bench",
            None,
            "sim:index:Resource",
            &format!("r{i}"),
        );
        let dependencies = states.last().map(|s| s.urn.clone()).into_iter().collect();
        states.push(ResourceState {
            urn,
            type_: "sim:index:Resource".into(),
            custom: true,
            id: Some(format!("id-{i}")),
            dependencies,
            ..ResourceState::default()
        });
    }
    states
}

/// The journal's bookkeeping of a deployment that changes nothing: every base state kept,
/// then the snapshot taken (what the `same` path costs besides the program and the steps).
#[divan::bench(args = sizes())]
fn keep_every_state(bencher: Bencher, n: usize) {
    let base = share_states(chained_states(n));
    bencher.bench_local(|| {
        let manager = SnapshotManager::shared(base.clone(), Vec::new(), Box::new(NullJournal));
        for i in 0..n {
            let keep = SuccessEntry {
                keep_old: Some(i),
                ..SuccessEntry::default()
            };
            manager.success(keep).unwrap();
        }
        manager.take_snapshot()
    });
}

/// The checks every loaded checkpoint passes before a deployment starts, and the dependency
/// graph each deployment builds over its base.
#[divan::bench(args = sizes())]
fn verify_and_graph_a_loaded_stack(bencher: Bencher, n: usize) {
    let snapshot = Snapshot {
        resources: chained_states(n),
        ..Snapshot::default()
    };
    bencher.bench_local(|| {
        snapshot.verify_integrity().unwrap();
        DependencyGraph::new(&snapshot.resources)
    });
}
