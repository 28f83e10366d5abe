//! The pure built-in functions of Pulumi YAML over evaluated values. Each is "lifted" as Pulumi
//! YAML lifts it: an unknown argument makes the result unknown, a secret argument makes it
//! secret. Misuse is reported against the argument at fault with Pulumi YAML's wording.

use std::path::Path;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use sha1::Sha1;
use sha2::{Digest, Sha256};
use unicode_segmentation::UnicodeSegmentation;

use crate::engine::{PropertyMap, PropertyValue};

use super::asset;
use super::builtin::Builtin;

/// A misuse of a function: which argument (0-based) and what went wrong.
#[derive(Debug, PartialEq)]
pub struct FnError {
    pub arg: usize,
    pub message: String,
}

fn fail<T>(arg: usize, message: impl Into<String>) -> Result<T, FnError> {
    Err(FnError {
        arg,
        message: message.into(),
    })
}

/// Pulumi YAML's words for a value's type (`typeString`).
pub fn type_string(v: &PropertyValue) -> &'static str {
    match v {
        PropertyValue::Null => "nil",
        PropertyValue::Bool(_) => "a boolean",
        PropertyValue::Number(_) => "a number",
        PropertyValue::String(_) => "a string",
        PropertyValue::Array(_) => "a list",
        PropertyValue::Object(_) => "an object",
        PropertyValue::Secret(inner) => type_string(inner),
        PropertyValue::Unknown => "an unknown value",
        PropertyValue::ResourceReference(_) => "a resource",
        PropertyValue::Asset(_) => "an asset",
        PropertyValue::Archive(_) => "an archive",
    }
}

/// Applies `f` to the arguments with secrets revealed: unknown in, unknown out; secret in,
/// secret out.
pub fn lift(
    args: &[PropertyValue],
    f: impl FnOnce(&[PropertyValue]) -> Result<PropertyValue, FnError>,
) -> Result<PropertyValue, FnError> {
    if args.iter().any(PropertyValue::contains_unknowns) {
        return Ok(PropertyValue::Unknown);
    }
    let secret = args.iter().any(PropertyValue::contains_secrets);
    let plain: Vec<PropertyValue> = args.iter().map(PropertyValue::reveal).collect();
    let out = f(&plain)?;
    Ok(if secret { secret_of(out) } else { out })
}

/// The value marked secret (once).
pub fn secret_of(v: PropertyValue) -> PropertyValue {
    match v {
        s @ PropertyValue::Secret(_) => s,
        v => PropertyValue::Secret(Box::new(v)),
    }
}

/// Evaluates a value-level built-in; `dir` is the program's directory, against which relative
/// file paths resolve. `fn::pulumiResourceName`/`Type` need resources and are not handled here.
pub fn apply(b: Builtin, args: &[PropertyValue], dir: &Path) -> Result<PropertyValue, FnError> {
    match b {
        Builtin::Secret => Ok(secret_of(args[0].clone())),
        Builtin::Unsecret => Ok(args[0].reveal()),
        Builtin::Join => lift(args, |a| join(&a[0], &a[1])),
        Builtin::Split => lift(args, |a| {
            let (Some(d), Some(s)) = (a[0].as_str(), a[1].as_str()) else {
                let bad = usize::from(a[0].as_str().is_some());
                return fail(
                    bad,
                    format!("Must be a string, not {}", type_string(&a[bad])),
                );
            };
            Ok(PropertyValue::Array(split(s, d)))
        }),
        Builtin::Select => lift(args, |a| select(&a[0], &a[1])),
        Builtin::Length => lift(args, |a| {
            Ok(PropertyValue::Number(match &a[0] {
                PropertyValue::Array(items) => items.len() as f64,
                PropertyValue::Object(m) => m.len() as f64,
                PropertyValue::String(s) => s.graphemes(true).count() as f64,
                other => {
                    return fail(
                        0,
                        format!(
                            "fn::length requires a list, map, or string, got {}",
                            type_string(other)
                        ),
                    );
                }
            }))
        }),
        Builtin::ToJson => lift(args, |a| {
            Ok(PropertyValue::String(a[0].to_json().to_string()))
        }),
        Builtin::ToBase64 => lift(args, |a| {
            let s = string_arg(
                &a[0],
                "expected argument to fn::toBase64 to be a string, got",
            )?;
            Ok(PropertyValue::String(STANDARD.encode(s)))
        }),
        Builtin::FromBase64 => lift(args, |a| {
            let s = string_arg(
                &a[0],
                "expected argument to fn::fromBase64 to be a string, got",
            )?;
            let bytes = STANDARD.decode(s).or_else(|e| {
                fail(
                    0,
                    format!("fn::fromBase64 unable to decode {s}, error: {e}"),
                )
            })?;
            String::from_utf8(bytes)
                .map(PropertyValue::String)
                .or_else(|_| fail(0, "fn::fromBase64 output is not a valid UTF-8 string"))
        }),
        Builtin::ReadFile => lift(args, |a| {
            let path = string_arg(&a[0], "Argument to fn::readFile must be a string, got")?;
            let bytes = std::fs::read(dir.join(path))
                .or_else(|e| fail(0, format!("Error reading file at path {path}: {e}")))?;
            Ok(PropertyValue::String(
                String::from_utf8_lossy(&bytes).into_owned(),
            ))
        }),
        Builtin::FileBase64 | Builtin::FileBase64Sha256 => lift(args, |a| {
            let name = b.name();
            let path = string_arg(&a[0], &format!("{name} requires a string path, got"))?;
            let bytes = std::fs::read(dir.join(path))
                .or_else(|e| fail(0, format!("{name} error reading file {path}: {e}")))?;
            Ok(PropertyValue::String(if b == Builtin::FileBase64 {
                STANDARD.encode(bytes)
            } else {
                STANDARD.encode(Sha256::digest(bytes))
            }))
        }),
        Builtin::Sha1 => lift(args, |a| {
            let s = string_arg(&a[0], "fn::sha1 requires a string, got")?;
            Ok(PropertyValue::String(hex::encode(Sha1::digest(
                s.as_bytes(),
            ))))
        }),
        Builtin::SingleOrNone => lift(args, |a| {
            let Some(list) = a[0].as_array() else {
                return fail(
                    0,
                    format!(
                        "fn::singleOrNone requires a list, got {}",
                        type_string(&a[0])
                    ),
                );
            };
            match list {
                [] => Ok(PropertyValue::Null),
                [one] => Ok(one.clone()),
                more => fail(
                    0,
                    format!(
                        "fn::singleOrNone expected a list of 0 or 1 elements, got {}",
                        more.len()
                    ),
                ),
            }
        }),
        Builtin::StringAsset
        | Builtin::FileAsset
        | Builtin::RemoteAsset
        | Builtin::FileArchive
        | Builtin::RemoteArchive => lift(args, |a| {
            let text = string_arg(
                &a[0],
                &format!("Argument to {} must be a string, got", b.name()),
            )?;
            let made = match b {
                Builtin::StringAsset => Ok(asset::string_asset(text)),
                Builtin::FileAsset => asset::file_asset(dir, text),
                Builtin::RemoteAsset => asset::remote(dir, text, false),
                Builtin::FileArchive => asset::file_archive(dir, text),
                _ => asset::remote(dir, text, true),
            };
            made.or_else(|e| fail(0, e.to_string()))
        }),
        Builtin::PulumiResourceName | Builtin::PulumiResourceType => fail(
            0,
            format!(
                "{} requires a resource, got {}",
                b.name(),
                type_string(&args[0])
            ),
        ),
    }
}

fn string_arg<'a>(v: &'a PropertyValue, what: &str) -> Result<&'a str, FnError> {
    match v {
        PropertyValue::String(s) => Ok(s),
        other => fail(0, format!("{what} {}", type_string(other))),
    }
}

fn join(delim: &PropertyValue, items: &PropertyValue) -> Result<PropertyValue, FnError> {
    let d = match delim {
        PropertyValue::Null => "",
        PropertyValue::String(s) => s,
        other => {
            return fail(
                0,
                format!("delimiter must be a string, not {}", type_string(other)),
            );
        }
    };
    let Some(list) = items.as_array() else {
        return fail(
            1,
            format!(
                "the second argument to fn::join must be a list, found {}",
                type_string(items)
            ),
        );
    };
    let mut parts = Vec::with_capacity(list.len());
    for (i, item) in list.iter().enumerate() {
        match item {
            PropertyValue::String(s) => parts.push(s.as_str()),
            other => {
                return fail(
                    1,
                    format!(
                        "the second argument to fn::join must be a list of strings, found {} at index {i}",
                        type_string(other)
                    ),
                );
            }
        }
    }
    Ok(PropertyValue::String(parts.join(d)))
}

/// Go's `strings.Split`: an empty delimiter splits into characters.
fn split(s: &str, d: &str) -> Vec<PropertyValue> {
    if d.is_empty() {
        return s
            .chars()
            .map(|c| PropertyValue::String(c.to_string()))
            .collect();
    }
    s.split(d)
        .map(|p| PropertyValue::String(p.to_string()))
        .collect()
}

fn select(index: &PropertyValue, values: &PropertyValue) -> Result<PropertyValue, FnError> {
    let PropertyValue::Number(n) = index else {
        return fail(
            0,
            format!("index must be a number, not {}", type_string(index)),
        );
    };
    if n.fract() != 0.0 || *n < 0.0 {
        return fail(0, format!("index must be a positive integral, not {n}"));
    }
    index_value(values, &Index::Position(*n as usize)).or_else(|m| fail(1, m))
}

/// One step of a property access.
pub enum Index<'a> {
    Position(usize),
    Key(&'a str),
}

/// `value[index]` with Pulumi YAML's errors: a list takes positions, an object keys; a missing
/// key is null.
pub fn index_value(value: &PropertyValue, index: &Index<'_>) -> Result<PropertyValue, String> {
    match (value, index) {
        (PropertyValue::Array(items), Index::Position(i)) => {
            items.get(*i).cloned().ok_or_else(|| {
                format!(
                    "list index {i} out-of-bounds for list of length {}",
                    items.len()
                )
            })
        }
        (PropertyValue::Array(_), Index::Key(_)) => {
            Err("cannot access a list element using a property name".to_string())
        }
        (PropertyValue::Object(m), Index::Key(k)) => Ok(object_get(m, k)),
        (PropertyValue::Asset(m) | PropertyValue::Archive(m), Index::Key(k)) => Ok(m
            .get(*k)
            .and_then(|v| PropertyValue::from_json(v).ok())
            .unwrap_or(PropertyValue::Null)),
        (PropertyValue::Object(_), Index::Position(_)) => {
            Err("cannot access an object property using an integer index".to_string())
        }
        (other, _) => Err(format!(
            "receiver must be a list or object, not {}",
            type_string(other)
        )),
    }
}

fn object_get(m: &PropertyMap, k: &str) -> PropertyValue {
    m.get(k).cloned().unwrap_or(PropertyValue::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> PropertyValue {
        PropertyValue::String(v.into())
    }

    fn list(items: &[&str]) -> PropertyValue {
        PropertyValue::Array(items.iter().map(|i| s(i)).collect())
    }

    fn call(b: Builtin, args: &[PropertyValue]) -> Result<PropertyValue, FnError> {
        apply(b, args, Path::new("."))
    }

    fn err(b: Builtin, args: &[PropertyValue]) -> (usize, String) {
        let e = call(b, args).unwrap_err();
        (e.arg, e.message)
    }

    fn secret(v: PropertyValue) -> PropertyValue {
        PropertyValue::Secret(Box::new(v))
    }

    #[test]
    fn join_values_unknowns_secrets_and_errors() {
        assert_eq!(
            call(Builtin::Join, &[s("-"), list(&["a", "b"])]),
            Ok(s("a-b"))
        );
        assert_eq!(
            call(Builtin::Join, &[PropertyValue::Null, list(&["a", "b"])]),
            Ok(s("ab"))
        );
        assert_eq!(
            call(
                Builtin::Join,
                &[
                    s(","),
                    PropertyValue::Array(vec![s("a"), PropertyValue::Unknown])
                ]
            ),
            Ok(PropertyValue::Unknown)
        );
        assert_eq!(
            call(
                Builtin::Join,
                &[s(","), PropertyValue::Array(vec![s("a"), secret(s("b"))])]
            ),
            Ok(secret(s("a,b")))
        );
        assert_eq!(
            err(Builtin::Join, &[PropertyValue::Number(1.0), list(&[])]),
            (0, "delimiter must be a string, not a number".into())
        );
        assert_eq!(
            err(Builtin::Join, &[s(","), s("x")]),
            (
                1,
                "the second argument to fn::join must be a list, found a string".into()
            )
        );
        assert_eq!(
            err(Builtin::Join, &[s(","), PropertyValue::Array(vec![s("a"), PropertyValue::Bool(true)])]),
            (1, "the second argument to fn::join must be a list of strings, found a boolean at index 1".into())
        );
    }

    #[test]
    fn split_values_unknowns_secrets_and_errors() {
        assert_eq!(
            call(Builtin::Split, &[s(","), s("a,b,,c")]),
            Ok(list(&["a", "b", "", "c"]))
        );
        assert_eq!(
            call(Builtin::Split, &[s(""), s("ab")]),
            Ok(list(&["a", "b"]))
        );
        assert_eq!(
            call(Builtin::Split, &[s(","), PropertyValue::Unknown]),
            Ok(PropertyValue::Unknown)
        );
        assert_eq!(
            call(Builtin::Split, &[s(","), secret(s("a,b"))]),
            Ok(secret(list(&["a", "b"])))
        );
        assert_eq!(
            err(Builtin::Split, &[PropertyValue::Number(1.0), s("a")]),
            (0, "Must be a string, not a number".into())
        );
        assert_eq!(
            err(Builtin::Split, &[s(","), list(&[])]),
            (1, "Must be a string, not a list".into())
        );
    }

    #[test]
    fn select_values_unknowns_secrets_and_errors() {
        let n = PropertyValue::Number;
        assert_eq!(
            call(Builtin::Select, &[n(1.0), list(&["a", "b"])]),
            Ok(s("b"))
        );
        assert_eq!(
            call(Builtin::Select, &[PropertyValue::Unknown, list(&["a"])]),
            Ok(PropertyValue::Unknown)
        );
        assert_eq!(
            call(Builtin::Select, &[n(0.0), secret(list(&["a"]))]),
            Ok(secret(s("a")))
        );
        assert_eq!(
            err(Builtin::Select, &[s("0"), list(&["a"])]),
            (0, "index must be a number, not a string".into())
        );
        assert_eq!(
            err(Builtin::Select, &[n(-3.0), list(&["a"])]),
            (0, "index must be a positive integral, not -3".into())
        );
        assert_eq!(
            err(Builtin::Select, &[n(1.5), list(&["a"])]),
            (0, "index must be a positive integral, not 1.5".into())
        );
        assert_eq!(
            err(Builtin::Select, &[n(2.0), list(&["a", "b"])]),
            (1, "list index 2 out-of-bounds for list of length 2".into())
        );
        assert_eq!(
            err(
                Builtin::Select,
                &[n(0.0), PropertyValue::Object(PropertyMap::new())]
            ),
            (
                1,
                "cannot access an object property using an integer index".into()
            )
        );
    }

    #[test]
    fn length_counts_lists_maps_and_graphemes() {
        let n = PropertyValue::Number;
        assert_eq!(call(Builtin::Length, &[list(&["a", "b"])]), Ok(n(2.0)));
        let m: PropertyMap = [("a".to_string(), s("x"))].into_iter().collect();
        assert_eq!(
            call(Builtin::Length, &[PropertyValue::Object(m)]),
            Ok(n(1.0))
        );
        assert_eq!(call(Builtin::Length, &[s("héllo👍🏽")]), Ok(n(6.0)));
        assert_eq!(
            call(Builtin::Length, &[secret(s("abc"))]),
            Ok(secret(n(3.0)))
        );
        assert_eq!(
            call(Builtin::Length, &[PropertyValue::Unknown]),
            Ok(PropertyValue::Unknown)
        );
        assert_eq!(
            err(Builtin::Length, &[n(3.0)]),
            (
                0,
                "fn::length requires a list, map, or string, got a number".into()
            )
        );
    }

    #[test]
    fn to_json_and_base64_round_trip() {
        let m: PropertyMap = [
            ("b".to_string(), PropertyValue::Number(1.0)),
            ("a".to_string(), list(&["x"])),
        ]
        .into_iter()
        .collect();
        assert_eq!(
            call(Builtin::ToJson, &[PropertyValue::Object(m)]),
            Ok(s(r#"{"a":["x"],"b":1}"#))
        );
        assert_eq!(
            call(Builtin::ToJson, &[secret(s("p"))]),
            Ok(secret(s("\"p\"")))
        );
        assert_eq!(call(Builtin::ToBase64, &[s("hello")]), Ok(s("aGVsbG8=")));
        assert_eq!(call(Builtin::FromBase64, &[s("aGVsbG8=")]), Ok(s("hello")));
        assert_eq!(
            call(Builtin::FromBase64, &[secret(s("aGVsbG8="))]),
            Ok(secret(s("hello")))
        );
        assert_eq!(
            call(Builtin::ToBase64, &[PropertyValue::Unknown]),
            Ok(PropertyValue::Unknown)
        );
        assert_eq!(
            err(Builtin::ToBase64, &[PropertyValue::Bool(true)]),
            (
                0,
                "expected argument to fn::toBase64 to be a string, got a boolean".into()
            )
        );
        assert!(
            err(Builtin::FromBase64, &[s("a!b")])
                .1
                .starts_with("fn::fromBase64 unable to decode a!b, error: ")
        );
        assert_eq!(
            err(Builtin::FromBase64, &[s("/w==")]),
            (
                0,
                "fn::fromBase64 output is not a valid UTF-8 string".into()
            )
        );
    }

    #[test]
    fn secret_and_unsecret() {
        assert_eq!(call(Builtin::Secret, &[s("a")]), Ok(secret(s("a"))));
        assert_eq!(call(Builtin::Secret, &[secret(s("a"))]), Ok(secret(s("a"))));
        assert_eq!(
            call(Builtin::Secret, &[PropertyValue::Unknown]),
            Ok(secret(PropertyValue::Unknown))
        );
        assert_eq!(call(Builtin::Unsecret, &[secret(s("a"))]), Ok(s("a")));
        assert_eq!(
            call(
                Builtin::Unsecret,
                &[PropertyValue::Array(vec![secret(s("a"))])]
            ),
            Ok(list(&["a"]))
        );
    }

    #[test]
    fn single_or_none() {
        assert_eq!(
            call(Builtin::SingleOrNone, &[list(&[])]),
            Ok(PropertyValue::Null)
        );
        assert_eq!(call(Builtin::SingleOrNone, &[list(&["a"])]), Ok(s("a")));
        assert_eq!(
            call(Builtin::SingleOrNone, &[secret(list(&["a"]))]),
            Ok(secret(s("a")))
        );
        assert_eq!(
            err(Builtin::SingleOrNone, &[list(&["a", "b"])]),
            (
                0,
                "fn::singleOrNone expected a list of 0 or 1 elements, got 2".into()
            )
        );
        assert_eq!(
            err(Builtin::SingleOrNone, &[s("a")]),
            (0, "fn::singleOrNone requires a list, got a string".into())
        );
    }

    #[test]
    fn files_read_relative_to_the_program_directory() {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path().to_path_buf();
        std::fs::write(dir.join("a.txt"), "hi\n").unwrap();
        let read = |b, p: &str| apply(b, &[s(p)], &dir);
        assert_eq!(read(Builtin::ReadFile, "a.txt"), Ok(s("hi\n")));
        assert_eq!(read(Builtin::FileBase64, "a.txt"), Ok(s("aGkK")));
        assert_eq!(
            read(Builtin::FileBase64Sha256, "a.txt"),
            Ok(s(&STANDARD.encode(Sha256::digest(b"hi\n"))))
        );
        assert_eq!(
            apply(Builtin::ReadFile, &[secret(s("a.txt"))], &dir),
            Ok(secret(s("hi\n")))
        );
        let e = read(Builtin::ReadFile, "missing.txt").unwrap_err();
        assert!(
            e.message
                .starts_with("Error reading file at path missing.txt: "),
            "{}",
            e.message
        );
        assert_eq!(
            apply(Builtin::ReadFile, &[PropertyValue::Number(1.0)], &dir)
                .unwrap_err()
                .message,
            "Argument to fn::readFile must be a string, got a number"
        );
    }

    #[test]
    fn sha1_of_text() {
        assert_eq!(
            call(Builtin::Sha1, &[s("abc")]),
            Ok(s("a9993e364706816aba3e25717850c26c9cd0d89d"))
        );
        assert_eq!(
            call(Builtin::Sha1, &[s("")]),
            Ok(s("da39a3ee5e6b4b0d3255bfef95601890afd80709"))
        );
        assert_eq!(
            err(Builtin::Sha1, &[PropertyValue::Null]),
            (0, "fn::sha1 requires a string, got nil".into())
        );
    }
}
