//! Where a command's output goes (standard output, the `--event-log` file), with its first
//! failed write kept instead of ignored. The run being shown goes on, as Pulumi's engine goes
//! on when its event log or JSON display cannot write (a display never stops a deployment:
//! stopping mid-run would leave operations in flight); what follows the failure is dropped,
//! and the command reports the failure, naming the destination, and exits non-zero once the
//! run is over. A reader of the event log (the Automation API) never misses events silently.

use std::io::{self, Write};

/// A write to a command's output that failed.
#[derive(Debug, thiserror::Error)]
#[error("{name}: cannot write {what}: {error}")]
pub struct WriteFailed {
    /// The destination: a file's path, or "standard output".
    pub name: String,
    /// What was being written ("the event log").
    pub what: &'static str,
    pub error: io::Error,
}

/// A writer that never fails its caller: it keeps its destination's first failure for
/// [`CheckedOutput::finish`] and drops everything written after it.
pub struct CheckedOutput<W: Write> {
    name: String,
    what: &'static str,
    out: W,
    failed: Option<io::Error>,
}

impl<W: Write> CheckedOutput<W> {
    /// `what` written to `out`, which is called `name` when a write fails.
    pub fn new(name: impl Into<String>, what: &'static str, out: W) -> CheckedOutput<W> {
        CheckedOutput {
            name: name.into(),
            what,
            out,
            failed: None,
        }
    }

    /// Writes `text` and a newline in one write.
    pub fn line(&mut self, text: &str) {
        let mut line = String::with_capacity(text.len() + 1);
        line.push_str(text);
        line.push('\n');
        let _ = self.write_all(line.as_bytes());
    }

    /// Flushes, and returns the first failure if a write failed.
    pub fn finish(mut self) -> Result<(), WriteFailed> {
        let _ = self.flush();
        match self.failed {
            None => Ok(()),
            Some(error) => Err(WriteFailed {
                name: self.name,
                what: self.what,
                error,
            }),
        }
    }

    fn keep(&mut self, result: io::Result<()>) {
        if let Err(e) = result
            && e.kind() != io::ErrorKind::Interrupted
        {
            self.failed = Some(e);
        }
    }
}

impl<W: Write> Write for CheckedOutput<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.failed.is_none() {
            let written = self.out.write_all(buf);
            self.keep(written);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.failed.is_none() {
            let flushed = self.out.flush();
            self.keep(flushed);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Accepts `room` bytes, then fails as a full disk does.
    struct Full {
        room: usize,
        written: Vec<u8>,
        refused: usize,
    }

    impl Write for Full {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.room == 0 {
                self.refused += 1;
                return Err(io::Error::from_raw_os_error(libc::ENOSPC));
            }
            let n = buf.len().min(self.room);
            self.room -= n;
            self.written.extend_from_slice(&buf[..n]);
            Ok(n)
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_first_failure_is_kept_and_named_and_later_writes_are_dropped() {
        let mut out = CheckedOutput::new(
            "/dev/full",
            "the event log",
            Full {
                room: 8,
                written: Vec::new(),
                refused: 0,
            },
        );
        out.line("first");
        out.line("second");
        out.line("third");
        assert_eq!(out.out.written, b"first\nse");
        assert_eq!(out.out.refused, 1, "nothing is tried after the failure");
        let e = out.finish().unwrap_err();
        assert_eq!(e.name, "/dev/full");
        assert_eq!(e.error.raw_os_error(), Some(libc::ENOSPC));
        assert!(
            e.to_string()
                .starts_with("/dev/full: cannot write the event log: "),
            "{e}"
        );
    }

    #[test]
    fn writes_that_all_succeed_finish_clean() {
        let mut out = CheckedOutput::new("standard output", "the engine events", Vec::new());
        out.line("{}");
        writeln!(out, "x").unwrap();
        assert!(out.finish().is_ok());
    }
}
