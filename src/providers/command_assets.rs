//! The `command` provider's `assetPaths` and `archivePaths`: after a command ran, the files
//! under its directory matching the globs become the `assets` and `archive` outputs, as
//! pulumi-command collects them. Globs match paths relative to the directory, `/`-separated,
//! in the path dialect of [`Glob`]; a glob starting with `!` removes what earlier globs added.

use std::collections::BTreeMap;
use std::path::Path;

use walkdir::WalkDir;

use crate::engine::PropertyValue;
use crate::engine::model::asset::{asset_archive, file_asset};
use crate::engine::model::glob::Glob;

/// The files under `dir` the globs select, by relative path, each as a file asset of its
/// absolute path.
pub(super) fn glob_assets(
    dir: &Path,
    globs: &[String],
) -> Result<BTreeMap<String, PropertyValue>, String> {
    let patterns = globs
        .iter()
        .map(|g| {
            let (exclude, glob) = match g.strip_prefix('!') {
                Some(rest) => (true, rest),
                None => (false, g.as_str()),
            };
            Glob::path(glob)
                .map(|p| (exclude, p))
                .map_err(|e| format!("assetPaths/archivePaths: {e}"))
        })
        .collect::<Result<Vec<_>, String>>()?;
    let mut assets = BTreeMap::new();
    for relative in files(dir)? {
        for (exclude, pattern) in &patterns {
            if !pattern.matches(&relative) {
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

/// Every file under `dir` (symbolic links not followed), as `/`-separated paths relative to it.
fn files(dir: &Path) -> Result<Vec<String>, String> {
    let mut files = Vec::new();
    for entry in WalkDir::new(dir).min_depth(1) {
        let entry = entry.map_err(|e| {
            let at = e.path().unwrap_or(dir).display().to_string();
            format!("cannot list {at} for assetPaths/archivePaths: {e}")
        })?;
        if entry.file_type().is_dir() {
            continue;
        }
        let relative = entry.path().strip_prefix(dir).unwrap_or(entry.path());
        let parts: Vec<_> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect();
        files.push(parts.join("/"));
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

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
