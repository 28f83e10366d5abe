//! YAML text as Pulumi writes `Pulumi.<stack>.yaml` (go-yaml v3 with a two-space indent), so a
//! file stepdeck saves reads and diffs like one Pulumi saved: map keys in go-yaml's natural
//! order, sequences indented under their key, scalars plain unless they would read back as
//! another type (then double-quoted) or plain is unsafe (then single-quoted), multi-line
//! strings as literal blocks.

use std::cmp::Ordering;

use serde_json::{Number, Value};

/// The document for top-level `entries`, written in the order given.
pub(super) fn document(entries: &[(String, Value)]) -> String {
    let mut out = String::new();
    for (k, v) in entries {
        entry(&mut out, 0, k, v);
    }
    out
}

/// One `key: value` line (and what nests under it) at `indent`.
fn entry(out: &mut String, indent: usize, key: &str, value: &Value) {
    out.push_str(&" ".repeat(indent));
    out.push_str(&scalar_text(key, indent));
    out.push(':');
    nested(out, indent, value);
}

/// What follows `key:` or `- `: an inline scalar, or a block on the next lines.
fn nested(out: &mut String, indent: usize, value: &Value) {
    match value {
        Value::Object(m) if !m.is_empty() => {
            out.push('\n');
            for (k, v) in sorted(m) {
                entry(out, indent + 2, k, v);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            out.push('\n');
            for item in items {
                sequence_item(out, indent + 2, item);
            }
        }
        other => {
            out.push(' ');
            out.push_str(&inline(other, indent + 2));
            out.push('\n');
        }
    }
}

/// `- item` at `indent`; a map's first entry shares the dash's line.
fn sequence_item(out: &mut String, indent: usize, item: &Value) {
    out.push_str(&" ".repeat(indent));
    out.push('-');
    match item {
        Value::Object(m) if !m.is_empty() => {
            for (i, (k, v)) in sorted(m).into_iter().enumerate() {
                if i == 0 {
                    out.push(' ');
                    out.push_str(&scalar_text(k, indent + 2));
                    out.push(':');
                    nested(out, indent + 2, v);
                } else {
                    entry(out, indent + 2, k, v);
                }
            }
        }
        Value::Array(items) if !items.is_empty() => {
            for (i, inner) in items.iter().enumerate() {
                if i == 0 {
                    out.push(' ');
                    let mut first = String::new();
                    sequence_item(&mut first, indent + 2, inner);
                    out.push_str(first.trim_start());
                } else {
                    sequence_item(out, indent + 2, inner);
                }
            }
        }
        other => {
            out.push(' ');
            out.push_str(&inline(other, indent + 2));
            out.push('\n');
        }
    }
}

/// A scalar or an empty collection, as written after `key: ` or `- `.
fn inline(v: &Value, indent: usize) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => number_text(n),
        Value::String(s) => scalar_text(s, indent),
        Value::Array(_) => "[]".into(),
        Value::Object(_) => "{}".into(),
    }
}

fn sorted(m: &serde_json::Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut entries: Vec<_> = m.iter().collect();
    entries.sort_by(|a, b| natural_order(a.0, b.0));
    entries
}

/// go-yaml's key order: letters by code point, digit runs by their numeric value.
fn natural_order(a: &str, b: &str) -> Ordering {
    let (ar, br): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut digits = false;
    for i in 0..ar.len().min(br.len()) {
        if ar[i] == br[i] {
            digits = ar[i].is_numeric();
            continue;
        }
        let (al, bl) = (ar[i].is_alphabetic(), br[i].is_alphabetic());
        if al && bl {
            return ar[i].cmp(&br[i]);
        }
        if al || bl {
            let a_first = if digits { al } else { bl };
            return if a_first {
                Ordering::Less
            } else {
                Ordering::Greater
            };
        }
        let (mut an, mut bn) = (0i64, 0i64);
        if ar[i] == '0' || br[i] == '0' {
            let nonzero_before = ar[..i]
                .iter()
                .rev()
                .take_while(|c| c.is_numeric())
                .any(|c| *c != '0');
            if nonzero_before {
                (an, bn) = (1, 1);
            }
        }
        let run = |r: &[char], mut n: i64| {
            let mut end = i;
            while end < r.len() && r[end].is_ascii_digit() {
                n = n
                    .wrapping_mul(10)
                    .wrapping_add(i64::from(r[end] as u8 - b'0'));
                end += 1;
            }
            (n, end)
        };
        let ((an, ai), (bn, bi)) = (run(&ar, an), run(&br, bn));
        return an
            .cmp(&bn)
            .then(ai.cmp(&bi))
            .then_with(|| ar[i].cmp(&br[i]));
    }
    ar.len().cmp(&br.len())
}

/// Numbers as Go formats them: integers in decimal, floats in `%g` shortest form.
fn number_text(n: &Number) -> String {
    if n.is_i64() || n.is_u64() {
        return n.to_string();
    }
    let f = n.as_f64().unwrap_or_default();
    if f.is_infinite() {
        return if f > 0.0 { ".inf" } else { "-.inf" }.into();
    }
    if f.is_nan() {
        return ".nan".into();
    }
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').expect("`{:e}` has an exponent");
    let exp: i32 = exp.parse().expect("`{:e}` exponent is a number");
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{mantissa}e{sign}{:02}", exp.abs());
    }
    format!("{f}")
}

/// A string scalar in the style go-yaml picks for it.
fn scalar_text(s: &str, indent: usize) -> String {
    if s.contains('\n') && literal_allowed(s) {
        return literal(s, indent);
    }
    if s.contains('\n') || reads_as_other_type(s) || has_special_characters(s) {
        return double_quoted(s);
    }
    if plain_allowed(s) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "''"))
    }
}

/// Characters libyaml will not write outside double quotes (tabs, controls, a BOM).
fn has_special_characters(s: &str) -> bool {
    s.chars().any(|c| {
        let printable = matches!(c, '\n' | '\u{85}' | ' '..='~' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
            && c != '\u{FEFF}';
        !printable
    })
}

fn literal_allowed(s: &str) -> bool {
    !has_special_characters(s)
        && !s.starts_with(' ')
        && !s.contains(" \n")
        && !s.contains("\n ")
        && !s.ends_with(' ')
}

/// A literal block (`|-`, `|` or `|+` by how many line breaks end it).
fn literal(s: &str, indent: usize) -> String {
    let body = s.trim_end_matches('\n');
    let chomp = match s.len() - body.len() {
        0 => "-",
        1 => "",
        _ => "+",
    };
    let pad = " ".repeat(indent);
    let mut out = format!("|{chomp}");
    for line in body.split('\n') {
        out.push('\n');
        if !line.is_empty() {
            out.push_str(&pad);
            out.push_str(line);
        }
    }
    for _ in 1..(s.len() - body.len()) {
        out.push('\n');
    }
    out
}

fn double_quoted(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            c if has_special_characters(c.encode_utf8(&mut [0; 4])) => {
                let code = c as u32;
                if code <= 0xFF {
                    out.push_str(&format!("\\x{code:02X}"));
                } else {
                    out.push_str(&format!("\\u{code:04X}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Whether libyaml may write the string plain in block context.
fn plain_allowed(s: &str) -> bool {
    let chars: Vec<char> = s.chars().collect();
    let Some(&first) = chars.first() else {
        return false;
    };
    if s.starts_with("---") || s.starts_with("...") {
        return false;
    }
    let blank_or_end = |i: usize| chars.get(i).is_none_or(|c| *c == ' ');
    if first == ' ' || chars.last() == Some(&' ') {
        return false;
    }
    if "#,[]{}&*!|>'\"%@`".contains(first) {
        return false;
    }
    if matches!(first, '?' | ':' | '-') && blank_or_end(1) {
        return false;
    }
    for i in 1..chars.len() {
        match chars[i] {
            ':' if blank_or_end(i + 1) => return false,
            '#' if chars[i - 1] == ' ' => return false,
            _ => {}
        }
    }
    true
}

/// Whether go-yaml would read the plain string back as something else than a string (null,
/// bool, number, timestamp, merge key), so it must be quoted.
fn reads_as_other_type(s: &str) -> bool {
    const SPECIAL: &[&str] = &[
        "", "~", "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE", "y",
        "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "on", "On", "ON", "off", "Off",
        "OFF", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF",
        ".nan", ".NaN", ".NAN", "<<",
    ];
    if SPECIAL.contains(&s) {
        return true;
    }
    match s.chars().next() {
        Some('.') => s.parse::<f64>().is_ok(),
        Some(c) if c.is_ascii_digit() || c == '+' || c == '-' => {
            let plain = s.replace('_', "");
            is_timestamp(s)
                || is_go_int(&plain)
                || (is_yaml_float(&plain) && plain.parse::<f64>().is_ok())
                || is_base60_float(s)
        }
        _ => false,
    }
}

/// Go's `ParseInt(s, 0, 64)` syntax (sign, `0x`/`0o`/`0b`/leading-`0` prefixes), or the
/// binary and octal forms go-yaml adds.
fn is_go_int(s: &str) -> bool {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    let (digits, radix) = if let Some(h) = body.strip_prefix("0x").or(body.strip_prefix("0X")) {
        (h, 16)
    } else if let Some(o) = body.strip_prefix("0o").or(body.strip_prefix("0O")) {
        (o, 8)
    } else if let Some(b) = body.strip_prefix("0b").or(body.strip_prefix("0B")) {
        (b, 2)
    } else if body.len() > 1 && body.starts_with('0') {
        (&body[1..], 8)
    } else {
        (body, 10)
    };
    !digits.is_empty() && digits.chars().all(|c| c.is_digit(radix))
}

/// go-yaml's float syntax: `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`.
fn is_yaml_float(s: &str) -> bool {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    let (number, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let all_digits = |t: &str| t.chars().all(|c| c.is_ascii_digit());
    let number_ok = match number.split_once('.') {
        Some(("", frac)) => !frac.is_empty() && all_digits(frac),
        Some((int, frac)) => !int.is_empty() && all_digits(int) && all_digits(frac),
        None => !number.is_empty() && all_digits(number),
    };
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        !e.is_empty() && all_digits(e)
    });
    number_ok && exponent_ok
}

/// YAML 1.1 sexagesimal numbers (`1:30`), which go-yaml quotes.
fn is_base60_float(s: &str) -> bool {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    let (main, frac) = match body.split_once('.') {
        Some((m, f)) => (m, Some(f)),
        None => (body, None),
    };
    let mut parts = main.split(':');
    let head = parts.next().unwrap_or("");
    let head_ok = head.starts_with(|c: char| c.is_ascii_digit())
        && head.chars().all(|c| c.is_ascii_digit() || c == '_');
    let rest: Vec<&str> = parts.collect();
    let rest_ok = !rest.is_empty()
        && rest.iter().all(|p| {
            let b = p.as_bytes();
            match b.len() {
                1 => b[0].is_ascii_digit(),
                2 => (b'0'..=b'5').contains(&b[0]) && b[1].is_ascii_digit(),
                _ => false,
            }
        });
    let frac_ok = frac.is_none_or(|f| f.chars().all(|c| c.is_ascii_digit() || c == '_'));
    head_ok && rest_ok && frac_ok
}

/// go-yaml's timestamps: `YYYY-M-D`, optionally followed by a time (`T`, `t` or a space).
fn is_timestamp(s: &str) -> bool {
    let (date, time) = match s.find(['T', 't', ' ']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let parts: Vec<&str> = date.split('-').collect();
    let date_ok = parts.len() == 3
        && parts[0].len() == 4
        && parts[1..].iter().all(|p| (1..=2).contains(&p.len()))
        && parts.iter().all(|p| p.chars().all(|c| c.is_ascii_digit()));
    let time_ok = time.is_none_or(|t| {
        let clock: Vec<&str> = t.split(':').take(3).collect();
        clock.len() == 3
            && clock[..2]
                .iter()
                .all(|p| (1..=2).contains(&p.len()) && p.chars().all(|c| c.is_ascii_digit()))
    });
    date_ok && time_ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc(v: Value) -> String {
        let Value::Object(m) = v else { panic!() };
        document(&m.into_iter().collect::<Vec<_>>())
    }

    #[test]
    fn scalars_are_quoted_as_go_yaml_quotes_them() {
        let cases = [
            ("true", "\"true\""),
            ("123", "\"123\""),
            ("123.456", "\"123.456\""),
            ("0123", "\"0123\""),
            ("1_000", "\"1_000\""),
            ("0x1F", "\"0x1F\""),
            ("1e3", "\"1e3\""),
            ("yes", "\"yes\""),
            ("n", "\"n\""),
            ("~", "\"~\""),
            ("", "\"\""),
            ("12:30", "\"12:30\""),
            ("2024-01-02", "\"2024-01-02\""),
            ("hello", "hello"),
            ("v1:abc=", "v1:abc="),
            ("a b", "a b"),
            ("hello world: x", "'hello world: x'"),
            ("it's # not", "'it''s # not'"),
            ("-x", "-x"),
            ("- x", "'- x'"),
            ("*star", "'*star'"),
            (" lead", "' lead'"),
            ("tab\there", "\"tab\\there\""),
            ("1.2.3", "1.2.3"),
            ("über", "über"),
        ];
        for (s, want) in cases {
            assert_eq!(scalar_text(s, 2), want, "{s:?}");
        }
    }

    #[test]
    fn documents_nest_like_pulumi_stack_files() {
        let text = doc(json!({
            "encryptionsalt": "v1:salt",
            "config": {
                "p:tags": ["a", {"secure": "v1:xx"}, [1, 2], {"k": "v", "b": true}],
                "p:obj": {"n10": 1, "n9": 1.5, "empty": {}, "none": [], "multi": "a\nb\n"},
                "aws:region": "us-west-2",
                "aws-native:region": "x",
            }
        }));
        assert_eq!(
            text,
            "encryptionsalt: v1:salt
config:
  aws-native:region: x
  aws:region: us-west-2
  p:obj:
    empty: {}
    multi: |
      a
      b
    n9: 1.5
    n10: 1
    none: []
  p:tags:
    - a
    - secure: v1:xx
    - - 1
      - 2
    - b: true
      k: v
"
        );
    }

    #[test]
    fn floats_are_written_as_go_writes_them() {
        for (f, want) in [
            (1.5, "1.5"),
            (123.456, "123.456"),
            (1e21, "1e+21"),
            (100000.0, "100000"),
            (1234567.5, "1.2345675e+06"),
            (1e-7, "1e-07"),
        ] {
            assert_eq!(number_text(&Number::from_f64(f).unwrap()), want);
        }
    }
}
