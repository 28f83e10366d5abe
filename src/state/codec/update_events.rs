//! The engine events kept with each update of a stack's history (an engine-event stream, as
//! `--event-log` writes it), gzip-compressed as the run goes (a run holds its compressed
//! stream, not the text) and read back the same way by both backends, and how many updates
//! keep theirs: the last [`KEPT_UPDATES`] of each stack, the oldest dropped first.

use std::io::{Read, Write};

use flate2::Compression;
use flate2::write::GzEncoder;

/// Updates of a stack whose events are kept; an older update's are dropped when a newer one's
/// are recorded (its history record stays).
pub const KEPT_UPDATES: u64 = 20;

/// The most of one run's stream kept (uncompressed): a longer run keeps its first part, and a
/// kept stream bigger than this is refused unread.
pub const MAX_EVENTS: u64 = 256 << 20;

/// A stream of events in its compressed form, as backends store it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compressed(Vec<u8>);

impl Compressed {
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }
}

/// A run's stream, compressed line by line as its events happen.
pub struct Compressor {
    gz: GzEncoder<Vec<u8>>,
    written: u64,
    /// A line did not fit: the stream keeps its first part only.
    full: bool,
}

impl Default for Compressor {
    fn default() -> Compressor {
        Compressor {
            gz: GzEncoder::new(Vec::new(), Compression::default()),
            written: 0,
            full: false,
        }
    }
}

impl Compressor {
    /// Adds one line (its newline added); past [`MAX_EVENTS`] nothing more is kept.
    pub fn line(&mut self, line: &[u8]) {
        let len = line.len() as u64 + 1;
        if self.full || self.written + len > MAX_EVENTS {
            self.full = true;
            return;
        }
        self.written += len;
        self.gz
            .write_all(line)
            .and_then(|()| self.gz.write_all(b"\n"))
            .expect("writing to memory cannot fail");
    }

    /// Whether the stream reached [`MAX_EVENTS`]: nothing more is kept.
    pub fn is_full(&self) -> bool {
        self.full
    }

    pub fn finish(self) -> Compressed {
        Compressed(self.gz.finish().expect("writing to memory cannot fail"))
    }
}

/// The compressed form of a whole stream.
pub fn compress(events: &[u8]) -> Compressed {
    let mut gz = GzEncoder::new(Vec::new(), Compression::default());
    gz.write_all(events).expect("writing to memory cannot fail");
    Compressed(gz.finish().expect("writing to memory cannot fail"))
}

/// A stored record as backends read it back.
pub fn stored(bytes: Vec<u8>) -> Compressed {
    Compressed(bytes)
}

/// The events of a compressed record, or why it does not decompress.
pub fn decompress(record: &Compressed) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(record.bytes())
        .take(MAX_EVENTS + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("the recorded events do not decompress: {e}"))?;
    if out.len() as u64 > MAX_EVENTS {
        return Err(format!(
            "the recorded events are larger than {MAX_EVENTS} bytes"
        ));
    }
    Ok(out)
}

/// Whether update `version`'s events are dropped once update `latest`'s are recorded.
pub fn dropped(version: u64, latest: u64) -> bool {
    version + KEPT_UPDATES <= latest
}
