//! Generated workloads for the benchmarks and the scale harness (`benches/`): layered random
//! DAGs of `sim` resources, built by code so that no large input is ever committed.

mod dag;
mod dag_program;
mod rusage;
mod scenario;
mod slow_diff;

pub use dag::{DagSpec, GenResource, GeneratedDag};
pub use dag_program::DagProgram;
pub use rusage::{Usage, peak_rss_bytes, thread_cpu_time};
pub use scenario::{
    FileStack, JournalBytes, RunConfig, RunReport, builtin_factory, run_dag, run_unjournaled,
};
pub use slow_diff::SlowDiffFactory;
