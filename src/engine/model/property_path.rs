//! Property paths (`a.b[0]["c.d"]`, `*` wildcards) as used by ignoreChanges and replaceOnChanges.

use std::fmt;

use super::property::{PropertyMap, PropertyValue};

/// One step of a path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathElem {
    Key(String),
    Index(usize),
    Wildcard,
}

/// A parsed path into a property map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PropertyPath(pub Vec<PathElem>);

/// Why a path does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid property path {path:?}: {reason}")]
pub struct InvalidPath {
    pub path: String,
    pub reason: String,
}

impl PropertyPath {
    pub fn parse(s: &str) -> Result<PropertyPath, InvalidPath> {
        let bad = |reason: &str| InvalidPath {
            path: s.to_string(),
            reason: reason.to_string(),
        };
        let mut elems = Vec::new();
        let chars: Vec<char> = s.chars().collect();
        let mut i = 0;
        let mut key = String::new();
        let flush = |key: &mut String, elems: &mut Vec<PathElem>| {
            if !key.is_empty() {
                let k = std::mem::take(key);
                elems.push(if k == "*" {
                    PathElem::Wildcard
                } else {
                    PathElem::Key(k)
                });
            }
        };
        while i < chars.len() {
            match chars[i] {
                '.' => {
                    if key.is_empty() && !matches!(chars.get(i.wrapping_sub(1)), Some(']')) {
                        return Err(bad("empty key"));
                    }
                    flush(&mut key, &mut elems);
                    i += 1;
                }
                '[' => {
                    flush(&mut key, &mut elems);
                    let end = chars[i..]
                        .iter()
                        .position(|&c| c == ']')
                        .ok_or_else(|| bad("unterminated ["))?
                        + i;
                    let inner: String = chars[i + 1..end].iter().collect();
                    let elem = if inner == "*" {
                        PathElem::Wildcard
                    } else if let Some(q) =
                        inner.strip_prefix('"').and_then(|r| r.strip_suffix('"'))
                    {
                        PathElem::Key(q.to_string())
                    } else {
                        PathElem::Index(inner.parse().map_err(|_| bad("index is not a number"))?)
                    };
                    elems.push(elem);
                    i = end + 1;
                }
                c => {
                    key.push(c);
                    i += 1;
                }
            }
        }
        flush(&mut key, &mut elems);
        if elems.is_empty() {
            return Err(bad("empty path"));
        }
        Ok(PropertyPath(elems))
    }

    /// Whether this path covers `other` (is a prefix of it, wildcards matching anything).
    pub fn contains(&self, other: &PropertyPath) -> bool {
        self.0.len() <= other.0.len()
            && self.0.iter().zip(&other.0).all(|(a, b)| {
                matches!(a, PathElem::Wildcard) || matches!(b, PathElem::Wildcard) || a == b
            })
    }

    /// Every concrete path this (possibly wildcarded) path names in `map`.
    fn expand(&self, map: &PropertyMap) -> Vec<PropertyPath> {
        let root = PropertyValue::Object(map.clone());
        let mut out = Vec::new();
        expand_into(&root, &self.0, &mut Vec::new(), &mut out);
        out
    }

    /// The value the path (without wildcards) names in `map`, if any.
    pub fn get<'a>(&self, map: &'a PropertyMap) -> Option<&'a PropertyValue> {
        let (first, rest) = self.0.split_first()?;
        let PathElem::Key(k) = first else {
            return None;
        };
        rest.iter().try_fold(map.get(k)?, |v, e| match (e, v) {
            (PathElem::Key(k), PropertyValue::Object(m)) => m.get(k),
            (PathElem::Index(i), PropertyValue::Array(a)) => a.get(*i),
            _ => None,
        })
    }

    /// Sets (or with `None` removes) the value at this concrete path; false if the parent
    /// container is missing.
    fn set(&self, map: &mut PropertyMap, value: Option<PropertyValue>) -> bool {
        let mut root = PropertyValue::Object(std::mem::take(map));
        let ok = set_in(&mut root, &self.0, value);
        if let PropertyValue::Object(m) = root {
            *map = m;
        }
        ok
    }
}

fn set_in(v: &mut PropertyValue, path: &[PathElem], value: Option<PropertyValue>) -> bool {
    let Some((first, rest)) = path.split_first() else {
        return false;
    };
    match (first, v) {
        (PathElem::Key(k), PropertyValue::Object(m)) if rest.is_empty() => {
            match value {
                Some(x) => m.insert(k.clone(), x),
                None => m.remove(k),
            };
            true
        }
        (PathElem::Key(k), PropertyValue::Object(m)) => {
            m.get_mut(k).is_some_and(|c| set_in(c, rest, value))
        }
        (PathElem::Index(i), PropertyValue::Array(a)) if rest.is_empty() => match value {
            Some(x) if *i < a.len() => {
                a[*i] = x;
                true
            }
            _ => false,
        },
        (PathElem::Index(i), PropertyValue::Array(a)) => {
            a.get_mut(*i).is_some_and(|c| set_in(c, rest, value))
        }
        _ => false,
    }
}

fn expand_into(
    v: &PropertyValue,
    rest: &[PathElem],
    prefix: &mut Vec<PathElem>,
    out: &mut Vec<PropertyPath>,
) {
    let Some((first, tail)) = rest.split_first() else {
        out.push(PropertyPath(prefix.clone()));
        return;
    };
    let mut step = |elem: PathElem, child: Option<&PropertyValue>| {
        prefix.push(elem);
        match child {
            Some(c) => expand_into(c, tail, prefix, out),
            None if tail.is_empty() => out.push(PropertyPath(prefix.clone())),
            None => {}
        }
        prefix.pop();
    };
    match (first, v) {
        (PathElem::Wildcard, PropertyValue::Object(m)) => {
            for (k, c) in m {
                step(PathElem::Key(k.clone()), Some(c));
            }
        }
        (PathElem::Wildcard, PropertyValue::Array(a)) => {
            for (i, c) in a.iter().enumerate() {
                step(PathElem::Index(i), Some(c));
            }
        }
        (PathElem::Key(k), PropertyValue::Object(m)) => step(PathElem::Key(k.clone()), m.get(k)),
        (PathElem::Index(i), PropertyValue::Array(a)) => step(PathElem::Index(*i), a.get(*i)),
        _ => {}
    }
}

impl fmt::Display for PropertyPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (n, e) in self.0.iter().enumerate() {
            match e {
                PathElem::Key(k) if n == 0 => write!(f, "{k}")?,
                PathElem::Key(k) if k.contains(['.', '[']) => write!(f, "[{k:?}]")?,
                PathElem::Key(k) => write!(f, ".{k}")?,
                PathElem::Index(i) => write!(f, "[{i}]")?,
                PathElem::Wildcard => write!(f, "[*]")?,
            }
        }
        Ok(())
    }
}

/// Resets every ignored path in `news` to its value in `olds` (Pulumi's processIgnoreChanges).
/// Paths into elements that were added or removed cannot be ignored and are returned.
pub(crate) fn apply_ignore_changes(
    olds: &PropertyMap,
    news: &PropertyMap,
    ignore: &[PropertyPath],
) -> (PropertyMap, Vec<String>) {
    let mut out = news.clone();
    let mut unignorable = Vec::new();
    for path in ignore {
        let mut concrete = path.expand(olds);
        for p in path.expand(news) {
            if !concrete.contains(&p) {
                concrete.push(p);
            }
        }
        for p in concrete {
            let ok = match p.get(olds) {
                Some(old) => p.set(&mut out, Some(old.clone())),
                None => p.set(&mut out, None),
            };
            if !ok {
                unignorable.push(p.to_string());
            }
        }
    }
    (out, unignorable)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::property::props;

    #[test]
    fn parses_keys_indices_quotes_and_wildcards() {
        let p = PropertyPath::parse(r#"a.b[0]["c.d"].*"#).unwrap();
        assert_eq!(
            p.0,
            vec![
                PathElem::Key("a".into()),
                PathElem::Key("b".into()),
                PathElem::Index(0),
                PathElem::Key("c.d".into()),
                PathElem::Wildcard
            ]
        );
        assert!(PropertyPath::parse("a[x]").is_err());
        assert!(PropertyPath::parse("a[0").is_err());
        assert!(PropertyPath::parse("").is_err());
    }

    #[test]
    fn containment_honours_wildcards() {
        let star = PropertyPath::parse("*").unwrap();
        let ab = PropertyPath::parse("a.b").unwrap();
        let a = PropertyPath::parse("a").unwrap();
        assert!(star.contains(&ab));
        assert!(a.contains(&ab));
        assert!(!ab.contains(&a));
    }

    #[test]
    fn ignored_changes_keep_old_values_and_drop_additions() {
        let olds = props([
            ("tags", PropertyValue::Object(props([("x", "1")]))),
            ("size", "s".into()),
        ]);
        let news = props([
            (
                "tags",
                PropertyValue::Object(props([("x", "2"), ("y", "3")])),
            ),
            ("size", "m".into()),
            ("extra", "e".into()),
        ]);
        let ignore = vec![
            PropertyPath::parse("tags.*").unwrap(),
            PropertyPath::parse("extra").unwrap(),
        ];
        let (out, bad) = apply_ignore_changes(&olds, &news, &ignore);
        assert_eq!(out["tags"], PropertyValue::Object(props([("x", "1")])));
        assert_eq!(out["size"], "m".into());
        assert!(!out.contains_key("extra"));
        assert!(bad.is_empty());
    }
}
