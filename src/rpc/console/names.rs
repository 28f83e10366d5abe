//! Recurring names as the console protocol carries them: a stream spells each URN, resource
//! type and provider reference in full once (`Events.names`) and then refers to it by number
//! (`#<n>`), because names were most of a served run's bytes and every byte is copied several
//! times per watcher.
//!
//! Names are numbered by the hub in the order they are first pushed, whatever the stream:
//! each stream sends the names it has not sent yet with the batch that may need them, so a
//! late joiner (or a watcher resuming mid-run) learns them all at once.

use std::collections::HashMap;
use std::sync::Arc;

use crate::engine::Urn;

/// What starts a reference; no URN (`urn:…`), type (`pkg:mod:Type`) or provider reference
/// (`urn:…::id`) starts with it, so a name in full and a reference never mix up.
const REFERENCE: char = '#';

/// The encoding side: every name referred to so far, numbered in order of first mention.
#[derive(Default)]
pub struct NameTable {
    index: HashMap<Arc<str>, u64, foldhash::fast::RandomState>,
    names: Vec<Arc<str>>,
}

impl NameTable {
    /// How `name` travels: `#<n>`, numbering it if it is new.
    pub fn refer(&mut self, name: &str) -> String {
        let n = match self.index.get(name) {
            Some(n) => *n,
            None => {
                let n = self.names.len() as u64;
                let name: Arc<str> = Arc::from(name);
                self.index.insert(name.clone(), n);
                self.names.push(name);
                n
            }
        };
        format!("{REFERENCE}{n}")
    }

    /// How many names are numbered.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether no name is numbered yet.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The names numbered from `from` on, in order.
    pub fn since(&self, from: usize) -> &[Arc<str>] {
        self.names.get(from..).unwrap_or_default()
    }
}

/// Why a name on the wire does not resolve.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameRefError {
    #[error("reference {0:?} to a name the stream never named")]
    Unknown(String),
    #[error("reference {0:?} names no URN")]
    NotUrn(String),
    #[error("the stream named names from #{first} on while this watcher knows {known}")]
    Gap { first: u64, known: usize },
    #[error(transparent)]
    Invalid(#[from] crate::engine::model::urn::InvalidUrn),
}

/// A name a stream named, with its URN when it is one (parsed once, not per event).
#[derive(Debug)]
struct Known {
    text: String,
    urn: Option<Urn>,
}

/// The decoding side: the names a stream named so far.
#[derive(Default, Debug)]
pub struct KnownNames {
    names: Vec<Known>,
}

impl KnownNames {
    /// Learns the names a batch names, numbered from `first` on; those already known (a
    /// resumed stream names everything again) are skipped.
    pub fn learn(&mut self, first: u64, names: &[String]) -> Result<(), NameRefError> {
        let known = self.names.len();
        let skip = usize::try_from(first)
            .ok()
            .and_then(|first| known.checked_sub(first))
            .ok_or(NameRefError::Gap { first, known })?;
        for text in names.iter().skip(skip) {
            let urn = text
                .starts_with("urn:")
                .then(|| Urn::parse(text))
                .transpose()?;
            self.names.push(Known {
                text: text.clone(),
                urn,
            });
        }
        Ok(())
    }

    fn known(&self, reference: &str, n: &str) -> Result<&Known, NameRefError> {
        n.parse::<usize>()
            .ok()
            .and_then(|n| self.names.get(n))
            .ok_or_else(|| NameRefError::Unknown(reference.to_string()))
    }

    /// The URN `s` stands for: a reference, or a URN in full.
    pub fn resolve(&self, s: &str) -> Result<Urn, NameRefError> {
        match s.strip_prefix(REFERENCE) {
            Some(n) => self
                .known(s, n)?
                .urn
                .clone()
                .ok_or_else(|| NameRefError::NotUrn(s.to_string())),
            None => Ok(Urn::parse(s)?),
        }
    }

    /// The text `s` stands for (a type or a provider reference): a reference, or the text in
    /// full.
    pub fn resolve_text(&self, s: &str) -> Result<String, NameRefError> {
        match s.strip_prefix(REFERENCE) {
            Some(n) => Ok(self.known(s, n)?.text.clone()),
            None => Ok(s.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn urn(name: &str) -> Urn {
        Urn::parse(&format!("urn:pulumi:dev::p::sim:index:Thing::{name}")).unwrap()
    }

    fn texts(names: &[Arc<str>]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn a_name_is_spelled_once_and_referred_to_by_its_number_after() {
        let mut table = NameTable::default();
        let (a, b) = (urn("a"), urn("b"));
        assert_eq!(table.refer(a.as_str()), "#0");
        assert_eq!(table.refer("sim:index:Thing"), "#1");
        assert_eq!(table.refer(b.as_str()), "#2");
        assert_eq!(table.refer(a.as_str()), "#0");
        assert_eq!(texts(table.since(2)), [b.as_str()]);
        let mut known = KnownNames::default();
        known.learn(0, &texts(table.since(0))).unwrap();
        assert_eq!(known.resolve("#2").unwrap(), b);
        assert_eq!(known.resolve_text("#1").unwrap(), "sim:index:Thing");
        assert_eq!(
            known.resolve(a.as_str()).unwrap(),
            a,
            "a URN in full still reads"
        );
        assert_eq!(
            known.resolve_text("sim:index:Other").unwrap(),
            "sim:index:Other"
        );
        assert_eq!(
            known.resolve("#1"),
            Err(NameRefError::NotUrn("#1".into())),
            "a type is no URN"
        );
        assert!(matches!(known.resolve("#3"), Err(NameRefError::Unknown(_))));
        assert!(matches!(
            known.resolve_text("#x"),
            Err(NameRefError::Unknown(_))
        ));
        let provider = "urn:pulumi:dev::p::pulumi:providers:sim::default::0a1b";
        let sent = table.refer(provider);
        assert_eq!(sent, "#3");
        known.learn(0, &texts(table.since(0))).unwrap();
        assert_eq!(known.resolve_text(&sent).unwrap(), provider);
    }

    #[test]
    fn a_resumed_stream_names_everything_again_and_a_gap_is_refused() {
        let mut table = NameTable::default();
        for name in ["a", "b", "c"] {
            table.refer(urn(name).as_str());
        }
        let mut known = KnownNames::default();
        known.learn(0, &texts(&table.since(0)[..2])).unwrap();
        known.learn(0, &texts(table.since(0))).unwrap();
        assert_eq!(known.resolve("#2").unwrap(), urn("c"));
        assert_eq!(known.names.len(), 3);
        let mut late = KnownNames::default();
        assert_eq!(
            late.learn(1, &texts(table.since(1))),
            Err(NameRefError::Gap { first: 1, known: 0 })
        );
    }

    #[test]
    fn a_malformed_urn_in_a_batch_is_refused() {
        let mut known = KnownNames::default();
        let bad = vec!["urn:pulumi:only-two".to_string()];
        assert!(matches!(
            known.learn(0, &bad),
            Err(NameRefError::Invalid(_))
        ));
    }
}
