//! The run's log: diagnostics, failures, decisions and the operator's notes, oldest first,
//! with how many there are at each severity (what the log view scrolls over) kept as they
//! arrive rather than counted each frame.

use std::time::Duration;

use crate::engine::{Severity, Urn};

/// A diagnostic or engine message for the log view.
#[derive(Clone, Debug, PartialEq)]
pub struct LogEntry {
    pub at: Duration,
    pub severity: Severity,
    pub urn: Option<Urn>,
    pub message: String,
}

/// Every entry, and the count per severity.
#[derive(Clone, Debug, Default)]
pub struct Log {
    entries: Vec<LogEntry>,
    per_severity: [usize; 4],
}

impl Log {
    /// Every entry, oldest first.
    pub fn entries(&self) -> &[LogEntry] {
        &self.entries
    }

    /// Entries at `min` or worse, in O(1).
    pub fn count_at_least(&self, min: Severity) -> usize {
        self.per_severity[min as usize..].iter().sum()
    }

    pub(super) fn push(&mut self, entry: LogEntry) {
        self.per_severity[entry.severity as usize] += 1;
        self.entries.push(entry);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_entries_at_each_severity_or_worse() {
        let mut log = Log::default();
        for severity in [
            Severity::Info,
            Severity::Error,
            Severity::Debug,
            Severity::Info,
        ] {
            log.push(LogEntry {
                at: Duration::ZERO,
                severity,
                urn: None,
                message: String::new(),
            });
        }
        let counts = [
            Severity::Debug,
            Severity::Info,
            Severity::Warning,
            Severity::Error,
        ]
        .map(|s| log.count_at_least(s));
        assert_eq!(counts, [4, 3, 1, 1]);
    }
}
