//! One deployment of a generated DAG against the built-in providers, as the benchmarks and
//! the scale harness run it: events drained by a consumer task, as a printer would.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::dag::GeneratedDag;
use super::dag_program::DagProgram;
use super::rusage::peak_rss_bytes;
use crate::engine::{
    Deployment, DeploymentResult, EventSink, Journal, NullJournal, Operation, Options, Program,
    ProviderFactory, Snapshot,
};
use crate::providers::BuiltinProviders;
use crate::state::{Backend, BackendUrl, FileBackend, StackRef, StateError};

/// What a run produced, with what the harness reports about it.
pub struct RunReport {
    pub result: DeploymentResult,
    pub wall: Duration,
    /// Events the consumer received.
    pub events: usize,
}

/// How a run is configured beyond its operation.
#[derive(Clone, Debug)]
pub struct RunConfig {
    pub parallel: usize,
    pub parallel_diff: bool,
    /// The program's registrations in flight.
    pub concurrency: usize,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            parallel: crate::engine::run::deployment::default_parallel(),
            parallel_diff: false,
            concurrency: 256,
        }
    }
}

/// The built-in providers with the sim world in `dir`.
pub fn builtin_factory(dir: &Path) -> Arc<dyn ProviderFactory> {
    Arc::new(BuiltinProviders::new(dir.join("world.json")))
}

/// Runs `operation` of `dag` (no program for destroy) on `base`, journaling to `journal`.
pub async fn run_dag(
    operation: Operation,
    dag: Option<&Arc<GeneratedDag>>,
    base: Snapshot,
    journal: Box<dyn Journal>,
    factory: Arc<dyn ProviderFactory>,
    config: &RunConfig,
) -> RunReport {
    let options = Options {
        stack: "bench".into(),
        project: "bench".into(),
        operation,
        parallel: config.parallel,
        parallel_diff: config.parallel_diff,
        ..Options::default()
    };
    let (events, mut rx) = EventSink::channel();
    let consumer = tokio::spawn(async move {
        let mut n = 0usize;
        while rx.recv().await.is_some() {
            n += 1;
        }
        n
    });
    let program: Option<Box<dyn Program>> = match (operation, dag) {
        (Operation::Destroy, _) | (_, None) => None,
        (_, Some(d)) => Some(Box::new(DagProgram::new(d.clone(), config.concurrency))),
    };
    let started = Instant::now();
    let result = Deployment::new(options, base, factory, journal, events)
        .run(program)
        .await;
    let wall = started.elapsed();
    let events = consumer.await.unwrap_or_default();
    RunReport {
        result,
        wall,
        events,
    }
}

/// Runs without any state backend (previews, and runs whose journal is not measured).
pub async fn run_unjournaled(
    operation: Operation,
    dag: Option<&Arc<GeneratedDag>>,
    base: Snapshot,
    factory: Arc<dyn ProviderFactory>,
    config: &RunConfig,
) -> RunReport {
    run_dag(operation, dag, base, Box::new(NullJournal), factory, config).await
}

/// A file-backend stack in a directory, run the way the CLI runs it: compact and open the
/// journal (`begin_deployment`), run, drop the journal (synced), write the run's snapshot as the
/// checkpoint (`finish_deployment_from`).
pub struct FileStack {
    pub backend: FileBackend,
    pub stack: StackRef,
    pub dir: PathBuf,
}

/// Sizes of a file-backed run's state files.
#[derive(Clone, Copy, Debug, Default)]
pub struct JournalBytes {
    /// The journal the run appended.
    pub journal: u64,
    /// Entries the journal holds.
    pub entries: u64,
    /// The checkpoint written when the run finished.
    pub checkpoint: u64,
    /// `begin_deployment` (load and compact) and `finish_deployment_from` (the run's snapshot
    /// written as the checkpoint).
    pub begin: Duration,
    pub finish: Duration,
    /// The peak RSS when the run ended, before `finish_deployment`: tells the engine's peak
    /// from the compaction's.
    pub peak_rss_before_finish: u64,
}

impl FileStack {
    /// A new stack `bench/bench` in `dir/state`.
    pub fn create(dir: &Path) -> Result<FileStack, StateError> {
        let state = dir.join("state");
        std::fs::create_dir_all(&state).map_err(StateError::io(&state))?;
        let url = BackendUrl::parse(&format!("file://{}", state.display()))?;
        let backend = FileBackend::open(&url)?;
        let stack = StackRef::new("bench", "bench")?;
        backend.create_stack(&stack)?;
        Ok(FileStack {
            backend,
            stack,
            dir: dir.to_path_buf(),
        })
    }

    /// One journaled run; returns the report and the sizes of the files it wrote.
    pub async fn run(
        &self,
        operation: Operation,
        dag: Option<&Arc<GeneratedDag>>,
        factory: Arc<dyn ProviderFactory>,
        config: &RunConfig,
    ) -> Result<(RunReport, JournalBytes), StateError> {
        let lock = self.backend.lock(&self.stack, operation.as_str())?;
        let started = Instant::now();
        let (base, journal) = self.backend.begin_deployment(&lock, None)?;
        let begin = started.elapsed();
        let journal_path = journal.path().to_path_buf();
        let report = run_dag(operation, dag, base, Box::new(journal), factory, config).await;
        let journal_bytes = std::fs::metadata(&journal_path).map_or(0, |m| m.len());
        let entries = count_lines(&journal_path);
        let peak_rss_before_finish = peak_rss_bytes();
        let started = Instant::now();
        // As the CLI does, the run's snapshot becomes the checkpoint. The CLI then frees it
        // in the background; here it stays in the report, freed when the caller drops that
        // (outside any figure, and not while another run is being timed).
        self.backend
            .finish_deployment_from(&lock, None, &report.result.snapshot)?;
        let finish = started.elapsed();
        let cp = self.backend.checkpoint_path(&self.stack);
        let checkpoint = std::fs::metadata(&cp).map_or(0, |m| m.len());
        Ok((
            report,
            JournalBytes {
                journal: journal_bytes,
                entries,
                checkpoint,
                begin,
                finish,
                peak_rss_before_finish,
            },
        ))
    }
}

/// The lines of a file (0 if unreadable), read in chunks: holding the journal of a large run
/// would add its size to the peak RSS the harness reports.
fn count_lines(path: &Path) -> u64 {
    let Ok(mut file) = std::fs::File::open(path) else {
        return 0;
    };
    let mut chunk = vec![0u8; 1 << 16];
    let mut lines = 0;
    while let Ok(n @ 1..) = std::io::Read::read(&mut file, &mut chunk) {
        lines += chunk[..n].iter().filter(|c| **c == b'\n').count() as u64;
    }
    lines
}
