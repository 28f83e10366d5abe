//! How much of a YAML document stepdeck parses: enough for a program of a million resources
//! (the most the engine is measured at, BENCHMARKS.md) as `bench_support` writes one, about 16
//! nodes and 150 bytes a resource, with room to spare. serde-saphyr's defaults (250,000 nodes,
//! 64 MiB of scalars) stopped programs at about 25,000 resources. Past these a document is
//! refused naming the file and the limit, before it costs gigabytes of memory.

/// Most nodes (scalars, lists and maps) in one YAML document: twice a million-resource program.
pub const MAX_YAML_NODES: usize = 32_000_000;

/// Most bytes of scalar text in one YAML document: as much as a YAML file may hold (256 MiB,
/// the most stepdeck reads of one), so that the file's size is the limit that speaks.
pub const MAX_YAML_SCALAR_BYTES: usize = 256 * 1024 * 1024;
