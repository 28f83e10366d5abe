//! `runtime.options.compiler`: a command whose standard output is the YAML program (CUE,
//! jsonnet or a script that writes YAML), run in the program's directory before each run with
//! the stack's name, project, organization, config and root directory in its environment, as
//! Pulumi YAML runs it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::engine::program::source::DeploymentInfo;

/// Why the compiler gave no program.
#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    #[error("runtime.options.compiler must be a string")]
    NotAString,
    #[error("runtime.options.compiler {0:?} is not a command line: an unclosed quote")]
    BadCommand(String),
    #[error("error running compiler {name}: {why}")]
    Start { name: String, why: std::io::Error },
    #[error("error running compiler {name}: {status}, stderr follows: {stderr}")]
    Failed {
        name: String,
        status: std::process::ExitStatus,
        stderr: String,
    },
    #[error("compiler {name} did not produce a valid template: its output is not UTF-8")]
    NotText { name: String },
}

/// The compiler command of a project, and where it runs.
#[derive(Clone, Debug)]
pub struct Compiler {
    argv: Vec<String>,
    dir: PathBuf,
}

impl Compiler {
    /// The compiler `runtime.options` names, if any, to run in `dir`.
    pub fn from_options(
        options: &BTreeMap<String, Value>,
        dir: &Path,
    ) -> Result<Option<Compiler>, CompileError> {
        let command = match options.get("compiler") {
            None => return Ok(None),
            Some(Value::String(c)) => c,
            Some(_) => return Err(CompileError::NotAString),
        };
        let argv = shlex::split(command)
            .filter(|a| !a.is_empty())
            .ok_or_else(|| CompileError::BadCommand(command.clone()))?;
        Ok(Some(Compiler {
            argv,
            dir: dir.to_path_buf(),
        }))
    }

    /// The file name messages give the compiled program, as Pulumi YAML names it.
    pub fn file_name(&self) -> String {
        format!("<stdout from compiler {}>", self.argv[0])
    }

    /// Runs the compiler for a run of `info`; its standard output is the program. Variables
    /// already set in stepdeck's environment are left as they are (Pulumi YAML's rule).
    pub async fn compile(
        &self,
        info: &DeploymentInfo,
        root_dir: &Path,
    ) -> Result<String, CompileError> {
        let name = self.argv[0].clone();
        let config: serde_json::Map<String, Value> = info
            .config
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        let vars = [
            ("PULUMI_STACK", info.stack.clone()),
            ("PULUMI_ORGANIZATION", "organization".to_string()),
            ("PULUMI_PROJECT", info.project.clone()),
            ("PULUMI_CONFIG", Value::Object(config).to_string()),
            ("PULUMI_ROOT_DIRECTORY", root_dir.display().to_string()),
        ];
        let mut command = tokio::process::Command::new(&name);
        command
            .args(&self.argv[1..])
            .current_dir(&self.dir)
            .stdin(std::process::Stdio::null())
            .kill_on_drop(true);
        for (key, value) in vars {
            if std::env::var_os(key).is_none() {
                command.env(key, value);
            }
        }
        let out = command.output().await.map_err(|why| CompileError::Start {
            name: name.clone(),
            why,
        })?;
        if !out.status.success() {
            return Err(CompileError::Failed {
                name,
                status: out.status,
                stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            });
        }
        String::from_utf8(out.stdout).map_err(|_| CompileError::NotText { name })
    }
}
