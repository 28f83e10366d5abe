//! Globs, compiled once into a regular expression of the `regex` crate, which never backtracks:
//! a match costs the glob's length times the text's, whatever the stars. Two dialects share it.
//! URN globs (`--target`, `--replace`, `--exclude`, `--pause-before`, approval and decision
//! rules): `*` stays within a `::` segment, `**` matches anything, every other character is
//! itself. Path globs (the command provider's `assetPaths` and `archivePaths`, as pulumi-command
//! reads them): `*` and `?` stay within a `/` segment, `**` matches anything, `[a-z]`/`[!a]` are
//! classes, `{a,b}` alternatives, `\` escapes the next character.

use regex::{Regex, RegexBuilder};

/// One compiled glob.
#[derive(Clone, Debug)]
pub struct Glob(Regex);

/// A path glob that cannot be compiled (alternatives nested past the parser's limit).
#[derive(Debug, thiserror::Error)]
#[error("glob {glob:?}: {reason}")]
pub struct BadGlob {
    glob: String,
    reason: String,
}

impl Glob {
    /// A URN glob. Every URN glob compiles: its text is escaped and its groups do not nest.
    pub fn urn(glob: &str) -> Glob {
        let chars: Vec<char> = glob.chars().collect();
        let mut pattern = String::with_capacity(glob.len() * 2);
        let mut i = 0;
        while i < chars.len() {
            match chars[i] {
                '*' if chars.get(i + 1) == Some(&'*') => {
                    pattern.push_str(".*");
                    i += 1;
                }
                // A single star never takes the first `:` of a `::`; it may end on a `:` only
                // where the glob goes on with something else than `:`.
                '*' if chars.get(i + 1) == Some(&':') => pattern.push_str("(?:[^:]|:[^:])*"),
                '*' => pattern.push_str("(?:[^:]|:[^:])*:?"),
                c => push_literal(&mut pattern, c),
            }
            i += 1;
        }
        Glob(build(&pattern).expect("an escaped URN glob always compiles"))
    }

    /// A path glob; `/` separates its segments on every platform.
    pub fn path(glob: &str) -> Result<Glob, BadGlob> {
        let chars: Vec<char> = glob.chars().collect();
        let mut pattern = String::with_capacity(glob.len() * 2);
        path_pattern(&chars, &mut pattern);
        build(&pattern).map(Glob).map_err(|e| BadGlob {
            glob: glob.to_string(),
            reason: e.to_string(),
        })
    }

    /// Whether the whole of `text` matches.
    pub fn matches(&self, text: &str) -> bool {
        self.0.is_match(text)
    }
}

fn build(pattern: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(&format!("(?s)^(?:{pattern})$"))
        .size_limit(usize::MAX)
        .build()
}

fn push_literal(pattern: &mut String, c: char) {
    let mut buf = [0u8; 4];
    pattern.push_str(&regex::escape(c.encode_utf8(&mut buf)));
}

/// The regular expression of a path glob (see the module's comment).
fn path_pattern(glob: &[char], pattern: &mut String) {
    let mut i = 0;
    while i < glob.len() {
        let rest = &glob[i + 1..];
        match glob[i] {
            '*' if rest.first() == Some(&'*') => {
                pattern.push_str(".*");
                i += 1;
            }
            '*' => pattern.push_str("[^/]*"),
            '?' => pattern.push_str("[^/]"),
            '[' => match class_end(rest) {
                Some(end) => {
                    push_class(pattern, &rest[..end]);
                    i += end + 1;
                }
                None => push_literal(pattern, '['),
            },
            '{' => match alternatives(rest) {
                Some((alternatives, used)) => {
                    pattern.push_str("(?:");
                    for (n, alternative) in alternatives.iter().enumerate() {
                        if n > 0 {
                            pattern.push('|');
                        }
                        path_pattern(alternative, pattern);
                    }
                    pattern.push(')');
                    i += used;
                }
                None => push_literal(pattern, '{'),
            },
            '\\' if !rest.is_empty() => {
                push_literal(pattern, rest[0]);
                i += 1;
            }
            c => push_literal(pattern, c),
        }
        i += 1;
    }
}

/// Where a character class opened before `rest` closes: a `]` right after the opening (or its
/// `!`/`^`) is one of its members.
fn class_end(rest: &[char]) -> Option<usize> {
    let start = usize::from(matches!(rest.first(), Some('!' | '^')));
    rest.iter()
        .skip(start + 1)
        .position(|c| *c == ']')
        .map(|i| i + start + 1)
}

/// A class of single characters and `a-z` ranges, `!` or `^` first to negate it; it never
/// matches `/`.
fn push_class(pattern: &mut String, class: &[char]) {
    let (negated, class) = match class.split_first() {
        Some(('!' | '^', rest)) => (true, rest),
        _ => (false, class),
    };
    let mut members = String::new();
    let mut i = 0;
    while i < class.len() {
        if i + 2 < class.len() && class[i + 1] == '-' {
            // A range written backwards holds nothing.
            if class[i] <= class[i + 2] {
                push_literal(&mut members, class[i]);
                members.push('-');
                push_literal(&mut members, class[i + 2]);
            }
            i += 3;
        } else {
            push_literal(&mut members, class[i]);
            i += 1;
        }
    }
    if negated {
        pattern.push_str(&format!("[^/{members}]"));
    } else if members.is_empty() {
        // Nothing is in it: no character matches.
        pattern.push_str("[^\\x00-\\x{10FFFF}]");
    } else {
        pattern.push_str(&format!("[{members}&&[^/]]"));
    }
}

/// The alternatives of a `{a,b}` opened before `rest`, and how many characters of `rest` they
/// take with the closing `}`.
fn alternatives(rest: &[char]) -> Option<(Vec<&[char]>, usize)> {
    let mut depth = 0;
    let mut alternatives = Vec::new();
    let mut start = 0;
    for (i, c) in rest.iter().enumerate() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                alternatives.push(&rest[start..i]);
                return Some((alternatives, i + 1));
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                alternatives.push(&rest[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(glob: &str, text: &str) -> bool {
        Glob::path(glob).unwrap().matches(text)
    }

    #[test]
    fn path_globs_match_as_pulumi_command_reads_them() {
        assert!(path("*.txt", "a.txt"));
        assert!(!path("*.txt", "dir/a.txt"), "* stays within a segment");
        assert!(path("**.txt", "dir/sub/a.txt"));
        assert!(path("dir/**", "dir/sub/a.txt"));
        assert!(!path("**/a.txt", "a.txt"), "** then a literal /");
        assert!(path("out/?.log", "out/1.log"));
        assert!(!path("out/?.log", "out/12.log"));
        assert!(path("?.log", "é.log"), "? is one character");
        assert!(path("[a-c]x", "bx") && !path("[a-c]x", "dx"));
        assert!(path("[!a]x", "bx") && !path("[!a]x", "ax"));
        assert!(
            !path("a[!b]c", "a/c") && !path("a[/]c", "a/c"),
            "classes skip /"
        );
        assert!(path("[]]", "]") && path("[!]]", "a"));
        assert!(!path("[z-a]", "m"), "a backwards range holds nothing");
        assert!(path("{foo,bar}.txt", "bar.txt") && !path("{foo,bar}.txt", "baz.txt"));
        assert!(path("{a,{b,c}*}.txt", "cz.txt") && !path("{a,{b,c}*}.txt", "d.txt"));
        assert!(path("a\\*b", "a*b") && !path("a\\*b", "axb"));
        assert!(path("{a", "{a") && path("[a", "[a") && path("a\\", "a\\"));
        assert!(path("(a|b).+$", "(a|b).+$"), "regex syntax is literal text");
    }

    #[test]
    fn many_stars_over_a_long_path_do_not_backtrack() {
        let text = format!("{}b", "a/".repeat(2_000));
        assert!(path(&format!("{}/b", "**a".repeat(60)), &text));
        assert!(!path(&format!("{}/c", "**a".repeat(60)), &text));
    }
}
