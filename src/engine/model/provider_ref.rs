//! Provider references: a resource names the provider resource that manages it as
//! `<provider URN>::<provider ID>`.

use std::cell::RefCell;
use std::fmt;

use super::urn::Urn;

/// A parsed provider reference.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ProviderRef {
    pub urn: Urn,
    /// Empty in a malformed reference (`<URN>::`); the registration checks refuse it.
    pub id: String,
}

impl ProviderRef {
    /// Splits a reference on its last `::` (a URN contains `::` itself); `None` when there is
    /// no separator or the first half is not a URN.
    pub fn parse(reference: &str) -> Option<ProviderRef> {
        Self::with_parsed(reference, ProviderRef::clone)
    }

    /// The URN half of a reference, as [`Self::parse`] reads it.
    pub fn parse_urn(reference: &str) -> Option<Urn> {
        Self::with_parsed(reference, |r| r.urn.clone())
    }

    /// Applies `f` to the parsed reference. The last reference parsed on each thread is
    /// remembered: a stack's resources mostly name the same provider, and every step reads its
    /// reference several times (dependencies, checks, events), which would otherwise copy and
    /// hash the same URN each time.
    fn with_parsed<T>(reference: &str, f: impl FnOnce(&ProviderRef) -> T) -> Option<T> {
        LAST_PARSED.with_borrow_mut(|last| {
            if let Some((text, parsed)) = last
                && **text == *reference
            {
                return Some(f(parsed));
            }
            let (urn, id) = reference.rsplit_once("::")?;
            let parsed = ProviderRef {
                urn: Urn::parse(urn).ok()?,
                id: id.to_string(),
            };
            let answer = f(&parsed);
            *last = Some((reference.into(), parsed));
            Some(answer)
        })
    }
}

thread_local! {
    /// The reference [`ProviderRef::parse`] parsed last on this thread, and what it gave.
    static LAST_PARSED: RefCell<Option<(Box<str>, ProviderRef)>> = const { RefCell::new(None) };
}

impl fmt::Display for ProviderRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}::{}", self.urn, self.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reference_splits_on_its_last_separator_and_prints_back() {
        let text = "urn:pulumi:dev::proj::pulumi:providers:sim::default::0a1b-2c";
        let r = ProviderRef::parse(text).expect("a reference");
        assert_eq!(r.urn.type_(), "pulumi:providers:sim");
        assert_eq!(r.urn.name(), "default");
        assert_eq!(r.id, "0a1b-2c");
        assert_eq!(r.to_string(), text);
        assert_eq!(ProviderRef::parse("no-separator"), None);
        assert_eq!(ProviderRef::parse("not-a-urn::id"), None);
        let empty = ProviderRef::parse("urn:pulumi:dev::proj::pulumi:providers:sim::p::").unwrap();
        assert!(empty.id.is_empty());
    }

    #[test]
    fn the_remembered_reference_answers_only_for_its_own_text() {
        let a = "urn:pulumi:dev::proj::pulumi:providers:sim::a::1";
        let b = "urn:pulumi:dev::proj::pulumi:providers:sim::b::2";
        for _ in 0..2 {
            assert_eq!(ProviderRef::parse(a).unwrap().to_string(), a);
            assert_eq!(ProviderRef::parse(a).unwrap().id, "1");
            assert_eq!(ProviderRef::parse_urn(b).unwrap().name(), "b");
            assert_eq!(ProviderRef::parse(b).unwrap().id, "2");
            assert_eq!(ProviderRef::parse(&a[..a.len() - 3]), None);
            assert_eq!(ProviderRef::parse_urn(a).unwrap().name(), "a");
        }
    }
}
