//! Property values on one line as Pulumi's display prints them: an asset or archive by its
//! kind, short hash and source (`asset(file:1a2b3c4) { index.html }`), never as the wire
//! object with its signature key; other values as compact JSON.

use serde_json::{Map, Value};

use crate::engine::PropertyValue;

/// How many characters of a text asset's first line are shown.
const TEXT_CHARS: usize = 40;
/// How many members of an archive of assets are shown before the count of the rest.
const MEMBERS: usize = 3;

/// The first seven characters of a hash, as Pulumi's `shortHash`.
fn short_hash(m: &Map<String, Value>) -> &str {
    let hash = m.get("hash").and_then(Value::as_str).unwrap_or("");
    hash.get(..7).unwrap_or(hash)
}

fn field<'a>(m: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    m.get(key).and_then(Value::as_str)
}

/// A text asset's text as one line: its first line, cut to [`TEXT_CHARS`], `…` when more
/// follows.
fn text_line(text: &str) -> String {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or("");
    let cut: String = first.chars().take(TEXT_CHARS).collect();
    if cut.len() < first.len() || lines.next().is_some() {
        format!("{cut}…")
    } else {
        cut
    }
}

fn asset(m: &Map<String, Value>) -> String {
    let hash = short_hash(m);
    if let Some(text) = field(m, "text") {
        format!("asset(text:{hash}) {{ {} }}", text_line(text))
    } else if let Some(path) = field(m, "path") {
        format!("asset(file:{hash}) {{ {path} }}")
    } else if let Some(uri) = field(m, "uri") {
        format!("asset(uri:{hash}) {{ {uri} }}")
    } else {
        format!("asset(unknown:{hash}) {{ }}")
    }
}

fn archive(m: &Map<String, Value>) -> String {
    let hash = short_hash(m);
    if let Some(Value::Object(members)) = m.get("assets") {
        let mut shown: Vec<String> = members
            .iter()
            .take(MEMBERS)
            .map(|(name, v)| {
                let member = PropertyValue::from_json(v)
                    .ok()
                    .and_then(|v| asset_text(&v))
                    .unwrap_or_else(|| v.to_string());
                format!("{name:?}: {member}")
            })
            .collect();
        if members.len() > MEMBERS {
            shown.push(format!("… {} more", members.len() - MEMBERS));
        }
        format!("archive(assets:{hash}) {{ {} }}", shown.join(", "))
    } else if let Some(path) = field(m, "path") {
        format!("archive(file:{hash}) {{ {path} }}")
    } else if let Some(uri) = field(m, "uri") {
        format!("archive(uri:{hash}) {{ {uri} }}")
    } else {
        format!("archive({hash}) {{ }}")
    }
}

/// An asset or archive as Pulumi prints it; `None` for any other value.
pub fn asset_text(v: &PropertyValue) -> Option<String> {
    match v {
        PropertyValue::Asset(m) => Some(asset(m)),
        PropertyValue::Archive(m) => Some(archive(m)),
        _ => None,
    }
}

/// `old` or `new` when they are the same, else `old->new` (Pulumi's `getTextChangeString`).
fn change(old: &str, new: &str) -> String {
    if old == new {
        old.to_string()
    } else {
        format!("{old}->{new}")
    }
}

/// A changed file or URI asset, or a changed file or URI archive, in one piece as Pulumi
/// prints it (`asset(file:1a2b3c4->5d6e7f8) { index.html }`); `None` when the two are not of
/// the same kind and source (they are then shown as old `=>` new).
pub fn asset_change(old: &PropertyValue, new: &PropertyValue) -> Option<String> {
    let (kind, a, b) = match (old, new) {
        (PropertyValue::Asset(a), PropertyValue::Asset(b)) => ("asset", a, b),
        (PropertyValue::Archive(a), PropertyValue::Archive(b)) => ("archive", a, b),
        _ => return None,
    };
    let (source, from, to) = ["path", "uri"]
        .iter()
        .find_map(|key| Some((*key, field(a, key)?, field(b, key)?)))?;
    let source = if source == "path" { "file" } else { source };
    Some(format!(
        "{kind}({source}:{}) {{ {} }}",
        change(short_hash(a), short_hash(b)),
        change(from, to)
    ))
}

fn holds_asset(v: &PropertyValue) -> bool {
    match v {
        PropertyValue::Asset(_) | PropertyValue::Archive(_) => true,
        PropertyValue::Array(a) => a.iter().any(holds_asset),
        PropertyValue::Object(m) => m.values().any(holds_asset),
        _ => false,
    }
}

fn write_nested(v: &PropertyValue, out: &mut String) {
    match v {
        PropertyValue::Asset(_) | PropertyValue::Archive(_) => {
            out.push_str(&asset_text(v).unwrap_or_default());
        }
        PropertyValue::Array(a) if holds_asset(v) => {
            out.push('[');
            for (i, item) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_nested(item, out);
            }
            out.push(']');
        }
        PropertyValue::Object(m) if holds_asset(v) => {
            out.push('{');
            for (i, (k, item)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                write_nested(item, out);
            }
            out.push('}');
        }
        other => out.push_str(&other.to_display_json().to_string()),
    }
}

/// A value on one line: as its `Display` writes it, except that assets and archives, at any
/// depth, are shown as [`asset_text`] does.
pub fn value_line(v: &PropertyValue) -> String {
    if !holds_asset(v) {
        return v.to_string();
    }
    let mut out = String::new();
    write_nested(v, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::PropertyMap;
    use crate::engine::model::asset::{asset_archive, remote, string_asset};

    #[test]
    fn assets_and_archives_read_as_pulumi_prints_them() {
        assert_eq!(
            value_line(&string_asset("hello")),
            "asset(text:2cf24db) { hello }"
        );
        let long = string_asset("one two three four five six seven eight nine ten\nmore");
        assert_eq!(
            value_line(&long),
            format!(
                "asset(text:{}) {{ one two three four five six seven eight … }}",
                short_hash(match &long {
                    PropertyValue::Asset(m) => m,
                    _ => unreachable!(),
                })
            )
        );
        let dir = tempfile::tempdir().unwrap();
        let web = remote(dir.path(), "https://example.com/a.zip", true).unwrap();
        assert_eq!(
            value_line(&web),
            "archive(uri:) { https://example.com/a.zip }"
        );
        let packed = asset_archive(vec![("a.txt".into(), string_asset("a"))]);
        let text = value_line(&packed);
        assert!(text.starts_with("archive(assets:"), "{text}");
        assert!(
            text.ends_with(r#"{ "a.txt": asset(text:ca97811) { a } }"#),
            "{text}"
        );
        let nested = PropertyValue::Object(PropertyMap::from([
            ("n".to_string(), PropertyValue::Number(1.0)),
            ("page".to_string(), string_asset("hello")),
        ]));
        assert_eq!(
            value_line(&nested),
            r#"{"n":1,"page":asset(text:2cf24db) { hello }}"#
        );
    }

    #[test]
    fn a_changed_file_asset_is_one_piece() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a"), "1").unwrap();
        let old = crate::engine::model::asset::file_asset(dir.path(), "a").unwrap();
        std::fs::write(dir.path().join("a"), "2").unwrap();
        let new = crate::engine::model::asset::file_asset(dir.path(), "a").unwrap();
        assert_eq!(
            asset_change(&old, &new).unwrap(),
            "asset(file:6b86b27->d4735e3) { a }"
        );
        assert_eq!(asset_change(&string_asset("x"), &new), None);
    }
}
