//! Divan benchmarks of replaying a recorded run (`cargo bench --bench replay`): a real
//! deployment of a generated DAG is recorded as the history keeps it (the engine-event stream,
//! gzip-compressed), then opened as `stack history --open` opens it (the stream read back into
//! engine events and reduced once into the timeline, a copy of the model kept every 512
//! events) and scrubbed (a jump back to the middle, rebuilt from the nearest kept model).

#![allow(clippy::unwrap_used, clippy::panic)]

use std::sync::{Arc, OnceLock};

use divan::Bencher;
use stepdeck::app::replay::Timeline;
use stepdeck::bench_support::{DagProgram, DagSpec, GeneratedDag, builtin_factory};
use stepdeck::engine::{
    Deployment, EngineEvent, EventSink, NullJournal, Operation, Options, Snapshot,
};
use stepdeck::output::event_log_reader::read_event_log;
use stepdeck::output::event_stream::EventWriter;
use stepdeck::state::codec::update_events;

/// The same allocator as the `stepdeck` binary, so that the figures are the binary's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    for n in SIZES {
        let text = recorded(n);
        let events = read_event_log(text, "bench").unwrap().events.len();
        let compressed = update_events::compress(text.as_bytes()).bytes().len();
        println!(
            "{n} resources: {events} engine events, {} lines, {} bytes ({} a line), {compressed} gzip ({:.1} a line)",
            text.lines().count(),
            text.len(),
            text.len() / text.lines().count(),
            compressed as f64 / text.lines().count() as f64
        );
    }
    divan::main();
}

const SIZES: [usize; 2] = [1_000, 10_000];

/// The stream a real update of `n` resources records, made once per size.
fn recorded(n: usize) -> &'static str {
    static RUNS: OnceLock<Vec<(usize, String)>> = OnceLock::new();
    let runs = RUNS.get_or_init(|| SIZES.iter().map(|&n| (n, record(n))).collect());
    &runs.iter().find(|(size, _)| *size == n).unwrap().1
}

fn record(n: usize) -> String {
    let dir = tempfile::tempdir().unwrap();
    let dag = Arc::new(GeneratedDag::generate(&DagSpec::new(n)));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let events: Vec<EngineEvent> = rt.block_on(async {
        let (sink, mut rx) = EventSink::channel();
        let options = Options {
            operation: Operation::Update,
            ..Options::default()
        };
        let d = Deployment::new(
            options,
            Snapshot::default(),
            builtin_factory(dir.path()),
            Box::new(NullJournal),
            sink,
        );
        let collect = tokio::spawn(async move {
            let mut all = Vec::new();
            while let Some(e) = rx.recv().await {
                let done = matches!(e, EngineEvent::Summary { .. });
                all.push(e);
                if done {
                    break;
                }
            }
            all
        });
        let r = d.run(Some(Box::new(DagProgram::new(dag, 256)))).await;
        assert!(r.outcome.is_success());
        collect.await.unwrap()
    });
    let mut writer = EventWriter::recording(Default::default());
    let mut text = String::new();
    for e in &events {
        for v in writer.event(e) {
            text.push_str(&v.value.to_string());
            text.push('\n');
        }
    }
    text.push_str(&writer.finish().to_string());
    text.push('\n');
    text
}

/// Opening a recorded run: decompressing what the history kept, reading it back into engine
/// events and reducing them once into the timeline.
#[divan::bench(args = SIZES, sample_count = 10)]
fn open(b: Bencher, n: usize) {
    let kept = update_events::compress(recorded(n).as_bytes());
    b.bench(|| {
        let text = String::from_utf8(update_events::decompress(&kept).unwrap()).unwrap();
        Timeline::new(read_event_log(&text, "bench").unwrap())
    });
}

/// A jump from the end back to the middle of the run.
#[divan::bench(args = SIZES, sample_count = 10)]
fn seek_back_to_the_middle(b: Bencher, n: usize) {
    let mut timeline = Timeline::new(read_event_log(recorded(n), "bench").unwrap());
    b.bench_local(|| {
        timeline.seek(timeline.len());
        timeline.seek(timeline.len() / 2);
    });
}
