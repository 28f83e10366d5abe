//! Pulumi's plugin cache, `$PULUMI_HOME/plugins` (default `~/.pulumi/plugins`): one directory
//! `<kind>-<name>-v<version>` per installed plugin, its executable `pulumi-<kind>-<name>`
//! inside; a `.partial` file beside a directory marks an install not finished, a
//! `.lastused` file's time the plugin's last start. `plugin ls|install|rm` read and write it,
//! and the plugin search finds resource plugins in it.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The plugin kinds Pulumi knows.
pub const KINDS: &[&str] = &["analyzer", "language", "resource", "converter", "tool"];

/// Why the cache could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum PluginCacheError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0} is not executable")]
    NotExecutable(PathBuf),
    #[error("{0} is a zip archive: extract it and install its directory")]
    Zip(PathBuf),
    #[error("extracting {path} with tar: {detail}")]
    Extract { path: PathBuf, detail: String },
    #[error("invalid plugin semver: {0:?}")]
    BadVersion(String),
    #[error("no plugin directory: set PULUMI_HOME or HOME")]
    NoHome,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> PluginCacheError + '_ {
    move |source| PluginCacheError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// One installed plugin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CachedPlugin {
    pub kind: String,
    pub name: String,
    pub version: semver::Version,
    /// Its directory.
    pub path: PathBuf,
}

impl CachedPlugin {
    /// The bytes of every file in its directory.
    pub fn size(&self) -> u64 {
        walkdir::WalkDir::new(&self.path)
            .into_iter()
            .flatten()
            .filter_map(|e| e.metadata().ok())
            .filter(|m| m.is_file())
            .map(|m| m.len())
            .sum()
    }

    /// When it was installed: its directory's time.
    pub fn install_time(&self) -> Option<SystemTime> {
        std::fs::metadata(&self.path)
            .and_then(|m| m.modified())
            .ok()
    }

    /// When it was last started: its `.lastused` file's time, if it ever was.
    pub fn last_used_time(&self) -> Option<SystemTime> {
        std::fs::metadata(sidecar(&self.path, "lastused"))
            .and_then(|m| m.modified())
            .ok()
    }

    /// Deletes it and the files beside its directory.
    pub fn remove(&self) -> Result<(), PluginCacheError> {
        std::fs::remove_dir_all(&self.path).map_err(io(&self.path))?;
        for suffix in ["partial", "lock", "lastused"] {
            let _ = std::fs::remove_file(sidecar(&self.path, suffix));
        }
        Ok(())
    }
}

/// `<dir>.<suffix>`, a file beside a plugin's directory.
fn sidecar(dir: &Path, suffix: &str) -> PathBuf {
    let mut s = dir.as_os_str().to_os_string();
    s.push(".");
    s.push(suffix);
    PathBuf::from(s)
}

/// The cache directory: `$PULUMI_HOME/plugins`, else `~/.pulumi/plugins`.
pub fn plugin_dir() -> Option<PathBuf> {
    std::env::var_os("PULUMI_HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".pulumi")))
        .map(|h| h.join("plugins"))
}

/// A version as Pulumi takes it (tolerantly: `v1.2` is 1.2.0).
pub fn parse_version(text: &str) -> Result<semver::Version, PluginCacheError> {
    let bare = text.trim().trim_start_matches('v');
    let mut candidate = bare.to_string();
    for _ in 0..3 {
        if let Ok(v) = semver::Version::parse(&candidate) {
            return Ok(v);
        }
        candidate.push_str(".0");
    }
    Err(PluginCacheError::BadVersion(text.to_string()))
}

/// The installed plugins of `dir` (none when it does not exist), unfinished installs left out.
pub fn list(dir: &Path) -> Result<Vec<CachedPlugin>, PluginCacheError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io(dir)(e)),
    };
    let mut plugins = Vec::new();
    for entry in entries.flatten() {
        let file_name = entry.file_name().to_string_lossy().into_owned();
        let Some(plugin) = parse_dir_name(&file_name) else {
            continue;
        };
        let path = entry.path();
        if !path.is_dir() || sidecar(&path, "partial").exists() {
            continue;
        }
        plugins.push(CachedPlugin { path, ..plugin });
    }
    // By name, then newest first, as Pulumi lists them.
    plugins.sort_by(|a, b| {
        (&a.name, &a.kind)
            .cmp(&(&b.name, &b.kind))
            .then(b.version.cmp(&a.version))
    });
    Ok(plugins)
}

/// `resource-aws-v6.0.0` as a plugin (its path left empty).
fn parse_dir_name(name: &str) -> Option<CachedPlugin> {
    let (kind, rest) = name.split_once('-')?;
    if !KINDS.contains(&kind) {
        return None;
    }
    let (plugin, version) = rest.rsplit_once("-v")?;
    let version = semver::Version::parse(version).ok()?;
    (!plugin.is_empty()).then(|| CachedPlugin {
        kind: kind.to_string(),
        name: plugin.to_string(),
        version,
        path: PathBuf::new(),
    })
}

/// Installs a plugin from `source` into `dir`: an executable becomes the plugin's
/// `pulumi-<kind>-<name>`, a directory is copied whole, a `.tar.gz` is extracted. A plugin already installed at that
/// version is replaced. The `.partial` marker makes a half-done install invisible.
pub fn install(
    dir: &Path,
    kind: &str,
    name: &str,
    version: &semver::Version,
    source: &Path,
) -> Result<CachedPlugin, PluginCacheError> {
    let meta = std::fs::metadata(source).map_err(io(source))?;
    let file_name = source.to_string_lossy();
    if meta.is_file() && file_name.ends_with(".zip") {
        return Err(PluginCacheError::Zip(source.to_path_buf()));
    }
    let tarball = meta.is_file() && [".tar.gz", ".tgz"].iter().any(|s| file_name.ends_with(s));
    if meta.is_file() && !tarball && !is_executable(&meta) {
        return Err(PluginCacheError::NotExecutable(source.to_path_buf()));
    }
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let target = dir.join(format!("{kind}-{name}-v{version}"));
    let partial = sidecar(&target, "partial");
    std::fs::write(&partial, b"").map_err(io(&partial))?;
    if target.exists() {
        std::fs::remove_dir_all(&target).map_err(io(&target))?;
    }
    std::fs::create_dir_all(&target).map_err(io(&target))?;
    let filled = if tarball {
        extract(source, &target)
    } else if meta.is_file() {
        let exe = target.join(format!("pulumi-{kind}-{name}"));
        std::fs::copy(source, &exe).map(drop).map_err(io(&exe))
    } else {
        copy_dir(source, &target)
    };
    if let Err(e) = filled {
        // Nothing half-installed is left behind.
        let _ = std::fs::remove_dir_all(&target);
        let _ = std::fs::remove_file(&partial);
        return Err(e);
    }
    std::fs::remove_file(&partial).map_err(io(&partial))?;
    Ok(CachedPlugin {
        kind: kind.to_string(),
        name: name.to_string(),
        version: version.clone(),
        path: target,
    })
}

/// Extracts a plugin's `.tar.gz` (as Pulumi publishes plugins) with the system's `tar`.
fn extract(tarball: &Path, into: &Path) -> Result<(), PluginCacheError> {
    let failed = |detail: String| PluginCacheError::Extract {
        path: tarball.to_path_buf(),
        detail,
    };
    let out = std::process::Command::new("tar")
        .arg("-xzf")
        .arg(tarball)
        .arg("-C")
        .arg(into)
        .output()
        .map_err(|e| failed(e.to_string()))?;
    if !out.status.success() {
        return Err(failed(
            String::from_utf8_lossy(&out.stderr).trim().to_string(),
        ));
    }
    Ok(())
}

fn copy_dir(from: &Path, to: &Path) -> Result<(), PluginCacheError> {
    for entry in walkdir::WalkDir::new(from).min_depth(1) {
        let entry = entry.map_err(|e| PluginCacheError::Io {
            path: from.to_path_buf(),
            source: e.into(),
        })?;
        let rel = entry.path().strip_prefix(from).unwrap_or(entry.path());
        let dest = to.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dest).map_err(io(&dest))?;
        } else {
            std::fs::copy(entry.path(), &dest).map_err(io(&dest))?;
        }
    }
    Ok(())
}

fn is_executable(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

/// Records that the plugin whose directory holds `exe` is being started (best effort).
pub(super) fn mark_used(exe: &Path) {
    if let Some(dir) = exe.parent() {
        let _ = std::fs::write(sidecar(dir, "lastused"), b"");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directory_names_are_kind_name_and_version() {
        let p = parse_dir_name("resource-aws-native-v1.2.3").unwrap();
        assert_eq!(
            (p.kind.as_str(), p.name.as_str()),
            ("resource", "aws-native")
        );
        assert_eq!(p.version, semver::Version::new(1, 2, 3));
        assert!(parse_dir_name("resource-aws-v1.2.3.lock").is_none());
        assert!(parse_dir_name("thing-aws-v1.2.3").is_none());
        assert_eq!(
            parse_version("v1.2").unwrap(),
            semver::Version::new(1, 2, 0)
        );
        assert!(parse_version("one").is_err());
    }
}
