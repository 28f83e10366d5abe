//! TypeScript programs whose compiler or loader is a package of their own from the npm
//! registry (ts-node 10's ES module loader, tsx, @swc/core), each driven as its Go test drives
//! it: the project's dependencies installed by npm (its `@pulumi/pulumi` the installed SDK, as
//! ProgramTest's `yarn link @pulumi/pulumi` makes it), then ProgramTest or the test's commands.

use std::path::Path;

use serde_json::{Value, json};

use super::cli_support::sdk::sdk_env;
use super::cli_support::stderr;
use super::harness::{ProgramTest, stack_outputs};
use super::program_test::{Config, Options, Run};

/// `programs/<case>/project/` with `@pulumi/pulumi` (a peer or plain dependency) the installed
/// SDK and every other dependency installed from npm.
fn installed(case: &str) -> ProgramTest {
    let t = ProgramTest::in_work_dir(case, "project");
    let manifest = t.env.project().join("package.json");
    let mut json: Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    if let Some(peers) = json
        .get_mut("peerDependencies")
        .and_then(Value::as_object_mut)
    {
        peers.remove("@pulumi/pulumi");
    }
    let sdk = sdk_env().root.join("node_modules/@pulumi/pulumi");
    json["dependencies"]["@pulumi/pulumi"] = json!(format!("file:{}", sdk.display()));
    std::fs::write(&manifest, serde_json::to_string_pretty(&json).unwrap()).unwrap();
    npm_install(&t.env.project());
    t
}

/// `programs/<case>/project/` after `ptesting`'s `InstallDependencies`: a plain `npm install`,
/// `@pulumi/pulumi` (a peer or plain dependency) included, from npm.
fn registry_installed(case: &str) -> ProgramTest {
    let t = ProgramTest::in_work_dir(case, "project");
    npm_install(&t.env.project());
    t
}

fn npm_install(dir: &Path) {
    let out = std::process::Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--prefer-offline"])
        .current_dir(dir)
        .output()
        .expect("run npm");
    assert!(
        out.status.success(),
        "npm install failed:\n{}",
        stderr(&out)
    );
}

/// ProgramTest with `Quick: true` and `Dependencies: ["@pulumi/pulumi"]`.
fn quick(case: &str, config: Vec<Config>, validate: impl FnMut(&Run)) {
    installed(case).lifecycle(
        &Options {
            quick: true,
            config,
            ..Options::default()
        },
        validate,
    );
}

/// The outputs of the programs that read back their Pulumi.yaml after a top-level await.
fn esm_outputs(case: &str) -> Value {
    let project = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/pulumi_conformance/programs")
        .join(case)
        .join("project/Pulumi.yaml");
    json!({"res": std::fs::read_to_string(project).unwrap(), "otherx": 42})
}

/// Pulumi's `TestESMTS`: `nodeargs: --loader ts-node/esm` with the project's ts-node 10.
#[test]
fn reg_esm_ts() {
    quick("reg_esm_ts", vec![], |run| {
        assert_eq!(stack_outputs(&run.state), esm_outputs("reg_esm_ts"));
    });
}

/// Pulumi's `TestESMTSDefaultExport`: the module's default export, an async function, gives
/// the stack's outputs.
#[test]
fn reg_esm_ts_default_export() {
    quick("reg_esm_ts_default_export", vec![], |run| {
        assert_eq!(stack_outputs(&run.state), json!({"helloWorld": 123}));
    });
}

/// Pulumi's `TestESMTSNestedSrc`: Pulumi.yaml's `main` under `src/`, reading config `test`.
#[test]
fn reg_esm_ts_nested_src() {
    let config = vec![Config {
        key: "test",
        value: "hello world",
        secret: false,
        path: false,
    }];
    quick("reg_esm_ts_nested_src", config, |run| {
        assert_eq!(stack_outputs(&run.state), json!({"test": "hello world"}));
    });
}

/// Pulumi's `TestESMTSSpecifierResolutionNode`: an import without its extension, resolved by
/// `--experimental-specifier-resolution=node`.
#[test]
fn reg_esm_ts_specifier_resolution_node() {
    quick("reg_esm_ts_specifier_resolution_node", vec![], |run| {
        assert_eq!(
            stack_outputs(&run.state),
            esm_outputs("reg_esm_ts_specifier_resolution_node")
        );
    });
}

/// Pulumi's `TestESMWithPackageExports`: the entry point is package.json's `exports`, a `.ts`
/// file loaded through ts-node's ES module loader.
#[test]
fn reg_esm_with_package_exports() {
    quick("reg_esm_with_package_exports", vec![], |run| {
        assert_eq!(stack_outputs(&run.state), Value::Null);
    });
}

/// The commands of Pulumi's `TestTranspileOnly` and `TestESMTS{X,Auto}` after
/// `InstallDependencies`: `up --yes`, then the export, then `destroy --skip-preview` (with
/// `--refresh=true` for `TestTranspileOnly`).
fn up_export_destroy(t: &ProgramTest, destroy: &[&str]) -> Value {
    t.env
        .ok(&["up", "--yes", "--stack", "dev", "--non-interactive"]);
    let state = t.env.export("dev");
    let mut args = vec!["destroy", "--skip-preview", "--yes", "--stack", "dev"];
    args.extend(destroy);
    t.env.ok(&args);
    state
}

/// Pulumi's `TestTranspileOnly` (`tsconfig-no-check`): tsconfig.json's `noCheck` lets a type
/// error through ts-node 10.
#[test]
fn reg_tsconfig_no_check() {
    let t = registry_installed("reg_tsconfig_no_check");
    up_export_destroy(&t, &["--refresh=true"]);
}

/// Pulumi's `TestTranspileOnly` (`swc`): tsconfig.json's `ts-node.swc` transpiles through
/// @swc/core, letting a type error through.
#[test]
fn reg_swc() {
    let t = registry_installed("reg_swc");
    up_export_destroy(&t, &["--refresh=true"]);
}

/// Pulumi's `TestESMTSAuto`: a `type: module` TypeScript program runs through the project's
/// ts-node ES module loader with no `--loader` in `nodeargs`.
#[test]
fn reg_esm_ts_auto() {
    let t = registry_installed("reg_esm_ts_auto");
    let state = up_export_destroy(&t, &[]);
    let outputs = stack_outputs(&state);
    assert_eq!(outputs["otherx"], 42);
    assert!(
        outputs["res"].as_str().unwrap().contains(
            "A TypeScript ES module run through the project's ts-node with no --loader named"
        ),
        "{outputs}"
    );
}

/// Pulumi's `TestESMTSAutoTypeCheck`: that loader type-checks, and the error is reported as
/// the compiler words it.
#[test]
fn reg_esm_ts_auto_typecheck() {
    let t = registry_installed("reg_esm_ts_auto_typecheck");
    let out = t
        .env
        .run(&["up", "--yes", "--stack", "dev", "--non-interactive"]);
    assert!(!out.status.success());
    let stdout = super::cli_support::stdout(&out);
    assert!(
        stdout.contains(
            "index.ts(3,14): error TS2322: Type 'number' is not assignable to type 'string'."
        ),
        "{stdout}"
    );
    assert!(
        !stdout.contains("Cannot convert object to primitive value"),
        "{stdout}"
    );
    t.env.ok(&[
        "destroy",
        "--skip-preview",
        "--refresh=true",
        "--yes",
        "--stack",
        "dev",
    ]);
}

/// Pulumi's `TestESMTSX`: `nodeargs: --import tsx` loads the program through tsx (no type
/// check), even with ts-node installed beside it.
#[test]
fn reg_esm_tsx() {
    let t = registry_installed("reg_esm_tsx");
    let state = up_export_destroy(&t, &[]);
    let outputs = stack_outputs(&state);
    assert_eq!(outputs["otherx"], 42);
    assert!(
        outputs["res"].as_str().unwrap().contains(
            "Use ECMAScript modules for a TS program using TSX to handle loading of TS files."
        ),
        "{outputs}"
    );
}

/// Pulumi's `TestInstallWithMain` (Quick, no dependencies linked): `pulumi install` runs npm
/// install at the project's root for a program whose `main` is `src`, then ProgramTest's
/// lifecycle runs it on the `@pulumi/pulumi` npm installed.
#[test]
fn reg_pulumi_main() {
    let t = ProgramTest::in_work_dir("reg_pulumi_main", "project");
    t.env.ok(&["install"]);
    assert!(t.env.project().join("node_modules").is_dir());
    t.lifecycle(
        &Options {
            quick: true,
            ..Options::default()
        },
        |_| {},
    );
}
