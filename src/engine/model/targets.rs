//! URN globs for `--target` and `--replace`: `*` matches within a `::` segment, `**` anything
//! (the `urn` dialect of [`Glob`]).

use super::glob::Glob;
use super::urn::Urn;

/// A set of URN globs; empty means "everything".
#[derive(Clone, Debug, Default)]
pub struct UrnGlobs(Vec<UrnGlob>);

impl UrnGlobs {
    pub fn new(globs: &[String]) -> UrnGlobs {
        UrnGlobs(globs.iter().map(|g| UrnGlob::new(g)).collect())
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn matches(&self, urn: &Urn) -> bool {
        self.0.iter().any(|g| g.matches(urn.as_str()))
    }
}

/// One glob, compiled once so that matching many URNs does not re-read it.
#[derive(Clone, Debug)]
pub struct UrnGlob(Glob);

impl UrnGlob {
    pub fn new(glob: &str) -> UrnGlob {
        UrnGlob(Glob::urn(glob))
    }

    /// Whether the whole of `urn` matches.
    pub fn matches(&self, urn: &str) -> bool {
        self.0.matches(urn)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_star_stays_in_a_segment() {
        let u = Urn::parse("urn:pulumi:dev::p::sim:index:Server::web-1").unwrap();
        assert!(UrnGlobs::new(&["urn:pulumi:dev::p::sim:index:Server::web-*".into()]).matches(&u));
        assert!(!UrnGlobs::new(&["urn:pulumi:dev::*::web-1".into()]).matches(&u));
        assert!(UrnGlobs::new(&["**web-1".into()]).matches(&u));
        assert!(!UrnGlobs::new(&[]).matches(&u));
    }

    #[test]
    fn many_stars_over_a_long_urn_match_correctly() {
        let name = "a".repeat(400);
        let urn = format!("urn:pulumi:dev::p::sim:index:Server::{name}b");
        let stars = "*a".repeat(40);
        let hit = UrnGlob::new(&format!("urn:pulumi:dev::p::sim:index:Server::{stars}*b"));
        let miss = UrnGlob::new(&format!("urn:pulumi:dev::p::sim:index:Server::{stars}*c"));
        assert!(hit.matches(&urn));
        assert!(!miss.matches(&urn));
        let deep = UrnGlob::new(&format!("**{}**b", "*".repeat(13)));
        assert!(deep.matches(&urn));
        assert!(!UrnGlob::new(&format!("**{}**c", "*".repeat(13))).matches(&urn));
        // Single stars cannot cross the `::` separators, however many there are.
        let segments = UrnGlob::new(&format!("urn:pulumi:{}::b", "*".repeat(13)));
        assert!(!segments.matches(&urn));
        assert!(UrnGlob::new("urn:pulumi:*::*::*::*b").matches(&urn));
    }
}
