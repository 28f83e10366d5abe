//! Provider plugins at paths a project names (`plugins.providers`, local `packages:`), started
//! as Pulumi starts them: an executable as it is, and a plugin source directory
//! (`PulumiPlugin.yaml`) through its language, as the language host's `RunPlugin` does:
//! Python runs the directory's `__main__.py` with its virtualenv (or, without one, the SDK's
//! `pulumi.run.plugin` on the package its `pyproject.toml` names), Node.js the SDK's
//! `run-plugin` on the directory's package (TypeScript through ts-node).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::{DebugLanguage, PluginContext, PluginError, is_executable};
use crate::rpc::program::language_host::{
    NodeEngine, NodeOptions, Runtime, find_node_module, python_interpreter,
};

/// The Node SDK's plugin runner, resolved from the plugin's directory (or the program's).
pub const NODE_RUN_PLUGIN_MODULE: &str = "@pulumi/pulumi/cmd/run-plugin/index.js";

/// A provider plugin at a path of the project's.
#[derive(Clone, Debug, PartialEq)]
pub struct PluginPath {
    /// The package it serves.
    pub package: String,
    /// An executable, a directory holding `pulumi-resource-<package>`, or a plugin source
    /// directory.
    pub path: PathBuf,
    pub version: Option<String>,
    /// A source directory's `PulumiPlugin.yaml` runtime: its name and options.
    pub runtime: Option<(String, serde_json::Map<String, serde_json::Value>)>,
}

/// What starts a plugin at a path: the program, its arguments before the engine address, and
/// its environment.
pub(super) struct PathCommand {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub env: Vec<(String, String)>,
    /// A plugin from source: its language's debugger, and where its arguments go.
    pub debug: Option<(DebugLanguage, usize)>,
}

impl PluginPath {
    /// How to start the plugin, or why it cannot be.
    pub(super) fn command(&self, ctx: &PluginContext) -> Result<PathCommand, PluginError> {
        let not_found = |detail: String| PluginError::NotFound {
            package: self.package.clone(),
            detail,
        };
        let Some((name, options)) = &self.runtime else {
            return self
                .executable()
                .map_err(not_found)
                .map(|program| PathCommand {
                    program,
                    args: Vec::new(),
                    env: Vec::new(),
                    debug: None,
                });
        };
        let runtime = Runtime::from_project(name, options).map_err(|e| {
            not_found(format!(
                "{}: the plugin's runtime: {e}",
                self.path.join("PulumiPlugin.yaml").display()
            ))
        })?;
        match runtime {
            Runtime::Python { virtualenv } => {
                let args: Vec<OsString> = if self.path.join("__main__.py").is_file() {
                    vec!["-u".into(), self.path.clone().into_os_string()]
                } else if let Some(name) = pyproject_name(&self.path.join("pyproject.toml")) {
                    // Pulumi's bootstrap-less plugins: the SDK hosts the components the
                    // installed package of that name exports.
                    ["-u", "-m", "pulumi.run.plugin", name.as_str()]
                        .map(OsString::from)
                        .to_vec()
                } else {
                    return Err(not_found(format!(
                        "{} is a Python plugin with neither a __main__.py nor a pyproject.toml naming its package",
                        self.path.display()
                    )));
                };
                Ok(PathCommand {
                    program: self.python(virtualenv.as_deref(), ctx),
                    args,
                    env: Vec::new(),
                    // After `-u`, before the script or `-m`.
                    debug: Some((DebugLanguage::Python, 1)),
                })
            }
            Runtime::Nodejs(NodeOptions {
                engine: NodeEngine::Bun,
                ..
            }) => Err(not_found(format!(
                "{}: a plugin on runtime bun is not supported (its runtime may be nodejs or python)",
                self.path.join("PulumiPlugin.yaml").display()
            ))),
            Runtime::Nodejs(options) => {
                let run = find_node_module(&self.path, NODE_RUN_PLUGIN_MODULE)
                    .or_else(|| find_node_module(&ctx.program_directory, NODE_RUN_PLUGIN_MODULE))
                    .ok_or_else(|| {
                        not_found(format!(
                            "the Pulumi Node.js SDK is not installed: no node_modules/{NODE_RUN_PLUGIN_MODULE} in {} or {} or their parents (run `npm install`)",
                            self.path.display(),
                            ctx.program_directory.display()
                        ))
                    })?;
                let mut env = Vec::new();
                if options.typescript {
                    env.push(("PULUMI_NODEJS_TYPESCRIPT".to_string(), "true".to_string()));
                }
                if let Some(tsconfig) = options.tsconfig {
                    env.push(("PULUMI_NODEJS_TSCONFIG_PATH".to_string(), tsconfig));
                }
                let mut args: Vec<OsString> =
                    options.nodeargs.into_iter().map(Into::into).collect();
                args.push(run.into_os_string());
                args.push(self.path.clone().into_os_string());
                Ok(PathCommand {
                    program: PathBuf::from("node"),
                    args,
                    env,
                    debug: Some((DebugLanguage::Nodejs, 0)),
                })
            }
        }
    }

    /// The executable at the path, or `pulumi-resource-<package>` in the directory there.
    fn executable(&self) -> Result<PathBuf, String> {
        let exe = format!("pulumi-resource-{}", self.package);
        if self.path.is_dir() {
            let inside = self.path.join(&exe);
            return if is_executable(&inside) {
                Ok(inside)
            } else {
                Err(format!(
                    "{} holds neither an executable {exe} nor a PulumiPlugin.yaml",
                    self.path.display()
                ))
            };
        }
        if is_executable(&self.path) {
            Ok(self.path.clone())
        } else if self.path.exists() {
            Err(format!("{} is not executable", self.path.display()))
        } else {
            Err(format!("{} does not exist", self.path.display()))
        }
    }

    /// The plugin's interpreter: its `virtualenv` option, else a `venv` or `.venv` beside its
    /// sources, else the program's.
    fn python(&self, virtualenv: Option<&Path>, ctx: &PluginContext) -> PathBuf {
        if virtualenv.is_some() {
            return python_interpreter(&self.path, virtualenv);
        }
        ["venv", ".venv"]
            .iter()
            .map(|v| self.path.join(v).join("bin").join("python"))
            .find(|p| p.exists())
            .unwrap_or_else(|| ctx.python.clone())
    }
}

/// The `[project]` `name` of a `pyproject.toml`, read as plain lines (the one key we need).
fn pyproject_name(file: &Path) -> Option<String> {
    let text = std::fs::read_to_string(file).ok()?;
    let mut in_project = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_project = line == "[project]";
            continue;
        }
        if !in_project {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if key.trim() == "name" {
            let value = value.trim().trim_matches(|c| c == '"' || c == '\'');
            return (!value.is_empty()).then(|| value.to_string());
        }
    }
    None
}
