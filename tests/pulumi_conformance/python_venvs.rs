//! Pulumi's `TestAutomaticVenvCreation` (not ProgramTest): a pip project whose `virtualenv`
//! option names a directory that does not exist yet; `stack init` and `preview` run from a
//! subdirectory, and the preview itself must create the virtualenv (relative to the project, or
//! the absolute path the test writes into Pulumi.yaml) and install `requirements.txt` into it
//! from PyPI, as Pulumi's pip toolchain does before it runs the program.

use std::path::Path;

use super::cli_support::Env;
use super::harness::copy_files;

/// Imports `case`, rewrites its `virtualenv: venv` to `venv` (`${root}` the project), then
/// `stack init` and `preview` in `subdir`; the virtualenv must then exist.
fn automatic_venv(case: &str, venv: &str) {
    let mut env = Env::new("");
    let root = env.project();
    std::fs::remove_file(root.join("Pulumi.yaml")).unwrap();
    copy_files(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/pulumi_conformance/programs")
            .join(case),
        &root,
    );
    env.passphrase = true;
    let venv = venv.replace("${root}", &root.display().to_string());
    let yaml = std::fs::read_to_string(root.join("Pulumi.yaml")).unwrap();
    std::fs::write(
        root.join("Pulumi.yaml"),
        yaml.replace("virtualenv: venv", &format!("virtualenv: >-\n      {venv}")),
    )
    .unwrap();
    let subdir = root.join("subdir");
    std::fs::create_dir(&subdir).unwrap();
    for args in [&["stack", "init", "teststack"][..], &["preview"]] {
        let out = env.command_in(&subdir, args).output().unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "stepdeck {args:?} failed:\n{text}");
        assert!(!text.contains("fork/exec"), "{text}");
    }
    let dir = root.join(&venv);
    assert!(
        dir.join("pyvenv.cfg").is_file() && dir.join("bin/python").exists(),
        "no virtualenv at {}",
        dir.display()
    );
}

#[test]
fn py_venv() {
    automatic_venv("py_venv", "venv");
}

#[test]
fn py_venv_absolute() {
    automatic_venv("py_venv", "${root}/absvenv");
}

#[test]
fn py_venv_with_main() {
    automatic_venv("py_venv_with_main", "venv");
}

#[test]
fn py_venv_with_main_absolute() {
    automatic_venv("py_venv_with_main", "${root}/absvenv");
}
