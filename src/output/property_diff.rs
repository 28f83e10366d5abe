//! The property lines `--diff` adds under a changed resource, in Pulumi's notation:
//! `+ key: value` added, `- key: value` removed, `~ key: old => new` changed.

use std::collections::BTreeSet;

use crate::engine::model::hidden_diffs::HiddenDiffs;
use crate::engine::model::property_path::{PathElem, PropertyPath};
use crate::engine::provider::DiffKind;
use crate::engine::run::events::StepInfo;
use crate::engine::{PropertyMap, PropertyValue, StepOp};

use super::value_text::{asset_change, value_line};

/// The value at a diff path (`a.b[0]`); a path that does not parse names a top-level key.
fn lookup<'a>(map: &'a PropertyMap, path: &str) -> Option<&'a PropertyValue> {
    let Ok(PropertyPath(elems)) = PropertyPath::parse(path) else {
        return map.get(path);
    };
    let (first, rest) = elems.split_first()?;
    let PathElem::Key(k) = first else {
        return None;
    };
    let mut v = map.get(k)?;
    for e in rest {
        v = match (e, v) {
            (PathElem::Key(k), PropertyValue::Object(m)) => m.get(k)?,
            (PathElem::Index(i), PropertyValue::Array(a)) => a.get(*i)?,
            _ => return None,
        };
    }
    Some(v)
}

/// The paths below `path` whose values differ between `old` and `new`: objects on both sides
/// are compared key by key, anything else as a whole.
fn changed_parts(
    old: Option<&PropertyValue>,
    new: Option<&PropertyValue>,
    path: &str,
    out: &mut Vec<String>,
) {
    match (old, new) {
        (Some(PropertyValue::Object(a)), Some(PropertyValue::Object(b))) => {
            let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            for k in keys {
                let mut sub = PropertyPath::parse(path)
                    .unwrap_or_else(|_| PropertyPath(vec![PathElem::Key(path.to_string())]));
                sub.0.push(PathElem::Key(k.clone()));
                changed_parts(a.get(k), b.get(k), &sub.to_string(), out);
            }
        }
        (a, b) if a != b => out.push(path.to_string()),
        _ => {}
    }
}

fn old_value<'a>(info: &'a StepInfo, path: &str) -> Option<&'a PropertyValue> {
    info.old_inputs
        .as_ref()
        .and_then(|m| lookup(m, path))
        .or_else(|| info.old_outputs.as_ref().and_then(|m| lookup(m, path)))
}

/// One line per changed property (the provider's detailed diff, else the changed keys),
/// each indented by `indent`; a create lists every input it sets, a delete every one it drops.
/// Changes under a `hideDiffs` path are one `~ <path> (hidden)` line each, listed first, as
/// Pulumi's display prints them.
pub fn lines(info: &StepInfo, indent: &str) -> Vec<String> {
    let listed = match info.op {
        StepOp::Create => info.new_inputs.as_ref().map(|m| ('+', m)),
        StepOp::Delete => info.old_inputs.as_ref().map(|m| ('-', m)),
        _ => None,
    };
    if let Some((sign, inputs)) = listed {
        return inputs
            .iter()
            .map(|(k, v)| format!("{indent}{sign} {k}: {}", value_line(v)))
            .collect();
    }
    let paths: Vec<(String, Option<DiffKind>)> = if info.detailed_diff.is_empty() {
        info.diffs.iter().map(|k| (k.clone(), None)).collect()
    } else {
        info.detailed_diff
            .iter()
            .map(|(k, d)| (k.clone(), Some(d.kind)))
            .collect()
    };
    let new = info.new_inputs.as_ref();
    let hide = HiddenDiffs::new(&info.hide_diffs);
    let paths: Vec<(String, Option<DiffKind>)> = paths
        .into_iter()
        .flat_map(|(path, kind)| {
            if !hide.inside(&path) {
                return vec![(path, kind)];
            }
            let mut parts = Vec::new();
            changed_parts(
                old_value(info, &path),
                new.and_then(|m| lookup(m, &path)),
                &path,
                &mut parts,
            );
            parts.into_iter().map(|p| (p, None)).collect()
        })
        .collect();
    let mut hidden = BTreeSet::new();
    let shown: Vec<String> = paths
        .into_iter()
        .filter(|(path, _)| match hide.covering(path) {
            Some(h) => {
                hidden.insert(h);
                false
            }
            None => true,
        })
        .map(|(path, kind)| {
            let old = old_value(info, &path);
            let new = new.and_then(|m| lookup(m, &path));
            let kind = kind.unwrap_or(match (old, new) {
                (None, _) => DiffKind::Add,
                (_, None) => DiffKind::Delete,
                _ => DiffKind::Update,
            });
            let shown = |v: Option<&PropertyValue>| v.map_or("null".to_string(), value_line);
            match kind {
                DiffKind::Add | DiffKind::AddReplace => {
                    format!("{indent}+ {path}: {}", shown(new))
                }
                DiffKind::Delete | DiffKind::DeleteReplace => {
                    format!("{indent}- {path}: {}", shown(old))
                }
                DiffKind::Update | DiffKind::UpdateReplace => {
                    let change = old
                        .zip(new)
                        .and_then(|(a, b)| asset_change(a, b))
                        .unwrap_or_else(|| format!("{} => {}", shown(old), shown(new)));
                    format!("{indent}~ {path}: {change}")
                }
            }
        })
        .collect();
    hidden
        .into_iter()
        .map(|h| format!("{indent}~ {h} (hidden)"))
        .chain(shown)
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::engine::Urn;
    use crate::engine::provider::PropertyDiff;

    fn props(v: serde_json::Value) -> PropertyMap {
        v.as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), PropertyValue::from_json(v).unwrap()))
            .collect()
    }

    fn info(old: PropertyMap, new: PropertyMap, detailed: &[(&str, DiffKind)]) -> StepInfo {
        StepInfo {
            op: StepOp::Update,
            urn: Urn::new("dev", "p", None, "sim:index:Resource", "r"),
            type_: "sim:index:Resource".into(),
            parent: None,
            custom: true,
            chain: None,
            diffs: vec!["tags".into()],
            replace_keys: Vec::new(),
            detailed_diff: detailed
                .iter()
                .map(|(k, kind)| {
                    let d = PropertyDiff {
                        kind: *kind,
                        input_diff: true,
                    };
                    (k.to_string(), d)
                })
                .collect::<BTreeMap<_, _>>(),
            old_inputs: Some(old),
            old_outputs: None,
            old_id: None,
            new_inputs: Some(new),
            provider: None,
            delete_before_replace: false,
            dependencies: Default::default(),
            protect: false,
            retain_on_delete: false,
            hide_diffs: Vec::new(),
        }
    }

    #[test]
    fn nested_paths_show_their_own_values() {
        let old = props(serde_json::json!({"tags": {"env": "dev", "gone": 1}, "list": [1, 2]}));
        let new = props(serde_json::json!({"tags": {"env": "prod", "team": "x"}, "list": [1, 3]}));
        let i = info(
            old,
            new,
            &[
                ("tags.env", DiffKind::Update),
                ("tags.team", DiffKind::Add),
                ("tags.gone", DiffKind::DeleteReplace),
                ("list[1]", DiffKind::Update),
            ],
        );
        assert_eq!(
            lines(&i, "  "),
            [
                "  ~ list[1]: 2 => 3",
                "  ~ tags.env: \"dev\" => \"prod\"",
                "  - tags.gone: 1",
                "  + tags.team: \"x\"",
            ]
        );
    }

    #[test]
    fn creates_and_deletes_list_their_inputs() {
        let mut i = info(
            PropertyMap::new(),
            props(serde_json::json!({"a": 1, "b": "x"})),
            &[],
        );
        i.op = StepOp::Create;
        assert_eq!(lines(&i, ""), ["+ a: 1", "+ b: \"x\""]);
        i.op = StepOp::Delete;
        i.old_inputs = Some(props(serde_json::json!({"c": true})));
        assert_eq!(lines(&i, ""), ["- c: true"]);
    }

    #[test]
    fn changes_under_hidden_paths_are_one_line_each_listed_first() {
        let old = props(serde_json::json!({"tags": {"a": 1, "b": 2}, "size": 1, "name": "x"}));
        let new = props(serde_json::json!({"tags": {"a": 3, "b": 4}, "size": 2, "name": "y"}));
        let mut i = info(
            old,
            new,
            &[
                ("tags.a", DiffKind::Update),
                ("tags.b", DiffKind::Update),
                ("size", DiffKind::Update),
                ("name", DiffKind::Update),
            ],
        );
        i.hide_diffs = vec!["tags".into(), "size".into(), "unchanged".into()];
        assert_eq!(
            lines(&i, "  "),
            [
                "  ~ size (hidden)",
                "  ~ tags (hidden)",
                "  ~ name: \"x\" => \"y\"",
            ]
        );
    }

    #[test]
    fn a_hidden_path_inside_a_changed_key_is_hidden_and_the_rest_shown() {
        let old = props(serde_json::json!({"tags": {"owner": "ann", "team": "a"}}));
        let new = props(serde_json::json!({"tags": {"owner": "bob", "team": "b"}}));
        let mut i = info(old, new, &[]);
        i.hide_diffs = vec!["tags.owner".into()];
        assert_eq!(
            lines(&i, ""),
            ["~ tags.owner (hidden)", "~ tags.team: \"a\" => \"b\""]
        );
    }

    #[test]
    fn without_a_detailed_diff_the_changed_keys_are_compared() {
        let old = props(serde_json::json!({"tags": "a"}));
        let new = props(serde_json::json!({"tags": "b"}));
        assert_eq!(lines(&info(old, new, &[]), ""), ["~ tags: \"a\" => \"b\""]);
    }
}
