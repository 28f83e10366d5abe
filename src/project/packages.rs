//! The `packages:` of a `Pulumi.yaml` or `PulumiPlugin.yaml`, as Pulumi reads and writes them:
//! each name maps to a source (a path, a plugin name) or to `{source, version, parameters}`.
//! `package add` records an entry by editing the file's text, so the rest of the file (its
//! comments, its order) stays as the user wrote it.

use std::path::Path;

use serde_json::{Map, Value};

use crate::file_limits::{self, YAML_FILE};
use crate::located_yaml::{Node, NodeKind, SourceError, parse_document};

use super::error::ProjectError;
use super::yaml_text;

/// One `packages:` entry (Pulumi's `PackageSpec`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PackageSpec {
    /// A local path (starting with `.` or `/`), or a plugin name.
    pub source: String,
    pub version: Option<String>,
    /// What the provider is parameterized with (`package add <source> [args]`).
    pub parameters: Vec<String>,
}

impl PackageSpec {
    /// Whether the source is a path on this machine, as Pulumi tells them apart.
    pub fn is_local(&self) -> bool {
        is_local_source(&self.source)
    }

    /// The entry's value as Pulumi writes it: the bare source when that is all there is.
    fn to_value(&self) -> Value {
        if self.version.is_none() && self.parameters.is_empty() {
            return Value::String(self.source.clone());
        }
        let mut m = Map::new();
        m.insert("source".into(), Value::String(self.source.clone()));
        if let Some(v) = &self.version {
            m.insert("version".into(), Value::String(v.clone()));
        }
        if !self.parameters.is_empty() {
            let params = self.parameters.iter().cloned().map(Value::String).collect();
            m.insert("parameters".into(), Value::Array(params));
        }
        Value::Object(m)
    }
}

/// Whether a package source names a path rather than a plugin or a URL: it starts with `.`,
/// `/` or `~`.
pub fn is_local_source(source: &str) -> bool {
    source.starts_with('.') || source.starts_with('/') || source.starts_with('~')
}

/// A string entry's source and version, split at its first `@` as Pulumi splits it, for paths
/// too (`../provider@0.0.0`).
pub fn split_version(text: &str) -> (&str, Option<&str>) {
    match text.split_once('@') {
        Some((source, version)) => (source, Some(version)),
        None => (text, None),
    }
}

/// The `packages:` entries of a project or plugin file, in file order.
pub fn read_packages(file: &Path) -> Result<Vec<(String, PackageSpec)>, ProjectError> {
    let text = file_limits::read_to_string(file, YAML_FILE)?;
    Ok(parse_packages(&file.display().to_string(), &text)?)
}

/// Parses the `packages:` entries of file text (`file` names it in errors).
pub fn parse_packages(file: &str, text: &str) -> Result<Vec<(String, PackageSpec)>, SourceError> {
    let doc = parse_document(file, text)?;
    let Some(packages) = doc.get("packages").filter(|n| !is_null(n)) else {
        return Ok(Vec::new());
    };
    let entries = packages
        .as_map()
        .ok_or_else(|| packages.error(file, "`packages` must be a mapping of name to source"))?;
    entries
        .iter()
        .map(|(key, spec)| Ok((key.name.clone(), entry(file, &key.name, spec)?)))
        .collect()
}

fn entry(file: &str, name: &str, spec: &Node) -> Result<PackageSpec, SourceError> {
    if let NodeKind::String(text) = &spec.kind {
        let (source, version) = split_version(text);
        return Ok(PackageSpec {
            source: source.to_string(),
            version: version.map(str::to_string),
            ..PackageSpec::default()
        });
    }
    if spec.as_map().is_none() {
        return Err(spec.error(
            file,
            format!("`packages.{name}` must be a source or a mapping with `source`"),
        ));
    }
    let text = |field: &str| -> Result<Option<String>, SourceError> {
        match spec.get(field).filter(|n| !is_null(n)) {
            None => Ok(None),
            Some(n) => n.scalar_text().map(Some).ok_or_else(|| {
                n.error(file, format!("`packages.{name}.{field}` must be a string"))
            }),
        }
    };
    let source = text("source")?
        .ok_or_else(|| spec.error(file, format!("`packages.{name}` is missing `source`")))?;
    let parameters = match spec.get("parameters").filter(|n| !is_null(n)) {
        None => Vec::new(),
        Some(n) => {
            let NodeKind::Seq(items) = &n.kind else {
                return Err(n.error(
                    file,
                    format!("`packages.{name}.parameters` must be a list of strings"),
                ));
            };
            items
                .iter()
                .map(|i| {
                    i.scalar_text().ok_or_else(|| {
                        i.error(
                            file,
                            format!("`packages.{name}.parameters` must be a list of strings"),
                        )
                    })
                })
                .collect::<Result<_, _>>()?
        }
    };
    Ok(PackageSpec {
        source,
        version: text("version")?,
        parameters,
    })
}

fn is_null(n: &Node) -> bool {
    matches!(n.kind, NodeKind::Null)
}

/// Records `name` in the file's `packages:` (replacing an entry of that name), keeping every
/// other line as it was; the file is written only if it reads back with the entry.
pub fn record_package(file: &Path, name: &str, spec: &PackageSpec) -> Result<(), ProjectError> {
    let text = file_limits::read_to_string(file, YAML_FILE)?;
    let shown = file.display().to_string();
    let edited = with_package(&shown, &text, name, spec)?;
    let read_back = parse_packages(&shown, &edited)?;
    if !read_back.iter().any(|(n, s)| n == name && s == spec) {
        return Err(ProjectError::WouldNotRead {
            file: shown,
            why: format!("`packages.{name}` did not read back as written"),
        });
    }
    let tmp = file.with_extension("yaml.tmp");
    let io = |e| ProjectError::Io {
        path: file.to_path_buf(),
        source: e,
    };
    std::fs::write(&tmp, edited).map_err(io)?;
    std::fs::rename(&tmp, file).map_err(io)
}

/// The text with `name: spec` in its `packages:` block (added at the end of the file when
/// there is none).
fn with_package(
    file: &str,
    text: &str,
    name: &str,
    spec: &PackageSpec,
) -> Result<String, SourceError> {
    let rendered = yaml_text::document(&[(name.to_string(), spec.to_value())]);
    let lines: Vec<&str> = text.lines().collect();
    let header = lines.iter().position(|l| {
        l.strip_prefix("packages:")
            .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t']))
    });
    let Some(header) = header else {
        let mut out = text.to_string();
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str("packages:\n");
        out.push_str(&indented(&rendered, 2));
        return Ok(out);
    };
    let inline = lines[header]["packages:".len()..].trim();
    let inline = inline.split(" #").next().unwrap_or("").trim();
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    if !inline.is_empty() && !inline.starts_with('#') {
        if !matches!(inline, "{}" | "null" | "~") {
            return Err(SourceError::new(
                file,
                crate::located_yaml::Pos {
                    line: header as u32 + 1,
                    col: 11,
                },
                "`packages` is written inline; write it as a block to add a package to it",
            ));
        }
        out[header] = "packages:".to_string();
    }
    // The block: the lines after the header that are blank or indented.
    let mut end = header + 1;
    while end < lines.len() && (lines[end].trim().is_empty() || lines[end].starts_with([' ', '\t']))
    {
        end += 1;
    }
    let indent = lines[header + 1..end]
        .iter()
        .find(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map_or(2, |l| l.len() - l.trim_start().len());
    // An entry of that name already there: its line and the deeper lines under it go.
    let mut insert_at = None;
    let mut i = header + 1;
    while i < end {
        let l = lines[i];
        let own_indent = l.len() - l.trim_start().len();
        if own_indent == indent && entry_key(l.trim_start()) == Some(name) {
            let mut j = i + 1;
            while j < end
                && (lines[j].trim().is_empty()
                    || lines[j].len() - lines[j].trim_start().len() > indent)
            {
                j += 1;
            }
            out.drain(i..j);
            insert_at = Some(i);
            break;
        }
        i += 1;
    }
    let at = insert_at.unwrap_or_else(|| {
        // After the block's last non-blank line.
        let mut last = end;
        while last > header + 1 && lines[last - 1].trim().is_empty() {
            last -= 1;
        }
        last
    });
    let new_lines: Vec<String> = indented(&rendered, indent)
        .lines()
        .map(str::to_string)
        .collect();
    out.splice(at..at, new_lines);
    let mut joined = out.join("\n");
    joined.push('\n');
    Ok(joined)
}

/// The key of a `key: value` line, unquoted.
fn entry_key(line: &str) -> Option<&str> {
    let (key, _) = line.split_once(':')?;
    Some(key.trim().trim_matches(|c| c == '"' || c == '\''))
}

fn indented(text: &str, by: usize) -> String {
    let pad = " ".repeat(by);
    text.lines().map(|l| format!("{pad}{l}\n")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(source: &str) -> PackageSpec {
        PackageSpec {
            source: source.into(),
            ..PackageSpec::default()
        }
    }

    #[test]
    fn a_file_without_packages_gains_the_block_at_its_end() {
        let out = with_package(
            "f",
            "name: p\nruntime: yaml\n",
            "comp",
            &spec("../provider"),
        )
        .unwrap();
        assert_eq!(
            out,
            "name: p\nruntime: yaml\npackages:\n  comp: ../provider\n"
        );
    }

    #[test]
    fn an_entry_of_the_same_name_is_replaced_in_place_and_other_lines_kept() {
        let text = "name: p\npackages:\n  # mine\n  a:\n    source: x\n    version: 1.0.0\n  b: ./b\nresources: {}\n";
        let s = PackageSpec {
            source: "terraform-provider".into(),
            version: Some("0.8.1".into()),
            parameters: vec!["hashicorp/random".into()],
        };
        let out = with_package("f", text, "a", &s).unwrap();
        assert_eq!(
            out,
            "name: p\npackages:\n  # mine\n  a:\n    parameters:\n      - hashicorp/random\n    source: terraform-provider\n    version: 0.8.1\n  b: ./b\nresources: {}\n"
        );
        let read = parse_packages("f", &out).unwrap();
        assert_eq!(read[0], ("a".to_string(), s));
        assert_eq!(read[1], ("b".to_string(), spec("./b")));
    }

    #[test]
    fn a_new_entry_goes_after_the_last_one() {
        let text = "packages:\n    a: ./a\n\nname: p\n";
        let out = with_package("f", text, "c", &spec("./c")).unwrap();
        assert_eq!(out, "packages:\n    a: ./a\n    c: ./c\n\nname: p\n");
    }

    #[test]
    fn an_empty_inline_block_becomes_a_block_and_a_full_one_is_refused() {
        let out = with_package("f", "packages: {}\nname: p\n", "c", &spec("./c")).unwrap();
        assert_eq!(out, "packages:\n  c: ./c\nname: p\n");
        let e = with_package("f", "packages: {a: ./a}\n", "c", &spec("./c")).unwrap_err();
        assert!(e.to_string().contains("written inline"), "{e}");
    }

    #[test]
    fn a_string_entry_splits_its_version_off_at_the_first_at_sign() {
        let specs = parse_packages(
            "Pulumi.yaml",
            "packages:\n  provider: ../provider@0.0.0\n  random: random@4.16.0\n  plain: ./plain\n",
        )
        .unwrap();
        let got: Vec<(&str, &str, Option<&str>)> = specs
            .iter()
            .map(|(n, s)| (n.as_str(), s.source.as_str(), s.version.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                ("provider", "../provider", Some("0.0.0")),
                ("random", "random", Some("4.16.0")),
                ("plain", "./plain", None),
            ]
        );
    }

    #[test]
    fn a_malformed_entry_is_named() {
        let e = parse_packages("Pulumi.yaml", "packages:\n  a:\n    version: 1\n").unwrap_err();
        assert!(
            e.to_string().contains("`packages.a` is missing `source`"),
            "{e}"
        );
    }
}
