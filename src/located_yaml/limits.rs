//! How much YAML stepdeck reads from one file: every YAML reader (programs and `Main.yaml`,
//! `Pulumi.yaml`, stack settings, approval and component files) goes by these, and a writer of
//! YAML we read back must stay within them. They fit a program of a million resources (the
//! most the engine is measured at, BENCHMARKS.md) as `bench_support` writes one, about 16 nodes
//! and 150 bytes a resource, twice over; past them a file is refused, naming it and the limit,
//! before it costs gigabytes of memory.

use std::io::{self, Read};
use std::path::Path;

/// Most bytes in one YAML file.
pub const MAX_YAML_BYTES: u64 = 512 * 1024 * 1024;

/// Most nodes (scalars, lists and maps) in one YAML document.
pub const MAX_YAML_NODES: usize = 32_000_000;

/// Deepest nesting of lists and maps in one YAML document (the parser's own default, named):
/// deserializing nests a call per level, tens of kilobytes each in a debug build.
pub const MAX_YAML_DEPTH: usize = 64;

/// The text of the YAML file at `path`, refused (`FileTooLarge`, saying the limit) past
/// [`MAX_YAML_BYTES`]; a device or pipe that never ends is read no further than that.
pub fn read_yaml_file(path: &Path) -> io::Result<String> {
    let file = std::fs::File::open(path)?;
    let too_large = || {
        io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!(
                "larger than {} MiB, the most stepdeck reads of a YAML file",
                MAX_YAML_BYTES / (1024 * 1024)
            ),
        )
    };
    if file.metadata()?.len() > MAX_YAML_BYTES {
        return Err(too_large());
    }
    let mut text = String::new();
    file.take(MAX_YAML_BYTES + 1).read_to_string(&mut text)?;
    if text.len() as u64 > MAX_YAML_BYTES {
        return Err(too_large());
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_past_the_limit_is_refused_without_reading_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("Pulumi.yaml");
        let file = std::fs::File::create(&path).unwrap();
        // Sparse: nothing is written, so reading it would take long and cost memory.
        file.set_len(MAX_YAML_BYTES + 1).unwrap();
        let e = read_yaml_file(&path).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::FileTooLarge);
        assert!(e.to_string().contains("512 MiB"), "{e}");
    }
}
