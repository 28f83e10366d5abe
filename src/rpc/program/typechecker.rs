//! A Python project's `runtime.options.typechecker`: mypy or pyright run over the program in
//! its virtualenv before every run, as Pulumi's Python language host does; what the checker
//! prints becomes diagnostics, and a failed check fails the run before the program starts.

use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};

use tokio::process::Command;

use crate::engine::{EventSink, ProgramError, Severity};

/// Exit code of the installed-package probe when the checker's distribution is missing.
const NOT_INSTALLED: i32 = 3;
/// Asks the interpreter whether a distribution is installed (`argv[1]`).
const PROBE: &str = "import importlib.metadata as m, sys\n\
try:\n    m.version(sys.argv[1])\n\
except m.PackageNotFoundError:\n    sys.exit(3)\n";

/// A `runtime.options.typechecker` Pulumi's Python host would refuse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TypecheckerError {
    #[error(
        "Pulumi.yaml: unsupported typechecker option: {0} (runtime.options.typechecker is mypy or pyright)"
    )]
    Unsupported(String),
    #[error("Pulumi.yaml: runtime.options.typechecker must be a string")]
    NotAString,
}

/// The checkers Pulumi's Python host knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Checker {
    Mypy,
    Pyright,
}

impl Checker {
    fn name(self) -> &'static str {
        match self {
            Checker::Mypy => "mypy",
            Checker::Pyright => "pyright",
        }
    }
}

/// The checker a Python project names, with the advice its error gives when the checker is
/// not installed (which depends on the project's toolchain and virtualenv).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Typechecker {
    checker: Checker,
    install_advice: String,
}

impl Typechecker {
    /// `typechecker` of a Python project's `runtime.options` (`None` when absent); any value
    /// but `mypy` or `pyright` is refused, as Pulumi's host refuses it.
    pub fn from_options(
        options: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<Option<Typechecker>, TypecheckerError> {
        let checker = match options.get("typechecker") {
            None | Some(serde_json::Value::Null) => return Ok(None),
            Some(serde_json::Value::String(s)) => match s.as_str() {
                "mypy" => Checker::Mypy,
                "pyright" => Checker::Pyright,
                other => return Err(TypecheckerError::Unsupported(other.into())),
            },
            Some(_) => return Err(TypecheckerError::NotAString),
        };
        let name = checker.name();
        let option = |key: &str| options.get(key).and_then(serde_json::Value::as_str);
        let install_advice = if option("toolchain") == Some("poetry") {
            format!("Please install it using `poetry add {name}`.")
        } else {
            let pip =
                option("virtualenv").map_or_else(|| "pip".to_string(), |v| format!("{v}/bin/pip"));
            format!(
                "Please add an entry for {name} to requirements.txt and run `{pip} install -r requirements.txt`"
            )
        };
        Ok(Some(Typechecker {
            checker,
            install_advice,
        }))
    }

    /// Checks the program in `program_dir` with `python` (a virtualenv's interpreter, whose
    /// virtualenv is activated for the checker): each line the checker prints is a diagnostic,
    /// and its failure, or its absence from the virtualenv, is the run's error.
    pub(super) async fn check(
        &self,
        python: &Path,
        program_dir: &Path,
        events: &EventSink,
    ) -> Result<(), ProgramError> {
        let name = self.checker.name();
        if !self.installed(python).await? {
            return Err(ProgramError(format!(
                "The typechecker option is set to {name}, but {name} is not installed. {}",
                self.install_advice
            )));
        }
        let venv = virtualenv_of(python);
        let mut cmd = Command::new(python);
        cmd.args(["-m", name]);
        if let (Checker::Mypy, Some(venv)) = (self.checker, &venv) {
            // mypy would otherwise check the packages of a virtualenv inside the program.
            let relative = venv.strip_prefix(program_dir).unwrap_or(venv);
            cmd.arg("--exclude").arg(relative);
        }
        cmd.arg(program_dir);
        if let Some(venv) = &venv {
            activate(&mut cmd, venv);
        }
        let out = cmd
            .current_dir(program_dir)
            .stdin(Stdio::null())
            .kill_on_drop(true)
            .output()
            .await
            .map_err(|e| {
                ProgramError(format!("cannot run {name} with {}: {e}", python.display()))
            })?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        forward_lines(&stdout, Severity::Info, events);
        forward_lines(&stderr, Severity::Warning, events);
        if out.status.success() {
            return Ok(());
        }
        let status = exit_status(out.status);
        let output = format!("{stdout}{stderr}");
        let output = output.trim_end();
        Err(ProgramError(if output.is_empty() {
            format!("{name} failed: {status}")
        } else {
            format!("{name} failed: {status}\n{output}")
        }))
    }

    /// Whether the checker's distribution is installed where `python` finds its packages.
    async fn installed(&self, python: &Path) -> Result<bool, ProgramError> {
        let out = Command::new(python)
            .args(["-c", PROBE, self.checker.name()])
            .stdin(Stdio::null())
            .kill_on_drop(true)
            .output()
            .await
            .map_err(|e| ProgramError(format!("cannot start {}: {e}", python.display())))?;
        match out.status.code() {
            Some(0) => Ok(true),
            Some(NOT_INSTALLED) => Ok(false),
            _ => Err(ProgramError(format!(
                "cannot list the packages of {}: {}\n{}",
                python.display(),
                exit_status(out.status),
                String::from_utf8_lossy(&out.stderr).trim_end()
            ))),
        }
    }
}

/// Each line of a checker's output as a diagnostic, its newline kept: Pulumi forwards its
/// language host's output line by line with the newline, and its diagnostics add one more,
/// which tests match on.
fn forward_lines(text: &str, severity: Severity, events: &EventSink) {
    for line in text.split_inclusive('\n') {
        events.diag(None, severity, line);
    }
}

/// The virtualenv `python` is the interpreter of (`<venv>/bin/python`), if it is one.
fn virtualenv_of(python: &Path) -> Option<PathBuf> {
    let venv = python.parent()?.parent()?;
    venv.join("pyvenv.cfg")
        .is_file()
        .then(|| venv.to_path_buf())
}

/// The environment a virtualenv's `activate` gives: its `bin` first on PATH, `VIRTUAL_ENV` set
/// (pyright finds the program's imports through them).
fn activate(cmd: &mut Command, venv: &Path) {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let paths = std::iter::once(venv.join("bin")).chain(std::env::split_paths(&path));
    if let Ok(path) = std::env::join_paths(paths) {
        cmd.env("PATH", path);
    }
    cmd.env("VIRTUAL_ENV", venv).env_remove("PYTHONHOME");
}

/// An exit status worded as Go's `exec` words it (`exit status 1`), as Pulumi's errors show it.
fn exit_status(status: ExitStatus) -> String {
    match status.code() {
        Some(code) => format!("exit status {code}"),
        None => status.to_string(),
    }
}
