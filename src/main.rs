//! The `stepdeck` binary: the command line over the library.

mod cli;

/// mimalloc: the engine allocates many small maps per resource, and glibc's malloc spends
/// a large share of a big deployment's time consolidating them (BENCHMARKS.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    stepdeck::memory::without_huge_pages();
    cli::main()
}
