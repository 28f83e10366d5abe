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
/// million URNs then hashes and compares them without reading their text. It also knows where
/// its type and name start, which every step and event asks for.
#[derive(Clone)]
pub struct Urn {
    text: Arc<str>,
    /// The text's hash, folded to 32 bits so that the URN stays three words long.
    hash: u32,
    /// Where the resource's own type token (after the qualified type's last `$`) and the name
    /// start, or [`FAR`] for a text too long to say (its parts are then found by a scan). Every
    /// step asks for the type; only a child's URN asks for its parent's qualified type.
    token_at: u16,
    name_at: u16,
}

/// The offset of a part too far into the text for a `u16`.
const FAR: u16 = u16::MAX;

/// What every URN starts with.
const PREFIX: &str = "urn:pulumi:";

/// Why a string is not a URN.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("invalid URN {0:?}: expected urn:pulumi:<stack>::<project>::<type>::<name>")]
pub struct InvalidUrn(pub String);

impl Urn {
    /// Builds the URN a registration gets: the parent's qualified type prefixes the own type
    /// unless the parent is absent or the root stack.
    ///
    /// The text is assembled in one buffer of its exact length: every registration makes one.
    pub fn new(stack: &str, project: &str, parent: Option<&Urn>, ty: &str, name: &str) -> Urn {
        let parent_type = match parent {
            Some(p) if p.type_() != ROOT_STACK_TYPE => Some(p.qualified_type()),
            _ => None,
        };
        let pieces = [
            PREFIX,
            stack,
            "::",
            project,
            "::",
            parent_type.unwrap_or_default(),
            if parent_type.is_some() { "$" } else { "" },
            ty,
            "::",
            name,
        ];
        let mut text = String::with_capacity(pieces.iter().map(|p| p.len()).sum());
        pieces.iter().for_each(|p| text.push_str(p));
        Urn::of(text.into())
    }

    /// Validates and wraps a URN string read from a file or the wire.
    pub fn parse(s: &str) -> Result<Urn, InvalidUrn> {
        match s.strip_prefix(PREFIX) {
            Some(rest) if separators(rest.as_bytes()).len() == 3 => Ok(Urn::of(s.into())),
            _ => Err(InvalidUrn(s.to_string())),
        }
    }

    /// Wraps checked text, hashing it once with a fixed seed, so that equal texts hash alike,
    /// and finding where its type and name start.
    fn of(text: Arc<str>) -> Urn {
        let hash = foldhash::fast::FixedState::with_seed(0).hash_one(&*text);
        let (token_at, name_at) = token_and_name_starts(&text);
        let near = |at: usize| u16::try_from(at).ok().filter(|&at| at != FAR);
        let (token_at, name_at) = match (near(token_at), near(name_at)) {
            (Some(t), Some(n)) => (t, n),
            _ => (FAR, FAR),
        };
        Urn {
            text,
            // Folded, not cut: both halves of the hash count.
            hash: (hash ^ (hash >> 32)) as u32,
            token_at,
            name_at,
        }
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Stack, project, qualified type and name, split at the first three `::` (as
    /// [`part_starts`] finds them; a text without the prefix has none).
    fn parts(&self) -> [&str; 4] {
        if !self.text.starts_with(PREFIX) {
            return [""; 4];
        }
        let [project_at, type_at, name_at] = part_starts(&self.text);
        [
            self.between(PREFIX.len(), project_at),
            self.between(project_at, type_at),
            self.between(type_at, name_at),
            self.text.get(name_at..).unwrap_or_default(),
        ]
    }

    /// The text from `from` up to the separator before `next` (empty when there is none).
    fn between(&self, from: usize, next: usize) -> &str {
        self.text
            .get(from..next.saturating_sub(2))
            .unwrap_or_default()
    }

    /// Where the own type token and the name start: the offsets kept, or a scan for a text too
    /// long for them.
    fn token_and_name_at(&self) -> (usize, usize) {
        if self.token_at == FAR {
            return token_and_name_starts(&self.text);
        }
        (usize::from(self.token_at), usize::from(self.name_at))
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
        let (token_at, name_at) = self.token_and_name_at();
        self.between(token_at, name_at)
    }

    pub fn name(&self) -> &str {
        let (_, name_at) = self.token_and_name_at();
        self.text.get(name_at..).unwrap_or_default()
    }
}

/// Where the own type token (after the qualified type's last `$`) and the name start in `text`.
fn token_and_name_starts(text: &str) -> (usize, usize) {
    let [_, type_at, name_at] = part_starts(text);
    let qualified = text
        .get(type_at..name_at.saturating_sub(2))
        .unwrap_or_default();
    // A byte scan: type tokens are short, and a searcher costs more to set up.
    let token_at = qualified
        .bytes()
        .rposition(|b| b == b'$')
        .map_or(type_at, |at| type_at + at + 1);
    (token_at, name_at)
}

/// Where the project, the qualified type and the name start in `text`: after the first three
/// `::` following the prefix. A part that lacks its separator runs to the end of the text, and
/// those after it start past the end (they are empty).
fn part_starts(text: &str) -> [usize; 3] {
    let past_the_end = text.len() + 2;
    let Some(rest) = text.strip_prefix(PREFIX) else {
        return [past_the_end; 3];
    };
    let mut starts = [past_the_end; 3];
    for (start, sep) in starts.iter_mut().zip(separators(rest.as_bytes())) {
        *start = PREFIX.len() + sep + 2;
    }
    starts
}

/// The positions of the first three `::` separators of `bytes`, leftmost first and not
/// overlapping (as `str::split` finds them): a byte scan, since every URN read from a file or
/// the wire is checked (a substring searcher costs more to set up than a URN takes to scan).
fn separators(bytes: &[u8]) -> impl ExactSizeIterator<Item = usize> {
    let mut found = [0; 3];
    let mut count = 0;
    let mut i = 0;
    while count < 3 && i + 1 < bytes.len() {
        if bytes[i] == b':' && bytes[i + 1] == b':' {
            found[count] = i;
            count += 1;
            i += 2;
        } else {
            i += 1;
        }
    }
    found.into_iter().take(count)
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
        state.write_u32(self.hash);
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
pub fn distinct(mut urns: Vec<Urn>) -> Arc<[Urn]> {
    // Short lists (nearly all) are scanned; a set is built only for a long one.
    if urns.len() <= 16 {
        let mut kept = 0;
        for i in 0..urns.len() {
            if !urns[..kept].contains(&urns[i]) {
                urns.swap(kept, i);
                kept += 1;
            }
        }
        urns.truncate(kept);
    } else {
        let mut seen = UrnSet::default();
        urns.retain(|u| seen.insert(u.clone()));
    }
    urns.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn its_parts_are_those_of_splitting_its_text_at_the_first_three_separators() {
        let long_name = "n".repeat(70_000);
        let texts = [
            "urn:pulumi:dev::proj::sim:index:Bucket::b".to_string(),
            "urn:pulumi:dev::proj::my:comp:Comp$sim:index:Bucket::name::with::colons".to_string(),
            "urn:pulumi:dev::proj::pulumi:providers:sim::default_1_2_3".to_string(),
            "urn:pulumi:s::p::t::".to_string(),
            "urn:pulumi:s::p::a:b:c$d:e:f$g:h:i::x".to_string(),
            format!("urn:pulumi:s::p::t::{long_name}"),
            format!("urn:pulumi:s::p::{}::x", "t".repeat(70_000)),
            format!("urn:pulumi:s::p::{}$own:type:T::x", "t".repeat(70_000)),
        ];
        for text in &texts {
            let urn = Urn::parse(text).unwrap();
            let rest = text.strip_prefix("urn:pulumi:").unwrap();
            let split: Vec<&str> = rest.splitn(4, "::").collect();
            assert_eq!(urn.stack(), split[0], "{text:.80}");
            assert_eq!(urn.project(), split[1], "{text:.80}");
            assert_eq!(urn.qualified_type(), split[2], "{text:.80}");
            assert_eq!(
                urn.type_(),
                split[2].rsplit('$').next().unwrap(),
                "{text:.80}"
            );
            assert_eq!(urn.name(), split[3], "{text:.80}");
            assert_eq!(urn.as_str(), text);
        }
        let empty = Urn::default();
        assert_eq!(
            [
                empty.stack(),
                empty.project(),
                empty.qualified_type(),
                empty.type_(),
                empty.name()
            ],
            [""; 5]
        );
    }

    #[test]
    fn distinct_keeps_the_first_mention_of_each_in_short_and_long_lists() {
        let u = |i: usize| Urn::parse(&format!("urn:pulumi:s::p::t::r{i}")).unwrap();
        assert_eq!(
            *distinct(vec![u(2), u(1), u(2), u(3), u(1)]),
            [u(2), u(1), u(3)]
        );
        let long: Vec<Urn> = (0..40).chain(0..40).chain([7, 39]).map(u).collect();
        assert_eq!(*distinct(long), (0..40).map(u).collect::<Vec<_>>());
        // Sixteen mentions are scanned, seventeen go through a set.
        for (first, again) in [(12, [3, 12, 12, 0]), (13, [3, 13, 13, 0])] {
            let mentions: Vec<Urn> = (0..first).chain(again).map(u).collect();
            assert_eq!(*distinct(mentions), (0..=first).map(u).collect::<Vec<_>>());
        }
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
