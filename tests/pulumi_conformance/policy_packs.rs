//! Pulumi's policy-pack tests on the `single_resource` program (`TestAdvisoryPolicyPack`,
//! `TestMandatoryPolicyPack`, `TestBunMandatoryPolicyPack`, `TestMultiplePolicyPacks`,
//! `TestPolicyPluginExtraArguments`): the packs of `programs/policy/` are copied into the
//! project directory beside the program, as the Go tests import both, with their SDKs
//! installed, and `--policy-pack DIR` names them. The Python pack asks for the uv toolchain,
//! as Pulumi's does (uv from the SDK environment's tools, packages through its cache). The bun pack gets `bun install` as its Go
//! test runs it: `@pulumi/policy` from npm, `@pulumi/pulumi` the installed SDK through
//! `bun link` (which Pulumi's CI runs in its SDK).
//!
//! And `install` where its Go tests run it (`TestProjectInstallDependencies`,
//! `TestPolicyPackInstallDependencies`, `TestInstallDependenciesForPolicyPackWithParentProject`,
//! `TestInstallDependenciesProjectWithParentPolicyPack`): the real install, npm and pip from
//! the registries (uv for the Python pack), in the project or the pack the working directory
//! chooses.

use std::path::Path;

use std::process::Command;

use super::cli_support::sdk::sdk_env;
use super::cli_support::{Env, link_sdks, stderr, stdout};
use super::harness::{ProgramTest, copy_files, python_tools};

/// `programs/<case>`.
fn program(case: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/pulumi_conformance/programs")
        .join(case)
}

/// The project with the policy packs beside its program, the Node packs' dependencies
/// installed.
fn project_with_packs() -> ProgramTest {
    let t = ProgramTest::new("single_resource");
    copy_files(&program("policy"), &t.env.project());
    for pack in ["advisory_policy_pack", "mandatory_policy_pack"] {
        link_sdks(&t.env.project().join(pack));
    }
    t
}

/// Runs `args`; whether it succeeded, and its stdout (stderr too, to show on a failure).
fn run(t: &ProgramTest, args: &[&str]) -> (bool, String, String) {
    let out = t.env.run(args);
    (out.status.success(), stdout(&out), stderr(&out))
}

#[test]
fn js_advisory_policy_pack() {
    let t = project_with_packs();
    let (ok, out, err) = run(
        &t,
        &[
            "up",
            "--skip-preview",
            "--yes",
            "--policy-pack",
            "advisory_policy_pack",
        ],
    );
    assert!(ok, "{out}{err}");
    assert!(
        out.contains("Failing advisory policy pack for testing\n          foobar"),
        "{out}"
    );
}

#[test]
fn js_mandatory_policy_pack() {
    let t = project_with_packs();
    up_fails_on_its_mandatory_policy(&t, "mandatory_policy_pack", "typescript@v0.0.1");
}

#[test]
fn js_multiple_policy_packs() {
    let t = project_with_packs();
    let (ok, out, err) = run(
        &t,
        &[
            "up",
            "--skip-preview",
            "--yes",
            "--policy-pack",
            "advisory_policy_pack",
            "--policy-pack",
            "mandatory_policy_pack",
        ],
    );
    assert!(!ok, "{out}{err}");
    assert!(
        out.contains("Failing advisory policy pack for testing\n          foobar"),
        "{out}"
    );
    assert!(out.contains("error: update failed"), "{out}");
    assert!(
        out.contains("❌ typescript@v0.0.1 (local: advisory_policy_pack; mandatory_policy_pack)"),
        "{out}"
    );
}

/// Pulumi's logging and tracing flags before and after the command, around a Python pack.
/// As the Go test, the pack's `venv` is made by pip from its `requirements.txt` (the SDK from
/// PyPI, where the Go test installs its checkout over it); the pack asks for uv, which syncs
/// its `pyproject.toml` into that `venv` when the pack loads.
#[test]
fn py_policy_plugin_extra_arguments() {
    let mut t = project_with_packs();
    t.env.plugins = Some(python_tools());
    let pack = t.env.project().join("python_policy_pack");
    let in_pack = |program: &Path, args: &[&str]| {
        let out = Command::new(program)
            .args(args)
            .current_dir(&pack)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{} {args:?}: {}{}",
            program.display(),
            stdout(&out),
            stderr(&out)
        );
    };
    in_pack(Path::new("python3"), &["-m", "venv", "venv"]);
    in_pack(
        &pack.join("venv/bin/python"),
        &["-m", "pip", "install", "-q", "-r", "requirements.txt"],
    );
    let (ok, out, err) = run(
        &t,
        &[
            "--logflow",
            "preview",
            "--logtostderr",
            "-v9",
            "--policy-pack",
            "python_policy_pack",
            "--tracing",
            "file:/trace.log",
        ],
    );
    assert!(ok, "{out}{err}");
}

/// `TestBunMandatoryPolicyPack`: `bun install` in the pack (`runtime: bun`), then the update
/// fails on its mandatory policy, which bun ran.
#[test]
fn bun_mandatory_policy_pack() {
    let mut t = project_with_packs();
    let bin = t.env.root.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let bun = sdk_env().root.join("node_modules/.bin/bun");
    std::os::unix::fs::symlink(&bun, bin.join("bun")).unwrap();
    t.env.plugins = Some(bin);
    // `bun link` registers the SDK in a global directory of this case's own, which the pack's
    // `link:@pulumi/pulumi` override resolves against.
    let global = t.env.root.path().join("bun-global");
    let bun_in = |dir: &Path, args: &[&str]| {
        let out = Command::new(&bun)
            .args(args)
            .current_dir(dir)
            .env("BUN_INSTALL_GLOBAL_DIR", &global)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "bun {args:?}: {}{}",
            stdout(&out),
            stderr(&out)
        );
    };
    bun_in(
        &sdk_env().root.join("node_modules/@pulumi/pulumi"),
        &["link"],
    );
    bun_in(
        &t.env.project().join("bun_mandatory_policy_pack"),
        &["install"],
    );
    up_fails_on_its_mandatory_policy(&t, "bun_mandatory_policy_pack", "bun@v0.0.1");
}

/// `up --policy-pack <pack>` fails, its stdout naming the pack (`<name@version>`) as violated.
fn up_fails_on_its_mandatory_policy(t: &ProgramTest, pack: &str, name: &str) {
    let (ok, out, err) = run(t, &["up", "--skip-preview", "--yes", "--policy-pack", pack]);
    assert!(!ok, "{out}{err}");
    assert!(out.contains("error: update failed"), "{out}");
    assert!(out.contains(&format!("❌ {name} (local: {pack})")), "{out}");
}

/// A fresh directory holding `programs/<case>` (no SDKs linked: `install` installs them).
fn imported(case: &str) -> Env {
    let env = Env::new("");
    std::fs::remove_file(env.project().join("Pulumi.yaml")).unwrap();
    copy_files(&program(case), &env.project());
    env
}

/// `install` in `dir`, which must succeed and say it finished; npm takes what its cache has
/// without asking the registry again.
fn install_in(env: &Env, dir: &Path) {
    let out = env
        .command_in(dir, &["install"])
        .env("npm_config_prefer_offline", "true")
        .env("npm_config_audit", "false")
        .env("npm_config_fund", "false")
        .output()
        .unwrap();
    let (text, err) = (stdout(&out), stderr(&out));
    assert!(
        out.status.success(),
        "install in {}: {text}{err}",
        dir.display()
    );
    assert!(text.contains("Finished installing dependencies"), "{text}");
}

/// `TestProjectInstallDependencies`: `install` runs npm install in the project.
#[test]
fn js_project_install_dependencies() {
    let env = imported("single_resource");
    assert!(!env.project().join("node_modules").exists());
    install_in(&env, &env.project());
    assert!(env.project().join("node_modules/@pulumi/pulumi").is_dir());
}

/// `TestPolicyPackInstallDependencies`: `install` in the Python pack (`toolchain: uv`) makes
/// its `venv` with `uv sync` from the pack's `pyproject.toml`.
#[test]
fn py_policy_pack_install_dependencies() {
    let mut env = imported("policy/python_policy_pack");
    env.plugins = Some(python_tools());
    assert!(!env.project().join("venv").exists());
    install_in(&env, &env.project());
    let python = env.project().join("venv/bin/python");
    let imports = Command::new(&python)
        .args(["-c", "import pulumi_policy"])
        .status()
        .unwrap();
    assert!(
        imports.success(),
        "pulumi_policy is not in {}",
        python.display()
    );
}

/// `TestInstallDependenciesForPolicyPackWithParentProject`: in a pack nested in a project,
/// `install` installs the pack only.
#[test]
fn js_install_policy_pack_in_project() {
    let env = imported("reg_esm_ts/project");
    let pack = env.project().join("policy");
    std::fs::create_dir(&pack).unwrap();
    copy_files(&program("policy/mandatory_policy_pack"), &pack);
    install_in(&env, &pack);
    assert!(!env.project().join("node_modules").exists());
    assert!(pack.join("node_modules/@pulumi/policy").is_dir());
}

/// `TestInstallDependenciesProjectWithParentPolicyPack`: in a project nested in a pack,
/// `install` installs the project only.
#[test]
fn js_install_project_in_policy_pack() {
    let env = Env::new("");
    std::fs::remove_file(env.project().join("Pulumi.yaml")).unwrap();
    copy_files(&program("policy/mandatory_policy_pack"), &env.project());
    let project = env.project().join("project");
    std::fs::create_dir(&project).unwrap();
    copy_files(&program("reg_esm_ts/project"), &project);
    install_in(&env, &project);
    assert!(!env.project().join("node_modules").exists());
    assert!(project.join("node_modules/ts-node").is_dir());
}
