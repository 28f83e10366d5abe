//! Provider plugins at paths a project names (`plugins.providers`, local `packages:`), started
//! as Pulumi starts them: an executable as it is, and a plugin source directory
//! (`PulumiPlugin.yaml`) through its language, as the language host's `RunPlugin` does:
//! Python runs the directory's `__main__.py` with its virtualenv, Node.js the SDK's
//! `run-plugin` on the directory's package (TypeScript through ts-node).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::{PluginContext, PluginError, is_executable};
use crate::rpc::program::language_host::{Runtime, find_node_module, python_interpreter};

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
                let main = self.path.join("__main__.py");
                if !main.is_file() {
                    return Err(not_found(format!(
                        "{} is a Python plugin without a __main__.py to run",
                        self.path.display()
                    )));
                }
                Ok(PathCommand {
                    program: self.python(virtualenv.as_deref(), ctx),
                    args: vec!["-u".into(), self.path.clone().into_os_string()],
                    env: Vec::new(),
                })
            }
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
