//! The scale harness: whole-process figures for BENCHMARKS.md. Not a divan bench; run one
//! scenario per process so that peak RSS belongs to it:
//!
//! `cargo bench --bench scale -- <scenario> [resources]`
//!
//! Scenarios: preview, up, noop, destroy, pardiff, sdk. See BENCHMARKS.md.

use std::sync::Arc;
use std::time::{Duration, Instant};

use stepdeck::bench_support::{
    DagSpec, FileStack, GeneratedDag, RunConfig, RunReport, Usage, builtin_factory,
    run_unjournaled,
};
use stepdeck::engine::{Operation, Outcome, Snapshot};

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let scenario = args.first().map_or("preview", String::as_str).to_string();
    let n: Option<usize> = args.get(1).and_then(|a| a.replace('_', "").parse().ok());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    rt.block_on(async move {
        match scenario.as_str() {
            "preview" => preview(n.unwrap_or(100_000)).await,
            "up" => up(n.unwrap_or(10_000)).await,
            "noop" => noop(n.unwrap_or(100_000)).await,
            "destroy" => destroy(n.unwrap_or(10_000)).await,
            "pardiff" => pardiff(n.unwrap_or(400)).await,
            other => {
                eprintln!("unknown scenario `{other}`: preview, up, noop, destroy, pardiff");
                std::process::exit(2);
            }
        }
    });
}

fn dag(n: usize) -> Arc<GeneratedDag> {
    Arc::new(GeneratedDag::generate(&DagSpec::new(n)))
}

fn check(what: &str, r: &RunReport) {
    if r.result.outcome != Outcome::Succeeded {
        eprintln!("{what}: {:?}", r.result.outcome);
        std::process::exit(1);
    }
}

fn per_resource(d: Duration, n: usize) -> String {
    format!("{:.1} µs/resource", d.as_secs_f64() * 1e6 / n as f64)
}

fn line(what: &str, n: usize, r: &RunReport) {
    let steps: usize = r.result.counts.values().sum();
    let now = Usage::now();
    println!(
        "{what} n={n}: {:.3} s wall, {}, {steps} steps, {} events, peak RSS {} MiB, process cpu so far {:.2} s",
        r.wall.as_secs_f64(),
        per_resource(r.wall, n),
        r.events,
        now.peak_rss_bytes / (1 << 20),
        now.cpu().as_secs_f64()
    );
}

fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("temporary directory")
}

async fn preview(n: usize) {
    let dir = tempdir();
    let dag = dag(n);
    let cfg = RunConfig::default();
    let before = Usage::now();
    let r = run_unjournaled(
        Operation::Preview,
        Some(&dag),
        Snapshot::default(),
        builtin_factory(dir.path()),
        &cfg,
    )
    .await;
    check("preview", &r);
    line("preview", n, &r);
    let after = Usage::now();
    println!(
        "  cpu {:.3} s (user {:.3}, sys {:.3})",
        (after.cpu() - before.cpu()).as_secs_f64(),
        (after.user - before.user).as_secs_f64(),
        (after.system - before.system).as_secs_f64()
    );
}

async fn up(n: usize) {
    let dir = tempdir();
    let stack = FileStack::create(dir.path()).expect("stack");
    let (r, bytes) = stack
        .run(
            Operation::Update,
            Some(&dag(n)),
            builtin_factory(dir.path()),
            &RunConfig::default(),
        )
        .await
        .expect("up");
    check("up", &r);
    line("up", n, &r);
    let steps: usize = r.result.counts.values().sum();
    println!(
        "  journal {} bytes, {} entries, {:.0} bytes/step; checkpoint {} bytes \
         (a whole-checkpoint rewrite per step would write ~{:.0} bytes/step on average)",
        bytes.journal,
        bytes.entries,
        bytes.journal as f64 / steps as f64,
        bytes.checkpoint,
        bytes.checkpoint as f64 / 2.0
    );
}

async fn noop(n: usize) {
    let dir = tempdir();
    let stack = FileStack::create(dir.path()).expect("stack");
    let dag = dag(n);
    let factory = builtin_factory(dir.path());
    let cfg = RunConfig::default();
    let (first, _) = stack
        .run(Operation::Update, Some(&dag), factory.clone(), &cfg)
        .await
        .expect("first up");
    check("first up", &first);
    line("first up", n, &first);
    let started = Instant::now();
    let (r, bytes) = stack
        .run(Operation::Update, Some(&dag), factory, &cfg)
        .await
        .expect("second up");
    check("second up", &r);
    line("second up (engine)", n, &r);
    println!(
        "  second up with load, compaction and journal: {:.3} s (begin_deployment {:.3} s, \
         finish_deployment {:.3} s); journal {} bytes, checkpoint {} bytes",
        started.elapsed().as_secs_f64(),
        bytes.begin.as_secs_f64(),
        bytes.finish.as_secs_f64(),
        bytes.journal,
        bytes.checkpoint
    );
}

async fn destroy(n: usize) {
    let dir = tempdir();
    let stack = FileStack::create(dir.path()).expect("stack");
    let factory = builtin_factory(dir.path());
    let cfg = RunConfig::default();
    let (first, _) = stack
        .run(Operation::Update, Some(&dag(n)), factory.clone(), &cfg)
        .await
        .expect("up");
    check("up", &first);
    let started = Instant::now();
    let (r, bytes) = stack
        .run(Operation::Destroy, None, factory, &cfg)
        .await
        .expect("destroy");
    check("destroy", &r);
    line("destroy (engine)", n, &r);
    println!(
        "  destroy with load, compaction and journal: {:.3} s (begin_deployment {:.3} s, \
         finish_deployment {:.3} s); journal {} bytes",
        started.elapsed().as_secs_f64(),
        bytes.begin.as_secs_f64(),
        bytes.finish.as_secs_f64(),
        bytes.journal
    );
}

async fn pardiff(n: usize) {
    let _ = n;
    eprintln!("pardiff: not yet");
}
