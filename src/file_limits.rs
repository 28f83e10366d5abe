//! How much of a file a user names we read: a plan, a state to import, a decision or approval
//! file, the project's YAML, a token or a certificate is read only up to a documented size, so
//! that `--plan /dev/zero` or a runaway file is refused naming it instead of filling memory.
//! What we write for ourselves to read back (a plan, an export, the stack settings) is checked
//! against the same limit before it is written.

use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

/// The most stepdeck reads from one kind of file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit {
    pub bytes: u64,
    /// The kind of file, as errors name it.
    pub what: &'static str,
}

/// Plan files and state documents (`stack import`, `state edit`): 1 GiB, about a million
/// resources' worth.
pub const STATE_DOCUMENT: Limit = Limit {
    bytes: 1 << 30,
    what: "a plan or state file",
};
/// YAML files: the project, its stack settings, programs, components, decision and approval
/// files (256 MiB, serde-saphyr's own bound on what it reads).
pub const YAML_FILE: Limit = Limit {
    bytes: 256 << 20,
    what: "a YAML file",
};
/// Tokens and PEM certificates or keys: 1 MiB.
pub const SMALL_FILE: Limit = Limit {
    bytes: 1 << 20,
    what: "a token or certificate file",
};

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.bytes;
        match b {
            _ if b >= 1 << 30 && b.is_multiple_of(1 << 30) => write!(f, "{} GiB", b >> 30),
            _ if b >= 1 << 20 && b.is_multiple_of(1 << 20) => write!(f, "{} MiB", b >> 20),
            _ if b >= 1 << 10 && b.is_multiple_of(1 << 10) => write!(f, "{} KiB", b >> 10),
            _ => write!(f, "{b} bytes"),
        }
    }
}

/// A file that could not be read, or holds more than its limit.
#[derive(Debug, thiserror::Error)]
pub enum ReadLimitError {
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: io::Error },
    #[error("{}: more than {limit}, the most stepdeck reads from {}", path.display(), limit.what)]
    TooLarge { path: PathBuf, limit: Limit },
    #[error("{}: a device, not a file or a pipe: stepdeck reads {} only from a file or a pipe", path.display(), limit.what)]
    Device { path: PathBuf, limit: Limit },
}

impl ReadLimitError {
    /// The error without the path, for errors that name the file themselves.
    pub fn into_io(self) -> io::Error {
        match self {
            ReadLimitError::Io { source, .. } => source,
            ReadLimitError::TooLarge { limit, .. } => io::Error::other(format!(
                "more than {limit}, the most stepdeck reads from {}",
                limit.what
            )),
            ReadLimitError::Device { .. } => io::Error::other("a device, not a file or a pipe"),
        }
    }

    /// Whether the file does not exist (callers that treat a missing file as empty ask).
    pub fn is_not_found(&self) -> bool {
        matches!(self, ReadLimitError::Io { source, .. } if source.kind() == io::ErrorKind::NotFound)
    }
}

/// Something we are about to write that its reader would refuse for its size.
#[derive(Debug, thiserror::Error)]
#[error("{written} would be {bytes} bytes, more than the {limit} stepdeck reads from {}; nothing was written", limit.what)]
pub struct WriteLimitError {
    pub written: String,
    pub bytes: u64,
    pub limit: Limit,
}

/// Reads the file at `path`, refusing one larger than `limit`: a regular file by its size,
/// before reading; a pipe once it has delivered more. A device (`/dev/zero`, a terminal) is
/// refused unread: none holds a document.
pub fn read(path: &Path, limit: Limit) -> Result<Vec<u8>, ReadLimitError> {
    let io = |source| ReadLimitError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = File::open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    let kind = meta.file_type();
    if kind.is_char_device() || kind.is_block_device() {
        return Err(ReadLimitError::Device {
            path: path.to_path_buf(),
            limit,
        });
    }
    if meta.is_file() && meta.len() > limit.bytes {
        return Err(ReadLimitError::TooLarge {
            path: path.to_path_buf(),
            limit,
        });
    }
    read_from(file, path, limit)
}

/// [`read`] as UTF-8 text.
pub fn read_to_string(path: &Path, limit: Limit) -> Result<String, ReadLimitError> {
    text(read(path, limit)?, path)
}

/// Reads a stream (standard input, named `name` in errors) up to `limit`, as UTF-8 text.
pub fn read_stream_to_string(
    input: impl Read,
    name: &Path,
    limit: Limit,
) -> Result<String, ReadLimitError> {
    text(read_from(input, name, limit)?, name)
}

/// Refuses to write `bytes` bytes of `written` (a file, or what it is) when its reader's
/// `limit` would refuse them.
pub fn check_write(written: &str, bytes: usize, limit: Limit) -> Result<(), WriteLimitError> {
    let bytes = bytes as u64;
    if bytes > limit.bytes {
        return Err(WriteLimitError {
            written: written.to_string(),
            bytes,
            limit,
        });
    }
    Ok(())
}

/// Reads `input` to its end, refusing it once it has delivered more than `limit`; the buffer
/// grows by doubling but never past the limit, so a stream that never ends costs the limit.
fn read_from(mut input: impl Read, path: &Path, limit: Limit) -> Result<Vec<u8>, ReadLimitError> {
    let io = |source| ReadLimitError::Io {
        path: path.to_path_buf(),
        source,
    };
    let most = usize::try_from(limit.bytes).unwrap_or(usize::MAX);
    let mut bytes = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let n = match input.read(&mut chunk) {
            Ok(0) => return Ok(bytes),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io(e)),
        };
        if n > most - bytes.len() {
            return Err(ReadLimitError::TooLarge {
                path: path.to_path_buf(),
                limit,
            });
        }
        if bytes.capacity() - bytes.len() < n {
            let grow = bytes.len().max(n).min(most - bytes.len());
            bytes.reserve_exact(grow);
        }
        bytes.extend_from_slice(&chunk[..n]);
    }
}

fn text(bytes: Vec<u8>, path: &Path) -> Result<String, ReadLimitError> {
    String::from_utf8(bytes).map_err(|_| ReadLimitError::Io {
        path: path.to_path_buf(),
        source: io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TINY: Limit = Limit {
        bytes: 4096,
        what: "a test file",
    };

    #[test]
    fn a_file_past_its_limit_is_refused_naming_it_and_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big");
        std::fs::write(&path, vec![b'x'; 4097]).unwrap();
        let e = read(&path, TINY).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "{}: more than 4 KiB, the most stepdeck reads from a test file",
                path.display()
            )
        );
        std::fs::write(&path, vec![b'x'; 4096]).unwrap();
        assert_eq!(read_to_string(&path, TINY).unwrap().len(), 4096);
        let e = read(Path::new("/dev/zero"), TINY).unwrap_err();
        assert!(matches!(e, ReadLimitError::Device { .. }), "{e}");
        let e =
            read_stream_to_string(io::repeat(b'x'), Path::new("standard input"), TINY).unwrap_err();
        assert_eq!(
            e.to_string(),
            "standard input: more than 4 KiB, the most stepdeck reads from a test file"
        );
        assert!(
            read(&dir.path().join("missing"), TINY)
                .unwrap_err()
                .is_not_found()
        );
        assert_eq!(STATE_DOCUMENT.to_string(), "1 GiB");
        assert_eq!(YAML_FILE.to_string(), "256 MiB");
        assert!(check_write("plan.json", 4097, TINY).is_err());
        assert!(check_write("plan.json", 4096, TINY).is_ok());
    }
}
