//! Language hosts: running a Python or Node.js Pulumi program as a child process against our
//! resource monitor, with the flags, environment and exit codes the SDKs expect. A `bun`
//! project is a Node.js one run by bun, as Pulumi's Node.js host does in its bun mode.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;

use async_trait::async_trait;
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::process::Command;
use tokio::sync::watch;

use super::launcher_file::{write_node_preload, write_python_launcher};
use super::out_of_memory::{OUT_OF_MEMORY_ADVICE, OutOfMemory};
use super::typechecker::Typechecker;
use crate::engine::{EventSink, Program, ProgramError, ResourceMonitor, Severity};
use crate::rpc::debugger::bun_inspector::BunInspector;
use crate::rpc::debugger::debugpy::Debugpy;
use crate::rpc::debugger::node_inspector::{InspectorOutput, NodeInspector};
use crate::rpc::monitor::{DEFAULT_ORGANIZATION, serve};

/// Exit code of an SDK program whose error was already reported through `Engine.Log`.
pub const EXIT_REPORTED: i32 = 32;
/// Exit code of our Python launcher when the `pulumi` package cannot be imported.
const EXIT_NO_PYTHON_SDK: i32 = 97;
/// The error a program returns after it reported its own failure (print nothing more).
pub const BAIL_MESSAGE: &str = "its error is reported above";
/// The Node SDK's program runner, resolved from the program directory.
pub const NODE_RUN_MODULE: &str = "@pulumi/pulumi/cmd/run/index.js";
const STDERR_TAIL: usize = 20;
/// The oldest Node SDK that runs under bun (Pulumi's host in bun mode refuses older ones).
const MIN_BUN_SDK: semver::Version = semver::Version::new(3, 226, 0);
/// How long a program may take to stop by itself after the engine refused one of its
/// registrations (the program is killed then).
const REFUSED_GRACE: Duration = Duration::from_secs(2);
/// How long a program run under debugpy may still write after it exited.
const DEBUGPY_OUTPUT_GRACE: Duration = Duration::from_secs(2);

/// A `Pulumi.yaml` runtime stepdeck cannot host.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LanguageHostError {
    #[error(
        "Pulumi.yaml: runtime {0:?} is not supported (stepdeck hosts python, nodejs and bun programs)"
    )]
    UnsupportedRuntime(String),
    #[error("Pulumi.yaml: runtime.options.{option} must be {expected}")]
    BadOption {
        option: String,
        expected: &'static str,
    },
}

/// The language a program is written in, with what is needed to start it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Runtime {
    /// `virtualenv`: the `runtime.options.virtualenv` directory, relative to the project root.
    Python {
        virtualenv: Option<PathBuf>,
    },
    Nodejs(NodeOptions),
}

/// The `runtime.options` of a Node.js project, as Pulumi's Node language host reads them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeOptions {
    /// Run `.ts` sources through the SDK's ts-node (`typescript`, default true).
    pub typescript: bool,
    /// The tsconfig file ts-node uses (`tsconfig`), relative to the program directory.
    pub tsconfig: Option<String>,
    /// Extra arguments for `node` itself (`nodeargs`, split as a shell would).
    pub nodeargs: Vec<String>,
    /// What runs the program: node, or bun (`runtime: bun`).
    pub engine: NodeEngine,
}

/// The JavaScript runtime a Node.js program runs in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NodeEngine {
    #[default]
    Node,
    /// bun: TypeScript and tsconfig its own, no `nodeargs`, bun its package manager.
    Bun,
}

impl Default for NodeOptions {
    fn default() -> NodeOptions {
        NodeOptions {
            typescript: true,
            tsconfig: None,
            nodeargs: Vec::new(),
            engine: NodeEngine::Node,
        }
    }
}

impl NodeOptions {
    /// Reads `typescript`, `tsconfig`, `nodeargs` and checks `packagemanager` (which only
    /// matters when installing dependencies).
    fn from_options(
        options: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<NodeOptions, LanguageHostError> {
        let bad = |option: &str, expected: &'static str| LanguageHostError::BadOption {
            option: option.into(),
            expected,
        };
        let string = |option: &str| match options.get(option) {
            None | Some(serde_json::Value::Null) => Ok(None),
            Some(serde_json::Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(bad(option, "a string")),
        };
        let typescript = match options.get("typescript") {
            None | Some(serde_json::Value::Null) => true,
            Some(serde_json::Value::Bool(b)) => *b,
            Some(_) => return Err(bad("typescript", "true or false")),
        };
        let nodeargs = match string("nodeargs")? {
            None => Vec::new(),
            Some(text) => {
                shlex::split(&text).ok_or_else(|| bad("nodeargs", "arguments a shell can split"))?
            }
        };
        if let Some(pm) = string("packagemanager")?
            && !["auto", "npm", "yarn", "pnpm", "bun"].contains(&pm.as_str())
        {
            return Err(bad("packagemanager", "one of auto, npm, yarn, pnpm or bun"));
        }
        Ok(NodeOptions {
            typescript,
            tsconfig: string("tsconfig")?,
            nodeargs,
            engine: NodeEngine::Node,
        })
    }

    /// As Pulumi's host in bun mode: the options are checked as for Node.js, then `typescript`,
    /// `tsconfig` and `nodeargs` are ignored (bun compiles TypeScript and reads tsconfig itself).
    fn for_bun(
        options: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<NodeOptions, LanguageHostError> {
        NodeOptions::from_options(options)?;
        Ok(NodeOptions {
            typescript: false,
            tsconfig: None,
            nodeargs: Vec::new(),
            engine: NodeEngine::Bun,
        })
    }
}

impl Runtime {
    /// The runtime named in `Pulumi.yaml` (`runtime: python` or `runtime: {name, options}`).
    pub fn from_project(
        name: &str,
        options: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<Runtime, LanguageHostError> {
        match name {
            "python" => {
                let virtualenv = match options.get("virtualenv") {
                    None | Some(serde_json::Value::Null) => None,
                    Some(serde_json::Value::String(s)) => Some(PathBuf::from(s)),
                    Some(_) => {
                        return Err(LanguageHostError::BadOption {
                            option: "virtualenv".into(),
                            expected: "a string",
                        });
                    }
                };
                Ok(Runtime::Python { virtualenv })
            }
            "nodejs" => Ok(Runtime::Nodejs(NodeOptions::from_options(options)?)),
            "bun" => Ok(Runtime::Nodejs(NodeOptions::for_bun(options)?)),
            other => Err(LanguageHostError::UnsupportedRuntime(other.to_string())),
        }
    }
}

/// The Python interpreter for a project: its virtualenv (`runtime.options.virtualenv`, else a
/// `venv` or `.venv` directory in the project, else the `.venv` a uv or poetry project keeps
/// beside its `uv.lock` or `pyproject.toml` further up), else `python3` from PATH.
pub fn python_interpreter(root: &Path, virtualenv: Option<&Path>) -> PathBuf {
    python_interpreter_from(root, root, virtualenv)
}

/// As [`python_interpreter`], the toolchain's `.venv` searched for from `program_dir` (a
/// `main` directory may hold its own `pyproject.toml`, as Pulumi's poetry toolchain finds it).
pub fn python_interpreter_from(
    root: &Path,
    program_dir: &Path,
    virtualenv: Option<&Path>,
) -> PathBuf {
    let candidates: Vec<PathBuf> = match virtualenv {
        Some(v) => vec![root.join(v)],
        None => [root.join("venv"), root.join(".venv")]
            .into_iter()
            .chain(toolchain_venv(program_dir))
            .collect(),
    };
    candidates
        .iter()
        .map(|v| v.join("bin").join("python"))
        .find(|p| p.exists())
        .or_else(|| virtualenv.map(|v| root.join(v).join("bin").join("python")))
        .unwrap_or_else(|| PathBuf::from("python3"))
}

/// The `.venv` beside the nearest `uv.lock` (a uv workspace's root), else beside the nearest
/// `pyproject.toml`, from `start` upward: where uv and an in-project poetry put it.
fn toolchain_venv(start: &Path) -> Option<PathBuf> {
    let near = |file: &str| start.ancestors().find(|d| d.join(file).is_file());
    near("uv.lock")
        .or_else(|| near("pyproject.toml"))
        .map(|d| d.join(".venv"))
}

/// Finds `node_modules/<rel>` from `start` upward, as Node's `require.resolve` would.
pub fn find_node_module(start: &Path, rel: &str) -> Option<PathBuf> {
    start
        .ancestors()
        .map(|d| d.join("node_modules").join(rel))
        .find(|p| p.exists())
}

/// An SDK program: started as a child process against a resource monitor served for it; the
/// run ends when the process exits.
pub struct SdkProgram {
    runtime: Runtime,
    root_directory: PathBuf,
    program_directory: PathBuf,
    entry_point: String,
    organization: String,
    args: Vec<String>,
    /// `--attach-debugger`: the program waits for a debugger before its first line.
    debug: bool,
    /// A Python program's checker, run over it before each run.
    typechecker: Option<Typechecker>,
    events: EventSink,
}

/// The debugger an SDK program is started under.
enum ProgramDebugger {
    Debugpy(Debugpy),
    Inspector(NodeInspector),
    Bun(BunInspector),
}

impl SdkProgram {
    /// A program whose `Pulumi.yaml` is in `root_directory`; output and logs go to `events`.
    pub fn new(
        runtime: Runtime,
        root_directory: impl Into<PathBuf>,
        events: EventSink,
    ) -> SdkProgram {
        let root_directory = root_directory.into();
        SdkProgram {
            runtime,
            program_directory: root_directory.clone(),
            root_directory,
            entry_point: ".".into(),
            organization: DEFAULT_ORGANIZATION.into(),
            args: Vec::new(),
            debug: false,
            typechecker: None,
            events,
        }
    }

    /// Checks a Python program with `typechecker` before each run (`runtime.options.typechecker`).
    pub fn with_typechecker(mut self, typechecker: Option<Typechecker>) -> SdkProgram {
        self.typechecker = typechecker;
        self
    }

    /// Starts the program under its language's debugger (debugpy, Node's inspector), waiting
    /// for one to attach, when `debug`.
    pub fn with_debugger(mut self, debug: bool) -> SdkProgram {
        self.debug = debug;
        self
    }

    /// Applies `Pulumi.yaml`'s `main`: a directory becomes the program directory, a file the
    /// entry point.
    pub fn with_main(mut self, main: &str) -> SdkProgram {
        let path = self.root_directory.join(main);
        if path.is_dir() {
            self.program_directory = path;
            self.entry_point = ".".into();
        } else {
            self.program_directory = path.parent().unwrap_or(&self.root_directory).to_path_buf();
            self.entry_point = path
                .file_name()
                .map_or_else(|| main.to_string(), |f| f.to_string_lossy().into_owned());
        }
        self
    }

    /// The organization programs see (`pulumi.get_organization()`); defaults to `organization`.
    pub fn with_organization(mut self, organization: impl Into<String>) -> SdkProgram {
        self.organization = organization.into();
        self
    }

    /// Extra arguments passed to the program after its entry point.
    pub fn with_args(mut self, args: Vec<String>) -> SdkProgram {
        self.args = args;
        self
    }

    /// The interpreter Python programs and Python dynamic providers of this project run with.
    pub fn python(&self) -> PathBuf {
        match &self.runtime {
            Runtime::Python { virtualenv } => python_interpreter_from(
                &self.root_directory,
                &self.program_directory,
                virtualenv.as_deref(),
            ),
            Runtime::Nodejs(_) => python_interpreter(&self.root_directory, None),
        }
    }

    /// Where the program runs; dynamic provider plugins run there too.
    pub fn program_directory(&self) -> &Path {
        &self.program_directory
    }

    fn command(
        &self,
        monitor: &ResourceMonitor,
        addr: &str,
        debugger: Option<&ProgramDebugger>,
    ) -> Result<Command, ProgramError> {
        let info = monitor.info();
        let mut cmd = match &self.runtime {
            Runtime::Python { .. } => {
                let launcher = write_python_launcher().map_err(|e| {
                    ProgramError(format!("cannot write the Python launcher script: {e}"))
                })?;
                let mut cmd = Command::new(self.python());
                cmd.arg("-u");
                if let Some(ProgramDebugger::Debugpy(debugpy)) = debugger {
                    cmd.args(debugpy.args());
                }
                cmd.arg(launcher);
                cmd.args(["--monitor", addr, "--engine", addr]);
                cmd.args(["--project", &info.project, "--stack", &info.stack]);
                cmd.args(["--organization", &self.organization]);
                cmd.arg("--root_directory").arg(&self.root_directory);
                cmd.arg("--pwd").arg(&self.program_directory);
                cmd.args(["--dry_run", if info.dry_run { "true" } else { "false" }]);
                cmd.args(["--parallel", &info.parallel.to_string()]);
                cmd
            }
            Runtime::Nodejs(options) => {
                let run = find_node_module(&self.program_directory, NODE_RUN_MODULE).ok_or_else(|| {
                    ProgramError(format!(
                        "the Pulumi Node.js SDK is not installed: no node_modules/{NODE_RUN_MODULE} in {} or its parents (run `npm install`)",
                        self.program_directory.display()
                    ))
                })?;
                let mut cmd = match options.engine {
                    NodeEngine::Node => {
                        let preload = write_node_preload().map_err(|e| {
                            ProgramError(format!("cannot write the Node.js preload script: {e}"))
                        })?;
                        let mut cmd = Command::new("node");
                        cmd.args(&options.nodeargs);
                        if let Some(ProgramDebugger::Inspector(inspector)) = debugger {
                            cmd.arg(inspector.arg());
                        }
                        // One `--require=<path>` argument: the SDK's runner takes a bare
                        // `--require` in its execArgv for a user's loader and then turns its
                        // automatic ES module mode for TypeScript off.
                        let mut require = std::ffi::OsString::from("--require=");
                        require.push(preload);
                        cmd.arg(require);
                        cmd
                    }
                    NodeEngine::Bun => {
                        if let Some(refused) = sdk_too_old_for_bun(&run) {
                            return Err(ProgramError(refused));
                        }
                        let mut cmd = Command::new("bun");
                        cmd.arg("run");
                        if let Some(ProgramDebugger::Bun(inspector)) = debugger {
                            cmd.envs(inspector.env().map_err(|e| ProgramError(e.to_string()))?);
                        }
                        cmd
                    }
                };
                cmd.arg(run);
                if options.typescript {
                    cmd.env("PULUMI_NODEJS_TYPESCRIPT", "true");
                }
                if let Some(tsconfig) = &options.tsconfig {
                    cmd.env("PULUMI_NODEJS_TSCONFIG_PATH", tsconfig);
                }
                cmd.args(["--monitor", addr, "--engine", addr]);
                cmd.args(["--organization", &self.organization]);
                cmd.args(["--project", &info.project, "--stack", &info.stack]);
                cmd.arg("--root-directory").arg(&self.root_directory);
                cmd.arg("--pwd").arg(&self.program_directory);
                if info.dry_run {
                    cmd.arg("--dry-run");
                }
                cmd.args(["--parallel", &info.parallel.to_string()]);
                cmd
            }
        };
        cmd.arg(&self.entry_point).args(&self.args);
        let config = serde_json::to_string(&info.config).unwrap_or_else(|_| "{}".into());
        let secret_keys = serde_json::to_string(&info.secret_keys).unwrap_or_else(|_| "[]".into());
        cmd.env("PULUMI_CONFIG", config)
            .env("PULUMI_CONFIG_SECRET_KEYS", secret_keys)
            .env("PULUMI_PROJECT", &info.project)
            .env("PULUMI_STACK", &info.stack)
            .env("PULUMI_ORGANIZATION", &self.organization)
            .env("PULUMI_DRY_RUN", info.dry_run.to_string())
            .env("PULUMI_PARALLEL", info.parallel.to_string())
            .env("PULUMI_MONITOR", addr)
            .env("PULUMI_ENGINE", addr)
            .current_dir(&self.program_directory)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        Ok(cmd)
    }

    /// The debugger `--attach-debugger` starts the program under, named as Pulumi's hosts name
    /// the session.
    fn debugger(&self) -> Result<Option<ProgramDebugger>, ProgramError> {
        if !self.debug {
            return Ok(None);
        }
        Ok(Some(match self.runtime {
            Runtime::Python { .. } => ProgramDebugger::Debugpy(
                Debugpy::new("Pulumi: Program (Python)")
                    .map_err(|e| ProgramError(e.to_string()))?,
            ),
            Runtime::Nodejs(NodeOptions {
                engine: NodeEngine::Node,
                ..
            }) => ProgramDebugger::Inspector(NodeInspector::new("Pulumi: Program (nodejs)")),
            Runtime::Nodejs(NodeOptions {
                engine: NodeEngine::Bun,
                ..
            }) => ProgramDebugger::Bun(
                BunInspector::new("Pulumi: Program (bun)")
                    .map_err(|e| ProgramError(e.to_string()))?,
            ),
        }))
    }

    /// How the runtime's own language host words a failed exit: Node's says "Program", Python's
    /// "program" (`pulumi-language-{nodejs,python}`), and tests match on either.
    fn exit_subject(&self) -> &'static str {
        match self.runtime {
            Runtime::Python { .. } => "program",
            Runtime::Nodejs(_) => "Program",
        }
    }

    fn runtime_name(&self) -> &'static str {
        match &self.runtime {
            Runtime::Python { .. } => "python",
            Runtime::Nodejs(options) => match options.engine {
                NodeEngine::Node => "nodejs",
                NodeEngine::Bun => "bun",
            },
        }
    }

    /// Runs the program to its end. Once `refused` is set the program is stopped (after a short
    /// grace) and its own failure is not reported: the engine's error is the run's error.
    async fn run_process(
        &self,
        monitor: &ResourceMonitor,
        addr: &str,
        refused: &watch::Sender<bool>,
    ) -> Result<(), ProgramError> {
        if let (Runtime::Python { .. }, Some(typechecker)) = (&self.runtime, &self.typechecker) {
            typechecker
                .check(&self.python(), &self.program_directory, &self.events)
                .await?;
        }
        let debugger = self.debugger()?;
        let mut cmd = self.command(monitor, addr, debugger.as_ref())?;
        let program = cmd.as_std().get_program().to_string_lossy().into_owned();
        let mut child = cmd.spawn().map_err(|e| {
            ProgramError(format!(
                "cannot start the {} program with {program}: {e}",
                self.runtime_name()
            ))
        })?;
        let pid = child.id();
        let (debugpy, inspector, bun) = match debugger {
            Some(ProgramDebugger::Debugpy(d)) => (Some(d), None, None),
            Some(ProgramDebugger::Inspector(i)) => {
                (None, Some(i.output(pid, self.events.clone())), None)
            }
            Some(ProgramDebugger::Bun(b)) => (None, None, Some(b)),
            None => (None, None, None),
        };
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let oom = Arc::new(OutOfMemory::default());
        let out = child.stdout.take().map(|s| {
            tokio::spawn(forward(
                s,
                self.events.clone(),
                Severity::Info,
                None,
                None,
                None,
            ))
        });
        let err = child.stderr.take().map(|s| {
            tokio::spawn(forward(
                s,
                self.events.clone(),
                Severity::Warning,
                Some(tail.clone()),
                Some(oom.clone()),
                inspector,
            ))
        });
        let mut refusal = refused.subscribe();
        let exited = tokio::select! {
            status = child.wait() => Some(status),
            _ = refusal.wait_for(|r| *r) => None,
            never = announce_debugpy(debugpy.as_ref(), pid, &self.events) => match never {},
            never = announce_bun(bun.as_ref(), pid, &self.events) => match never {},
        };
        let status = match exited {
            Some(status) => status,
            None => match tokio::time::timeout(REFUSED_GRACE, child.wait()).await {
                Ok(status) => status,
                Err(_) => {
                    let _ = child.start_kill();
                    child.wait().await
                }
            },
        }
        .map_err(|e| ProgramError(format!("waiting for the program failed: {e}")))?;
        // debugpy's adapter outlives the program holding its output pipes until the editor
        // disconnects: the program's output is not awaited past its end then.
        for task in [out, err].into_iter().flatten() {
            if debugpy.is_some() {
                let _ = tokio::time::timeout(DEBUGPY_OUTPUT_GRACE, task).await;
            } else {
                let _ = task.await;
            }
        }
        let under_debugpy = debugpy.is_some();
        drop(debugpy);
        if *refused.borrow() {
            return Ok(());
        }
        let tail: Vec<String> = tail.lock().drain(..).collect();
        if matches!(self.runtime, Runtime::Nodejs(_)) && !status.success() && oom.detected() {
            // Pulumi's Node.js host: its stderr was shown already; a signal's exit code is -1.
            return Err(ProgramError(format!(
                "Program exited with non-zero exit code: {}. {OUT_OF_MEMORY_ADVICE}",
                status.code().unwrap_or(-1)
            )));
        }
        match status.code() {
            Some(0) => Ok(()),
            Some(EXIT_REPORTED) => Err(ProgramError(BAIL_MESSAGE.into())),
            Some(EXIT_NO_PYTHON_SDK) if matches!(self.runtime, Runtime::Python { .. }) => {
                Err(ProgramError(format!(
                    "the Pulumi Python SDK is not installed for {program}: install it with `{program} -m pip install pulumi` or set runtime.options.virtualenv in Pulumi.yaml"
                )))
            }
            Some(_)
                if under_debugpy && tail.iter().any(|l| l.ends_with("No module named debugpy")) =>
            {
                Err(ProgramError(format!(
                    "debugpy is not installed for {program} (--attach-debugger): install it with `{program} -m pip install debugpy`"
                )))
            }
            Some(code) => Err(ProgramError(with_tail(
                format!(
                    "{} exited with non-zero exit code: {code}",
                    self.exit_subject()
                ),
                &tail,
            ))),
            None => Err(ProgramError(with_tail(
                format!("program was terminated by a signal ({status})"),
                &tail,
            ))),
        }
    }
}

/// Why the Node SDK holding `runner` (a script two directories into `@pulumi/pulumi`, such as
/// `cmd/run/index.js`) cannot run under bun: older than bun needs (Pulumi's host in bun mode
/// checks it before it runs a program or a policy pack); `None` when it can or its version
/// is unreadable.
pub fn sdk_too_old_for_bun(runner: &Path) -> Option<String> {
    let manifest = runner.ancestors().nth(3)?.join("package.json");
    let version = std::fs::read_to_string(&manifest)
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .and_then(|m| m["version"].as_str().map(str::to_string))
        .and_then(|v| semver::Version::parse(&v).ok())?;
    (version < MIN_BUN_SDK).then(|| {
        format!(
            "the bun runtime requires @pulumi/pulumi >= {MIN_BUN_SDK}, but {version} is installed ({}); update it and re-run `install`",
            manifest.display()
        )
    })
}

fn with_tail(msg: String, tail: &[String]) -> String {
    if tail.is_empty() {
        msg
    } else {
        format!("{msg}; its last output on stderr:\n{}", tail.join("\n"))
    }
}

/// Announces the wait for a debugger once debugpy listens (an error if it never does), then
/// keeps its log directory until the program ends (the caller drops this with the debugpy).
async fn announce_debugpy(
    debugpy: Option<&Debugpy>,
    pid: Option<u32>,
    events: &EventSink,
) -> std::convert::Infallible {
    if let (Some(debugpy), Some(pid)) = (debugpy, pid) {
        match debugpy.ready(pid).await {
            Ok(()) => events.send(debugpy.announcement()),
            Err(e) => events.diag(None, Severity::Error, e.to_string()),
        }
    }
    std::future::pending().await
}

/// Announces the wait for a debugger once bun's inspector listens (an error if it never says
/// so), as Pulumi's host in bun mode waits for bun's notification before it announces.
async fn announce_bun(
    bun: Option<&BunInspector>,
    pid: Option<u32>,
    events: &EventSink,
) -> std::convert::Infallible {
    if let Some(bun) = bun {
        match bun.ready().await {
            Ok(()) => events.send(bun.announcement(pid)),
            Err(e) => events.diag(None, Severity::Error, e.to_string()),
        }
    }
    std::future::pending().await
}

/// Sends each line of a program's output as a diagnostic, keeping the last lines and watching
/// for an out-of-memory report if asked; the inspector's own lines announce a debugger's wait
/// instead.
async fn forward(
    stream: impl AsyncRead + Unpin,
    events: EventSink,
    severity: Severity,
    tail: Option<Arc<Mutex<VecDeque<String>>>>,
    oom: Option<Arc<OutOfMemory>>,
    inspector: Option<InspectorOutput>,
) {
    let mut lines = BufReader::new(stream).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        if inspector.as_ref().is_some_and(|i| i.consumes(&line)) {
            continue;
        }
        if let Some(oom) = &oom {
            oom.observe(&line);
        }
        if let Some(tail) = &tail {
            let mut tail = tail.lock();
            if tail.len() == STDERR_TAIL {
                tail.pop_front();
            }
            tail.push_back(line.clone());
        }
        events.diag(None, severity, line);
    }
}

#[async_trait]
impl Program for SdkProgram {
    async fn run(self: Box<Self>, monitor: ResourceMonitor) -> Result<(), ProgramError> {
        let refused = Arc::new(watch::Sender::new(false));
        let (addr, server) = serve(
            monitor.clone(),
            self.events.clone(),
            &self.organization,
            refused.clone(),
        )
        .await
        .map_err(|e| ProgramError(format!("cannot start the resource monitor: {e}")))?;
        let result = self
            .run_process(&monitor, &addr.to_string(), &refused)
            .await;
        let _ = tokio::time::timeout(std::time::Duration::from_secs(5), server.shutdown()).await;
        result
    }
}
