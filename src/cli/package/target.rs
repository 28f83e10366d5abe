//! The project or plugin a package is added to: the nearest `Pulumi.yaml` or
//! `PulumiPlugin.yaml` from the working directory upward, as Pulumi's `LoadBaseProjectFrom`
//! finds it.

use std::path::{Path, PathBuf};

use anyhow::Result;
use stepdeck::project::local_plugins::PLUGIN_FILE;
use stepdeck::project::{LocalPlugin, PROJECT_FILE, Project, Runtime};

use crate::cli::errors::usage;

/// A project or plugin: where it is, its file, and the runtime its SDKs are generated for.
pub(in crate::cli) struct Target {
    pub root: PathBuf,
    pub file: PathBuf,
    pub runtime: Runtime,
}

/// The nearest enclosing project or plugin, if any.
pub(in crate::cli) fn enclosing(wd: &Path) -> Result<Option<Target>> {
    for dir in wd.ancestors() {
        if let Some(target) = at(dir)? {
            return Ok(Some(target));
        }
    }
    Ok(None)
}

/// The project or plugin whose file is in `dir` itself.
pub(in crate::cli) fn at(dir: &Path) -> Result<Option<Target>> {
    let project_file = dir.join(PROJECT_FILE);
    if project_file.is_file() {
        let project = Project::load(dir).map_err(|e| usage(e.to_string()))?;
        return Ok(Some(Target {
            root: dir.to_path_buf(),
            file: project_file,
            runtime: project.runtime,
        }));
    }
    let plugin_file = dir.join(PLUGIN_FILE);
    if plugin_file.is_file() {
        let plugin = LocalPlugin {
            name: String::new(),
            path: dir.to_path_buf(),
            version: None,
        };
        let runtime = plugin
            .source_runtime()
            .map_err(|e| usage(e.to_string()))?
            .expect("the plugin file exists");
        return Ok(Some(Target {
            root: dir.to_path_buf(),
            file: plugin_file,
            runtime,
        }));
    }
    Ok(None)
}
