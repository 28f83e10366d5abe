//! Provider plugins as processes: finding the executable for a package, starting it with the
//! engine address as Pulumi does, reading its port, relaying its output, killing it on drop.

pub mod cache;
pub mod plugin_paths;
pub mod provider_client;
pub mod providers;
pub mod schema_types;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::process::Command;
use tokio::sync::{oneshot, watch};

use super::debugger::debugpy::Debugpy;
use super::debugger::node_inspector::{InspectorOutput, NodeInspector};
use super::debugger::targets::DebugTargets;
use super::program::language_host::find_node_module;
use crate::engine::{EventSink, Severity};
use plugin_paths::PluginPath;

/// The Node SDK's dynamic provider server, resolved from the program directory.
pub const NODE_DYNAMIC_PROVIDER_MODULE: &str = "@pulumi/pulumi/cmd/dynamic-provider/index.js";
/// How long a plugin may take to print its port.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(60);

/// Why a plugin could not be found or started.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PluginError {
    #[error("no provider plugin for package {package:?}: {detail}")]
    NotFound { package: String, detail: String },
    #[error("cannot start plugin {plugin}: {detail}")]
    Start { plugin: String, detail: String },
}

/// Where plugins come from and what they run next to: the program's directory and project, and
/// the interpreter for Python dynamic providers.
#[derive(Clone, Debug)]
pub struct PluginContext {
    pub program_directory: PathBuf,
    pub project: String,
    pub python: PathBuf,
    /// Directories holding `resource-<name>-v<version>/` plugin installs (`~/.pulumi/plugins`).
    pub plugin_dirs: Vec<PathBuf>,
    /// Plugins at paths the project names, looked up before everything else.
    pub local: Vec<PluginPath>,
    /// Where plugin output goes, as diagnostics.
    pub events: EventSink,
    /// The stack's configuration (`<namespace>:<key>` to plaintext): each plugin finds its own
    /// package's keys in `PULUMI_CONFIG`, as Pulumi's plugin host hands them over.
    pub config: BTreeMap<String, String>,
    /// `--attach-debugger`: the plugins started from source that wait for a debugger.
    pub debug: DebugTargets,
}

impl PluginContext {
    /// A context with Pulumi's default plugin directory (`$PULUMI_HOME/plugins` or
    /// `~/.pulumi/plugins`).
    pub fn new(
        program_directory: impl Into<PathBuf>,
        project: impl Into<String>,
        python: impl Into<PathBuf>,
        events: EventSink,
    ) -> PluginContext {
        PluginContext {
            program_directory: program_directory.into(),
            project: project.into(),
            python: python.into(),
            plugin_dirs: cache::plugin_dir().into_iter().collect(),
            local: Vec::new(),
            events,
            config: BTreeMap::new(),
            debug: DebugTargets::default(),
        }
    }
}

/// How to start one plugin (the engine address is appended when it starts).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PluginCommand {
    /// The name shown in errors and diagnostics (`pulumi-resource-<package>`).
    pub name: String,
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub cwd: PathBuf,
    pub env: Vec<(String, String)>,
    /// The debugger the plugin waits for, when `--attach-debugger` names it.
    pub debug: Option<DebugLaunch>,
}

/// How a plugin started from source runs under its language's debugger.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DebugLaunch {
    pub language: DebugLanguage,
    /// Where the debugger's arguments go among the plugin's (after the interpreter's own).
    pub at: usize,
    /// The session's name in an editor (Pulumi's `Pulumi: Plugin (<package>)`).
    pub name: String,
}

/// The languages whose plugins run under a debugger.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DebugLanguage {
    /// debugpy.
    Python,
    /// Node's inspector.
    Nodejs,
}

/// Finds the plugin for a package: one at a path the project names, the dynamic provider
/// servers of the Python and Node SDKs, or an executable `pulumi-resource-<package>` on PATH
/// or in the plugin directories.
pub fn resolve(
    package: &str,
    version: Option<&str>,
    ctx: &PluginContext,
) -> Result<PluginCommand, PluginError> {
    let name = format!("pulumi-resource-{package}");
    let mut env = vec![
        ("PULUMI_PROJECT".to_string(), ctx.project.clone()),
        (
            "PULUMI_CONFIG".to_string(),
            package_config(package, &ctx.config),
        ),
    ];
    if let Some(local) = ctx.local.iter().find(|p| p.package == package) {
        let cmd = local.command(ctx)?;
        env.extend(cmd.env);
        let debug = cmd
            .debug
            .filter(|_| ctx.debug.plugin(package))
            .map(|(language, at)| DebugLaunch {
                language,
                at,
                name: format!("Pulumi: Plugin ({package})"),
            });
        return Ok(PluginCommand {
            name,
            program: cmd.program,
            args: cmd.args,
            cwd: ctx.program_directory.clone(),
            env,
            debug,
        });
    }
    let (program, args) = match package {
        "pulumi-python" => (
            ctx.python.clone(),
            vec!["-u".into(), "-m".into(), "pulumi.dynamic".into()],
        ),
        "pulumi-nodejs" => {
            let module = find_node_module(&ctx.program_directory, NODE_DYNAMIC_PROVIDER_MODULE)
                .ok_or_else(|| PluginError::NotFound {
                    package: package.into(),
                    detail: format!(
                        "no node_modules/{NODE_DYNAMIC_PROVIDER_MODULE} in {} or its parents (run `npm install`)",
                        ctx.program_directory.display()
                    ),
                })?;
            env.push(("PULUMI_NODEJS_PROJECT".to_string(), ctx.project.clone()));
            (PathBuf::from("node"), vec![module.into_os_string()])
        }
        _ => (find_executable(package, version, ctx)?, Vec::new()),
    };
    Ok(PluginCommand {
        name,
        program,
        args,
        cwd: ctx.program_directory.clone(),
        env,
        debug: None,
    })
}

/// The JSON object of `package`'s keys in `config`, without their namespace (Pulumi's
/// `defaultHost.Provider`): what a plugin (a dynamic provider's code, say) reads from
/// `PULUMI_CONFIG`.
fn package_config(package: &str, config: &BTreeMap<String, String>) -> String {
    let own: serde_json::Map<String, serde_json::Value> = config
        .iter()
        .filter_map(|(key, value)| {
            let (namespace, name) = key.split_once(':')?;
            (namespace == package).then(|| (name.to_string(), value.clone().into()))
        })
        .collect();
    serde_json::Value::Object(own).to_string()
}

fn find_executable(
    package: &str,
    version: Option<&str>,
    ctx: &PluginContext,
) -> Result<PathBuf, PluginError> {
    let exe = format!("pulumi-resource-{package}");
    let on_path = std::env::var_os("PATH")
        .map(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join(&exe))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    if let Some(p) = on_path.into_iter().find(|p| is_executable(p)) {
        return Ok(p);
    }
    let mut installed: Vec<(Vec<u64>, PathBuf)> = Vec::new();
    let prefix = format!("resource-{package}-v");
    for dir in &ctx.plugin_dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let file_name = entry.file_name().to_string_lossy().into_owned();
            let Some(v) = file_name.strip_prefix(&prefix) else {
                continue;
            };
            if version.is_some_and(|want| want.trim_start_matches('v') != v) {
                continue;
            }
            let path = entry.path().join(&exe);
            if is_executable(&path) {
                installed.push((version_key(v), path));
            }
        }
    }
    installed.sort();
    installed
        .pop()
        .map(|(_, p)| {
            cache::mark_used(&p);
            p
        })
        .ok_or_else(|| PluginError::NotFound {
            package: package.into(),
            detail: format!(
                "{exe} is not on PATH and no {prefix}{} directory holds it in {}",
                version.unwrap_or("*"),
                ctx.plugin_dirs
                    .iter()
                    .map(|d| d.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        })
}

fn version_key(v: &str) -> Vec<u64> {
    v.split(['.', '-', '+'])
        .map(|p| p.parse().unwrap_or(0))
        .collect()
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// A running plugin; dropping it kills the process.
pub struct PluginProcess {
    name: String,
    port: u16,
    kill: Option<oneshot::Sender<()>>,
    exited: watch::Receiver<Option<String>>,
    /// Kept while the plugin runs: its log directory goes with it.
    _debugpy: Option<Debugpy>,
}

impl PluginProcess {
    /// Starts the plugin with `engine_address` as its argument and waits for the port it prints
    /// on its first line of stdout; a plugin under a debugger is announced once its debugger
    /// listens, and may take as long as the operator does to print its port.
    pub async fn start(
        cmd: &PluginCommand,
        engine_address: &str,
        events: EventSink,
    ) -> Result<PluginProcess, PluginError> {
        let start_err = |detail: String| PluginError::Start {
            plugin: cmd.name.clone(),
            detail,
        };
        let mut args = cmd.args.clone();
        let (debugpy, inspector) = match &cmd.debug {
            Some(launch) => {
                let at = launch.at.min(args.len());
                match launch.language {
                    DebugLanguage::Python => {
                        let debugpy =
                            Debugpy::new(&launch.name).map_err(|e| start_err(e.to_string()))?;
                        args.splice(at..at, debugpy.args());
                        (Some(debugpy), None)
                    }
                    DebugLanguage::Nodejs => {
                        let inspector = NodeInspector::new(&launch.name);
                        args.insert(at, inspector.arg().into());
                        (None, Some(inspector))
                    }
                }
            }
            None => (None, None),
        };
        let mut child = Command::new(&cmd.program)
            .args(&args)
            .arg(engine_address)
            .current_dir(&cmd.cwd)
            .envs(cmd.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| start_err(format!("{}: {e}", cmd.program.display())))?;
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");
        let pid = child.id();
        let inspector = inspector.map(|i| i.output(pid, events.clone()));
        tokio::spawn(relay(stderr, events.clone(), cmd.name.clone(), inspector));
        if let (Some(debugpy), Some(pid)) = (&debugpy, pid) {
            tokio::select! {
                ready = debugpy.ready(pid) => {
                    ready.map_err(|e| start_err(e.to_string()))?;
                    events.send(debugpy.announcement());
                }
                status = child.wait() => {
                    let status = status.map(|s| s.to_string()).unwrap_or_default();
                    return Err(start_err(format!("it exited before debugpy listened ({status})")));
                }
            }
        }
        let mut stdout = BufReader::new(stdout);
        let mut first = String::new();
        // A debugger's operator takes their time: no bound while one is awaited.
        let read = if cmd.debug.is_some() {
            Ok(stdout.read_line(&mut first).await)
        } else {
            tokio::time::timeout(STARTUP_TIMEOUT, stdout.read_line(&mut first)).await
        };
        let port = match read {
            Err(_) => Err(format!("it printed no port within {STARTUP_TIMEOUT:?}")),
            Ok(Err(e)) => Err(format!("reading its port failed: {e}")),
            Ok(Ok(0)) => {
                let status = child
                    .wait()
                    .await
                    .map(|s| s.to_string())
                    .unwrap_or_default();
                Err(format!("it exited before printing its port ({status})"))
            }
            Ok(Ok(_)) => first
                .trim()
                .parse::<u16>()
                .ok()
                .filter(|p| *p > 0)
                .ok_or_else(|| format!("its first line {:?} is not a port", first.trim())),
        }
        .map_err(start_err)?;
        tokio::spawn(relay(stdout.into_inner(), events, cmd.name.clone(), None));
        let (kill, killed) = oneshot::channel();
        let (exit_tx, exited) = watch::channel(None);
        tokio::spawn(async move {
            let waited = tokio::select! {
                status = child.wait() => Some(status),
                _ = killed => None,
            };
            let status = match waited {
                Some(status) => status,
                None => {
                    let _ = child.start_kill();
                    child.wait().await
                }
            };
            let described = status.map_or_else(|e| e.to_string(), |s| s.to_string());
            let _ = exit_tx.send(Some(described));
        });
        Ok(PluginProcess {
            name: cmd.name.clone(),
            port,
            kill: Some(kill),
            exited,
            _debugpy: debugpy,
        })
    }

    /// The plugin's name for errors (`pulumi-resource-<package>`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The port the plugin serves gRPC on (127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// How the process ended, waiting up to `grace` for an exit that is still being reaped.
    pub async fn exit_status(&self, grace: Duration) -> Option<String> {
        let mut rx = self.exited.clone();
        let _ = tokio::time::timeout(grace, rx.wait_for(Option::is_some)).await;
        rx.borrow().clone()
    }
}

impl Drop for PluginProcess {
    fn drop(&mut self) {
        if let Some(kill) = self.kill.take() {
            let _ = kill.send(());
        }
    }
}

/// Relays a plugin's output lines as diagnostics naming the plugin; the inspector's own lines
/// announce a debugger's wait instead.
async fn relay(
    stream: impl AsyncRead + Unpin,
    events: EventSink,
    name: String,
    inspector: Option<InspectorOutput>,
) {
    let mut lines = BufReader::new(stream).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        if inspector.as_ref().is_some_and(|i| i.consumes(&line)) {
            continue;
        }
        events.diag(None, Severity::Info, format!("{name}: {line}"));
    }
}

#[cfg(test)]
mod plugin_paths_tests;
#[cfg(test)]
mod schema_types_tests;
