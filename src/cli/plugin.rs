//! `plugin ls|install|rm`: Pulumi's plugin cache (`$PULUMI_HOME/plugins`), which stepdeck's
//! plugin search reads; `ls` adds the providers built into stepdeck and the provider plugins
//! on PATH. Nothing is downloaded: `install` takes a local executable or directory (`--file`).

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::time::SystemTime;

use anyhow::{Context, Result};
use serde_json::{Value, json};
use stepdeck::providers::BUILTIN_PACKAGES;
use stepdeck::rpc::plugin::cache::{self, CachedPlugin, KINDS, PluginCacheError};

use super::args::PluginCommand;
use super::errors::usage;
use super::stdout::outln;
use super::time_format::pulumi_time_secs;

/// A row of `plugin ls`.
struct Listed {
    name: String,
    kind: String,
    version: String,
    size: u64,
    installed: Option<SystemTime>,
    last_used: Option<SystemTime>,
    /// How it is provided when not from the cache: `built in`, or the file on PATH.
    origin: Option<String>,
}

pub(super) fn run(command: PluginCommand) -> Result<()> {
    match command {
        PluginCommand::Ls { json, project } => {
            if project {
                return Err(usage(
                    "--project is not supported: stepdeck does not read a project's plugin requirements",
                ));
            }
            list(json)
        }
        PluginCommand::Install {
            kind,
            name,
            version,
            file,
            ..
        } => install(kind, name, version, file),
        PluginCommand::Rm {
            kind,
            name,
            version,
            all,
            yes,
        } => remove(kind, name, version, all, yes),
    }
}

fn dir() -> Result<PathBuf> {
    cache::plugin_dir().ok_or_else(|| PluginCacheError::NoHome.into())
}

fn secs(t: Option<SystemTime>) -> Option<i64> {
    t.and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
        .and_then(|d| i64::try_from(d.as_secs()).ok())
}

fn listed() -> Result<Vec<Listed>> {
    let exe = std::env::current_exe().ok();
    let built = exe
        .as_deref()
        .and_then(|e| std::fs::metadata(e).ok())
        .and_then(|m| m.modified().ok());
    let mut rows: Vec<Listed> = BUILTIN_PACKAGES
        .iter()
        .filter(|p| **p != "pulumi")
        .map(|p| Listed {
            name: p.to_string(),
            kind: "resource".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            size: 0,
            installed: built,
            last_used: built,
            origin: Some("built in".into()),
        })
        .collect();
    rows.extend(on_path());
    for p in cache::list(&dir()?)? {
        let installed = p.install_time();
        rows.push(Listed {
            size: p.size(),
            last_used: p.last_used_time().or(installed),
            installed,
            version: p.version.to_string(),
            origin: None,
            name: p.name,
            kind: p.kind,
        });
    }
    Ok(rows)
}

/// Provider plugins on PATH (`pulumi-resource-<name>`), which win over the cache.
fn on_path() -> Vec<Listed> {
    let mut seen = std::collections::BTreeMap::new();
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let file = e.file_name().to_string_lossy().into_owned();
            let Some(name) = file.strip_prefix("pulumi-resource-") else {
                continue;
            };
            let Ok(meta) = e.metadata() else { continue };
            if !meta.is_file() || BUILTIN_PACKAGES.contains(&name) {
                continue;
            }
            seen.entry(name.to_string()).or_insert_with(|| Listed {
                name: name.to_string(),
                kind: "resource".into(),
                version: String::new(),
                size: meta.len(),
                installed: meta.modified().ok(),
                last_used: meta.modified().ok(),
                origin: Some(e.path().display().to_string()),
            });
        }
    }
    seen.into_values().collect()
}

fn list(as_json: bool) -> Result<()> {
    let rows = listed()?;
    if as_json {
        let list: Vec<Value> = rows
            .iter()
            .map(|r| {
                let mut v = json!({
                    "name": r.name, "kind": r.kind, "version": r.version, "size": r.size,
                });
                if let Some(t) = secs(r.installed) {
                    v["installTime"] = pulumi_time_secs(t).into();
                }
                if let Some(t) = secs(r.last_used) {
                    v["lastUsedTime"] = pulumi_time_secs(t).into();
                }
                match r.origin.as_deref() {
                    Some("built in") => v["builtin"] = true.into(),
                    Some(path) => v["path"] = path.into(),
                    None => {}
                }
                v
            })
            .collect();
        outln!("{}", serde_json::to_string_pretty(&list)?)?;
        return Ok(());
    }
    let when = |t: Option<SystemTime>| {
        secs(t)
            .and_then(|s| chrono::DateTime::from_timestamp(s, 0))
            .map(|t| t.format("%Y-%m-%d %H:%M").to_string())
    };
    let table: Vec<[String; 6]> = rows
        .iter()
        .map(|r| {
            let cached = r.origin.is_none();
            [
                r.name.clone(),
                r.kind.clone(),
                if r.version.is_empty() {
                    "n/a".into()
                } else {
                    r.version.clone()
                },
                if cached { bytes(r.size) } else { "n/a".into() },
                match &r.origin {
                    Some(o) => o.clone(),
                    None => when(r.installed).unwrap_or_else(|| "n/a".into()),
                },
                when(r.last_used)
                    .filter(|_| cached)
                    .unwrap_or_else(|| "n/a".into()),
            ]
        })
        .collect();
    let headers = ["NAME", "KIND", "VERSION", "SIZE", "INSTALLED", "LAST USED"].map(String::from);
    let widths: Vec<usize> = (0..6)
        .map(|i| {
            std::iter::once(&headers)
                .chain(&table)
                .map(|r| r[i].len())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in std::iter::once(&headers).chain(&table) {
        let line: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        outln!("{}", line.join("  ").trim_end())?;
    }
    let total: u64 = rows
        .iter()
        .filter(|r| r.origin.is_none())
        .map(|r| r.size)
        .sum();
    outln!("\nTOTAL plugin cache size: {}", bytes(total))?;
    Ok(())
}

/// Bytes as Pulumi's `humanize.Bytes` writes them (SI units).
fn bytes(n: u64) -> String {
    const UNITS: [&str; 6] = ["B", "kB", "MB", "GB", "TB", "PB"];
    if n < 10 {
        return format!("{n} B");
    }
    let exp = ((n as f64).log10() / 3.0).floor().min(5.0) as usize;
    let value = n as f64 / 1000f64.powi(exp as i32);
    if value < 10.0 {
        format!("{value:.1} {}", UNITS[exp])
    } else {
        format!("{value:.0} {}", UNITS[exp])
    }
}

fn kind_of(kind: Option<String>) -> Result<Option<String>> {
    match kind {
        Some(k) if !KINDS.contains(&k.as_str()) => {
            Err(usage(format!("unrecognized plugin kind: {k}")))
        }
        k => Ok(k),
    }
}

fn install(
    kind: Option<String>,
    name: Option<String>,
    version: Option<String>,
    file: Option<PathBuf>,
) -> Result<()> {
    let Some(kind) = kind_of(kind)? else {
        return Err(usage(
            "stepdeck does not download plugins: name one to install from a local file, `plugin install KIND NAME VERSION --file PATH`",
        ));
    };
    let name = name.ok_or_else(|| usage("missing plugin name argument"))?;
    let version = version
        .map(|v| cache::parse_version(&v).map_err(|e| usage(e.to_string())))
        .transpose()?;
    let Some(file) = file else {
        return Err(usage(format!(
            "stepdeck does not download plugins (it works offline): install {kind} plugin {name} from a local executable or directory with --file PATH"
        )));
    };
    let Some(version) = version else {
        return Err(usage(
            "missing plugin version argument, this is required if installing from a file",
        ));
    };
    let installed = cache::install(&dir()?, &kind, &name, &version, &file)
        .map_err(|e| match e {
            PluginCacheError::Io { .. } => anyhow::Error::from(e),
            other => usage(other.to_string()),
        })
        .with_context(|| {
            format!(
                "installing {kind} plugin {name}-{version} from {}",
                file.display()
            )
        })?;
    eprintln!(
        "[{kind} plugin {name}-{version}] installed in {}",
        installed.path.display()
    );
    Ok(())
}

fn remove(
    kind: Option<String>,
    name: Option<String>,
    version: Option<String>,
    all: bool,
    yes: bool,
) -> Result<()> {
    let kind = kind_of(kind)?;
    if kind.is_none() && !all {
        return Err(usage(
            "please pass --all if you'd like to remove all plugins",
        ));
    }
    let range = version.as_deref().map(VersionFilter::parse).transpose()?;
    let deletes: Vec<CachedPlugin> = cache::list(&dir()?)?
        .into_iter()
        .filter(|p| kind.as_ref().is_none_or(|k| &p.kind == k))
        .filter(|p| name.as_ref().is_none_or(|n| &p.name == n))
        .filter(|p| range.as_ref().is_none_or(|r| r.matches(&p.version)))
        .collect();
    if deletes.is_empty() {
        eprintln!("info: no plugins found to uninstall");
        return Ok(());
    }
    if !yes {
        let s = if deletes.len() == 1 { "" } else { "s" };
        outln!(
            "This will remove {} plugin{s} from the cache:",
            deletes.len()
        )?;
        for d in &deletes {
            outln!("    {} {}-{}", d.kind, d.name, d.version)?;
        }
        if !confirmed()? {
            return Ok(());
        }
    }
    let mut failed = Vec::new();
    for d in &deletes {
        match d.remove() {
            Ok(()) => outln!("removed: {} {}-{}", d.kind, d.name, d.version)?,
            Err(e) => failed.push(format!(
                "failed to delete {} plugin {}-{}: {e}",
                d.kind, d.name, d.version
            )),
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(anyhow::anyhow!("{}", failed.join("\n")))
    }
}

/// Pulumi's "yes" prompt; without a terminal `--yes` is required.
fn confirmed() -> Result<bool> {
    if !std::io::stdin().is_terminal() {
        return Err(usage(
            "--yes must be passed in to proceed when running in non-interactive mode",
        ));
    }
    print!("Please confirm that this is what you'd like to do by typing `yes`: ");
    std::io::stdout().flush()?;
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    Ok(line.trim() == "yes")
}

/// `plugin rm`'s VERSION: one version, or a range (`>=1.0.0 <2.0.0`, as Pulumi writes ranges).
enum VersionFilter {
    Exact(semver::Version),
    Range(semver::VersionReq),
}

impl VersionFilter {
    fn parse(text: &str) -> Result<VersionFilter> {
        if let Ok(v) = cache::parse_version(text) {
            return Ok(VersionFilter::Exact(v));
        }
        let joined = text.split_whitespace().collect::<Vec<_>>().join(", ");
        semver::VersionReq::parse(&joined)
            .map(VersionFilter::Range)
            .map_err(|e| usage(format!("invalid plugin semver: {e}")))
    }

    fn matches(&self, v: &semver::Version) -> bool {
        match self {
            VersionFilter::Exact(x) => x == v,
            VersionFilter::Range(r) => r.matches(v),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_humanize_writes_them() {
        assert_eq!(bytes(0), "0 B");
        assert_eq!(bytes(1234), "1.2 kB");
        assert_eq!(bytes(82_854_982), "83 MB");
    }

    #[test]
    fn a_version_filter_is_one_version_or_a_range() {
        let one = VersionFilter::parse("1.2.3").unwrap();
        assert!(one.matches(&semver::Version::new(1, 2, 3)));
        assert!(!one.matches(&semver::Version::new(1, 2, 4)));
        let range = VersionFilter::parse(">=1.0.0 <2.0.0").unwrap();
        assert!(range.matches(&semver::Version::new(1, 9, 0)));
        assert!(!range.matches(&semver::Version::new(2, 0, 0)));
    }
}
