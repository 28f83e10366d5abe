//! Interpolation: the `${…}` expressions inside strings. A string that is exactly one `${…}`
//! stands for the referenced value itself (a resource, a list); a string mixing text and
//! expressions is the concatenation of their texts. `$${` writes a literal `${`.

use std::fmt;

/// One step into a value: `.name`, `[0]` or `["key"]`.
#[derive(Clone, Debug, PartialEq)]
pub enum Accessor {
    Property(String),
    Index(usize),
    Key(String),
}

/// A reference: a root name (resource, variable, config key, or `pulumi`) and a path into it.
#[derive(Clone, Debug, PartialEq)]
pub struct Access {
    pub root: String,
    pub path: Vec<Accessor>,
    /// Character offset of the `${` in the string, for error columns.
    pub offset: usize,
}

impl fmt::Display for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.root)?;
        for a in &self.path {
            match a {
                Accessor::Property(p) => write!(f, ".{p}")?,
                Accessor::Index(i) => write!(f, "[{i}]")?,
                Accessor::Key(k) => write!(f, "[{k:?}]")?,
            }
        }
        Ok(())
    }
}

/// A piece of an interpolated string.
#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    Text(String),
    Expr(Access),
}

/// Why a `${…}` could not be parsed; `offset` is the character offset in the string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InterpError {
    pub offset: usize,
    pub message: String,
}

/// Splits a string into text and expressions. A string without `${` is one text part.
pub fn parse_interpolation(s: &str) -> Result<Vec<Part>, InterpError> {
    let chars: Vec<char> = s.chars().collect();
    let mut parts = Vec::new();
    let mut text = String::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '$' && chars.get(i + 1) == Some(&'$') && chars.get(i + 2) == Some(&'{') {
            text.push_str("${");
            i += 3;
            continue;
        }
        if chars[i] == '$' && chars.get(i + 1) == Some(&'{') {
            let close = chars[i + 2..]
                .iter()
                .position(|&c| c == '}')
                .map(|p| p + i + 2)
                .ok_or_else(|| InterpError {
                    offset: i,
                    message: "unterminated `${`: missing `}`".into(),
                })?;
            let inner: String = chars[i + 2..close].iter().collect();
            let access = parse_access(&inner, i)?;
            if !text.is_empty() {
                parts.push(Part::Text(std::mem::take(&mut text)));
            }
            parts.push(Part::Expr(access));
            i = close + 1;
            continue;
        }
        text.push(chars[i]);
        i += 1;
    }
    if !text.is_empty() || parts.is_empty() {
        parts.push(Part::Text(text));
    }
    Ok(parts)
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | ':')
}

/// Parses the inside of `${…}`: `name`, `name.prop`, `name[0]`, `name["key"]`, chained.
fn parse_access(inner: &str, offset: usize) -> Result<Access, InterpError> {
    let err = |message: String| InterpError { offset, message };
    let chars: Vec<char> = inner.trim().chars().collect();
    let mut i = 0;
    let mut root = String::new();
    while i < chars.len() && is_name_char(chars[i]) {
        root.push(chars[i]);
        i += 1;
    }
    if root.is_empty() {
        return Err(err(if chars.is_empty() {
            "empty `${}`".into()
        } else {
            format!("`${{{inner}}}` does not start with a name")
        }));
    }
    let mut path = Vec::new();
    while i < chars.len() {
        match chars[i] {
            '.' => {
                i += 1;
                let mut name = String::new();
                while i < chars.len() && is_name_char(chars[i]) {
                    name.push(chars[i]);
                    i += 1;
                }
                if name.is_empty() {
                    return Err(err(format!(
                        "`${{{inner}}}`: expected a property name after `.`"
                    )));
                }
                path.push(Accessor::Property(name));
            }
            '[' => {
                let close = chars[i..]
                    .iter()
                    .position(|&c| c == ']')
                    .map(|p| p + i)
                    .ok_or_else(|| err(format!("`${{{inner}}}`: missing `]`")))?;
                let index: String = chars[i + 1..close].iter().collect();
                let index = index.trim();
                if let Some(key) = index.strip_prefix('"').and_then(|k| k.strip_suffix('"')) {
                    path.push(Accessor::Key(key.to_string()));
                } else if let Ok(n) = index.parse::<usize>() {
                    path.push(Accessor::Index(n));
                } else {
                    return Err(err(format!(
                        "`${{{inner}}}`: an index must be a number or a quoted key, found `{index}`"
                    )));
                }
                i = close + 1;
            }
            c => {
                return Err(err(format!("`${{{inner}}}`: unexpected `{c}`")));
            }
        }
    }
    Ok(Access { root, path, offset })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn access(root: &str, path: Vec<Accessor>, offset: usize) -> Part {
        Part::Expr(Access {
            root: root.into(),
            path,
            offset,
        })
    }

    #[test]
    fn plain_text_is_one_part() {
        assert_eq!(
            parse_interpolation("hello").unwrap(),
            [Part::Text("hello".into())]
        );
        assert_eq!(
            parse_interpolation("").unwrap(),
            [Part::Text(String::new())]
        );
        assert_eq!(
            parse_interpolation("a $ b }").unwrap(),
            [Part::Text("a $ b }".into())]
        );
    }

    #[test]
    fn paths_with_properties_indexes_and_keys() {
        let parts = parse_interpolation(r#"${res.prop[0].key["a.b"]}"#).unwrap();
        assert_eq!(
            parts,
            [access(
                "res",
                vec![
                    Accessor::Property("prop".into()),
                    Accessor::Index(0),
                    Accessor::Property("key".into()),
                    Accessor::Key("a.b".into()),
                ],
                0
            )]
        );
        let parts = parse_interpolation("${my-bucket}").unwrap();
        assert_eq!(parts, [access("my-bucket", vec![], 0)]);
        let parts = parse_interpolation("${aws:region}").unwrap();
        assert_eq!(parts, [access("aws:region", vec![], 0)]);
    }

    #[test]
    fn text_mixed_with_several_expressions_and_escapes() {
        let parts = parse_interpolation("http://${a.host}:${b.port}/$${x}").unwrap();
        assert_eq!(
            parts,
            [
                Part::Text("http://".into()),
                access("a", vec![Accessor::Property("host".into())], 7),
                Part::Text(":".into()),
                access("b", vec![Accessor::Property("port".into())], 17),
                Part::Text("/${x}".into()),
            ]
        );
        assert_eq!(
            parse_interpolation("$${a}").unwrap(),
            [Part::Text("${a}".into())]
        );
    }

    #[test]
    fn malformed_expressions_are_errors_with_offsets() {
        let e = parse_interpolation("ab${x").unwrap_err();
        assert_eq!(
            (e.offset, e.message.as_str()),
            (2, "unterminated `${`: missing `}`")
        );
        assert_eq!(
            parse_interpolation("${}").unwrap_err().message,
            "empty `${}`"
        );
        assert_eq!(
            parse_interpolation("${a.}").unwrap_err().message,
            "`${a.}`: expected a property name after `.`"
        );
        assert_eq!(
            parse_interpolation("${a[x]}").unwrap_err().message,
            "`${a[x]}`: an index must be a number or a quoted key, found `x`"
        );
        assert_eq!(
            parse_interpolation("${a[0}").unwrap_err().message,
            "`${a[0}`: missing `]`"
        );
        assert_eq!(
            parse_interpolation("${.a}").unwrap_err().message,
            "`${.a}` does not start with a name"
        );
        assert_eq!(
            parse_interpolation("${a b}").unwrap_err().message,
            "`${a b}`: unexpected ` `"
        );
    }
}
