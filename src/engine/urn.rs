//! Uniform resource names: the identity of a resource across deployments.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A map keyed by URN with a fast hasher: URNs are long, hashed for every event and step, and
/// come from the operator's own programs, so SipHash's flooding resistance buys nothing here.
pub type UrnMap<V> = std::collections::HashMap<Urn, V, foldhash::fast::RandomState>;

/// A set of URNs with the fast hasher of [`UrnMap`].
pub type UrnSet = std::collections::HashSet<Urn, foldhash::fast::RandomState>;

/// The type token of the root stack resource; children of it do not carry its type in their URN.
pub const ROOT_STACK_TYPE: &str = "pulumi:pulumi:Stack";

/// `urn:pulumi:<stack>::<project>::<qualified type>::<name>`, cheap to clone because URNs are
/// copied into every step, event and dependency list. It carries its text's hash: a map of a
/// million URNs then hashes and compares them without reading their text.
#[derive(Clone)]
pub struct Urn {
    text: Arc<str>,
    hash: u64,
}

/// Why a string is not a URN.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("invalid URN {0:?}: expected urn:pulumi:<stack>::<project>::<type>::<name>")]
pub struct InvalidUrn(pub String);

impl Urn {
    /// Builds the URN a registration gets: the parent's qualified type prefixes the own type
    /// unless the parent is absent or the root stack.
    pub fn new(stack: &str, project: &str, parent: Option<&Urn>, ty: &str, name: &str) -> Urn {
        let qualified = match parent {
            Some(p) if p.type_() != ROOT_STACK_TYPE => format!("{}${ty}", p.qualified_type()),
            _ => ty.to_string(),
        };
        Urn::of(format!("urn:pulumi:{stack}::{project}::{qualified}::{name}").into())
    }

    /// Validates and wraps a URN string read from a file or the wire.
    pub fn parse(s: &str) -> Result<Urn, InvalidUrn> {
        match s.strip_prefix("urn:pulumi:") {
            Some(rest) if separators(rest.as_bytes()) == 3 => Ok(Urn::of(s.into())),
            _ => Err(InvalidUrn(s.to_string())),
        }
    }

    /// Wraps checked text, hashing it once with a fixed seed, so that equal texts hash alike.
    fn of(text: Arc<str>) -> Urn {
        let hash = foldhash::fast::FixedState::with_seed(0).hash_one(&*text);
        Urn { text, hash }
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Stack, project, qualified type and name: split at the first three `::` by a byte scan
    /// (a substring searcher costs more to set up than a URN takes to scan, on every lookup).
    fn parts(&self) -> [&str; 4] {
        let mut rest = self.text.strip_prefix("urn:pulumi:").unwrap_or_default();
        let mut parts = [""; 4];
        for part in &mut parts[..3] {
            match rest.as_bytes().windows(2).position(|w| w == b"::") {
                Some(at) => {
                    *part = &rest[..at];
                    rest = &rest[at + 2..];
                }
                None => {
                    *part = rest;
                    rest = "";
                }
            }
        }
        parts[3] = rest;
        parts
    }

    pub fn stack(&self) -> &str {
        self.parts()[0]
    }

    pub fn project(&self) -> &str {
        self.parts()[1]
    }

    /// The type with every ancestor's type, joined by `$`.
    pub fn qualified_type(&self) -> &str {
        self.parts()[2]
    }

    /// The resource's own type token (the last `$` segment).
    pub fn type_(&self) -> &str {
        let q = self.qualified_type();
        q.rsplit('$').next().unwrap_or(q)
    }

    pub fn name(&self) -> &str {
        self.parts()[3]
    }
}

/// The `::` separators of `bytes`, leftmost first and not overlapping (as `str::split` finds
/// them), counted up to three: a byte scan, since every URN read from a file or the wire is
/// checked.
fn separators(bytes: &[u8]) -> usize {
    let mut found = 0;
    let mut i = 0;
    while found < 3 && i + 1 < bytes.len() {
        if bytes[i] == b':' && bytes[i + 1] == b':' {
            found += 1;
            i += 2;
        } else {
            i += 1;
        }
    }
    found
}

impl PartialEq for Urn {
    /// The hashes first: two URNs that differ nearly always differ there, and a clone is the
    /// same text.
    fn eq(&self, other: &Urn) -> bool {
        self.hash == other.hash && (Arc::ptr_eq(&self.text, &other.text) || self.text == other.text)
    }
}

impl Eq for Urn {}

impl Hash for Urn {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

impl PartialOrd for Urn {
    fn partial_cmp(&self, other: &Urn) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Urn {
    /// By text: sorted URNs read in the order their names do.
    fn cmp(&self, other: &Urn) -> Ordering {
        self.text.cmp(&other.text)
    }
}

impl Default for Urn {
    fn default() -> Urn {
        Urn::of("".into())
    }
}

impl fmt::Display for Urn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl fmt::Debug for Urn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", &*self.text)
    }
}

impl Serialize for Urn {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

impl<'de> Deserialize<'de> for Urn {
    /// Straight from the decoder's text into the URN's one allocation (no `String` between).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Urn, D::Error> {
        struct UrnText;
        impl serde::de::Visitor<'_> for UrnText {
            type Value = Urn;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Urn, E> {
                Urn::parse(s).map_err(E::custom)
            }
        }
        d.deserialize_str(UrnText)
    }
}

/// `urns` once each, in order of first mention: a resource often names the same one twice (as
/// a dependency and through an input), and whoever follows its edges wants each once.
pub fn distinct(urns: impl IntoIterator<Item = Urn>) -> Vec<Urn> {
    let mut out: Vec<Urn> = Vec::new();
    // Short lists (nearly all) are scanned; a set is built only for a long one.
    let mut seen: Option<UrnSet> = None;
    for u in urns {
        let new = match &mut seen {
            None if out.len() < 16 => !out.contains(&u),
            None => seen.insert(out.iter().cloned().collect()).insert(u.clone()),
            Some(seen) => seen.insert(u.clone()),
        };
        if new {
            out.push(u);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinct_keeps_the_first_mention_of_each_in_short_and_long_lists() {
        let u = |i: usize| Urn::parse(&format!("urn:pulumi:s::p::t::r{i}")).unwrap();
        assert_eq!(distinct([u(2), u(1), u(2), u(3), u(1)]), [u(2), u(1), u(3)]);
        let long: Vec<Urn> = (0..40).chain(0..40).chain([7, 39]).map(u).collect();
        assert_eq!(distinct(long), (0..40).map(u).collect::<Vec<_>>());
        let around_the_switch: Vec<Urn> = (0..16).chain([3, 16, 16, 0]).map(u).collect();
        assert_eq!(
            distinct(around_the_switch),
            (0..17).map(u).collect::<Vec<_>>()
        );
    }

    #[test]
    fn qualified_type_nests_under_non_root_parents() {
        let stack = Urn::new("dev", "p", None, ROOT_STACK_TYPE, "p-dev");
        let comp = Urn::new("dev", "p", Some(&stack), "my:comp:Comp", "c");
        assert_eq!(comp.as_str(), "urn:pulumi:dev::p::my:comp:Comp::c");
        let child = Urn::new("dev", "p", Some(&comp), "sim:index:Bucket", "b");
        assert_eq!(
            child.as_str(),
            "urn:pulumi:dev::p::my:comp:Comp$sim:index:Bucket::b"
        );
        assert_eq!(child.type_(), "sim:index:Bucket");
        assert_eq!(child.name(), "b");
        assert_eq!(child.stack(), "dev");
        assert_eq!(child.project(), "p");
    }

    #[test]
    fn urns_of_the_same_text_are_equal_and_hash_alike_wherever_they_were_made() {
        let made = Urn::new("s", "p", None, "t", "a");
        let parsed = Urn::parse("urn:pulumi:s::p::t::a").unwrap();
        let decoded: Urn = serde_json::from_str(r#""urn:pulumi:s::p::t::a""#).unwrap();
        let hash = |u: &Urn| foldhash::fast::FixedState::default().hash_one(u);
        for other in [&parsed, &decoded] {
            assert_eq!(&made, other);
            assert_eq!(hash(&made), hash(other));
        }
        let b = Urn::parse("urn:pulumi:s::p::t::b").unwrap();
        assert_ne!(made, b);
        assert!(made < b, "ordered by text");
        let set: UrnSet = [made.clone(), parsed, decoded, b].into_iter().collect();
        assert_eq!(set.len(), 2);
        assert_eq!(Urn::default().as_str(), "");
    }

    #[test]
    fn names_may_contain_double_colons() {
        let u = Urn::parse("urn:pulumi:s::p::t::a::b").unwrap();
        assert_eq!(u.name(), "a::b");
        // The separator is the leftmost `::`, as `str::splitn` finds it.
        let u = Urn::parse("urn:pulumi:s::p::a:b:C:::x").unwrap();
        assert_eq!((u.qualified_type(), u.name()), ("a:b:C", ":x"));
        assert_eq!((u.stack(), u.project()), ("s", "p"));
        assert!(Urn::parse("urn:pulumi:s::p").is_err());
        assert!(Urn::parse("urn:pulumi:s::p::t").is_err());
        assert!(
            Urn::parse("urn:pulumi:s:::p").is_err(),
            "`:::` is one separator"
        );
        assert!(Urn::parse("urn:pulumi:s::p::t::").is_ok(), "an empty name");
        assert!(Urn::parse("arn:aws:x").is_err());
        let decoded: Urn = serde_json::from_str(r#""urn:pulumi:s::p::t::a\u0062""#).unwrap();
        assert_eq!(decoded.name(), "ab", "an escaped URN decodes too");
        let err = serde_json::from_str::<Urn>("5").unwrap_err().to_string();
        assert!(err.contains("expected a string"), "{err}");
        assert!(serde_json::from_str::<Urn>(r#""urn:pulumi:s::p""#).is_err());
    }
}
