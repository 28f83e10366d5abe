//! The scale harness: whole-process figures for BENCHMARKS.md. Not a divan bench; run one
//! scenario per process so that peak RSS belongs to it:
//!
//! `cargo bench --bench scale -- <scenario> [resources] [--parallel=N]`
//!
//! `--parallel=N` sets the steps in flight of up, noop and journal-floor (the engine's default
//! otherwise), to tell the journal's group commit (at most one synced `Begin` per step in
//! flight) from the engine's own cost.
//!
//! Scenarios: preview, preview-scaling, up, noop, destroy, pardiff, console-ingest,
//! console-frame, sdk, sdk-node, many-resources, rpc-floor, rpc-floor-node, journal-floor. See
//! BENCHMARKS.md.

#![allow(clippy::unwrap_used, clippy::panic)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use stepdeck::app::model::Model;
use stepdeck::app::ui_state::UiState;
use stepdeck::app::{ConsoleMode, Title};
use stepdeck::bench_support::{
    DagSpec, FileStack, GeneratedDag, RunConfig, RunReport, SlowDiffFactory, Usage,
    builtin_factory, run_unjournaled,
};
use stepdeck::engine::journal::{SnapshotManager, SuccessEntry};
use stepdeck::engine::model::resource::OperationType;
use stepdeck::engine::{
    EngineEvent, EventSink, Operation, Outcome, PropertyMap, ResourceState, Severity, Snapshot,
};
use stepdeck::providers::BuiltinProviders;
use stepdeck::rpc::plugin::PluginContext;
use stepdeck::rpc::plugin::providers::PluginProviders;
use stepdeck::rpc::program::language_host::{NodeOptions, Runtime, SdkProgram};
use stepdeck::views::{Theme, render_screen};

/// The same allocator as the `stepdeck` binary, so that the figures are the binary's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    stepdeck::memory::without_huge_pages();
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let scenario = args.first().map_or("preview", String::as_str).to_string();
    let n: Option<usize> = args.get(1).and_then(|a| a.replace('_', "").parse().ok());
    let journaled = journaled_config();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    rt.block_on(async move {
        match scenario.as_str() {
            "preview" => preview(n.unwrap_or(100_000)).await,
            "up" => up(n.unwrap_or(10_000), &journaled).await,
            "noop" => noop(n.unwrap_or(100_000), &journaled).await,
            "destroy" => destroy(n.unwrap_or(10_000)).await,
            "pardiff" => pardiff(n.unwrap_or(400)).await,
            "console-ingest" => console_ingest(n.unwrap_or(1_000_000)).await,
            "console-frame" => console_frame(n.unwrap_or(100_000)).await,
            "preview-scaling" => preview_scaling(n.unwrap_or(100_000)).await,
            "sdk" => sdk(n.unwrap_or(2_000)).await,
            "sdk-node" => sdk_node(n.unwrap_or(2_000)).await,
            "many-resources" => many_resources(n.unwrap_or(2_000)).await,
            "rpc-floor" => rpc_floor(n.unwrap_or(20_000)).await,
            "rpc-floor-node" => rpc_floor_node(n.unwrap_or(20_000)).await,
            "journal-floor" => journal_floor(n.unwrap_or(100_000), &journaled).await,
            other => {
                eprintln!(
                    "unknown scenario `{other}`: preview, preview-scaling, up, noop, destroy, \
                     pardiff, console-ingest, console-frame, sdk, sdk-node, many-resources, \
                     rpc-floor, rpc-floor-node, journal-floor"
                );
                std::process::exit(2);
            }
        }
    });
}

/// The configuration of the journaled runs (up, noop), `--parallel=N` applied.
fn journaled_config() -> RunConfig {
    let parallel = std::env::args()
        .find_map(|a| a.strip_prefix("--parallel=").map(str::to_string))
        .map(|p| p.parse().expect("--parallel=N takes a number"));
    RunConfig {
        parallel: parallel.unwrap_or_else(stepdeck::engine::run::deployment::default_parallel),
        ..RunConfig::default()
    }
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

async fn up(n: usize, cfg: &RunConfig) {
    let dir = tempdir();
    let stack = FileStack::create(dir.path()).expect("stack");
    let (r, bytes) = stack
        .run(
            Operation::Update,
            Some(&dag(n)),
            builtin_factory(dir.path()),
            cfg,
        )
        .await
        .expect("up");
    check("up", &r);
    line("up", n, &r);
    println!(
        "  begin_deployment {:.3} s, finish_deployment (compaction into the checkpoint) {:.3} s, \
         peak RSS {} MiB before it, {} MiB after",
        bytes.begin.as_secs_f64(),
        bytes.finish.as_secs_f64(),
        bytes.peak_rss_before_finish / (1 << 20),
        Usage::now().peak_rss_bytes / (1 << 20)
    );
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

async fn noop(n: usize, cfg: &RunConfig) {
    let dir = tempdir();
    let stack = FileStack::create(dir.path()).expect("stack");
    let dag = dag(n);
    let (first, first_bytes) = stack
        .run(
            Operation::Update,
            Some(&dag),
            builtin_factory(dir.path()),
            cfg,
        )
        .await
        .expect("first up");
    check("first up", &first);
    line("first up", n, &first);
    println!(
        "  first up's finish_deployment (compaction of {} journal bytes into the checkpoint): \
         {:.3} s, peak RSS {} MiB before it, {} MiB after",
        first_bytes.journal,
        first_bytes.finish.as_secs_f64(),
        first_bytes.peak_rss_before_finish / (1 << 20),
        Usage::now().peak_rss_bytes / (1 << 20)
    );
    // The first up's snapshot is freed here, not while the second up is timed.
    drop(first);
    // The simulated cloud is there before the second deployment, as a real one would be: its
    // world is read here, not inside the timed run (the first up's providers, dropped at its
    // end, folded their change log into the world file).
    let cloud = BuiltinProviders::new(dir.path().join("world.json"));
    cloud.sim_world().expect("sim world");
    let started = Instant::now();
    let (r, bytes) = stack
        .run(Operation::Update, Some(&dag), Arc::new(cloud), cfg)
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
    drop(first);
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

/// `n` resources in one layer (their diffs are independent), created once, then previewed
/// unchanged with a 20 ms Diff: at `--parallel 16` with parallel diff, and serially.
async fn pardiff(n: usize) {
    let dir = tempdir();
    let spec = DagSpec {
        layer_width: n,
        ..DagSpec::new(n)
    };
    let dag = Arc::new(GeneratedDag::generate(&spec));
    let factory = builtin_factory(dir.path());
    let stack = FileStack::create(dir.path()).expect("stack");
    let (first, _) = stack
        .run(
            Operation::Update,
            Some(&dag),
            factory.clone(),
            &RunConfig::default(),
        )
        .await
        .expect("up");
    check("up", &first);
    let lock = stack.backend.lock(&stack.stack, "preview").expect("lock");
    let base = stack
        .backend
        .load(&stack.stack, None)
        .expect("load")
        .snapshot;
    drop(lock);
    let delay = Duration::from_millis(20);
    let slow: Arc<dyn stepdeck::engine::ProviderFactory> =
        Arc::new(SlowDiffFactory::new(factory, delay));
    let ideal = delay.as_secs_f64() * n as f64 / 16.0;
    for parallel_diff in [true, false] {
        let cfg = RunConfig {
            parallel: 16,
            parallel_diff,
            ..RunConfig::default()
        };
        let r = run_unjournaled(
            Operation::Preview,
            Some(&dag),
            base.clone(),
            slow.clone(),
            &cfg,
        )
        .await;
        check("preview", &r);
        println!(
            "preview n={n}, 20 ms Diff, parallel 16, parallel diff {}: {:.3} s ({:.2}x the ideal {:.3} s)",
            if parallel_diff { "on" } else { "off" },
            r.wall.as_secs_f64(),
            r.wall.as_secs_f64() / ideal,
            ideal
        );
    }
}

/// The events of a preview of `n` resources, as the console would receive them.
async fn preview_events(n: usize) -> Vec<EngineEvent> {
    let dir = tempdir();
    let (events, mut rx) = EventSink::channel();
    let collector = tokio::spawn(async move {
        let mut all = Vec::new();
        while let Some(e) = rx.recv().await {
            all.push(e);
        }
        all
    });
    let options = stepdeck::engine::Options {
        stack: "bench".into(),
        project: "bench".into(),
        operation: Operation::Preview,
        ..Default::default()
    };
    let program = stepdeck::bench_support::DagProgram::new(dag(n), 256);
    let result = stepdeck::engine::Deployment::new(
        options,
        Snapshot::default(),
        builtin_factory(dir.path()),
        Box::new(stepdeck::engine::NullJournal),
        events,
    )
    .run(Some(Box::new(program)))
    .await;
    assert_eq!(result.outcome, Outcome::Succeeded);
    collector.await.expect("collector")
}

/// The console model applying at least `n` engine events (those of a preview big enough).
async fn console_ingest(n: usize) {
    // A preview sends about 7 events per resource.
    let events = preview_events(n / 7 + 1).await;
    let mut model = Model::new();
    let started = Instant::now();
    for e in &events {
        model.apply(e);
    }
    let took = started.elapsed();
    println!(
        "console model: {} events applied in {:.3} s ({:.0} ns/event), {} resources",
        events.len(),
        took.as_secs_f64(),
        took.as_secs_f64() * 1e9 / events.len() as f64,
        model.resources().len()
    );
}

/// Frames of the console drawn over the model of an `n`-resource preview, at 200×50.
async fn console_frame(n: usize) {
    let events = preview_events(n).await;
    let mut model = Model::new();
    // CPU time as well as wall: on a shared machine the wall varies with the other load.
    let before = Usage::now();
    let started = Instant::now();
    for e in &events {
        model.apply(e);
    }
    let ingest = started.elapsed();
    let after = Usage::now();
    println!(
        "console model: the {} events of a {n}-resource preview applied in {:.3} s ({:.0} \
         ns/event; CPU user {:.2} s, system {:.2} s)",
        events.len(),
        ingest.as_secs_f64(),
        ingest.as_secs_f64() * 1e9 / events.len() as f64,
        (after.user - before.user).as_secs_f64(),
        (after.system - before.system).as_secs_f64()
    );
    // The events stay alive: freeing seven million of them here would bill the allocator's
    // deferred work to the first frame, which a console fed one event at a time never sees.
    let title = Title {
        operation: "preview".into(),
        stack: "bench".into(),
        project: "bench".into(),
        phase: None,
    };
    let mut ui = UiState::new(ConsoleMode::Live, title);
    let area = Rect::new(0, 0, 200, 50);
    let mut buf = Buffer::empty(area);
    // The mean time of `frames` frames, the clock moving 33 ms a frame.
    let mut draw = |model: &mut Model, ui: &mut UiState, frames: u64| {
        let started = Instant::now();
        for i in 0..frames {
            model.set_now(Duration::from_millis(33 * i));
            buf.reset();
            render_screen(area, &mut buf, model, ui, Theme::colored());
        }
        started.elapsed() / frames as u32
    };
    // More frames for a profile: `STEPDECK_BENCH_FRAMES=5000 perf record …`.
    let frames = std::env::var("STEPDECK_BENCH_FRAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    // The first frame's parts: the tree's rows and the graph's layout, built before it draws.
    let started = Instant::now();
    ui.refresh_tree(&model);
    let tree = started.elapsed();
    ui.refresh_graph(&model);
    let graph = started.elapsed() - tree;
    let first = draw(&mut model, &mut ui, 1);
    let each = draw(&mut model, &mut ui, frames);
    // The selection in the middle of the tree: the window follows it down there.
    let middle = model.resource(model.resources().len() / 2).urn.clone();
    ui.nav.selected = Some(middle);
    // Its first frame orders the graph's columns up to it, once per layout; the next do not.
    let jump = draw(&mut model, &mut ui, 1);
    let deep = draw(&mut model, &mut ui, frames);
    println!(
        "console frame of {} resources at 200x50: first {:.2} ms (tree rows {:.2} ms, graph \
         layout {:.2} ms, then the drawing {:.2} ms), then {:.3} ms per frame; with the \
         selection halfway down the tree, its first frame {:.2} ms, then {:.3} ms per frame",
        model.resources().len(),
        (tree + graph + first).as_secs_f64() * 1e3,
        tree.as_secs_f64() * 1e3,
        graph.as_secs_f64() * 1e3,
        first.as_secs_f64() * 1e3,
        each.as_secs_f64() * 1e3,
        jump.as_secs_f64() * 1e3,
        deep.as_secs_f64() * 1e3
    );
}

/// The per-resource cost of a preview at 1,000 (median of 5 after a warm-up) and at 10,000,
/// 100,000, … up to `n`, in one process: each size's cost and its ratio to the cost at 1,000.
async fn preview_scaling(n: usize) {
    let dir = tempdir();
    let cfg = RunConfig::default();
    let run = async |size: usize| {
        let r = run_unjournaled(
            Operation::Preview,
            Some(&dag(size)),
            Snapshot::default(),
            builtin_factory(dir.path()),
            &cfg,
        )
        .await;
        check("preview", &r);
        r.wall.as_secs_f64() * 1e6 / size as f64
    };
    run(1_000).await;
    let mut small = Vec::new();
    for _ in 0..5 {
        small.push(run(1_000).await);
    }
    small.sort_by(f64::total_cmp);
    let small = small[2];
    println!("preview cost per resource: {small:.1} µs at 1,000 (median of 5)");
    let mut size = 10_000;
    while size <= n.max(10_000) {
        let cost = run(size).await;
        println!(
            "  {cost:.1} µs at {size}: {:.2}x the cost at 1,000 (peak RSS so far {} MiB)",
            cost / small,
            Usage::now().peak_rss_bytes / (1 << 20)
        );
        size *= 10;
    }
}

/// The installed SDKs (`.ci/install-sdks.sh`): `STEPDECK_SDK_ENV`, or `target/sdk-env`.
fn sdk_env() -> std::path::PathBuf {
    let env = std::env::var_os("STEPDECK_SDK_ENV")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/sdk-env")
        });
    if !env.join("venv/bin/python").exists() || !env.join("node_modules/@pulumi").exists() {
        eprintln!("no SDKs in {}: run .ci/install-sdks.sh", env.display());
        std::process::exit(2);
    }
    env
}

/// A temporary SDK project of `files`, with the SDKs linked in as `venv` and `node_modules`.
fn sdk_project(files: &[(&str, String)]) -> tempfile::TempDir {
    let env = sdk_env();
    let dir = tempdir();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).expect("project file");
    }
    for link in ["venv", "node_modules"] {
        std::os::unix::fs::symlink(env.join(link), dir.path().join(link)).expect("SDK link");
    }
    dir
}

/// One `up` of an SDK program and what it cost: wall time, this process's CPU (the engine)
/// and its waited-for children's (the language runtime and provider plugins).
struct SdkRun {
    snapshot: Snapshot,
    steps: usize,
    events: usize,
    wall: Duration,
    engine: f64,
    sdk: f64,
}

impl SdkRun {
    fn print(&self, what: &str, n: usize) {
        println!(
            "{what} n={n}: {:.3} s wall, {} steps, {} events; cpu: engine {:.2} s ({:.0} µs/resource), \
             sdk and plugins {:.2} s ({:.0} µs/resource); engine share {:.1}% of cpu, {:.1}% of wall",
            self.wall.as_secs_f64(),
            self.steps,
            self.events,
            self.engine,
            self.engine * 1e6 / n as f64,
            self.sdk,
            self.sdk * 1e6 / n as f64,
            100.0 * self.engine / (self.engine + self.sdk),
            100.0 * self.engine / self.wall.as_secs_f64()
        );
    }
}

/// Runs an `up` of the SDK program in `dir` on `base` as the CLI does (`cli/deploy.rs::prepare`):
/// built-in providers first, plugins (dynamic providers) after.
async fn sdk_up(runtime: Runtime, dir: &std::path::Path, project: &str, base: Snapshot) -> SdkRun {
    let (events, mut rx) = EventSink::channel();
    // Counts the events and keeps the errors, to show them when the run fails.
    let consumer = tokio::spawn(async move {
        let (mut n, mut errors) = (0usize, Vec::new());
        while let Some(e) = rx.recv().await {
            n += 1;
            if let EngineEvent::Diagnostic {
                severity: Severity::Error,
                message,
                ..
            } = e
            {
                errors.push(message);
            }
        }
        (n, errors)
    });
    let options = stepdeck::engine::Options {
        stack: "bench".into(),
        project: project.into(),
        operation: Operation::Update,
        ..Default::default()
    };
    let program = SdkProgram::new(runtime, dir, events.clone());
    let ctx = PluginContext::new(dir, project, program.python(), events.clone());
    let factory = Arc::new(PluginProviders::new(builtin_factory(dir), ctx));
    let before = Usage::now();
    let started = Instant::now();
    let result = stepdeck::engine::Deployment::new(
        options,
        base,
        factory,
        Box::new(stepdeck::engine::NullJournal),
        events,
    )
    .run(Some(Box::new(program)))
    .await;
    let wall = started.elapsed();
    let after = Usage::now();
    let (events, errors) = consumer.await.unwrap_or_default();
    if result.outcome != Outcome::Succeeded {
        eprintln!("sdk: {:?}\n{}", result.outcome, errors.join("\n"));
        std::process::exit(1);
    }
    SdkRun {
        steps: result.counts.values().sum(),
        snapshot: result.snapshot,
        events,
        wall,
        engine: (after.cpu() - before.cpu()).as_secs_f64(),
        sdk: (after.children - before.children).as_secs_f64(),
    }
}

/// A real Python SDK program registering `n` `random.RandomString` resources in an `up`.
async fn sdk(n: usize) {
    let dir = sdk_project(&[
        ("Pulumi.yaml", "name: sdkbench\nruntime: python\n".into()),
        (
            "__main__.py",
            format!(
                "import pulumi_random as random\n\nfor i in range({n}):\n    \
                 random.RandomString(f\"s{{i}}\", length=8, special=False)\n"
            ),
        ),
    ]);
    let runtime = Runtime::Python { virtualenv: None };
    sdk_up(runtime, dir.path(), "sdkbench", Snapshot::default())
        .await
        .print("python sdk up", n);
}

/// The same program in Node.js (plain JavaScript, so no TypeScript compile in the figures).
async fn sdk_node(n: usize) {
    let dir = sdk_project(&[
        (
            "Pulumi.yaml",
            "name: sdkbench\nruntime:\n  name: nodejs\n  options:\n    typescript: false\n".into(),
        ),
        (
            "package.json",
            r#"{"name": "sdkbench", "main": "index.js", "private": true}"#.into(),
        ),
        (
            "index.js",
            format!(
                "const random = require(\"@pulumi/random\");\n\nfor (let i = 0; i < {n}; i++) {{\n    \
                 new random.RandomString(`s${{i}}`, {{ length: 8, special: false }});\n}}\n"
            ),
        ),
    ]);
    let runtime = Runtime::Nodejs(NodeOptions {
        typescript: false,
        ..NodeOptions::default()
    });
    sdk_up(runtime, dir.path(), "sdkbench", Snapshot::default())
        .await
        .print("node sdk up", n);
}

/// A client of our engine service in Python's grpcio, the SDK's own gRPC stack: `Log` calls of
/// a debug message, as the Python SDK sends four times per resource, `inflight` at a time.
const LOG_CLIENT: &str = "
import sys
import grpc
from pulumi.runtime.proto import engine_pb2, engine_pb2_grpc

addr, n, inflight = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
stub = engine_pb2_grpc.EngineStub(grpc.insecure_channel(addr))
req = engine_pb2.LogRequest(severity=engine_pb2.DEBUG, message='registering resource')
pending = []
for _ in range(n):
    pending.append(stub.Log.future(req))
    if len(pending) >= inflight:
        pending.pop(0).result()
for f in pending:
    f.result()
";

/// The floor of one gRPC call on this machine: `n` calls of the cheapest one the SDKs make
/// (`Engine.Log`, which only passes a message on) from grpcio to our engine service, one at a
/// time and then 16 in flight; this process's CPU per call is what any registration's calls
/// cost at least, whatever the engine does with them.
async fn rpc_floor(n: usize) {
    let python = sdk_env().join("venv/bin/python");
    let (addr, server) = stepdeck::rpc::monitor::engine_service::serve_engine(EventSink::none())
        .await
        .expect("engine service");
    for inflight in [1, 16] {
        let before = Usage::now();
        let started = Instant::now();
        let status = tokio::process::Command::new(&python)
            .args(["-c", LOG_CLIENT, &addr.to_string(), &n.to_string()])
            .arg(inflight.to_string())
            .status()
            .await
            .expect("python");
        assert!(status.success(), "the Log client failed: {status}");
        let wall = started.elapsed();
        let after = Usage::now();
        let per_call = |d: Duration| d.as_secs_f64() * 1e6 / n as f64;
        println!(
            "rpc floor n={n}, {inflight} in flight: {:.3} s wall; cpu per call: server {:.1} µs \
             (user {:.1}, sys {:.1}), client {:.1} µs",
            wall.as_secs_f64(),
            per_call(after.cpu() - before.cpu()),
            per_call(after.user - before.user),
            per_call(after.system - before.system),
            per_call(after.children - before.children)
        );
    }
    server.shutdown().await;
}

/// A client of our engine service in grpc-js, the Node SDK's gRPC stack: `Log` calls of a debug
/// message, one at a time, as the Node SDK sends three per resource.
const NODE_LOG_CLIENT: &str = r#"
const grpc = require("@grpc/grpc-js");
const services = require("@pulumi/pulumi/proto/engine_grpc_pb");
const messages = require("@pulumi/pulumi/proto/engine_pb");
const [addr, n] = [process.argv[1], Number(process.argv[2])];
const client = new services.EngineClient(addr, grpc.credentials.createInsecure());
const req = new messages.LogRequest();
req.setSeverity(messages.LogSeverity.DEBUG);
req.setMessage("Registering resource: t=pulumi-nodejs:dynamic:Resource, name=echo-1, custom=true");
const log = () => new Promise((ok, fail) => client.log(req, (e) => (e ? fail(e) : ok())));
(async () => {
    for (let i = 0; i < n; i++) await log();
    client.close();
})().catch((e) => { console.error(e); process.exit(1); });
"#;

/// A `ResourceProvider` in grpc-js whose `Check` answers with the new inputs, as the
/// `pulumi-nodejs` plugin's dynamic provider does; prints its port, as plugins do.
const NODE_PROVIDER: &str = r#"
const grpc = require("@grpc/grpc-js");
const services = require("@pulumi/pulumi/proto/provider_grpc_pb");
const messages = require("@pulumi/pulumi/proto/provider_pb");
const server = new grpc.Server();
server.addService(services.ResourceProviderService, {
    check: (call, done) => {
        const reply = new messages.CheckResponse();
        reply.setInputs(call.request.getNews());
        done(null, reply);
    },
});
server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, port) => {
    if (e) { console.error(e); process.exit(1); }
    console.log(port);
});
"#;

/// The floor of the calls of the many_resources shape, with grpc-js at the other end of each:
/// `n` `Engine.Log` calls from a Node client over the socket programs are given (the SDK's
/// side), then `n` `Check` calls from us to a Node provider (the plugin's side), first through
/// tonic's `Channel`, then through the `UnaryChannel` plugins are spoken to with. All one at a
/// time, as the calls of a program whose CPU is the bottleneck arrive; this process's CPU per
/// call is what each call costs the engine at least.
async fn rpc_floor_node(n: usize) {
    use stepdeck::engine::model::property::props;
    use stepdeck::rpc::marshal::{MarshalOptions, map_to_struct};
    use stepdeck::rpc::monitor::engine_service::EngineService;
    use stepdeck::rpc::pulumirpc::engine_server::EngineServer;
    use stepdeck::rpc::pulumirpc::resource_provider_client::ResourceProviderClient;
    use stepdeck::rpc::transport::unary_channel::UnaryChannel;
    use tokio::io::AsyncBufReadExt;

    let modules = sdk_env().join("node_modules");
    let node = || {
        let mut cmd = tokio::process::Command::new("node");
        cmd.env("NODE_PATH", &modules).kill_on_drop(true);
        cmd
    };
    // This process's CPU per call since `before`.
    let cpu_per_call = |before: &Usage| {
        let after = Usage::now();
        let per_call = |d: Duration| d.as_secs_f64() * 1e6 / n as f64;
        format!(
            "{:.1} µs (sys {:.1})",
            per_call(after.cpu() - before.cpu()),
            per_call(after.system - before.system)
        )
    };

    let router = tonic::transport::Server::builder().add_service(EngineServer::new(
        EngineService::new(None, EventSink::none()),
    ));
    let (addr, server) = stepdeck::rpc::transport::server::serve_private(router)
        .await
        .expect("engine service");
    let before = Usage::now();
    let status = node()
        .args([
            "-e",
            NODE_LOG_CLIENT,
            &format!("unix:{}", addr.socket().display()),
        ])
        .arg(n.to_string())
        .status()
        .await
        .expect("node");
    assert!(status.success(), "the Log client failed: {status}");
    println!(
        "rpc floor (grpc-js) n={n}: Log from a Node client over the program's socket: server cpu \
         per call {}",
        cpu_per_call(&before)
    );
    server.shutdown().await;

    let mut provider = node()
        .args(["-e", NODE_PROVIDER])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("node");
    let mut port = String::new();
    tokio::io::BufReader::new(provider.stdout.take().unwrap())
        .read_line(&mut port)
        .await
        .expect("the provider's port");
    let address = format!("127.0.0.1:{}", port.trim());
    // The inputs of a many_resources resource: its two strings and the serialized provider.
    let inputs = map_to_struct(
        &props([
            ("key", "key-1".to_string()),
            ("payload", "payload of 1".to_string()),
            ("__provider", "exports.handler = ".repeat(64)),
        ]),
        MarshalOptions::ALL,
    );
    let request = stepdeck::rpc::pulumirpc::CheckRequest {
        urn: "urn:pulumi:bench::manyresources::pulumi-nodejs:dynamic:Resource::echo-1".into(),
        olds: Some(inputs.clone()),
        news: Some(inputs),
        ..Default::default()
    };
    let tonic_channel = tonic::transport::Endpoint::from_shared(format!("http://{address}"))
        .unwrap()
        .connect()
        .await
        .expect("connect");
    let unary = UnaryChannel::connect(&address).await.expect("connect");
    let mut through_tonic = ResourceProviderClient::new(tonic_channel);
    let mut through_ours = ResourceProviderClient::new(unary);
    let report = |round: usize, through: &str, before: &Usage| {
        println!(
            "rpc floor (grpc-js) n={n}, round {round}: Check to a Node provider through {through}: \
             client cpu per call {}",
            cpu_per_call(before)
        );
    };
    for round in 1..=2 {
        let before = Usage::now();
        for _ in 0..n {
            through_tonic.check(request.clone()).await.expect("check");
        }
        report(round, "tonic's Channel", &before);
        let before = Usage::now();
        for _ in 0..n {
            through_ours.check(request.clone()).await.expect("check");
        }
        report(round, "UnaryChannel", &before);
    }
}

/// The shape of Pulumi's `tests/performance/typescript/many_resources`: a TypeScript program
/// of `n` resources of a dynamic provider that only creates, each echoing its inputs. An
/// update from nothing, then the same update again (nothing changes).
async fn many_resources(n: usize) {
    let dir = sdk_project(&[
        ("Pulumi.yaml", "name: manyresources\nruntime: nodejs\n".into()),
        (
            "package.json",
            r#"{"name": "manyresources", "main": "index.ts", "private": true}"#.into(),
        ),
        (
            "tsconfig.json",
            r#"{"compilerOptions": {"strict": true, "target": "es2020", "module": "commonjs", "moduleResolution": "node"}, "files": ["index.ts"]}"#
                .into(),
        ),
        (
            "index.ts",
            format!(
                r#"import * as pulumi from "@pulumi/pulumi";

// Creation only: the id comes from the inputs, which come back as the outputs.
const echo: pulumi.dynamic.ResourceProvider = {{
    async create(inputs: any): Promise<pulumi.dynamic.CreateResult> {{
        return {{ id: inputs.key, outs: inputs }};
    }},
}};

class Echo extends pulumi.dynamic.Resource {{
    constructor(name: string, props: Record<string, pulumi.Input<string>>) {{
        super(echo, name, props);
    }}
}}

for (let i = 0; i < {n}; i++) {{
    new Echo(`echo-${{i}}`, {{ key: `key-${{i}}`, payload: `payload of ${{i}}` }});
}}
"#
            ),
        ),
    ]);
    let runtime = Runtime::Nodejs(NodeOptions::default());
    let first = sdk_up(
        runtime.clone(),
        dir.path(),
        "manyresources",
        Snapshot::default(),
    )
    .await;
    first.print("many_resources update", n);
    let second = sdk_up(runtime, dir.path(), "manyresources", first.snapshot).await;
    second.print("many_resources empty update", n);
}

/// The floor of a first up's journal: the entries an up of `n` resources writes (a custom
/// resource's `Begin`, the wait for its sync, its `Success`; the others' `Success`), by as many
/// tasks as the up has steps in flight, with nothing else to do: no program, no provider, no
/// events. Whatever an up costs beyond this is the engine's.
async fn journal_floor(n: usize, cfg: &RunConfig) {
    let dir = tempdir();
    let made = run_unjournaled(
        Operation::Update,
        Some(&dag(n)),
        Snapshot::default(),
        builtin_factory(dir.path()),
        cfg,
    )
    .await;
    check("in-memory up", &made);
    let states = Arc::new(made.result.snapshot.resources);
    let stack = FileStack::create(dir.path()).expect("stack");
    let lock = stack.backend.lock(&stack.stack, "update").expect("lock");
    let (base, journal) = stack
        .backend
        .begin_deployment(&lock, None)
        .expect("journal");
    let path = journal.path().to_path_buf();
    let manager = Arc::new(SnapshotManager::new(&base, Box::new(journal)));
    let next = Arc::new(AtomicUsize::new(0));
    let before = Usage::now();
    let started = Instant::now();
    let mut writers = tokio::task::JoinSet::new();
    for _ in 0..cfg.parallel {
        let (states, manager, next) = (states.clone(), manager.clone(), next.clone());
        writers.spawn(async move {
            while let Some(state) = states.get(next.fetch_add(1, Ordering::Relaxed)) {
                let op = if state.custom {
                    let planned = ResourceState {
                        id: None,
                        outputs: PropertyMap::new(),
                        ..state.clone()
                    };
                    let op = manager.begin(OperationType::Creating, &planned).unwrap();
                    manager.durable().await.unwrap();
                    Some(op)
                } else {
                    None
                };
                let new = Some(state.clone());
                manager
                    .success(SuccessEntry {
                        op,
                        new,
                        ..SuccessEntry::default()
                    })
                    .unwrap();
            }
        });
    }
    writers.join_all().await;
    let wall = started.elapsed();
    let after = Usage::now();
    drop(manager);
    let bytes = std::fs::metadata(&path).map_or(0, |m| m.len());
    println!(
        "journal floor n={n}, {} in flight: {:.3} s wall, {}, {} states, {:.0} bytes/state; \
         cpu {:.3} s (user {:.3}, sys {:.3})",
        cfg.parallel,
        wall.as_secs_f64(),
        per_resource(wall, n),
        states.len(),
        bytes as f64 / states.len() as f64,
        (after.cpu() - before.cpu()).as_secs_f64(),
        (after.user - before.user).as_secs_f64(),
        (after.system - before.system).as_secs_f64()
    );
}
