//! The `:` prompt that jumps to a resource by name, as k9s's command prompt does: what the
//! operator typed, the resources it matches (best first), and the one chosen among them.

use super::model::Model;

/// The jump prompt while it is open.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Jump {
    /// What the operator typed.
    pub text: String,
    /// Which of the matches Tab or the arrows chose (0: the best).
    pub choice: usize,
}

/// How well a resource matches, best first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Rank {
    NamePrefix,
    InName,
    InUrn,
    /// The text's characters appear in the name in order (`sb` for `subnet-b`).
    Fuzzy,
}

fn in_order(needle: &str, hay: &str) -> bool {
    let mut hay = hay.chars();
    needle.chars().all(|c| hay.any(|h| h == c))
}

fn rank(text: &str, name: &str, urn: &str) -> Option<Rank> {
    if name.starts_with(text) {
        Some(Rank::NamePrefix)
    } else if name.contains(text) {
        Some(Rank::InName)
    } else if urn.contains(text) {
        Some(Rank::InUrn)
    } else if in_order(text, name) {
        Some(Rank::Fuzzy)
    } else {
        None
    }
}

impl Jump {
    /// The resources the text matches (case aside), best first: name prefixes, then names
    /// and URNs that contain it, then names holding its characters in order; shorter names
    /// first within a rank.
    pub fn matches(&self, model: &Model) -> Vec<usize> {
        let text = self.text.to_lowercase();
        let mut ranked: Vec<(Rank, usize, usize)> = model
            .resources()
            .iter()
            .enumerate()
            .filter_map(|(i, r)| {
                let name = r.name().to_lowercase();
                let urn = r.urn.as_str().to_lowercase();
                rank(&text, &name, &urn).map(|k| (k, name.chars().count(), i))
            })
            .collect();
        ranked.sort();
        ranked.into_iter().map(|(_, _, i)| i).collect()
    }

    /// The chosen resource, if the text matches any.
    pub fn chosen(&self, model: &Model) -> Option<usize> {
        let matches = self.matches(model);
        matches
            .get(self.choice.min(matches.len().saturating_sub(1)))
            .copied()
    }

    /// The choice moved by `delta` among `count` matches, wrapping around.
    pub fn cycle(&mut self, delta: isize, count: usize) {
        if count > 0 {
            let at = self.choice.min(count - 1) as isize + delta;
            self.choice = at.rem_euclid(count as isize) as usize;
        }
    }

    /// The text changed: the best match is chosen again.
    pub fn edit(&mut self, change: impl FnOnce(&mut String)) {
        change(&mut self.text);
        self.choice = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefix_beats_a_substring_which_beats_letters_in_order() {
        assert_eq!(rank("sub", "subnet-a", "urn"), Some(Rank::NamePrefix));
        assert_eq!(rank("net", "subnet-a", "urn"), Some(Rank::InName));
        assert_eq!(
            rank(
                "bucket",
                "old-logs",
                "urn:pulumi:dev::p::sim:index:bucket::old-logs"
            ),
            Some(Rank::InUrn)
        );
        assert_eq!(rank("sna", "subnet-a", "urn"), Some(Rank::Fuzzy));
        assert_eq!(rank("zz", "subnet-a", "urn"), None);
        assert!(Rank::NamePrefix < Rank::InName && Rank::InUrn < Rank::Fuzzy);
    }

    #[test]
    fn the_choice_wraps_around_the_matches() {
        let mut j = Jump::default();
        j.cycle(-1, 3);
        assert_eq!(j.choice, 2);
        j.cycle(1, 3);
        assert_eq!(j.choice, 0);
        j.cycle(1, 0);
        assert_eq!(j.choice, 0);
        j.choice = 2;
        j.edit(|t| t.push('a'));
        assert_eq!((j.text.as_str(), j.choice), ("a", 0));
    }
}
