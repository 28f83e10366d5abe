//! Pulumi's `hideDiffs` resource option: property paths whose changes every display compacts
//! to one `~ <path> (hidden)` line (the paths still diff, deploy and record as usual).

use super::property_path::PropertyPath;

/// A resource's `hideDiffs` paths, parsed once for the displays that consult them.
#[derive(Clone, Debug, Default)]
pub struct HiddenDiffs(Vec<PropertyPath>);

impl HiddenDiffs {
    /// The paths of a step's `hide_diffs`; registration already refused any that do not parse.
    pub fn new(paths: &[String]) -> HiddenDiffs {
        HiddenDiffs(
            paths
                .iter()
                .filter_map(|p| PropertyPath::parse(p).ok())
                .collect(),
        )
    }

    /// The hidden path (as Pulumi prints it) that covers the diff path `path` (`tags.env`,
    /// `list[0]`; a path that does not parse is one top-level key), if any.
    pub fn covering(&self, path: &str) -> Option<String> {
        if self.0.is_empty() {
            return None;
        }
        let path = parsed(path);
        self.0
            .iter()
            .find(|h| h.contains(&path))
            .map(ToString::to_string)
    }

    /// Whether a hidden path lies strictly inside `path`: a change reported for all of `path`
    /// must then be told part by part, or it would show what is hidden.
    pub fn inside(&self, path: &str) -> bool {
        let path = parsed(path);
        self.0
            .iter()
            .any(|h| h.0.len() > path.0.len() && path.contains(h))
    }
}

fn parsed(path: &str) -> PropertyPath {
    PropertyPath::parse(path).unwrap_or_else(|_| {
        PropertyPath(vec![super::property_path::PathElem::Key(path.to_string())])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hidden_path_covers_itself_and_what_is_below_it() {
        let h = HiddenDiffs::new(&["tags".into(), "list[*].name".into()]);
        assert_eq!(h.covering("tags").as_deref(), Some("tags"));
        assert_eq!(h.covering("tags.env").as_deref(), Some("tags"));
        assert_eq!(h.covering("list[2].name").as_deref(), Some("list[*].name"));
        assert_eq!(h.covering("list[2].size"), None);
        assert_eq!(h.covering("tagsx"), None);
        assert_eq!(HiddenDiffs::default().covering("tags"), None);
        assert!(h.inside("list") && !h.inside("tags") && !h.inside("size"));
    }
}
