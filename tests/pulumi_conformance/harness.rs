//! A ProgramTest in the manner of Pulumi's Go `integration.ProgramTest`: a case's program
//! directory is copied into a temporary project, then each deployment is a preview and an
//! update through the real binary, followed by a snapshot integrity check and, when it
//! succeeded, a second preview that must show no changes. Edit steps (`step1/`, `step2/`…)
//! are copied over the project as `EditDirs` with `Additive: true` are.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::cli_support::{Env, link_sdks, stderr, stdout};
use super::integrity::verify_integrity;

/// One case's project and stack, deployed step by step.
pub(crate) struct ProgramTest {
    pub env: Env,
    case: PathBuf,
}

/// The deploy flags every run uses: no console, no prompt.
const QUIET: [&str; 4] = ["--stack", "dev", "--non-interactive", "--yes"];

impl ProgramTest {
    /// The project of `programs/<case>/` (without its edit steps) on a new `dev` stack; SDK
    /// programs get the installed SDKs linked in and a passphrase for their secrets.
    pub(crate) fn new(case: &str) -> ProgramTest {
        ProgramTest::start(case, false)
    }

    /// As `new`, with a passphrase for a YAML program's secrets.
    pub(crate) fn with_secrets(case: &str) -> ProgramTest {
        ProgramTest::start(case, true)
    }

    fn start(case: &str, secrets: bool) -> ProgramTest {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/pulumi_conformance/programs")
            .join(case);
        let mut env = Env::new("");
        copy_files(&dir, &env.project());
        let project = std::fs::read_to_string(env.project().join("Pulumi.yaml")).unwrap();
        if !project.contains("runtime: yaml") {
            link_sdks(&env.project());
            env.passphrase = true;
        }
        env.passphrase |= secrets;
        env.ok(&["stack", "init", "dev"]);
        ProgramTest { env, case: dir }
    }

    /// The project of `programs/<case>/<program>/` with the case's other files and directories
    /// copied beside it (ProgramTest copies `Dir` and runs in `RelativeWorkDir`), on a new `dev` stack
    /// with a passphrase, and no SDKs linked in: its package manager installs what it needs.
    pub(crate) fn in_work_dir(case: &str, program: &str) -> ProgramTest {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/pulumi_conformance/programs")
            .join(case);
        let mut env = Env::new("");
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name();
            if entry.file_type().unwrap().is_file() {
                std::fs::copy(entry.path(), env.root.path().join(&name)).unwrap();
                continue;
            }
            let to = if name == program {
                env.project()
            } else {
                env.root.path().join(&name)
            };
            std::fs::create_dir_all(&to).unwrap();
            copy_files(&dir.join(&name), &to);
        }
        env.passphrase = true;
        env.ok(&["stack", "init", "dev"]);
        ProgramTest {
            env,
            case: dir.join(program),
        }
    }

    /// A Python program on uv as ProgramTest prepares one (`preparePythonProjectWithUv`): no
    /// SDK linked, uv and poetry on PATH; `prepare` (the Go test's own steps) runs, then
    /// `uv sync` makes the project's `.venv`, which its `virtualenv` option then names.
    pub(crate) fn on_uv(case: &str, prepare: impl FnOnce(&Env)) -> ProgramTest {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/pulumi_conformance/programs")
            .join(case);
        let mut env = Env::new("");
        copy_files(&dir, &env.project());
        env.passphrase = true;
        env.plugins = Some(python_tools());
        prepare(&env);
        let out = std::process::Command::new(python_tools().join("uv"))
            .arg("sync")
            .current_dir(env.project())
            .output()
            .expect("run uv");
        assert!(
            out.status.success(),
            "{case}: uv sync failed:\n{}",
            stderr(&out)
        );
        let file = env.project().join("Pulumi.yaml");
        let project = std::fs::read_to_string(&file).unwrap();
        let venv = format!(
            "    virtualenv: {}\n",
            env.project().join(".venv").display()
        );
        let project = project.replacen(
            "    toolchain: uv\n",
            &format!("    toolchain: uv\n{venv}"),
            1,
        );
        std::fs::write(&file, project).unwrap();
        env.ok(&["stack", "init", "dev"]);
        ProgramTest { env, case: dir }
    }

    /// Copies edit step `stepN/` over the project.
    pub(crate) fn edit(&self, step: &str) {
        copy_files(&self.case.join(step), &self.env.project());
    }

    fn deploy(&self, command: &str, extra: &[&str]) -> std::process::Output {
        let mut args = vec![command];
        args.extend(QUIET);
        if command == "preview" {
            args.pop();
        }
        args.extend(extra);
        self.env.run(&args)
    }

    /// Preview, update, integrity check, a refresh and a preview that change nothing; returns the exported state.
    pub(crate) fn up(&self) -> Value {
        self.up_with(&[])
    }

    /// As `up`, with extra flags for the update.
    pub(crate) fn up_with(&self, extra: &[&str]) -> Value {
        let preview = self.deploy("preview", &[]);
        assert!(
            preview.status.success(),
            "{}: preview failed:\n{}{}",
            self.name(),
            stdout(&preview),
            stderr(&preview)
        );
        let up = self.deploy("up", extra);
        assert!(
            up.status.success(),
            "{}: up failed:\n{}{}",
            self.name(),
            stdout(&up),
            stderr(&up)
        );
        let state = self.checked_export();
        let refresh = self.deploy("refresh", &["--skip-preview", "--expect-no-changes"]);
        assert!(
            refresh.status.success(),
            "{}: refresh failed:\n{}{}",
            self.name(),
            stdout(&refresh),
            stderr(&refresh)
        );
        assert_eq!(
            recorded(&self.checked_export()),
            recorded(&state),
            "{}: a refresh after the update changes the state",
            self.name()
        );
        let again = self.deploy("preview", &["--expect-no-changes"]);
        assert!(
            again.status.success(),
            "{}: a second preview shows changes:\n{}{}",
            self.name(),
            stdout(&again),
            stderr(&again)
        );
        state
    }

    /// An update that must fail (`ExpectFailure`); returns its whole output, after checking the
    /// integrity of the state it left.
    pub(crate) fn up_fails(&self) -> String {
        let up = self.deploy("up", &[]);
        let text = format!("{}{}", stdout(&up), stderr(&up));
        assert!(
            !up.status.success(),
            "{}: up should have failed:\n{text}",
            self.name()
        );
        self.checked_export();
        text
    }

    /// Copies an edit step over the project and deploys it.
    pub(crate) fn step(&self, step: &str) -> Value {
        self.edit(step);
        self.up()
    }

    /// Copies an edit step over the project; its update must fail.
    pub(crate) fn step_fails(&self, step: &str) -> String {
        self.edit(step);
        self.up_fails()
    }

    /// The exported state, after Pulumi's integrity rules were checked on it.
    pub(crate) fn checked_export(&self) -> Value {
        let state = self.env.export("dev");
        if let Err(e) = verify_integrity(&state) {
            panic!(
                "{}: the snapshot fails the integrity check: {e}\n{state:#}",
                self.name()
            );
        }
        state
    }

    /// The stack's outputs as `stack output --json --show-secrets` prints them.
    pub(crate) fn outputs(&self) -> Value {
        let text = self.env.ok(&[
            "stack",
            "output",
            "--stack",
            "dev",
            "--json",
            "--show-secrets",
        ]);
        serde_json::from_str(&text).expect("stack output --json is JSON")
    }

    /// Runs a stepdeck command on the stack, which must succeed.
    pub(crate) fn ok(&self, args: &[&str]) -> String {
        let mut all = args.to_vec();
        all.extend(["--stack", "dev"]);
        self.env.ok(&all)
    }

    /// Destroys the stack: afterwards nothing is left in the state and none of the sim world's
    /// resources the state managed (those retained on delete and read ones excepted).
    pub(crate) fn destroy(&self) -> Value {
        let out = self.deploy("destroy", &[]);
        assert!(
            out.status.success(),
            "{}: destroy failed:\n{}{}",
            self.name(),
            stdout(&out),
            stderr(&out)
        );
        self.nothing_left()
    }

    /// The state after a destroy, which must hold no resources.
    pub(crate) fn nothing_left(&self) -> Value {
        let state = self.checked_export();
        let left: Vec<String> = resources(&state)
            .iter()
            .map(|r| urn(r).to_string())
            .collect();
        assert!(left.is_empty(), "{}: destroy left {left:?}", self.name());
        state
    }

    pub(crate) fn name(&self) -> String {
        self.case
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned()
    }
}

/// What a refresh may not change in a state that matches the cloud: each resource's identity
/// and outputs (Pulumi's refresh compares outputs).
fn recorded(state: &Value) -> Vec<Value> {
    resources(state)
        .iter()
        .map(|r| serde_json::json!([r["urn"], r["id"], opened(&r["outputs"]), r["delete"]]))
        .collect()
}

/// A value with each secret's ciphertext (new on every encryption) replaced by a marker.
fn opened(v: &Value) -> Value {
    match v {
        Value::Object(m) if m.contains_key("ciphertext") => Value::String("[secret]".into()),
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), opened(v))).collect()),
        Value::Array(items) => Value::Array(items.iter().map(opened).collect()),
        other => other.clone(),
    }
}

/// Copies the files of `from` and its subdirectories (not its `stepN/` edit steps) into `to`.
pub(crate) fn copy_files(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display())) {
        let entry = entry.unwrap();
        let name = entry.file_name();
        let is_step = name
            .to_str()
            .and_then(|n| n.strip_prefix("step"))
            .is_some_and(|n| n.parse::<u32>().is_ok());
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), to.join(&name)).unwrap();
        } else if !is_step {
            std::fs::create_dir_all(to.join(&name)).unwrap();
            copy_files(&entry.path(), &to.join(&name));
        }
    }
}

/// The exported state's resources.
pub(crate) fn resources(state: &Value) -> Vec<Value> {
    state["deployment"]["resources"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// A resource's URN.
pub(crate) fn urn(r: &Value) -> &str {
    r["urn"].as_str().unwrap_or("")
}

/// The name at the end of a URN.
pub(crate) fn name_of(r: &Value) -> &str {
    urn(r).rsplit("::").next().unwrap_or("")
}

/// The live (not pending-delete) resource called `name`.
pub(crate) fn live(state: &Value, name: &str) -> Value {
    resources(state)
        .into_iter()
        .find(|r| name_of(r) == name && r["delete"] != true)
        .unwrap_or_else(|| panic!("no live resource {name:?} in {state:#}"))
}

/// Every copy (live or pending delete) of the resource called `name`.
pub(crate) fn copies(state: &Value, name: &str) -> Vec<Value> {
    resources(state)
        .into_iter()
        .filter(|r| name_of(r) == name)
        .collect()
}

/// The names of the custom resources that are not providers, sorted.
pub(crate) fn managed(state: &Value) -> Vec<String> {
    let mut names: Vec<String> = resources(state)
        .iter()
        .filter(|r| {
            r["custom"] == true && !r["type"].as_str().unwrap().starts_with("pulumi:providers:")
        })
        .map(|r| name_of(r).to_string())
        .collect();
    names.sort();
    names
}

/// The root stack resource's outputs.
pub(crate) fn stack_outputs(state: &Value) -> Value {
    resources(state)
        .into_iter()
        .find(|r| r["type"] == "pulumi:pulumi:Stack")
        .map(|r| r["outputs"].clone())
        .unwrap_or(Value::Null)
}

/// The directory holding the uv and poetry CLIs that `.ci/install-sdks.sh` installs, put on the
/// PATH of programs whose `runtime.options.toolchain` names one.
pub(crate) fn python_tools() -> PathBuf {
    let bin = super::cli_support::sdk::sdk_env().root.join("tools/bin");
    assert!(
        bin.join("uv").exists() && bin.join("poetry").exists(),
        "uv and poetry are not installed in {}: run `bash .ci/install-sdks.sh`",
        bin.display()
    );
    bin
}
