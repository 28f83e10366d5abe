//! The engine events kept with each update of a stack's history (an engine-event stream, as
//! `--event-log` writes it), gzip-compressed the same way by both backends, and how many
//! updates keep theirs: the last [`KEPT_UPDATES`] of each stack, the oldest dropped first.

use std::io::{Read, Write};

/// Updates of a stack whose events are kept; an older update's are dropped when a newer one's
/// are recorded (its history record stays).
pub const KEPT_UPDATES: u64 = 20;

/// The most a kept stream may grow back to: a stream bigger than this is refused unread.
const MAX_EVENTS: u64 = 1 << 30;

/// The compressed form of `events`.
pub fn compress(events: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(events)
        .and_then(|()| gz.finish())
        .expect("writing to memory cannot fail")
}

/// The events of a compressed record, or why it does not decompress.
pub fn decompress(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes)
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
