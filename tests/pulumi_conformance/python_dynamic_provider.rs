//! Pulumi's `python/dynamic-provider/pip` (`TestDynamicProviderPython`, pip; not ProgramTest):
//! `pulumi install` makes the project's `.venv` with pip (`toolchain: pip`, `virtualenv: .venv`),
//! the core SDK goes into it (`installPythonCoreSDK`; here the SDK environment of
//! `STEPDECK_SDK_ENV`, made importable by a `.pth` file as an editable install is, since
//! nothing may be downloaded), then `stack init`, `up --yes --skip-preview`,
//! `dn --yes --skip-preview` and `stack rm --yes`: a dynamic provider runs from that virtualenv.
//! The `uv` and `poetry` subtests likewise: `install` converts the empty `requirements.txt` into
//! a `pyproject.toml` and the toolchain makes `.venv` (poetry in the project, as the program's
//! `poetry.toml` asks, so that it goes with the temporary directory; the Go test leaves it in
//! poetry's cache), and the core SDK goes into it as for pip (for the Go test's `poetry add` of
//! the SDK checkout).

use std::path::Path;

use super::cli_support::Env;
use super::cli_support::sdk::sdk_env;
use super::harness::{copy_files, live, python_tools, resources};

/// The `site-packages` directory under a virtualenv.
fn site_packages(venv: &Path) -> std::path::PathBuf {
    let lib = venv.join("lib");
    let python = std::fs::read_dir(&lib)
        .unwrap_or_else(|e| panic!("{}: {e}", lib.display()))
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("python")
        })
        .unwrap_or_else(|| panic!("no python* under {}", lib.display()));
    python.join("site-packages")
}

#[test]
fn py_dynamic_provider_pip() {
    dynamic_provider("py_dynamic_provider_pip");
}

#[test]
fn py_dynamic_provider_uv() {
    dynamic_provider("py_dynamic_provider_uv");
}

#[test]
fn py_dynamic_provider_poetry() {
    dynamic_provider("py_dynamic_provider_poetry");
}

fn dynamic_provider(case: &str) {
    let mut env = Env::new("");
    env.passphrase = true;
    env.plugins = Some(python_tools());
    let project = env.project();
    copy_files(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/pulumi_conformance/programs")
            .join(case),
        &project,
    );
    env.ok(&["install"]);
    let venv = project.join(".venv");
    assert!(venv.join("bin/python").exists(), "install made no .venv");
    std::fs::write(
        site_packages(&venv).join("pulumi_core_sdk.pth"),
        format!(
            "{}\n",
            site_packages(&sdk_env().root.join("venv")).display()
        ),
    )
    .unwrap();
    env.ok(&["stack", "init", "dev"]);
    env.ok(&["up", "--yes", "--skip-preview"]);
    let state = env.export("dev");
    let random = live(&state, "foo");
    assert_eq!(
        random["outputs"]["val"].as_str().map(str::len),
        Some(30),
        "{random:#}"
    );
    env.ok(&["dn", "--yes", "--skip-preview"]);
    assert!(resources(&env.export("dev")).is_empty());
    env.ok(&["stack", "rm", "--yes", "--stack", "dev"]);
}
