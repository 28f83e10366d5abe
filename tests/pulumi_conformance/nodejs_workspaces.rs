//! Node.js programs whose package.json or node_modules live above the project directory
//! (`tests/integration/nodejs/*-package-json-in-parent-dir*`, `codepaths-nested`) and programs
//! in npm, yarn, pnpm and bun workspaces, each driven as its Go test drives it: ProgramTest
//! with `RelativeWorkDir`, and for the workspaces `install` (which installs from the npm
//! registry through the package manager's cache) before the lifecycle; one is compiled by its
//! members' `tsc` first (ProgramTest's `RunBuild`).

use super::cli_support::sdk::sdk_env;
use super::harness::ProgramTest;
use super::program_test::Options;

fn quick() -> Options {
    Options {
        quick: true,
        ..Options::default()
    }
}

/// `programs/<case>/` copied whole, run in `<program>/` under its own name (which the parent's
/// package.json and workspaces name): the harness's `project` is a link to it, so commands'
/// working directory is the program's real one; pnpm, yarn and bun (installed with the SDKs)
/// on PATH.
fn in_own_dir(case: &str, program: &str) -> ProgramTest {
    let mut t = ProgramTest::in_work_dir(case, program);
    let own = t.env.root.path().join(program);
    std::fs::rename(t.env.project(), &own).unwrap();
    std::os::unix::fs::symlink(&own, t.env.project()).unwrap();
    let bin = t.env.root.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for tool in ["pnpm", "yarn", "bun"] {
        let installed = sdk_env().root.join("node_modules/.bin").join(tool);
        std::os::unix::fs::symlink(installed, bin.join(tool)).unwrap();
    }
    t.env.plugins = Some(bin);
    t
}

/// ProgramTest with `Dependencies: ["@pulumi/pulumi"]` and `RelativeWorkDir: <program>`: the
/// case copied whole, the program run in `<program>/`, the SDK linked beside the package.json
/// one directory up.
fn in_parent(case: &str, program: &str) {
    let t = in_own_dir(case, program);
    std::os::unix::fs::symlink(
        sdk_env().root.join("node_modules"),
        t.env.root.path().join("node_modules"),
    )
    .unwrap();
    t.lifecycle(&quick(), |_| {});
}

/// Pulumi's `TestTSWithPackageJsonInParentDir` (Quick): the parent's `main` names
/// `myprogram/main.ts`.
#[test]
fn ts_package_json_in_parent() {
    in_parent("ts_package_json_in_parent", "myprogram");
}

/// Pulumi's `TestESMWithPackageJsonInParentDir` (Quick): the parent's `main` and `type: module`.
#[test]
fn esm_package_json_in_parent() {
    in_parent("esm_package_json_in_parent", "myprogram");
}

/// Pulumi's `TestESMWithoutPackageJsonInParentDir` (Quick): the parent's `type: module` without
/// a `main`, so `index.js` runs as an ES module.
#[test]
fn esm_package_json_in_parent_no_main() {
    in_parent("esm_package_json_in_parent_no_main", "myprogram");
}

/// Pulumi's `TestPackageJsonInParentDirWithoutMain` (Quick): `index.ts` imports from the
/// node_modules one directory up.
#[test]
fn ts_package_json_in_parent_no_main() {
    in_parent("ts_package_json_in_parent_no_main", "myprogram");
}

/// Pulumi's `TestCodePathsNested` (Quick): code paths include `semver` from the node_modules
/// beside the parent directory's package.json.
#[test]
fn ts_codepaths_nested() {
    in_parent("ts_codepaths_nested", "nested");
}

/// `install` in the program directory (the Go tests' `RunPulumiCommand("install")`, with no
/// SDK linked: `PrepareProject` does nothing), then ProgramTest's lifecycle (Quick).
fn install_then_lifecycle(t: &ProgramTest) {
    t.env.ok(&["install"]);
    t.lifecycle(&quick(), |_| {});
}

/// Pulumi's `TestNpmWorkspace`: `install` installs the npm workspace from its root; the
/// program imports the workspace package `my-random`.
#[test]
fn ts_npm_workspace() {
    let t = in_own_dir("ts_npm_workspace", "infra");
    install_then_lifecycle(&t);
}

/// Pulumi's `TestNestedPackageJSON`: `infra/` is not one of the parent's workspaces, so
/// `install` installs it alone: node_modules in `infra/`, none in the parent.
#[test]
fn ts_npm_not_a_workspace() {
    let t = in_own_dir("ts_npm_not_a_workspace", "infra");
    t.env.ok(&["install"]);
    t.lifecycle(&quick(), |_| {});
    assert!(!t.env.root.path().join("node_modules").exists());
    assert!(t.env.root.path().join("infra/node_modules").exists());
}

/// Pulumi's `TestPnpmWorkspace`: pnpm's workspace root gets `node_modules/.pnpm`.
#[test]
fn ts_pnpm_workspace() {
    let t = in_own_dir("ts_pnpm_workspace", "infra");
    t.env.ok(&["install"]);
    assert!(t.env.root.path().join("node_modules/.pnpm").is_dir());
    t.lifecycle(&quick(), |_| {});
}

/// Pulumi's `TestBunWorkspace`: `packagemanager: bun`; the lock file at the workspace root.
#[test]
fn ts_bun_workspace() {
    let t = in_own_dir("ts_bun_workspace", "infra");
    t.env.ok(&["install"]);
    assert!(t.env.root.path().join("bun.lock").exists());
    t.lifecycle(&quick(), |_| {});
}

/// Pulumi's `TestBunNotAWorkspace`: bun installs `infra/` alone, its lock file there.
#[test]
fn ts_bun_not_a_workspace() {
    let t = in_own_dir("ts_bun_not_a_workspace", "infra");
    t.env.ok(&["install"]);
    assert!(t.env.root.path().join("infra/bun.lock").exists());
    t.lifecycle(&quick(), |_| {});
}

/// `PULUMI_PREFER_YARN=true` (the Go tests' `t.Setenv`) for `install` and the lifecycle.
fn with_yarn(case: &str) {
    let t = in_own_dir(case, "infra");
    let out = t
        .env
        .command(&["install"])
        .env("PULUMI_PREFER_YARN", "true")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "install failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    t.lifecycle(
        &Options {
            quick: true,
            env: vec![("PULUMI_PREFER_YARN", "true")],
            ..Options::default()
        },
        |_| {},
    );
}

/// Pulumi's `TestYarnWorkspace`: yarn installs the workspace from its root.
#[test]
fn ts_yarn_workspace() {
    with_yarn("ts_yarn_workspace");
}

/// Pulumi's `TestYarnWorkspaceNoHoist`: the same with `nohoist`.
#[test]
fn ts_yarn_workspace_nohoist() {
    with_yarn("ts_yarn_workspace_nohoist");
}

/// Pulumi's `TestCodePathsWorkspace` (Quick): ProgramTest's Node.js prepare (`yarn install` at
/// the workspace root, through the lock file the Go test ships too, which pins the
/// `@pulumi/pulumi` of the installed SDKs), then the lifecycle; the program checks its code
/// paths, and a dynamic provider from a workspace package is serialized with them.
#[test]
fn ts_codepaths_workspaces() {
    let t = in_own_dir("ts_codepaths_workspaces", "infra");
    yarn_at_root(&t, &["install"]);
    t.lifecycle(&quick(), |_| {});
}

/// Pulumi's `TestCodePathsWorkspaceTSC` (Quick, `RunBuild`): ProgramTest's yarn prepare at the
/// workspace root (`yarn install` through a lock file pinning the installed SDKs'
/// `@pulumi/pulumi`, as in `ts_codepaths_workspaces`), then `yarn run build` there (`yarn
/// workspaces run build`: each member's `tsc`, TypeScript 3.9 from the workspace's own
/// package.json, against the SDK's declarations as they are), then the lifecycle of the
/// program `main: bin/index.js` names, tsc's output.
#[test]
fn ts_codepaths_workspaces_tsc() {
    let t = in_own_dir("ts_codepaths_workspaces_tsc", "infra");
    yarn_at_root(&t, &["install"]);
    yarn_at_root(&t, &["run", "build"]);
    t.lifecycle(&quick(), |_| {});
}

/// Runs the installed yarn at the workspace's root, the case's tools first on PATH.
fn yarn_at_root(t: &ProgramTest, args: &[&str]) {
    let bin = t.env.plugins.clone().unwrap();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let path =
        std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(&path))).unwrap();
    let out = std::process::Command::new(sdk_env().root.join("node_modules/.bin/yarn"))
        .args(args)
        .env("PATH", &path)
        .current_dir(t.env.root.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "yarn {args:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
