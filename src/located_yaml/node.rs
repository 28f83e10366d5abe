//! A YAML document as a tree of nodes that remember where they were written, so that every
//! later error (bad option, unknown reference, cycle) can name the file, line and column.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;

use super::limits::{MAX_YAML_NODES, MAX_YAML_SCALAR_BYTES};
use super::source_error::{Pos, SourceError};

/// One node of a YAML document with its position.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub pos: Pos,
    pub kind: NodeKind,
}

/// What a node holds. Maps keep the order they were written in.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Seq(Vec<Node>),
    Map(Vec<(Key, Node)>),
}

/// A mapping key with its own position (errors about a key point at the key).
#[derive(Clone, Debug, PartialEq)]
pub struct Key {
    pub name: String,
    pub pos: Pos,
}

impl Node {
    /// A short word for the node's kind, for "expected X, found Y" messages.
    pub fn kind_name(&self) -> &'static str {
        match self.kind {
            NodeKind::Null => "null",
            NodeKind::Bool(_) => "a boolean",
            NodeKind::Number(_) => "a number",
            NodeKind::String(_) => "a string",
            NodeKind::Seq(_) => "a list",
            NodeKind::Map(_) => "a mapping",
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            NodeKind::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_map(&self) -> Option<&[(Key, Node)]> {
        match &self.kind {
            NodeKind::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The value under `key` when this node is a mapping.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_map()?
            .iter()
            .find(|(k, _)| k.name == key)
            .map(|(_, v)| v)
    }

    /// The scalar as the text a user wrote (numbers without a trailing `.0`), for config values
    /// and names that YAML typed as numbers or booleans.
    pub fn scalar_text(&self) -> Option<String> {
        match &self.kind {
            NodeKind::String(s) => Some(s.clone()),
            NodeKind::Bool(b) => Some(b.to_string()),
            NodeKind::Number(n) => Some(number_text(*n)),
            _ => None,
        }
    }

    /// Plain JSON of the node (positions dropped).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value;
        match &self.kind {
            NodeKind::Null => Value::Null,
            NodeKind::Bool(b) => Value::Bool(*b),
            NodeKind::Number(n) => number_json(*n),
            NodeKind::String(s) => Value::String(s.clone()),
            NodeKind::Seq(items) => Value::Array(items.iter().map(Node::to_json).collect()),
            NodeKind::Map(m) => Value::Object(
                m.iter()
                    .map(|(k, v)| (k.name.clone(), v.to_json()))
                    .collect(),
            ),
        }
    }

    /// An error located at this node.
    pub fn error(&self, file: &str, message: impl Into<String>) -> SourceError {
        SourceError::new(file, self.pos, message)
    }
}

/// Numbers as people write them: `2`, not `2.0`.
pub fn number_text(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        format!("{}", n as i64)
    } else {
        n.to_string()
    }
}

fn number_json(n: f64) -> serde_json::Value {
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        serde_json::Value::from(n as i64)
    } else {
        serde_json::Number::from_f64(n)
            .map(serde_json::Value::Number)
            .unwrap_or(serde_json::Value::Null)
    }
}

/// How deep maps and lists may nest in a YAML file we read (the root map is level 1). Whatever
/// writes YAML we read back (`Pulumi.<stack>.yaml`) checks this same number before writing.
pub const MAX_DEPTH: usize = 64;

/// Parses one YAML document into nodes, nesting at most [`MAX_DEPTH`] levels.
///
/// Scalars follow YAML 1.2's core schema, as Go's yaml.v3 (Pulumi's parser) does for untyped
/// values: only `true`/`false` are booleans (`yes`, `on`, `no` stay strings), and numbers with
/// a leading zero (`0755`, zip codes) stay strings. Duplicate keys are an error. A document
/// past stepdeck's limits (`limits`) is refused, naming the limit.
pub fn parse_document(file: &str, text: &str) -> Result<Node, SourceError> {
    parse_document_to_depth(file, text, MAX_DEPTH)
}

/// [`parse_document`] nesting at most `max_depth` levels: more than [`MAX_DEPTH`] only to
/// repair a file that holds too much (a value that `config rm` then removes).
pub fn parse_document_to_depth(
    file: &str,
    text: &str,
    max_depth: usize,
) -> Result<Node, SourceError> {
    parse_within(file, text, max_depth, MAX_YAML_NODES)
}

/// [`parse_document_to_depth`] with at most `max_nodes` nodes.
fn parse_within(
    file: &str,
    text: &str,
    max_depth: usize,
    max_nodes: usize,
) -> Result<Node, SourceError> {
    let start = Pos { line: 1, col: 1 };
    let options = serde_saphyr::options! {
        strict_booleans: true,
        leading_zero_numbers_as_strings: true,
        with_snippet: false,
        budget: serde_saphyr::budget! {
            max_nodes: max_nodes,
            // Every node is one event, every list and map one more for its end.
            max_events: max_nodes.saturating_mul(2).saturating_add(16),
            max_total_scalar_bytes: MAX_YAML_SCALAR_BYTES,
            max_depth: max_depth,
        },
    };
    if text.trim().is_empty() {
        return Ok(Node {
            pos: start,
            kind: NodeKind::Map(Vec::new()),
        });
    }
    let spanned: Spanned<Raw> =
        serde_saphyr::from_str_with_options(text, options).map_err(|e| {
            let pos = e
                .location()
                .map(|l| Pos {
                    line: l.line() as u32,
                    col: l.column() as u32,
                })
                .unwrap_or(start);
            let message =
                past_limit(&e, max_depth, max_nodes).unwrap_or_else(|| syntax_message(&e));
            SourceError::new(file, pos, message)
        })?;
    Ok(from_spanned(spanned))
}

/// What a document past one of stepdeck's limits is told, naming the limit.
fn past_limit(e: &serde_saphyr::Error, max_depth: usize, max_nodes: usize) -> Option<String> {
    use serde_saphyr::budget::BudgetBreach;
    let mut e = e;
    while let serde_saphyr::Error::WithSnippet { error, .. } = e {
        e = error;
    }
    let serde_saphyr::Error::Budget { breach, .. } = e else {
        return None;
    };
    Some(match breach {
        BudgetBreach::Nodes { .. } | BudgetBreach::Events { .. } => format!(
            "the document has more than {} YAML nodes (values, lists and maps), the most \
             stepdeck reads",
            thousands(max_nodes)
        ),
        BudgetBreach::Depth { .. } => {
            format!("maps and lists nest deeper than {max_depth} levels, the most stepdeck reads")
        }
        BudgetBreach::ScalarBytes { .. } => format!(
            "the document holds more than {} MiB of text, the most stepdeck reads",
            MAX_YAML_SCALAR_BYTES >> 20
        ),
        other => format!("the document is past what stepdeck reads ({other:?})"),
    })
}

/// `32000000` as `32,000,000`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// The parser's message without its own location prefix (we print ours).
fn syntax_message(e: &serde_saphyr::Error) -> String {
    let text = e.to_string();
    let text = text.trim();
    let stripped = text
        .strip_prefix("error: ")
        .unwrap_or(text)
        .trim_start_matches(|c: char| c.is_ascii_digit() || c == ':' || c == ' ');
    let stripped = match stripped.strip_prefix("line ") {
        Some(rest) => rest
            .split_once(": ")
            .map(|(_, m)| m)
            .unwrap_or(rest)
            .to_string(),
        None => stripped.to_string(),
    };
    format!("YAML syntax error: {stripped}")
}

/// The raw shape deserialized from saphyr; children carry saphyr's spans.
enum Raw {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Seq(Vec<Spanned<Raw>>),
    Map(Vec<(Spanned<String>, Spanned<Raw>)>),
}

fn pos_of<T>(s: &Spanned<T>) -> Pos {
    Pos {
        line: s.referenced.line() as u32,
        col: s.referenced.column() as u32,
    }
}

fn from_spanned(s: Spanned<Raw>) -> Node {
    let pos = pos_of(&s);
    let kind = match s.value {
        Raw::Null => NodeKind::Null,
        Raw::Bool(b) => NodeKind::Bool(b),
        Raw::Number(n) => NodeKind::Number(n),
        Raw::String(s) => NodeKind::String(s),
        Raw::Seq(items) => NodeKind::Seq(items.into_iter().map(from_spanned).collect()),
        Raw::Map(entries) => NodeKind::Map(
            entries
                .into_iter()
                .map(|(k, v)| {
                    let key = Key {
                        pos: pos_of(&k),
                        name: k.value,
                    };
                    (key, from_spanned(v))
                })
                .collect(),
        ),
    };
    Node { pos, kind }
}

impl<'de> Deserialize<'de> for Raw {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Raw, D::Error> {
        d.deserialize_any(RawVisitor)
    }
}

struct RawVisitor;

impl<'de> Visitor<'de> for RawVisitor {
    type Value = Raw;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Raw, E> {
        Ok(Raw::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Raw, E> {
        Ok(Raw::Number(v as f64))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Raw, E> {
        Ok(Raw::Number(v as f64))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Raw, E> {
        Ok(Raw::Number(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Raw, E> {
        Ok(Raw::String(v.to_string()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Raw, E> {
        Ok(Raw::String(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Raw, E> {
        Ok(Raw::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Raw, E> {
        Ok(Raw::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Raw, D::Error> {
        Raw::deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Raw, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Spanned<Raw>>()? {
            items.push(item);
        }
        Ok(Raw::Seq(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Raw, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<Spanned<String>>()? {
            let value = map.next_value::<Spanned<Raw>>()?;
            entries.push((key, value));
        }
        Ok(Raw::Map(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_carry_line_and_column() {
        let doc = parse_document("f.yaml", "a:\n  b: [1, x]\n  c: hi\n").unwrap();
        let a = doc.get("a").unwrap();
        assert_eq!(a.pos, Pos { line: 2, col: 3 });
        let b = a.get("b").unwrap();
        let NodeKind::Seq(items) = &b.kind else {
            panic!("not a seq")
        };
        assert_eq!(items[1].pos, Pos { line: 2, col: 10 });
        assert_eq!(items[0].kind, NodeKind::Number(1.0));
        let (key, _) = &a.as_map().unwrap()[1];
        assert_eq!((key.name.as_str(), key.pos), ("c", Pos { line: 3, col: 3 }));
    }

    #[test]
    fn booleans_are_strict_and_leading_zeros_stay_strings() {
        let doc =
            parse_document("f.yaml", "a: yes\nb: on\nc: true\nd: 0755\ne: 12\nf: 1.5\n").unwrap();
        assert_eq!(doc.get("a").unwrap().kind, NodeKind::String("yes".into()));
        assert_eq!(doc.get("b").unwrap().kind, NodeKind::String("on".into()));
        assert_eq!(doc.get("c").unwrap().kind, NodeKind::Bool(true));
        assert_eq!(doc.get("d").unwrap().kind, NodeKind::String("0755".into()));
        assert_eq!(doc.get("e").unwrap().kind, NodeKind::Number(12.0));
        assert_eq!(doc.get("f").unwrap().scalar_text().unwrap(), "1.5");
    }

    #[test]
    fn syntax_errors_name_file_line_and_column() {
        let err = parse_document("Pulumi.yaml", "a: 1\nb: [1, 2\n").unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("Pulumi.yaml:"), "{text}");
        assert!(text.contains("YAML syntax error"), "{text}");
        let err = parse_document("Pulumi.yaml", "a: 1\na: 2\n").unwrap_err();
        assert_eq!(err.pos.line, 2, "{err}");
    }

    #[test]
    fn a_document_past_the_node_limit_is_refused_naming_the_file_and_the_limit() {
        // The document map, `resources`, its map, and four nodes for each resource: 11.
        let text = "resources:\n  a: {type: t}\n  b: {type: t}\n";
        assert!(parse_within("Pulumi.yaml", text, MAX_DEPTH, 11).is_ok());
        let err = parse_within("Pulumi.yaml", text, MAX_DEPTH, 10).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Pulumi.yaml:3:13: the document has more than 10 YAML nodes (values, lists and \
             maps), the most stepdeck reads"
        );
        assert_eq!(thousands(MAX_YAML_NODES), "32,000,000");
    }

    #[test]
    fn nesting_past_the_depth_limit_is_refused_naming_the_limit() {
        // Deserializing nests a call per level: in a debug build 64 levels take more than the
        // 2 MiB of a test's thread, so this runs on a thread with the main thread's 8 MiB.
        let parsed = std::thread::Builder::new()
            .stack_size(8 << 20)
            .spawn(|| {
                let nested = |depth| format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
                let deep = parse_document("Pulumi.dev.yaml", &nested(MAX_DEPTH + 1));
                let at_limit = parse_document("Pulumi.dev.yaml", &nested(MAX_DEPTH));
                (deep.map(drop), at_limit.map(drop))
            })
            .unwrap()
            .join()
            .unwrap();
        let err = parsed.0.unwrap_err();
        assert!(
            err.message
                .contains("nest deeper than 64 levels, the most stepdeck reads"),
            "{err}"
        );
        assert!(parsed.1.is_ok());
    }
}
