//! URNs as the console protocol carries them: a stream names each resource in full once
//! (`Events.urns`) and then by a short reference (`#<n>`), because URNs were most of a served
//! run's bytes and every byte is copied several times per watcher.
//!
//! References are numbered by the hub in the order URNs are first pushed, whatever the
//! stream: each stream sends the full names it has not sent yet with the batch that may need
//! them, so a late joiner (or a watcher resuming mid-run) learns them all at once.

use crate::engine::provider_ref::ProviderRef;
use crate::engine::urn::{Urn, UrnMap};

/// What starts a reference; a URN always starts with `urn:`, so the two never mix up.
const REFERENCE: char = '#';

/// The encoding side: every URN referred to so far, numbered in order of first mention.
#[derive(Default)]
pub struct UrnTable {
    index: UrnMap<u64>,
    urns: Vec<Urn>,
}

impl UrnTable {
    /// How `urn` travels: `#<n>`, numbering it if it is new.
    pub fn refer(&mut self, urn: &Urn) -> String {
        let n = match self.index.get(urn) {
            Some(n) => *n,
            None => {
                let n = self.urns.len() as u64;
                self.index.insert(urn.clone(), n);
                self.urns.push(urn.clone());
                n
            }
        };
        format!("{REFERENCE}{n}")
    }

    /// How a provider reference (`<URN>::<ID>`) travels: its URN by reference; anything else
    /// as it is.
    pub fn refer_provider(&mut self, reference: &str) -> String {
        match ProviderRef::parse(reference) {
            Some(p) => format!("{}::{}", self.refer(&p.urn), p.id),
            None => reference.to_string(),
        }
    }

    /// How many URNs are numbered.
    pub fn len(&self) -> usize {
        self.urns.len()
    }

    /// Whether no URN is numbered yet.
    pub fn is_empty(&self) -> bool {
        self.urns.is_empty()
    }

    /// The URNs numbered from `from` on, in order.
    pub fn since(&self, from: usize) -> &[Urn] {
        self.urns.get(from..).unwrap_or_default()
    }
}

/// Why a URN on the wire does not resolve.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum UrnRefError {
    #[error("reference {0:?} to a URN the stream never named")]
    Unknown(String),
    #[error("the stream named URNs from #{first} on while this watcher knows {known}")]
    Gap { first: u64, known: usize },
    #[error(transparent)]
    Invalid(#[from] crate::engine::urn::InvalidUrn),
}

/// The decoding side: the URNs a stream named so far.
#[derive(Default, Debug)]
pub struct KnownUrns {
    urns: Vec<Urn>,
}

impl KnownUrns {
    /// Learns the URNs a batch names, numbered from `first` on; those already known (a
    /// resumed stream names everything again) are skipped.
    pub fn learn(&mut self, first: u64, names: &[String]) -> Result<(), UrnRefError> {
        let known = self.urns.len();
        let skip = usize::try_from(first)
            .ok()
            .and_then(|first| known.checked_sub(first))
            .ok_or(UrnRefError::Gap { first, known })?;
        for name in names.iter().skip(skip) {
            self.urns.push(Urn::parse(name)?);
        }
        Ok(())
    }

    /// The URN `s` stands for: a reference, or a URN in full.
    pub fn resolve(&self, s: &str) -> Result<Urn, UrnRefError> {
        match s.strip_prefix(REFERENCE) {
            Some(n) => n
                .parse::<usize>()
                .ok()
                .and_then(|n| self.urns.get(n))
                .cloned()
                .ok_or_else(|| UrnRefError::Unknown(s.to_string())),
            None => Ok(Urn::parse(s)?),
        }
    }

    /// The provider reference `s` stands for (see [`UrnTable::refer_provider`]).
    pub fn resolve_provider(&self, s: &str) -> Result<String, UrnRefError> {
        match s.split_once("::") {
            Some((urn, id)) if urn.starts_with(REFERENCE) => {
                Ok(format!("{}::{id}", self.resolve(urn)?))
            }
            _ => Ok(s.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn urn(name: &str) -> Urn {
        Urn::parse(&format!("urn:pulumi:dev::p::sim:index:Thing::{name}")).unwrap()
    }

    fn names(urns: &[Urn]) -> Vec<String> {
        urns.iter().map(|u| u.as_str().to_string()).collect()
    }

    #[test]
    fn a_urn_is_named_once_and_referred_to_by_its_number_after() {
        let mut table = UrnTable::default();
        let (a, b) = (urn("a"), urn("b"));
        assert_eq!(table.refer(&a), "#0");
        assert_eq!(table.refer(&b), "#1");
        assert_eq!(table.refer(&a), "#0");
        assert_eq!(table.since(1), std::slice::from_ref(&b));
        let mut known = KnownUrns::default();
        known.learn(0, &names(table.since(0))).unwrap();
        assert_eq!(known.resolve("#1").unwrap(), b);
        assert_eq!(
            known.resolve(a.as_str()).unwrap(),
            a,
            "a URN in full still reads"
        );
        assert!(matches!(known.resolve("#2"), Err(UrnRefError::Unknown(_))));
        assert!(known.resolve("#x").is_err());
        let provider = "urn:pulumi:dev::p::pulumi:providers:sim::default::0a1b";
        let sent = table.refer_provider(provider);
        assert_eq!(sent, "#2::0a1b");
        known.learn(0, &names(table.since(0))).unwrap();
        assert_eq!(known.resolve_provider(&sent).unwrap(), provider);
        assert_eq!(table.refer_provider("not a reference"), "not a reference");
        assert_eq!(
            known.resolve_provider("not::a reference").unwrap(),
            "not::a reference"
        );
    }

    #[test]
    fn a_resumed_stream_names_everything_again_and_a_gap_is_refused() {
        let mut table = UrnTable::default();
        for name in ["a", "b", "c"] {
            table.refer(&urn(name));
        }
        let mut known = KnownUrns::default();
        known.learn(0, &names(&table.since(0)[..2])).unwrap();
        known.learn(0, &names(table.since(0))).unwrap();
        assert_eq!(known.resolve("#2").unwrap(), urn("c"));
        assert_eq!(known.urns.len(), 3);
        let mut late = KnownUrns::default();
        assert_eq!(
            late.learn(1, &names(table.since(1))),
            Err(UrnRefError::Gap { first: 1, known: 0 })
        );
    }
}
