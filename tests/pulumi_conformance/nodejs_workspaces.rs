//! Node.js programs whose package.json or node_modules live above the project directory
//! (`tests/integration/nodejs/*-package-json-in-parent-dir*`, `codepaths-nested`) and programs
//! in npm, yarn, pnpm and bun workspaces, each driven as its Go test drives it: ProgramTest
//! with `RelativeWorkDir`, and for the workspaces `install` (which installs from the npm
//! registry through the package manager's cache) before the lifecycle.

use super::cli_support::sdk::sdk_env;
use super::harness::ProgramTest;
use super::program_test::Options;

fn quick() -> Options {
    Options {
        quick: true,
        ..Options::default()
    }
}

/// ProgramTest with `Dependencies: ["@pulumi/pulumi"]` and `RelativeWorkDir: <program>`: the
/// case copied whole, the program run in `<program>/`, the SDK linked beside the package.json
/// one directory up.
fn in_parent(case: &str, program: &str) {
    let t = ProgramTest::in_work_dir(case, program);
    // The harness's project directory is `project/`; the parent's package.json names the
    // program's own directory.
    std::os::unix::fs::symlink(t.env.project(), t.env.root.path().join(program)).unwrap();
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
