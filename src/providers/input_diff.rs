//! Input comparison shared by the built-in providers: which top-level inputs changed once the
//! `ignoreChanges` paths are set aside, and how that becomes a [`DiffResult`].

use crate::engine::provider::{DiffChanges, DiffKind, DiffResult, PropertyDiff};
use crate::engine::{PropertyMap, PropertyValue};

/// One step of an `ignoreChanges` path: `a.b[0]["c d"]`.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Key(String),
    Index(usize),
    Wildcard,
}

/// Parses a property path; `None` for a path we cannot read (it then ignores nothing).
fn parse_path(path: &str) -> Option<Vec<Segment>> {
    let mut segs = Vec::new();
    let mut rest = path;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('[') {
            let end = r.find(']')?;
            let inner = &r[..end];
            segs.push(if inner == "*" {
                Segment::Wildcard
            } else if let Some(key) = inner.strip_prefix('"').and_then(|k| k.strip_suffix('"')) {
                Segment::Key(key.to_string())
            } else {
                Segment::Index(inner.parse().ok()?)
            });
            rest = &r[end + 1..];
        } else {
            let r = rest.strip_prefix('.').unwrap_or(rest);
            let end = r.find(['.', '[']).unwrap_or(r.len());
            let key = &r[..end];
            if key.is_empty() {
                return None;
            }
            segs.push(if key == "*" {
                Segment::Wildcard
            } else {
                Segment::Key(key.to_string())
            });
            rest = &r[end..];
        }
    }
    (!segs.is_empty()).then_some(segs)
}

fn child<'a>(v: &'a PropertyValue, seg: &Segment) -> Option<&'a PropertyValue> {
    match (v, seg) {
        (PropertyValue::Secret(inner), _) => child(inner, seg),
        (PropertyValue::Object(m), Segment::Key(k)) => m.get(k),
        (PropertyValue::Array(a), Segment::Index(i)) => a.get(*i),
        _ => None,
    }
}

/// Copies the old value at `segs` (below the top-level key) into `new`, so that the ignored
/// part compares equal. A wildcard ignores the whole subtree where it stands.
fn reset_path(new: &mut PropertyValue, old: Option<&PropertyValue>, segs: &[Segment]) {
    let Some((first, rest)) = segs.split_first() else {
        if let Some(old) = old {
            *new = old.clone();
        }
        return;
    };
    if *first == Segment::Wildcard {
        if let Some(old) = old {
            *new = old.clone();
        }
        return;
    }
    let old_child = old.and_then(|o| child(o, first));
    match (new, first) {
        (PropertyValue::Secret(inner), _) => reset_path(inner, old, segs),
        (PropertyValue::Object(m), Segment::Key(k)) => match (m.get_mut(k), old_child) {
            (Some(n), _) => reset_path(n, old_child, rest),
            (None, Some(o)) if rest.is_empty() => {
                m.insert(k.clone(), o.clone());
            }
            _ => {}
        },
        (PropertyValue::Array(a), Segment::Index(i)) => {
            if let Some(n) = a.get_mut(*i) {
                reset_path(n, old_child, rest);
            }
        }
        _ => {}
    }
}

/// The new inputs with every ignored path reset to its old value.
fn apply_ignores(old: &PropertyMap, new: &PropertyMap, ignore: &[String]) -> PropertyMap {
    let mut out = new.clone();
    for path in ignore {
        let Some(segs) = parse_path(path) else {
            continue;
        };
        match &segs[0] {
            Segment::Wildcard => return old.clone(),
            Segment::Key(k) if segs.len() == 1 => match old.get(k) {
                Some(o) => {
                    out.insert(k.clone(), o.clone());
                }
                None => {
                    out.remove(k);
                }
            },
            Segment::Key(k) => {
                if let Some(n) = out.get_mut(k) {
                    reset_path(n, old.get(k), &segs[1..]);
                }
            }
            Segment::Index(_) => {}
        }
    }
    out
}

/// The top-level keys whose value differs between old and new inputs, with how they changed.
/// A value that became unknown counts as changed; secrecy alone does not.
pub(crate) fn changed_inputs(
    old: &PropertyMap,
    new: &PropertyMap,
    ignore: &[String],
) -> Vec<(String, DiffKind)> {
    let new = apply_ignores(old, new, ignore);
    let mut changes = Vec::new();
    for (k, o) in old {
        match new.get(k) {
            None if !matches!(o, PropertyValue::Null) => {
                changes.push((k.clone(), DiffKind::Delete))
            }
            Some(n) if n.contains_unknowns() || n.reveal() != o.reveal() => {
                changes.push((k.clone(), DiffKind::Update))
            }
            _ => {}
        }
    }
    for (k, n) in &new {
        if !old.contains_key(k) && !matches!(n, PropertyValue::Null) {
            changes.push((k.clone(), DiffKind::Add));
        }
    }
    changes.sort_by(|a, b| a.0.cmp(&b.0));
    changes
}

/// Builds the provider's answer from the changed keys: `replaces` says which keys force a
/// replacement, `delete_before_replace` applies only when something does.
pub(crate) fn diff_result(
    changes: Vec<(String, DiffKind)>,
    replaces: impl Fn(&str) -> bool,
    delete_before_replace: bool,
    stables: Vec<String>,
) -> DiffResult {
    if changes.is_empty() {
        return DiffResult::none();
    }
    let mut result = DiffResult {
        changes: DiffChanges::Some,
        stables,
        ..DiffResult::default()
    };
    for (key, kind) in changes {
        let kind = if replaces(&key) {
            result.replace_keys.push(key.clone());
            kind.to_replace()
        } else {
            kind
        };
        result.detailed_diff.insert(
            key.clone(),
            PropertyDiff {
                kind,
                input_diff: true,
            },
        );
        result.changed_keys.push(key);
    }
    result.delete_before_replace = delete_before_replace && result.replaces();
    if result.replaces() {
        result.stables.clear();
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::property::props;

    fn obj(pairs: &[(&str, PropertyValue)]) -> PropertyValue {
        PropertyValue::Object(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    }

    #[test]
    fn reports_adds_deletes_updates_and_unknowns() {
        let old = props([("a", "1"), ("b", "2"), ("c", "3")]);
        let mut new = props([("a", "1"), ("b", "changed"), ("d", "4")]);
        new.insert("c".into(), PropertyValue::Unknown);
        let got = changed_inputs(&old, &new, &[]);
        assert_eq!(
            got,
            vec![
                ("b".to_string(), DiffKind::Update),
                ("c".to_string(), DiffKind::Update),
                ("d".to_string(), DiffKind::Add),
            ]
        );
        let old = props([("gone", "x")]);
        assert_eq!(
            changed_inputs(&old, &PropertyMap::new(), &[]),
            vec![("gone".to_string(), DiffKind::Delete)]
        );
    }

    #[test]
    fn ignore_changes_paths_hide_top_level_and_nested_changes() {
        let mut old = props([("name", "a")]);
        old.insert(
            "tags".into(),
            obj(&[("env", "dev".into()), ("team", "x".into())]),
        );
        let mut new = props([("name", "b")]);
        new.insert(
            "tags".into(),
            obj(&[("env", "prod".into()), ("team", "x".into())]),
        );
        assert_eq!(
            changed_inputs(&old, &new, &["name".into(), "tags.env".into()]),
            vec![]
        );
        assert_eq!(
            changed_inputs(&old, &new, &["tags[\"env\"]".into()]),
            vec![("name".to_string(), DiffKind::Update)]
        );
        assert_eq!(changed_inputs(&old, &new, &["*".into()]), vec![]);
        new.insert("list".into(), PropertyValue::Array(vec!["x".into()]));
        old.insert("list".into(), PropertyValue::Array(vec!["y".into()]));
        assert_eq!(
            changed_inputs(
                &old,
                &new,
                &["name".into(), "tags".into(), "list[0]".into()]
            ),
            vec![]
        );
    }

    #[test]
    fn secrecy_alone_is_not_a_change() {
        let old = props([("p", PropertyValue::Secret(Box::new("x".into())))]);
        let new = props([("p", "x")]);
        assert!(changed_inputs(&old, &new, &[]).is_empty());
    }

    #[test]
    fn result_marks_replacements_and_dbr() {
        let changes = vec![
            ("cidr".to_string(), DiffKind::Update),
            ("tags".to_string(), DiffKind::Add),
        ];
        let r = diff_result(changes.clone(), |k| k == "cidr", true, vec!["id".into()]);
        assert_eq!(r.changes, DiffChanges::Some);
        assert_eq!(r.replace_keys, vec!["cidr"]);
        assert_eq!(r.detailed_diff["cidr"].kind, DiffKind::UpdateReplace);
        assert_eq!(r.detailed_diff["tags"].kind, DiffKind::Add);
        assert!(r.delete_before_replace);
        assert!(r.stables.is_empty());
        let r = diff_result(changes, |_| false, true, vec!["id".into()]);
        assert!(!r.delete_before_replace);
        assert_eq!(r.stables, vec!["id"]);
        assert_eq!(
            diff_result(vec![], |_| true, true, vec![]).changes,
            DiffChanges::None
        );
    }
}
