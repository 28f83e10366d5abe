//! Provider references: a resource names the provider resource that manages it as
//! `<provider URN>::<provider ID>`. A reference is parsed once, where a request or a checkpoint
//! is decoded, and travels typed from there.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::urn::Urn;

/// A parsed provider reference.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ProviderRef {
    pub urn: Urn,
    /// Shared: every step and event of the resources a provider manages copies the reference.
    pub id: Arc<str>,
}

/// Why a text is not a provider reference, in the words the SDKs have been shown.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad provider reference '{reference}': {why}")]
pub struct BadProviderRef {
    pub reference: String,
    pub why: &'static str,
}

impl ProviderRef {
    pub fn new(urn: Urn, id: impl Into<Arc<str>>) -> ProviderRef {
        ProviderRef { urn, id: id.into() }
    }

    /// Splits a reference on its last `::` (a URN contains `::` itself) and reads the first
    /// half as a URN: what a checkpoint must hold.
    pub fn parse(reference: &str) -> Result<ProviderRef, BadProviderRef> {
        let (urn, id) = reference
            .rsplit_once("::")
            .and_then(|(urn, id)| Some((Urn::parse(urn).ok()?, id)))
            .ok_or_else(|| BadProviderRef {
                reference: reference.to_string(),
                why: "expected '<provider URN>::<provider ID>'",
            })?;
        Ok(ProviderRef::new(urn, id))
    }

    /// [`Self::parse`], and the URN names a provider resource and the ID is not empty: what a
    /// program may send.
    pub fn parse_request(reference: &str) -> Result<ProviderRef, BadProviderRef> {
        let parsed = ProviderRef::parse(reference)?;
        let bad = |why| BadProviderRef {
            reference: reference.to_string(),
            why,
        };
        if provider_type_package(parsed.urn.type_()).is_none_or(str::is_empty) {
            return Err(bad("the URN does not name a provider resource"));
        }
        if parsed.id.is_empty() {
            return Err(bad("the provider ID is empty"));
        }
        Ok(parsed)
    }
}

impl fmt::Display for ProviderRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}::{}", self.urn, self.id)
    }
}

impl Serialize for ProviderRef {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ProviderRef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ProviderRef, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        ProviderRef::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// Provider resources are ordinary custom resources of type `pulumi:providers:<package>`.
pub fn is_provider_type(ty: &str) -> bool {
    provider_type_package(ty).is_some()
}

/// The type tokens of provider resources start with this; the package follows.
const PROVIDER_TYPE_PREFIX: &str = "pulumi:providers:";

/// The package a provider type manages (`sim` for `pulumi:providers:sim`); `None` for any other
/// type.
pub fn provider_type_package(ty: &str) -> Option<&str> {
    ty.strip_prefix(PROVIDER_TYPE_PREFIX)
}

/// The type token of a package's provider resource.
pub fn provider_type(package: &str) -> String {
    format!("{PROVIDER_TYPE_PREFIX}{package}")
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
        assert_eq!(&*r.id, "0a1b-2c");
        assert_eq!(r.to_string(), text);
        let empty = ProviderRef::parse("urn:pulumi:dev::proj::pulumi:providers:sim::p::").unwrap();
        assert!(empty.id.is_empty());
    }

    #[test]
    fn a_malformed_reference_says_why_in_the_words_programs_are_shown() {
        for (text, why) in [
            ("no-separator", "expected '<provider URN>::<provider ID>'"),
            ("not-a-urn::id", "expected '<provider URN>::<provider ID>'"),
            (
                "urn:pulumi:dev::proj::a:b:c::x::id",
                "the URN does not name a provider resource",
            ),
            (
                "urn:pulumi:dev::proj::pulumi:providers:sim::p::",
                "the provider ID is empty",
            ),
        ] {
            let e = ProviderRef::parse_request(text).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!("bad provider reference '{text}': {why}")
            );
        }
    }

    #[test]
    fn a_reference_is_its_text_in_json_and_a_malformed_one_does_not_decode() {
        let text = "urn:pulumi:dev::proj::pulumi:providers:sim::default::0a1b";
        let r: ProviderRef = serde_json::from_str(&format!("{text:?}")).unwrap();
        assert_eq!(serde_json::to_string(&r).unwrap(), format!("{text:?}"));
        let e = serde_json::from_str::<ProviderRef>("\"nope\"").unwrap_err();
        assert!(
            e.to_string().contains("bad provider reference 'nope'"),
            "{e}"
        );
    }
}
