//! Pulumi's Python programs on the uv and poetry toolchains (`TestUv`, `TestPoetryInstall*`,
//! `TestAutomaticVenvCreationPoetry`; not ProgramTest): the program directory imported whole,
//! `install` (or the test's own `uv sync`) run where the Go test runs it, then `stack init` and
//! `preview`, and the virtualenv must be where Pulumi's toolchain puts it. uv and poetry come
//! from the SDK environment's `tools` (`.ci/install-sdks.sh`); `pulumi` is fetched from PyPI
//! through their caches (the Go tests use the local SDK checkout, which this machine lacks), and
//! the projects require Python 3.10 rather than 3.13 so that no interpreter is downloaded.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::cli_support::Env;
use super::cli_support::sdk::sdk_env;
use super::harness::{ProgramTest, copy_files, live, python_tools, resources};

/// A case's directory imported into a fresh environment, its commands run in `cwd` below it.
struct Imported {
    env: Env,
    cwd: PathBuf,
}

impl Imported {
    fn new(case: &str, cwd: &str) -> Imported {
        let mut env = Env::new("");
        std::fs::remove_file(env.project().join("Pulumi.yaml")).unwrap();
        copy_files(
            &Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/pulumi_conformance/programs")
                .join(case),
            &env.project(),
        );
        env.passphrase = true;
        env.plugins = Some(python_tools());
        let cwd = env.project().join(cwd);
        std::fs::create_dir_all(&cwd).unwrap();
        Imported { env, cwd }
    }

    /// Runs a stepdeck command in `cwd`, which must succeed.
    fn ok(&self, args: &[&str]) -> String {
        let out = self.env.command_in(&self.cwd, args).output().unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "stepdeck {args:?} failed:\n{text}");
        text
    }

    /// `install` (unless the case prepared itself), `stack init`, `preview`; the virtualenv
    /// `venv` (relative to the imported directory) must then exist.
    fn preview_in_venv(&self, install: bool, venv: &str) {
        if install {
            self.ok(&["install"]);
        }
        self.ok(&["stack", "init", "dev"]);
        let preview = self.ok(&["preview", "--stack", "dev"]);
        assert!(preview.contains("foo"), "{preview}");
        self.assert_venv(venv);
    }

    fn assert_venv(&self, venv: &str) {
        let dir = self.env.project().join(venv);
        assert!(
            dir.join("pyvenv.cfg").is_file() && dir.join("bin/python").exists(),
            "no virtualenv at {venv}"
        );
    }

    fn exists(&self, file: &str) -> bool {
        self.env.project().join(file).exists()
    }
}

#[test]
fn py_uv() {
    Imported::new("py_uv", "").preview_in_venv(true, "my-venv");
}

#[test]
fn py_uv_main() {
    Imported::new("py_uv_main", "").preview_in_venv(true, "my-venv");
}

#[test]
fn py_uv_parent() {
    Imported::new("py_uv_parent", "subfolder").preview_in_venv(true, "subfolder/my-venv");
}

#[test]
fn py_uv_no_venv_option() {
    Imported::new("py_uv_no_venv_option", "").preview_in_venv(true, ".venv");
}

#[test]
fn py_uv_no_venv_option_parent() {
    // The virtualenv is beside the pyproject.toml, above the project.
    Imported::new("py_uv_no_venv_option_parent", "subfolder").preview_in_venv(true, ".venv");
}

#[test]
fn py_uv_workspace() {
    let case = Imported::new("py_uv_workspace", "infra/projects/some-project");
    let out = Command::new("uv")
        .args(["sync", "--all-packages"])
        .current_dir(case.env.project().join("infra"))
        .env("PATH", path_with_tools())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "uv sync --all-packages:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The workspace root's virtualenv, which the member's program runs in.
    case.preview_in_venv(false, "infra/.venv");
}

#[test]
fn py_uv_convert_requirements() {
    let case = Imported::new("py_uv_convert_requirements", "");
    case.ok(&["install"]);
    case.assert_venv("my-venv");
    assert!(
        case.exists("pyproject.toml"),
        "install made no pyproject.toml"
    );
    assert!(!case.exists("requirements.txt"), "requirements.txt is left");
}

#[test]
fn py_uv_convert_requirements_subfolder() {
    let case = Imported::new("py_uv_convert_requirements_subfolder", "subfolder");
    case.ok(&["install"]);
    case.assert_venv("subfolder/my-venv");
    assert!(
        case.exists("pyproject.toml"),
        "install made no pyproject.toml above the project"
    );
    assert!(!case.exists("requirements.txt"), "requirements.txt is left");
}

/// This process's PATH with the uv and poetry tools first.
fn path_with_tools() -> std::ffi::OsString {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::join_paths(std::iter::once(python_tools()).chain(std::env::split_paths(&path)))
        .unwrap()
}

#[test]
fn py_poetry() {
    // TestAutomaticVenvCreationPoetry: no install; the preview, run from a subdirectory of the
    // project, makes the virtualenv.
    let case = Imported::new("py_poetry", "subdir");
    case.ok(&["stack", "init", "teststack"]);
    case.ok(&["preview", "--stack", "teststack"]);
    case.assert_venv(".venv");
}

#[test]
fn py_poetry_parent() {
    let case = Imported::new("py_poetry_parent", "subfolder");
    case.ok(&["install"]);
    case.assert_venv(".venv");
}

#[test]
fn py_poetry_main() {
    let case = Imported::new("py_poetry_main", "");
    case.ok(&["install"]);
    case.assert_venv(".venv");
}

#[test]
fn py_poetry_main_and_parent() {
    // The main directory's own pyproject.toml is poetry's, not the empty one of the project.
    let case = Imported::new("py_poetry_main_and_parent", "");
    case.ok(&["install"]);
    case.assert_venv("src/.venv");
}

#[test]
fn py_get_language_runtime_metadata() {
    // TestGetLanguageRuntimeMetadata asks the Python host about the uv program without an
    // install; `about --json` reports what the host answers.
    let case = Imported::new("py_uv", "");
    let about: serde_json::Value = serde_json::from_str(&case.ok(&["about", "--json"])).unwrap();
    let runtime = &about["runtime"];
    assert_eq!(runtime["language"], "python", "{about:#}");
    assert!(runtime["version"].is_string(), "{about:#}");
    assert!(runtime["executable"].is_string(), "{about:#}");
    assert_eq!(runtime["toolchain"], "Uv", "{about:#}");
    assert_eq!(runtime["typechecker"], "None", "{about:#}");
    assert!(runtime["toolchainVersion"].is_string(), "{about:#}");
}

#[test]
fn py_parameterized() {
    // TestParameterizedPython: `package gen-sdk` of the parameterizable Python test provider
    // (beside the project, as `../testprovider-py`), ProgramTest on uv, and the project's
    // `test.py` under unittest in its virtualenv after the preparation.
    let t = ProgramTest::on_uv("py_parameterized", |env| {
        let provider = env.root.path().join("testprovider-py");
        std::fs::create_dir_all(&provider).unwrap();
        copy_files(
            &Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/pulumi_conformance/programs/testprovider_py"),
            &provider,
        );
        std::os::unix::fs::symlink(sdk_env().root.join("venv"), provider.join("venv")).unwrap();
        let args = ["package", "gen-sdk", "../testprovider-py", "pkg"];
        env.ok(&[&args[..], &["--language", "python", "--local"]].concat());
    });
    let out = Command::new(t.env.project().join(".venv/bin/python"))
        .args(["-m", "unittest", "test.py"])
        .current_dir(t.env.project())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "test.py:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let state = t.up();
    assert!(
        live(&state, "res1")["outputs"]["result"].is_object(),
        "a secret result"
    );
    assert_eq!(live(&state, "res6")["id"], "banana");
    assert_eq!(live(&state, "echo")["type"], "pkg:index:Echo");
    t.destroy();
    assert!(resources(&t.checked_export()).is_empty());
}

/// `TestPulumiNewPython`'s uv and poetry subtests: `new <template> --generate-only
/// --runtime-options toolchain=<tc>` records the toolchain and turns the template's
/// `requirements.txt` into a `pyproject.toml` named for the project, in the toolchain's form.
#[test]
fn py_new_with_toolchain() {
    let template = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/pulumi_conformance/programs/new_python_random");
    let template = template.display().to_string();
    for toolchain in ["uv", "poetry"] {
        let mut env = Env::new("");
        env.plugins = Some(python_tools());
        let dir = env.root.path().join(toolchain);
        std::fs::create_dir(&dir).unwrap();
        let name = format!("python-{toolchain}");
        let option = format!("toolchain={toolchain}");
        let out = env
            .command_in(
                &dir,
                &[
                    "new",
                    &template,
                    "--generate-only",
                    "--yes",
                    "--name",
                    &name,
                    "--runtime-options",
                    &option,
                ],
            )
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        assert!(!dir.join("requirements.txt").exists(), "{toolchain}");
        let pyproject = read_toml(&dir.join("pyproject.toml"));
        assert_eq!(pyproject["project"]["name"].as_str(), Some(name.as_str()));
        if toolchain == "uv" {
            let deps: Vec<&str> = pyproject["project"]["dependencies"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|d| d.as_str())
                .collect();
            assert!(deps.contains(&"pulumi>=3.0.0,<4.0.0"), "{deps:?}");
            assert!(deps.contains(&"pulumi-random>=4.0.0,<5.0.0"), "{deps:?}");
        } else {
            let deps = &pyproject["tool"]["poetry"]["dependencies"];
            assert_eq!(deps["pulumi"].as_str(), Some(">=3.0.0,<4.0.0"));
            assert_eq!(deps["pulumi-random"].as_str(), Some(">=4.0.0,<5.0.0"));
        }
        let project = std::fs::read_to_string(dir.join("Pulumi.yaml")).unwrap();
        assert!(
            project.contains("runtime:\n  name: python\n  options:\n    toolchain: \"")
                && project.contains(toolchain),
            "{project}"
        );
    }
}

/// A TOML file as JSON, read by Python's own `tomllib`.
fn read_toml(file: &Path) -> serde_json::Value {
    let out = Command::new("python3")
        .args([
            "-c",
            "import json, sys, tomllib; print(json.dumps(tomllib.load(open(sys.argv[1], 'rb'))))",
        ])
        .arg(file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}
