//! The `command` provider's `assetPaths` and `archivePaths`: after a command ran, the files
//! under its directory matching the globs become the `assets` and `archive` outputs, as
//! pulumi-command collects them. Globs match paths relative to the directory, `/`-separated:
//! `*` and `?` stay within one path segment, `**` crosses segments, `[a-z]`/`[!a]` are classes,
//! `{a,b}` alternatives; a glob starting with `!` removes what earlier globs added.

use std::collections::BTreeMap;
use std::path::Path;

use crate::engine::PropertyValue;
use crate::engine::model::asset::{asset_archive, file_asset};

/// The files under `dir` the globs select, by relative path, each as a file asset of its
/// absolute path.
pub(super) fn glob_assets(
    dir: &Path,
    globs: &[String],
) -> Result<BTreeMap<String, PropertyValue>, String> {
    let patterns: Vec<(bool, Vec<char>)> = globs
        .iter()
        .map(|g| match g.strip_prefix('!') {
            Some(rest) => (true, rest.chars().collect()),
            None => (false, g.chars().collect()),
        })
        .collect();
    let mut files = Vec::new();
    walk(dir, "", &mut files)?;
    let mut assets = BTreeMap::new();
    for relative in files {
        let path: Vec<char> = relative.chars().collect();
        for (exclude, pattern) in &patterns {
            if !matches(pattern, &path) {
                continue;
            }
            if *exclude {
                assets.remove(&relative);
            } else {
                let full = dir.join(&relative);
                let asset = file_asset(Path::new(""), &full.to_string_lossy())
                    .map_err(|e| e.to_string())?;
                assets.insert(relative.clone(), asset);
            }
        }
    }
    Ok(assets)
}

/// The selected files as one archive (the `archive` output).
pub(super) fn glob_archive(dir: &Path, globs: &[String]) -> Result<PropertyValue, String> {
    Ok(asset_archive(
        glob_assets(dir, globs)?.into_iter().collect(),
    ))
}

/// Every file under `dir`, as paths relative to the walk's root, in name order.
fn walk(dir: &Path, prefix: &str, files: &mut Vec<String>) -> Result<(), String> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| {
            format!(
                "cannot list {} for assetPaths/archivePaths: {e}",
                dir.display()
            )
        })?
        .filter_map(Result::ok)
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        let relative = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        let kind = entry
            .file_type()
            .map_err(|e| format!("cannot read {}: {e}", entry.path().display()))?;
        if kind.is_dir() {
            walk(&entry.path(), &relative, files)?;
        } else {
            files.push(relative);
        }
    }
    Ok(())
}

/// Whether `path` matches the glob `pattern` (see the module's comment).
fn matches(pattern: &[char], path: &[char]) -> bool {
    let Some((&first, rest)) = pattern.split_first() else {
        return path.is_empty();
    };
    match first {
        '*' if rest.first() == Some(&'*') => {
            let rest = &rest[1..];
            (0..=path.len()).any(|i| matches(rest, &path[i..]))
        }
        '*' => {
            let segment = path.iter().position(|c| *c == '/').unwrap_or(path.len());
            (0..=segment).any(|i| matches(rest, &path[i..]))
        }
        '?' => path.first().is_some_and(|c| *c != '/') && matches(rest, &path[1..]),
        '[' => match class_end(rest) {
            Some(end) => {
                path.first()
                    .is_some_and(|c| *c != '/' && in_class(&rest[..end], *c))
                    && matches(&rest[end + 1..], &path[1..])
            }
            None => path.first() == Some(&'[') && matches(rest, &path[1..]),
        },
        '{' => match alternatives(rest) {
            Some((alts, after)) => alts.iter().any(|alt| {
                let mut joined = alt.clone();
                joined.extend_from_slice(after);
                matches(&joined, path)
            }),
            None => path.first() == Some(&'{') && matches(rest, &path[1..]),
        },
        '\\' if !rest.is_empty() => {
            path.first() == Some(&rest[0]) && matches(&rest[1..], &path[1..])
        }
        c => path.first() == Some(&c) && matches(rest, &path[1..]),
    }
}

/// Where a character class opened before `rest` closes.
fn class_end(rest: &[char]) -> Option<usize> {
    let start = usize::from(matches!(rest.first(), Some('!' | '^')));
    rest.iter()
        .skip(start + 1)
        .position(|c| *c == ']')
        .map(|i| i + start + 1)
}

fn in_class(class: &[char], c: char) -> bool {
    let (negated, class) = match class.split_first() {
        Some(('!' | '^', rest)) => (true, rest),
        _ => (false, class),
    };
    let mut found = false;
    let mut i = 0;
    while i < class.len() {
        if i + 2 < class.len() && class[i + 1] == '-' {
            found |= class[i] <= c && c <= class[i + 2];
            i += 3;
        } else {
            found |= class[i] == c;
            i += 1;
        }
    }
    found != negated
}

/// The alternatives of a `{a,b}` opened before `rest`, and what follows its `}`.
fn alternatives(rest: &[char]) -> Option<(Vec<Vec<char>>, &[char])> {
    let mut depth = 0;
    let mut alts = vec![Vec::new()];
    for (i, c) in rest.iter().enumerate() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => return Some((alts, &rest[i + 1..])),
            '}' => depth -= 1,
            ',' if depth == 0 => {
                alts.push(Vec::new());
                continue;
            }
            _ => {}
        }
        alts.last_mut().expect("one alternative at least").push(*c);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glob(pattern: &str, path: &str) -> bool {
        matches(
            &pattern.chars().collect::<Vec<_>>(),
            &path.chars().collect::<Vec<_>>(),
        )
    }

    #[test]
    fn globs_match_as_pulumi_command_compiles_them() {
        assert!(glob("*.txt", "a.txt"));
        assert!(!glob("*.txt", "dir/a.txt"), "* stays within a segment");
        assert!(glob("**.txt", "dir/sub/a.txt"));
        assert!(glob("dir/**", "dir/sub/a.txt"));
        assert!(glob("out/?.log", "out/1.log"));
        assert!(!glob("out/?.log", "out/12.log"));
        assert!(glob("[a-c]x", "bx") && !glob("[a-c]x", "dx"));
        assert!(glob("[!a]x", "bx") && !glob("[!a]x", "ax"));
        assert!(glob("{foo,bar}.txt", "bar.txt") && !glob("{foo,bar}.txt", "baz.txt"));
        assert!(glob("a\\*b", "a*b") && !glob("a\\*b", "axb"));
    }

    #[test]
    fn later_exclusions_remove_what_earlier_globs_added() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("out/skip")).unwrap();
        for f in ["out/a.txt", "out/b.log", "out/skip/c.txt", "top.txt"] {
            std::fs::write(dir.path().join(f), f).unwrap();
        }
        let globs = [
            "out/**".to_string(),
            "!**.log".to_string(),
            "!out/skip/*".to_string(),
        ];
        let assets = glob_assets(dir.path(), &globs).unwrap();
        assert_eq!(assets.keys().collect::<Vec<_>>(), ["out/a.txt"]);
        let asset = assets["out/a.txt"].to_json();
        assert_eq!(
            asset["path"],
            dir.path().join("out/a.txt").to_string_lossy().as_ref()
        );
        assert!(asset["hash"].as_str().is_some_and(|h| h.len() == 64));
        let archive = glob_archive(dir.path(), &["*.txt".to_string()])
            .unwrap()
            .to_json();
        assert!(archive["assets"]["top.txt"].is_object(), "{archive}");
        assert!(archive["assets"].get("out/a.txt").is_none());
    }
}
