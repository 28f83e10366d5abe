//! How deep the JSON documents we write may nest, so that none is refused when read back:
//! serde_json, which reads every checkpoint, journal line, export and plan file, stops at
//! [`MAX_JSON_DEPTH`] levels of objects and arrays, and an import is refused before anything
//! is written when its checkpoint would nest deeper.

use serde_json::Value;

/// The most levels of objects and arrays a JSON document we read may nest (serde_json's
/// recursion limit: a document nesting one more is refused).
pub const MAX_JSON_DEPTH: usize = 127;
/// Levels around a deployment in a checkpoint (the document and `checkpoint`; `latest` is the
/// deployment): the deepest place a deployment is written to. A plan holds a resource's values
/// no deeper than the checkpoint does, and an export or a journal line less deep.
pub const DEPLOYMENT_WRAP_DEPTH: usize = 2;

/// How many levels of objects and arrays `value` is (a scalar is none).
pub fn nesting(value: &Value) -> usize {
    match value {
        Value::Object(m) => 1 + m.values().map(nesting).max().unwrap_or(0),
        Value::Array(a) => 1 + a.iter().map(nesting).max().unwrap_or(0),
        _ => 0,
    }
}

/// The path below `value` to its deepest object or array (`.outputs.a[0]`), to name it in an
/// error; walks the value once per level.
pub fn deepest_path(value: &Value) -> String {
    let mut path = String::new();
    let mut at = value;
    loop {
        let next = match at {
            Value::Object(m) => m
                .iter()
                .max_by_key(|(_, v)| nesting(v))
                .map(|(k, v)| (format!(".{k}"), v)),
            Value::Array(a) => a
                .iter()
                .enumerate()
                .max_by_key(|(_, v)| nesting(v))
                .map(|(i, v)| (format!("[{i}]"), v)),
            _ => None,
        };
        match next {
            Some((step, v)) if nesting(v) > 0 => {
                path.push_str(&step);
                at = v;
            }
            _ => return path,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(levels: usize) -> String {
        format!("{}1{}", "[".repeat(levels), "]".repeat(levels))
    }

    #[test]
    fn the_limit_is_what_serde_json_reads() {
        assert!(serde_json::from_str::<Value>(&nested(MAX_JSON_DEPTH)).is_ok());
        let e = serde_json::from_str::<Value>(&nested(MAX_JSON_DEPTH + 1)).unwrap_err();
        assert!(e.to_string().contains("recursion limit"), "{e}");
    }

    #[test]
    fn the_deepest_path_is_named() {
        let v = serde_json::json!({"a": 1, "b": {"c": [1, {"d": []}]}, "e": {}});
        assert_eq!(nesting(&v), 5);
        assert_eq!(deepest_path(&v), ".b.c[1].d");
        assert_eq!(nesting(&serde_json::json!(3)), 0);
    }
}
