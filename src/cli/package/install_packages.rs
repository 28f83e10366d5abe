//! `install` of the `packages:` a project or plugin names, as Pulumi's
//! `InstallPackagesFromProject` does: a local plugin directory's own `packages:` (in its
//! `PulumiPlugin.yaml`) first, a cycle among them refused before anything runs; then each
//! package's SDK generated and linked for the project's language (for YAML, its declaration
//! file).

use std::path::{Path, PathBuf};

use anyhow::{Result, anyhow};
use stepdeck::project::local_plugins::PLUGIN_FILE;
use stepdeck::project::packages::{PackageSpec, read_packages};

use super::source::{fetch_schema, relative};
use super::target::{Target, at};
use crate::cli::errors::usage;

/// Installs the packages of `target`, those its local plugins need first.
pub(in crate::cli) async fn install_packages(target: &Target) -> Result<()> {
    let root = canonical(&target.root);
    // A plugin's own directory is where its cycle would close.
    check_cycles(&root, &target.file, &mut vec![root.clone()])?;
    install(target).await
}

/// Refuses a cycle among local plugin directories (`a` needs `b` needs `a`), named from
/// `root` as Pulumi names it: `cycle found: ../a -> ../b -> ../a` (`.` is `root` itself).
fn check_cycles(root: &Path, file: &Path, stack: &mut Vec<PathBuf>) -> Result<()> {
    let dir = file.parent().unwrap_or(Path::new("."));
    for (_, spec) in read_packages(file).map_err(|e| usage(e.to_string()))? {
        let Some(plugin_dir) = local_dir(dir, &spec) else {
            continue;
        };
        if let Some(at) = stack.iter().position(|d| *d == plugin_dir) {
            let names: Vec<String> = stack[at..]
                .iter()
                .chain(std::iter::once(&plugin_dir))
                .map(|d| relative(root, d).display().to_string())
                .collect();
            return Err(anyhow!("cycle found: {}", names.join(" -> ")));
        }
        let plugin_file = plugin_dir.join(PLUGIN_FILE);
        if plugin_file.is_file() {
            stack.push(plugin_dir);
            check_cycles(root, &plugin_file, stack)?;
            stack.pop();
        }
    }
    Ok(())
}

/// The local plugin directory a package names, canonical; `None` for a plugin name or a file.
fn local_dir(dir: &Path, spec: &PackageSpec) -> Option<PathBuf> {
    let path = dir.join(&spec.source);
    (spec.is_local() && path.is_dir()).then(|| canonical(&path))
}

fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

/// Installs each package: a local plugin's own packages into it, then its SDK into `target`.
async fn install(target: &Target) -> Result<()> {
    for (name, spec) in read_packages(&target.file).map_err(|e| usage(e.to_string()))? {
        if let Some(plugin_dir) = local_dir(&target.root, &spec)
            && let Some(plugin) = at_plugin(&plugin_dir)?
        {
            Box::pin(install(&plugin)).await?;
        }
        let source = match &spec.version {
            Some(v) if !spec.is_local() => format!("{}@{v}", spec.source),
            _ => spec.source.clone(),
        };
        let fetched = fetch_schema(&target.root, &source, &spec.parameters)
            .await
            .map_err(|e| anyhow!("package {name}: {e:#}"))?;
        super::install_sdk(&target.root, &target.runtime, &fetched)?;
    }
    Ok(())
}

/// The plugin whose `PulumiPlugin.yaml` is in `dir` (a project file there is not one).
fn at_plugin(dir: &Path) -> Result<Option<Target>> {
    if !dir.join(PLUGIN_FILE).is_file() {
        return Ok(None);
    }
    at(dir)
}
