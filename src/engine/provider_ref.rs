//! Provider references: a resource names the provider resource that manages it as
//! `<provider URN>::<provider ID>`.

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
        let (urn, id) = reference.rsplit_once("::")?;
        Some(ProviderRef {
            urn: Urn::parse(urn).ok()?,
            id: id.to_string(),
        })
    }
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
}
