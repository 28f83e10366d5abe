//! The provider plugins a project names by path, as Pulumi reads them from `Pulumi.yaml`:
//! `plugins: providers: [{name, path, version}]` and the local directories of `packages:`
//! (what `pulumi package add ./dir` records), so a package is served from there before any
//! installed plugin is looked for.

use std::path::{Path, PathBuf};

use crate::file_limits::{self, YAML_FILE};
use crate::located_yaml::{Node, NodeKind, SourceError, parse_document};

use super::error::ProjectError;
use super::packages::split_version;
use super::runtime::{Runtime, parse_runtime};

/// The file that makes a directory a plugin's source (Pulumi's `PulumiPlugin.yaml`).
pub const PLUGIN_FILE: &str = "PulumiPlugin.yaml";

/// A provider plugin found at a path of the project's: a `pulumi-resource-<name>` executable,
/// a directory holding one, or a plugin source directory (`PulumiPlugin.yaml`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalPlugin {
    /// The package the plugin serves.
    pub name: String,
    /// Resolved against the project directory.
    pub path: PathBuf,
    pub version: Option<String>,
}

impl LocalPlugin {
    /// The runtime a plugin source directory declares (`PulumiPlugin.yaml`'s `runtime`, `yaml`
    /// when left out); `None` when the path is not such a directory (an executable, or a
    /// directory holding one).
    pub fn source_runtime(&self) -> Result<Option<Runtime>, ProjectError> {
        let file = self.path.join(PLUGIN_FILE);
        if !file.is_file() {
            return Ok(None);
        }
        let text = file_limits::read_to_string(&file, YAML_FILE)?;
        let shown = file.display().to_string();
        let doc = parse_document(&shown, &text)?;
        match doc.get("runtime") {
            Some(rt) => Ok(Some(parse_runtime(&shown, rt)?)),
            // A YAML component package may leave its runtime out.
            None => Ok(Some(Runtime {
                name: "yaml".to_string(),
                options: Default::default(),
            })),
        }
    }
}

/// The plugins `listed` names, then, recursively, the local packages each plugin source
/// directory's own `PulumiPlugin.yaml` names (Pulumi's `collectPluginsFromPackages`): a
/// component provider's component may register a component of another local provider. A
/// package named twice is served by its first entry.
pub fn with_nested_packages(listed: &[LocalPlugin]) -> Result<Vec<LocalPlugin>, ProjectError> {
    let mut out = listed.to_vec();
    let mut next = 0;
    while next < out.len() {
        let dir = out[next].path.clone();
        next += 1;
        let file = dir.join(PLUGIN_FILE);
        if !file.is_file() {
            continue;
        }
        let text = file_limits::read_to_string(&file, YAML_FILE)?;
        let shown = file.display().to_string();
        let doc = parse_document(&shown, &text)?;
        for plugin in parse_local_plugins(&shown, &doc, &dir)? {
            if !out.iter().any(|p| p.name == plugin.name) {
                out.push(plugin);
            }
        }
    }
    Ok(out)
}

/// Reads `plugins.providers` and the `packages:` entries whose source is a local path, in
/// that order (a package named in both is served by its `plugins:` entry, as in Pulumi).
pub fn parse_local_plugins(
    file: &str,
    doc: &Node,
    dir: &Path,
) -> Result<Vec<LocalPlugin>, SourceError> {
    let mut out = Vec::new();
    if let Some(plugins) = doc.get("plugins").filter(|n| !is_null(n)) {
        if plugins.as_map().is_none() {
            return Err(plugins.error(file, "`plugins` must be a mapping"));
        }
        if let Some(providers) = plugins.get("providers").filter(|n| !is_null(n)) {
            let NodeKind::Seq(items) = &providers.kind else {
                return Err(providers.error(
                    file,
                    "`plugins.providers` must be a list of {name, path, version}",
                ));
            };
            for (i, item) in items.iter().enumerate() {
                out.push(provider_entry(file, i, item, dir)?);
            }
        }
    }
    if let Some(packages) = doc.get("packages").filter(|n| !is_null(n)) {
        let entries = packages.as_map().ok_or_else(|| {
            packages.error(file, "`packages` must be a mapping of name to source")
        })?;
        for (key, spec) in entries {
            let source = match &spec.kind {
                NodeKind::String(s) => Some(split_version(s).0),
                NodeKind::Map(_) => spec.get("source").and_then(Node::as_str),
                _ => None,
            };
            let Some(source) = source.filter(|s| is_local_path(s)) else {
                continue;
            };
            if out.iter().any(|p: &LocalPlugin| p.name == key.name) {
                continue;
            }
            out.push(LocalPlugin {
                name: key.name.clone(),
                path: dir.join(source),
                version: None,
            });
        }
    }
    Ok(out)
}

fn provider_entry(
    file: &str,
    index: usize,
    item: &Node,
    dir: &Path,
) -> Result<LocalPlugin, SourceError> {
    let field = |name: &str| -> Result<Option<String>, SourceError> {
        match item.get(name).filter(|n| !is_null(n)) {
            None => Ok(None),
            Some(n) => n.scalar_text().map(Some).ok_or_else(|| {
                n.error(
                    file,
                    format!("`plugins.providers[{index}].{name}` must be a string"),
                )
            }),
        }
    };
    if item.as_map().is_none() {
        return Err(item.error(
            file,
            format!("`plugins.providers[{index}]` must be a mapping with `name` and `path`"),
        ));
    }
    let missing = |name: &str| {
        item.error(
            file,
            format!("`plugins.providers[{index}]` is missing `{name}`"),
        )
    };
    let name = field("name")?.ok_or_else(|| missing("name"))?;
    let path = field("path")?.ok_or_else(|| missing("path"))?;
    Ok(LocalPlugin {
        name,
        path: dir.join(path),
        version: field("version")?,
    })
}

fn is_null(n: &Node) -> bool {
    matches!(n.kind, NodeKind::Null)
}

/// Whether a package source is a path on this machine rather than a registry name or a URL,
/// as Pulumi tells them apart: it starts with `.` or `/`.
fn is_local_path(source: &str) -> bool {
    source.starts_with('.') || source.starts_with('/')
}
