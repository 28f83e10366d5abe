//! URN globs for `--target` and `--replace`: `*` matches within a `::` segment, `**` anything.
//! Matching runs the glob as an automaton, so its cost is the glob's length times the URN's
//! whatever the number of stars.

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

/// One glob, split into tokens once so that matching many URNs does not re-parse it.
#[derive(Clone, Debug)]
pub struct UrnGlob {
    tokens: Vec<Token>,
}

/// One element of a glob: `**` (anything), `*` (anything within a `::` segment) or a byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Token {
    AnyDeep,
    AnyInSegment,
    Byte(u8),
}

impl Token {
    fn is_star(self) -> bool {
        !matches!(self, Token::Byte(_))
    }
}

impl UrnGlob {
    pub fn new(glob: &str) -> UrnGlob {
        let mut tokens = Vec::with_capacity(glob.len());
        let mut bytes = glob.bytes().peekable();
        while let Some(c) = bytes.next() {
            tokens.push(match c {
                b'*' if bytes.next_if_eq(&b'*').is_some() => Token::AnyDeep,
                b'*' => Token::AnyInSegment,
                c => Token::Byte(c),
            });
        }
        UrnGlob { tokens }
    }

    /// Whether the whole of `urn` matches: the set of glob positions reachable after each
    /// byte is carried forward, so no choice of a star is ever retried.
    pub fn matches(&self, urn: &str) -> bool {
        let tokens = &self.tokens;
        let s = urn.as_bytes();
        let mut live = vec![false; tokens.len() + 1];
        let mut next = vec![false; tokens.len() + 1];
        live[0] = true;
        skip_stars(tokens, &mut live);
        for (i, &c) in s.iter().enumerate() {
            // A single star never consumes the first `:` of a `::` separator.
            let separator = c == b':' && s.get(i + 1) == Some(&b':');
            next.fill(false);
            for (k, &t) in tokens.iter().enumerate() {
                if !live[k] {
                    continue;
                }
                match t {
                    Token::AnyDeep => next[k] = true,
                    Token::AnyInSegment => next[k] |= !separator,
                    Token::Byte(b) => next[k + 1] |= b == c,
                }
            }
            skip_stars(tokens, &mut next);
            std::mem::swap(&mut live, &mut next);
            if !live.contains(&true) {
                return false;
            }
        }
        live[tokens.len()]
    }
}

/// Adds the positions reached by letting stars match nothing.
fn skip_stars(tokens: &[Token], set: &mut [bool]) {
    for (k, t) in tokens.iter().enumerate() {
        if set[k] && t.is_star() {
            set[k + 1] = true;
        }
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
