//! A Node.js plugin source directory's own dependencies, installed before the plugin is asked
//! for its schema, as Pulumi's `InstallPluginAt` runs the language host's `InstallDependencies`
//! on a local plugin (`npm install`, or its `packagemanager`): without them the plugin cannot
//! start. A plugin whose SDK is already reachable (installed there or above it) is left as it
//! is. What the package manager prints goes to stderr, as Pulumi sends a plugin install's
//! output there, so that a schema printed on stdout stays the only thing there.

use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{Context, Result, anyhow};
use serde_json::Value;
use stepdeck::project::Runtime;
use stepdeck::rpc::plugin::plugin_paths::NODE_RUN_PLUGIN_MODULE;
use stepdeck::rpc::program::language_host::find_node_module;

use crate::cli::errors::usage;
use crate::cli::node_package_manager::detect_package_manager;

/// Runs the plugin's package manager's `install` in `dir` when its Node.js SDK is missing.
pub(super) fn install_plugin_dependencies(dir: &Path, runtime: &Runtime) -> Result<()> {
    if runtime.name != "nodejs" || find_node_module(dir, NODE_RUN_PLUGIN_MODULE).is_some() {
        return Ok(());
    }
    let pm = match runtime
        .options
        .get("packagemanager")
        .and_then(Value::as_str)
    {
        None | Some("auto") => detect_package_manager(dir),
        Some(pm) => pm,
    };
    eprintln!(
        "Installing dependencies of the plugin in {}...",
        dir.display()
    );
    let status = match Command::new(pm)
        .arg("install")
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(std::io::stderr())
        .status()
    {
        Ok(status) => status,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(usage(format!(
                "{pm} is not on PATH: install it, or choose another packagemanager in {}",
                dir.join("PulumiPlugin.yaml").display()
            )));
        }
        Err(e) => return Err(e).with_context(|| format!("running `{pm} install`")),
    };
    if !status.success() {
        return Err(anyhow!(
            "installing the dependencies of the plugin in {} via '{pm} install': {status}",
            dir.display()
        ));
    }
    Ok(())
}
