//! Engine-side diffing: comparing inputs when a provider cannot (components, unknown diffs), and
//! turning replaceOnChanges paths into replace keys.

use std::collections::BTreeSet;

use crate::engine::model::property::PropertyMap;
use crate::engine::model::property_path::PropertyPath;
use crate::engine::provider::{DiffChanges, DiffKind, DiffResult, PropertyDiff};

/// Compares inputs key by key; an unknown new value counts as a change.
pub fn diff_inputs(olds: &PropertyMap, news: &PropertyMap) -> DiffResult {
    let keys: BTreeSet<&String> = olds.keys().chain(news.keys()).collect();
    let mut result = DiffResult::none();
    for k in keys {
        let kind = match (olds.get(k), news.get(k)) {
            (Some(o), Some(n)) if o == n => continue,
            (Some(_), Some(_)) => DiffKind::Update,
            (None, Some(_)) => DiffKind::Add,
            (Some(_), None) => DiffKind::Delete,
            (None, None) => continue,
        };
        result.changed_keys.push(k.clone());
        result.detailed_diff.insert(
            k.clone(),
            PropertyDiff {
                kind,
                input_diff: true,
            },
        );
    }
    if !result.changed_keys.is_empty() {
        result.changes = DiffChanges::Some;
    }
    result
}

/// Marks every changed key or detailed-diff path covered by a replaceOnChanges path as a
/// replacement (`*` covers everything).
pub(in crate::engine) fn apply_replace_on_changes(
    mut diff: DiffResult,
    replace_on_changes: &[PropertyPath],
) -> DiffResult {
    if replace_on_changes.is_empty() || diff.changes != DiffChanges::Some {
        return diff;
    }
    let mut replace: BTreeSet<String> = diff.replace_keys.iter().cloned().collect();
    let changed: Vec<String> = diff
        .changed_keys
        .iter()
        .chain(diff.detailed_diff.keys())
        .cloned()
        .collect();
    for key in changed {
        let Ok(path) = PropertyPath::parse(&key) else {
            continue;
        };
        if replace_on_changes.iter().any(|r| r.contains(&path)) {
            let top = match path.0.first() {
                Some(crate::engine::model::property_path::PathElem::Key(k)) => k.clone(),
                _ => key.clone(),
            };
            replace.insert(top);
            if let Some(d) = diff.detailed_diff.get_mut(&key) {
                d.kind = d.kind.to_replace();
            }
        }
    }
    diff.replace_keys = replace.into_iter().collect();
    diff
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::property::{PropertyValue, props};

    #[test]
    fn input_diff_reports_adds_deletes_updates_and_unknowns() {
        let olds = props([("a", "1"), ("b", "2"), ("c", "3")]);
        let mut news = props([("a", "1"), ("b", "x"), ("d", "4")]);
        news.insert("c".into(), PropertyValue::Unknown);
        let d = diff_inputs(&olds, &news);
        assert_eq!(d.changes, DiffChanges::Some);
        assert_eq!(d.changed_keys, vec!["b", "c", "d"]);
        assert_eq!(d.detailed_diff["d"].kind, DiffKind::Add);
        assert_eq!(diff_inputs(&olds, &olds).changes, DiffChanges::None);
    }

    #[test]
    fn replace_on_changes_promotes_covered_keys() {
        let d = diff_inputs(
            &props([("a", "1"), ("b", "1")]),
            &props([("a", "2"), ("b", "2")]),
        );
        let d = apply_replace_on_changes(d, &[PropertyPath::parse("a").unwrap()]);
        assert_eq!(d.replace_keys, vec!["a"]);
        assert_eq!(d.detailed_diff["a"].kind, DiffKind::UpdateReplace);
        assert_eq!(d.detailed_diff["b"].kind, DiffKind::Update);
        let all = apply_replace_on_changes(
            diff_inputs(&props([("a", "1")]), &props([("a", "2")])),
            &[PropertyPath::parse("*").unwrap()],
        );
        assert_eq!(all.replace_keys, vec!["a"]);
    }
}
