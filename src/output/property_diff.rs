//! The property lines `--diff` adds under a changed resource, in Pulumi's notation:
//! `+ key: value` added, `- key: value` removed, `~ key: old => new` changed.

use crate::engine::events::StepInfo;
use crate::engine::property::{PropertyMap, PropertyValue};
use crate::engine::property_path::{PathElem, PropertyPath};
use crate::engine::provider::DiffKind;

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

fn old_value<'a>(info: &'a StepInfo, path: &str) -> Option<&'a PropertyValue> {
    info.old_inputs
        .as_ref()
        .and_then(|m| lookup(m, path))
        .or_else(|| info.old_outputs.as_ref().and_then(|m| lookup(m, path)))
}

/// One line per changed property (the provider's detailed diff, else the changed keys),
/// each indented by `indent`.
pub fn lines(info: &StepInfo, indent: &str) -> Vec<String> {
    let paths: Vec<(String, Option<DiffKind>)> = if info.detailed_diff.is_empty() {
        info.diffs.iter().map(|k| (k.clone(), None)).collect()
    } else {
        info.detailed_diff
            .iter()
            .map(|(k, d)| (k.clone(), Some(d.kind)))
            .collect()
    };
    let new = info.new_inputs.as_ref();
    paths
        .into_iter()
        .map(|(path, kind)| {
            let old = old_value(info, &path);
            let new = new.and_then(|m| lookup(m, &path));
            let kind = kind.unwrap_or(match (old, new) {
                (None, _) => DiffKind::Add,
                (_, None) => DiffKind::Delete,
                _ => DiffKind::Update,
            });
            let shown = |v: Option<&PropertyValue>| v.map_or("null".to_string(), |v| v.to_string());
            match kind {
                DiffKind::Add | DiffKind::AddReplace => {
                    format!("{indent}+ {path}: {}", shown(new))
                }
                DiffKind::Delete | DiffKind::DeleteReplace => {
                    format!("{indent}- {path}: {}", shown(old))
                }
                DiffKind::Update | DiffKind::UpdateReplace => {
                    format!("{indent}~ {path}: {} => {}", shown(old), shown(new))
                }
            }
        })
        .collect()
}
