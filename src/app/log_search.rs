//! Searching the Log as `less` does: `/` types a text, the entries holding it are the matches
//! (at the severity shown), `n`/`N` go from one to the next, and the view shows which ("3/12").

use std::ops::Range;

use crate::engine::Severity;

use super::model::{LogEntry, Model};

/// The Log's search: the text being typed, the text searched for, and the match shown.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LogSearch {
    /// The text being typed, while the prompt is open.
    pub input: Option<String>,
    /// The text searched for; empty when there is no search.
    pub query: String,
    /// Which match is shown (an index into the matches).
    pub current: usize,
}

/// Where `needle` occurs in `hay`, ASCII case aside, as byte ranges of `hay`.
pub fn occurrences(hay: &str, needle: &str) -> Vec<Range<usize>> {
    if needle.is_empty() {
        return Vec::new();
    }
    let (hay_l, needle_l) = (hay.to_ascii_lowercase(), needle.to_ascii_lowercase());
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(k) = hay_l[from..].find(&needle_l) {
        let start = from + k;
        out.push(start..start + needle_l.len());
        from = start + needle_l.len();
    }
    out
}

/// Whether the entry holds `query` as the Log shows it: `name: message`.
pub fn entry_matches(e: &LogEntry, query: &str) -> bool {
    let found = |text: &str| !occurrences(text, query).is_empty();
    match &e.urn {
        Some(u) => found(&format!("{}: {}", u.name(), e.message)),
        None => found(&e.message),
    }
}

impl LogSearch {
    /// Whether a search is kept (`n`/`N` act).
    pub fn active(&self) -> bool {
        !self.query.is_empty()
    }

    /// The matching entries, as positions among the entries at `min` or worse (what the Log
    /// scrolls over).
    pub fn matches(&self, model: &Model, min: Severity) -> Vec<usize> {
        if !self.active() {
            return Vec::new();
        }
        model
            .log
            .entries()
            .iter()
            .filter(|e| e.severity >= min)
            .enumerate()
            .filter(|(_, e)| entry_matches(e, &self.query))
            .map(|(k, _)| k)
            .collect()
    }

    /// The position of the match shown, among `matches`.
    pub fn current_of(&self, matches: &[usize]) -> Option<usize> {
        matches
            .get(self.current.min(matches.len().saturating_sub(1)))
            .copied()
    }

    /// Moves to the next (or previous) match, wrapping around.
    pub fn step(&mut self, forward: bool, count: usize) {
        if count > 0 {
            let at = self.current.min(count - 1);
            self.current = if forward {
                (at + 1) % count
            } else {
                (at + count - 1) % count
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn occurrences_ignore_ascii_case_and_do_not_overlap() {
        assert_eq!(occurrences("Disk full, disk", "disk"), vec![0..4, 11..15]);
        assert_eq!(occurrences("aaaa", "aa"), vec![0..2, 2..4]);
        assert!(occurrences("abc", "").is_empty());
        assert_eq!(occurrences("é disk", "DISK"), vec![3..7]);
    }

    #[test]
    fn next_and_previous_wrap_around() {
        let mut s = LogSearch {
            query: "x".into(),
            ..LogSearch::default()
        };
        s.step(false, 3);
        assert_eq!(s.current, 2);
        s.step(true, 3);
        assert_eq!(s.current, 0);
        assert_eq!(s.current_of(&[4, 9]), Some(4));
        assert_eq!(s.current_of(&[]), None);
    }
}
