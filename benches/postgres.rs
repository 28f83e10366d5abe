//! The `postgres://` backend against a real server (started as the tests start it,
//! tests/pg_support): `cargo bench --bench postgres`.
//!
//! First a report (printed once): an `up` of 10,000 creates journaled to PostgreSQL with its
//! rows, bytes and round trips per step; the same `up` at 1,000 against a whole-checkpoint
//! write per step (what Pulumi's self-managed backends do) and the ratio; a no-op `up` of
//! 10,000; a load of a 100,000-resource stack. Then divan times the same operations.
//! Smaller sizes for a quick look: `STEPDECK_BENCH_SMALL=1`.

#![allow(clippy::unwrap_used, clippy::panic)]

#[path = "../tests/pg_support/mod.rs"]
mod pg_support;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use base64::Engine as _;
use divan::Bencher;
use stepdeck::bench_support::{DagSpec, GeneratedDag, RunConfig, builtin_factory, run_dag};
use stepdeck::engine::journal::Replayer;
use stepdeck::engine::{
    Journal, JournalEntry, JournalError, NullJournal, Operation, Outcome, Snapshot,
};
use stepdeck::state::codec::checkpoint::write_checkpoint_file;
use stepdeck::state::{Backend, BackendUrl, PgBackend, StackRef};

fn main() {
    if pg_support::server().is_none() {
        return;
    }
    // `cargo test` runs this binary without `--bench`: a quick pass over every path then.
    if std::env::args().any(|a| a == "--bench") {
        report(sizes());
        divan::main();
    } else {
        report((50, 20, 200));
    }
}

/// The sizes of the report: the `up`, the comparison and the load.
fn sizes() -> (usize, usize, usize) {
    if std::env::var_os("STEPDECK_BENCH_SMALL").is_some() {
        (1_000, 200, 10_000)
    } else {
        (10_000, 1_000, 100_000)
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

/// A fresh database with the stack `bench/bench`.
struct PgStack {
    db: String,
    backend: PgBackend,
    stack: StackRef,
    dir: tempfile::TempDir,
}

impl PgStack {
    fn create() -> PgStack {
        let server = pg_support::server().expect("a server");
        let (db, url) = server.database();
        let backend = PgBackend::open(&BackendUrl::parse(&url).unwrap()).unwrap();
        let stack = StackRef::new("bench", "bench").unwrap();
        backend.create_stack(&stack).unwrap();
        PgStack {
            db,
            backend,
            stack,
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn sql(&self, sql: &str) -> String {
        pg_support::server().unwrap().sql(&self.db, sql)
    }

    /// Transactions the database committed so far (its statistics, flushed when idle).
    fn commits(&self) -> u64 {
        std::thread::sleep(Duration::from_millis(1_500));
        self.sql(&format!(
            "SELECT xact_commit FROM pg_stat_database WHERE datname = '{}'",
            self.db
        ))
        .parse()
        .unwrap()
    }

    /// One `up` as the CLI runs it; `measure` is called with the journal still in the table.
    fn up(
        &self,
        rt: &tokio::runtime::Runtime,
        dag: &Arc<GeneratedDag>,
        measure: impl FnOnce(),
    ) -> usize {
        let lock = self.backend.lock(&self.stack, "up").unwrap();
        let (base, journal) = self.backend.begin_deployment(&lock, None).unwrap();
        let r = rt.block_on(run_dag(
            Operation::Update,
            Some(dag),
            base,
            journal,
            builtin_factory(self.dir.path()),
            &RunConfig::default(),
        ));
        assert_eq!(r.result.outcome, Outcome::Succeeded);
        measure();
        self.backend.finish_deployment(&lock, None).unwrap();
        r.result.counts.values().sum()
    }
}

/// The comparison: after every entry, the whole checkpoint rewritten in one UPDATE of its
/// key in Pulumi's table, base64 in JSON as Pulumi's DIY backend writes it (by a writer thread
/// with its own connection; the step waits for it, as it waits for its row).
struct CheckpointPerStep {
    replayer: Replayer,
    writes: mpsc::Sender<(String, mpsc::Sender<()>)>,
    /// Checkpoints written and their bytes.
    stats: Arc<(AtomicU64, AtomicU64)>,
}

impl CheckpointPerStep {
    fn start(url: String, stats: Arc<(AtomicU64, AtomicU64)>) -> CheckpointPerStep {
        let (writes, rx) = mpsc::channel::<(String, mpsc::Sender<()>)>();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let config: tokio_postgres::Config =
                    url.replace("?sslmode=disable", "").parse().unwrap();
                let (client, conn) = config.connect(tokio_postgres::NoTls).await.unwrap();
                tokio::spawn(conn);
                let update = client
                    .prepare(
                        "UPDATE pulumi_state SET data = json_build_object('data', $1::text), \
                         updated_at = now() WHERE key LIKE '%/.pulumi/stacks/bench/bench.json'",
                    )
                    .await
                    .unwrap();
                while let Ok((text, done)) = rx.recv() {
                    client.execute(&update, &[&text]).await.unwrap();
                    let _ = done.send(());
                }
            });
        });
        CheckpointPerStep {
            replayer: Replayer::new(&Snapshot::default()),
            writes,
            stats,
        }
    }
}

impl Journal for CheckpointPerStep {
    fn append(&mut self, entry: &JournalEntry) -> Result<(), JournalError> {
        self.replayer.apply(entry)?;
        let mut out = Vec::new();
        write_checkpoint_file(&mut out, "bench", &self.replayer.snapshot(), 0, None, None)?;
        let data = base64::engine::general_purpose::STANDARD.encode(&out);
        self.stats.0.fetch_add(1, Ordering::Relaxed);
        self.stats.1.fetch_add(data.len() as u64, Ordering::Relaxed);
        let (done, wait) = mpsc::channel();
        self.writes.send((data, done)).unwrap();
        wait.recv().map_err(|_| JournalError::Closed)
    }
}

/// An `up` of `dag` on a fresh stack writing the whole checkpoint after every entry: its time,
/// writes and bytes.
fn whole_checkpoint_up(
    rt: &tokio::runtime::Runtime,
    dag: &Arc<GeneratedDag>,
) -> (Duration, u64, u64) {
    let server = pg_support::server().unwrap();
    let c = PgStack::create();
    let stats = Arc::new((AtomicU64::new(0), AtomicU64::new(0)));
    let journal = CheckpointPerStep::start(
        server.url("postgres", pg_support::PASSWORD, &c.db),
        stats.clone(),
    );
    let started = Instant::now();
    let r = rt.block_on(run_dag(
        Operation::Update,
        Some(dag),
        Snapshot::default(),
        Box::new(journal),
        builtin_factory(c.dir.path()),
        &RunConfig::default(),
    ));
    assert_eq!(r.result.outcome, Outcome::Succeeded);
    (
        started.elapsed(),
        stats.0.load(Ordering::Relaxed),
        stats.1.load(Ordering::Relaxed),
    )
}

fn report((n_up, n_cmp, n_load): (usize, usize, usize)) {
    let rt = runtime();

    let s = PgStack::create();
    let before = s.commits();
    let started = Instant::now();
    let mut rows = (0u64, 0u64);
    let steps = s.up(&rt, &dag(n_up), || {
        let out = s.sql(
            "SELECT count(*) || ' ' || coalesce(sum(octet_length(entry)), 0) FROM stepdeck_journal",
        );
        let mut parts = out.split(' ').map(|p| p.parse::<u64>().unwrap());
        rows = (parts.next().unwrap(), parts.next().unwrap());
    });
    let wall = started.elapsed();
    let commits = s.commits() - before;
    println!(
        "up {n_up} journaled to postgres: {:.2} s, {steps} steps, {} journal rows, {:.0} bytes/step, \
         {commits} transactions ({:.2} round trips/step; the INSERTs are batched per group commit)",
        wall.as_secs_f64(),
        rows.0,
        rows.1 as f64 / steps as f64,
        commits as f64 / steps as f64
    );
    let started = Instant::now();
    s.up(&rt, &dag(n_up), || {});
    println!("no-op up {n_up}: {:.2} s", started.elapsed().as_secs_f64());

    // The same run at a size the whole-checkpoint writes can finish.
    let small_dag = dag(n_cmp);
    let j = PgStack::create();
    let started = Instant::now();
    let steps_j = j.up(&rt, &small_dag, || {});
    let journaled = started.elapsed();
    let (whole, writes, bytes) = whole_checkpoint_up(&rt, &small_dag);
    println!(
        "up {n_cmp}: journaled {:.2} s ({steps_j} steps) vs a whole checkpoint per step {:.2} s \
         ({writes} writes, {:.0} bytes/write): {:.1}x",
        journaled.as_secs_f64(),
        whole.as_secs_f64(),
        bytes as f64 / writes.max(1) as f64,
        whole.as_secs_f64() / journaled.as_secs_f64()
    );

    // A large stack, saved once, then loaded.
    let l = PgStack::create();
    let snapshot = rt
        .block_on(run_dag(
            Operation::Update,
            Some(&dag(n_load)),
            Snapshot::default(),
            Box::new(NullJournal),
            builtin_factory(l.dir.path()),
            &RunConfig::default(),
        ))
        .result
        .snapshot;
    let lock = l.backend.lock(&l.stack, "import").unwrap();
    l.backend.save(&lock, &snapshot, None).unwrap();
    drop(lock);
    let started = Instant::now();
    let loaded = l.backend.load(&l.stack, None).unwrap();
    println!(
        "load of {} resources: {:.2} s ({} bytes of checkpoint)",
        loaded.snapshot.resources.len(),
        started.elapsed().as_secs_f64(),
        l.sql(
            "SELECT octet_length(data::text) FROM pulumi_state \
             WHERE key LIKE '%/.pulumi/stacks/bench/bench.json'"
        )
    );
}

/// An `up` of 1,000 creates journaled to PostgreSQL, on a fresh database each time.
#[divan::bench(sample_count = 3)]
fn up_1000_journaled(bencher: Bencher) {
    let rt = runtime();
    let dag = dag(1_000);
    bencher
        .with_inputs(PgStack::create)
        .bench_local_values(|s| {
            s.up(&rt, &dag, || {});
            s
        });
}

/// The same `up` writing the whole checkpoint after every entry.
#[divan::bench(sample_count = 3)]
fn up_1000_whole_checkpoint_per_step(bencher: Bencher) {
    let rt = runtime();
    let dag = dag(1_000);
    bencher.bench_local(|| whole_checkpoint_up(&rt, &dag));
}

/// Loading a 10,000-resource stack.
#[divan::bench(sample_count = 5)]
fn load_10000(bencher: Bencher) {
    let rt = runtime();
    let s = PgStack::create();
    s.up(&rt, &dag(10_000), || {});
    bencher.bench_local(|| s.backend.load(&s.stack, None).unwrap());
}
