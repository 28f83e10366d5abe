//! Config paths (`config set --path 'servers[0].name'`): parsing Pulumi's property path syntax
//! and getting, setting and removing a value inside a structured config value, where
//! `{secure: <ciphertext>}` is an encrypted leaf.

use serde_json::{Map, Value};

/// One step of a path: a map key or an array index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathStep {
    Key(String),
    Index(usize),
}

impl std::fmt::Display for PathStep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PathStep::Key(k) => write!(f, "{k:?}"),
            PathStep::Index(i) => write!(f, "{i}"),
        }
    }
}

/// Parses `a.b[0]["c.d"]` as Pulumi's strict property paths do: bare names run to the next
/// `.` or `[`; brackets hold an index or a double-quoted key (`\"` escapes a quote).
pub fn parse_path(path: &str) -> Result<Vec<PathStep>, String> {
    if path.starts_with('.') {
        return Err("expected property path to start with a name or index".into());
    }
    let mut steps = Vec::new();
    let mut rest = path;
    while let Some(c) = rest.chars().next() {
        match c {
            '.' => {
                rest = &rest[1..];
                if rest.is_empty() {
                    return Err("expected property path to end with a name or index".into());
                }
                if rest.starts_with('[') {
                    return Err("expected property name after '.'".into());
                }
            }
            '[' if rest[1..].starts_with('"') => {
                let mut key = String::new();
                let mut chars = rest[2..].char_indices();
                let end = loop {
                    match chars.next() {
                        None => return Err("missing closing quote in property name".into()),
                        Some((i, '"')) => break 2 + i + 1,
                        Some((_, '\\')) if chars.as_str().starts_with('"') => {
                            chars.next();
                            key.push('"');
                        }
                        Some((_, ch)) => key.push(ch),
                    }
                };
                if !rest[end..].starts_with(']') {
                    return Err("missing closing bracket in property access".into());
                }
                steps.push(PathStep::Key(key));
                rest = &rest[end + 1..];
            }
            '[' => {
                let close = rest
                    .find(']')
                    .ok_or("missing closing bracket in array index")?;
                let segment = &rest[1..close];
                let step = if segment == "*" {
                    PathStep::Key("*".into())
                } else {
                    PathStep::Index(
                        segment
                            .parse()
                            .map_err(|_| format!("invalid array index {segment:?}"))?,
                    )
                };
                steps.push(step);
                rest = &rest[close + 1..];
            }
            _ => {
                let end = rest.find(['.', '[']).unwrap_or(rest.len());
                steps.push(PathStep::Key(rest[..end].to_string()));
                rest = &rest[end..];
            }
        }
    }
    Ok(steps)
}

/// The ciphertext of an encrypted leaf `{secure: <ciphertext>}`.
pub fn secure_leaf(v: &Value) -> Option<&str> {
    match v {
        Value::Object(m) if m.len() == 1 => m.get("secure")?.as_str(),
        _ => None,
    }
}

/// An encrypted leaf holding `ciphertext`.
pub fn secure(ciphertext: &str) -> Value {
    let mut m = Map::new();
    m.insert("secure".into(), Value::String(ciphertext.into()));
    Value::Object(m)
}

/// Whether any leaf of `v` is encrypted.
pub fn has_secure_leaf(v: &Value) -> bool {
    secure_leaf(v).is_some()
        || match v {
            Value::Object(m) => m.values().any(has_secure_leaf),
            Value::Array(items) => items.iter().any(has_secure_leaf),
            _ => false,
        }
}

/// The value at `path` inside `v` (an encrypted leaf is not a container).
pub fn get<'a>(v: &'a Value, path: &[PathStep]) -> Option<&'a Value> {
    let Some((step, rest)) = path.split_first() else {
        return Some(v);
    };
    if secure_leaf(v).is_some() {
        return None;
    }
    let next = match (v, step) {
        (Value::Array(items), PathStep::Index(i)) => items.get(*i)?,
        (Value::Object(m), PathStep::Key(k)) => m.get(k)?,
        _ => return None,
    };
    get(next, rest)
}

const SECURE_RESERVED: &str = "a map whose only key is \"secure\" is reserved for encrypted values";

/// Sets the value at `path` inside `root` (Pulumi's `object.Set`): missing containers are
/// made from the step that needs them (an index makes an array of that many nulls plus one),
/// an index one past the end appends, and a scalar met at the first step is replaced.
/// `prefix` is the path so far, for errors.
pub fn set(
    root: &mut Value,
    prefix: &mut Vec<PathStep>,
    path: &[PathStep],
    new: Value,
) -> Result<(), String> {
    let Some((step, rest)) = path.split_first() else {
        *root = new;
        return Ok(());
    };
    let container =
        matches!(root, Value::Array(_) | Value::Object(_)) && secure_leaf(root).is_none();
    if !container {
        if !root.is_null() && prefix.len() != 1 {
            return Err(match step {
                PathStep::Index(_) => format!("{}: expected an array", show(prefix)),
                PathStep::Key(_) => format!("{}: expected a map", show(prefix)),
            });
        }
        *root = match step {
            PathStep::Index(i) => Value::Array(vec![Value::Null; i + 1]),
            PathStep::Key(_) => Value::Object(Map::new()),
        };
    }
    prefix.push(step.clone());
    match (root, step) {
        (Value::Array(items), PathStep::Index(i)) => {
            if *i > items.len() {
                return Err(format!("{}: array index out of range", show(prefix)));
            }
            if *i == items.len() {
                items.push(Value::Null);
            }
            set(&mut items[*i], prefix, rest, new)
        }
        (Value::Array(_), PathStep::Key(_)) => {
            Err(format!("{}: key for an array must be an int", show(prefix)))
        }
        (Value::Object(m), PathStep::Key(k)) => {
            if rest.is_empty() && m.is_empty() && k == "secure" && new.is_string() {
                return Err(SECURE_RESERVED.into());
            }
            let slot = m.entry(k.clone()).or_insert(Value::Null);
            set(slot, prefix, rest, new)
        }
        (Value::Object(_), PathStep::Index(_)) => {
            Err(format!("{}: key for a map must be a string", show(prefix)))
        }
        _ => unreachable!("made a container above"),
    }
}

/// Removes the value at `path` inside `v`; what is not there is left alone.
pub fn remove(v: &mut Value, path: &[PathStep]) -> Result<(), String> {
    let Some((step, rest)) = path.split_first() else {
        return Ok(());
    };
    if secure_leaf(v).is_some() {
        return Ok(());
    }
    match (v, step) {
        (Value::Array(items), PathStep::Index(i)) if *i < items.len() => {
            if rest.is_empty() {
                items.remove(*i);
                Ok(())
            } else {
                remove(&mut items[*i], rest)
            }
        }
        (Value::Object(m), PathStep::Key(k)) if m.contains_key(k) => {
            if rest.is_empty() {
                let leaves_secure = m.len() == 2
                    && m.keys().any(|o| o == "secure" && o != k)
                    && m.get("secure").is_some_and(Value::is_string);
                if leaves_secure {
                    return Err(SECURE_RESERVED.into());
                }
                m.shift_remove(k);
                Ok(())
            } else {
                remove(m.get_mut(k).expect("checked"), rest)
            }
        }
        _ => Ok(()),
    }
}

fn show(path: &[PathStep]) -> String {
    format!(
        "[{}]",
        path.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(" ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn k(s: &str) -> PathStep {
        PathStep::Key(s.into())
    }

    #[test]
    fn paths_parse_as_pulumi_parses_them() {
        assert_eq!(
            parse_path("a.b[0][\"c.d\"].e-f").unwrap(),
            [k("a"), k("b"), PathStep::Index(0), k("c.d"), k("e-f")]
        );
        assert_eq!(
            parse_path(r#"["key \"q\""][1]"#).unwrap(),
            [k("key \"q\""), PathStep::Index(1)]
        );
        for bad in [".a", "a.", "a.[0]", "a[0", "a[x]", "a[\"b"] {
            assert!(parse_path(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn set_makes_containers_appends_and_refuses_type_clashes() {
        let mut v = Value::Null;
        set(&mut v, &mut vec![k("r")], &[PathStep::Index(1)], json!("b")).unwrap();
        assert_eq!(v, json!([null, "b"]));
        set(&mut v, &mut vec![k("r")], &[PathStep::Index(2)], json!(3)).unwrap();
        assert_eq!(v, json!([null, "b", 3]));
        let err = set(&mut v, &mut vec![k("r")], &[PathStep::Index(5)], json!(1)).unwrap_err();
        assert!(err.contains("array index out of range"), "{err}");
        let err = set(
            &mut v,
            &mut vec![k("r")],
            &[PathStep::Index(1), k("x")],
            json!(1),
        )
        .unwrap_err();
        assert!(err.contains("expected a map"), "{err}");
        let mut s = json!("scalar");
        set(&mut s, &mut vec![k("r")], &[k("a"), k("b")], secure("v1:x")).unwrap();
        assert_eq!(s, json!({"a": {"b": {"secure": "v1:x"}}}));
        assert!(has_secure_leaf(&s));
        assert_eq!(get(&s, &[k("a"), k("b")]), Some(&secure("v1:x")));
        let mut empty = json!({});
        assert!(set(&mut empty, &mut vec![k("r")], &[k("secure")], json!("x")).is_err());
    }

    #[test]
    fn remove_refuses_to_leave_a_lookalike_secure_value() {
        let mut v = json!({"secure": "x", "other": 1, "list": [1, 2, 3]});
        remove(&mut v, &[k("list"), PathStep::Index(1)]).unwrap();
        assert_eq!(v["list"], json!([1, 3]));
        remove(&mut v, &[k("list")]).unwrap();
        assert!(remove(&mut v, &[k("other")]).is_err());
        remove(&mut v, &[k("missing"), k("deeper")]).unwrap();
    }
}
