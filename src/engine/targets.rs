//! URN globs for `--target` and `--replace`: `*` matches within a `::` segment, `**` anything.

use super::urn::Urn;

/// A set of URN globs; empty means "everything".
#[derive(Clone, Debug, Default)]
pub struct UrnGlobs(Vec<String>);

impl UrnGlobs {
    pub fn new(globs: &[String]) -> UrnGlobs {
        UrnGlobs(globs.to_vec())
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn matches(&self, urn: &Urn) -> bool {
        self.0
            .iter()
            .any(|g| glob_match(g.as_bytes(), urn.as_str().as_bytes()))
    }

    pub fn globs(&self) -> &[String] {
        &self.0
    }
}

fn glob_match(p: &[u8], s: &[u8]) -> bool {
    match p {
        [] => s.is_empty(),
        [b'*', b'*', rest @ ..] => (0..=s.len()).any(|i| glob_match(rest, &s[i..])),
        [b'*', rest @ ..] => {
            let mut i = 0;
            loop {
                if glob_match(rest, &s[i..]) {
                    return true;
                }
                if i >= s.len() || s[i..].starts_with(b"::") {
                    return false;
                }
                i += 1;
            }
        }
        [c, rest @ ..] => s.first() == Some(c) && glob_match(rest, &s[1..]),
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
}
