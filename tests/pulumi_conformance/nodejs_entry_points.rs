//! How Pulumi's Node.js language host finds and runs a program (`tests/integration/nodejs/*`):
//! ES modules from package.json's `type`, its `main` and `exports`, Pulumi.yaml's `main` over
//! them, tsconfig.json's compiler options, code paths and stack outputs, each driven as its Go
//! test drives it.

use serde_json::json;

use super::harness::{ProgramTest, stack_outputs};
use super::program_test::{Options, Run};

fn quick(case: &str, validate: impl FnMut(&Run)) {
    ProgramTest::new(case).lifecycle(
        &Options {
            quick: true,
            ..Options::default()
        },
        validate,
    );
}

/// The text of the project file the case's program reads back.
fn project_file(case: &str) -> String {
    std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/pulumi_conformance/programs")
            .join(case)
            .join("Pulumi.yaml"),
    )
    .unwrap()
}

/// Pulumi's `TestESMJS` (Quick): a `type: module` package runs as an ES module, its named
/// exports the stack's outputs.
#[test]
fn js_esm() {
    quick("js_esm", |run| {
        assert_eq!(
            stack_outputs(&run.state),
            json!({"project": project_file("js_esm")})
        );
    });
}

/// Pulumi's `TestESMJSMain` (Quick): the ES module package.json's `main` names, awaiting at
/// its top level.
#[test]
fn js_esm_main() {
    quick("js_esm_main", |run| {
        assert_eq!(
            stack_outputs(&run.state),
            json!({"project": project_file("js_esm_main"), "waited": "after a wait"})
        );
    });
}

/// Pulumi's `TestTSWithPackageExports` (Quick): the entry point is package.json's `exports`.
#[test]
fn ts_package_exports() {
    quick("ts_package_exports", |run| {
        assert_eq!(stack_outputs(&run.state), json!({"entry": "entry.ts"}));
    });
}

/// Pulumi's `TestCompilerOptionsNode` (Quick): tsconfig.json's `target` (es2016) is what the
/// program compiles against.
#[test]
fn ts_compiler_options() {
    quick("ts_compiler_options", |run| {
        assert!(run.output.contains("includes found 5"), "{}", run.output);
    });
}

/// Pulumi's `TestMainOverridesPackageJSON` (Quick): Pulumi.yaml's `main` wins over
/// package.json's.
#[test]
fn js_main_overrides_package_json() {
    quick("js_main_overrides_package_json", |run| {
        assert_eq!(
            stack_outputs(&run.state)["picked"],
            "chosen.js, named by Pulumi.yaml"
        );
    });
}

/// Pulumi's `TestCodePaths` (Quick): `computeCodePaths` holds the direct dependency.
#[test]
fn ts_codepaths() {
    quick("ts_codepaths", |_| {});
}

/// Pulumi's `TestCodePathsNoDependencies` (Quick): without dependencies there are no code paths.
#[test]
fn ts_codepaths_no_dependencies() {
    quick("ts_codepaths_no_dependencies", |_| {});
}

/// Pulumi's `TestUndefinedStackOutputNode` (full lifecycle): an `undefined` output is dropped
/// with a warning naming it; inside a list it becomes null, inside a map it is left out.
#[test]
fn ts_undefined_stack_output() {
    ProgramTest::new("ts_undefined_stack_output").lifecycle(&Options::default(), |run| {
        let outputs = stack_outputs(&run.state);
        assert_eq!(outputs["empty"], json!(null));
        assert_eq!(outputs["items"], json!([0, null, null]));
        assert_eq!(outputs["fields"], json!({"zero2": 0, "empty2": null}));
        let warned = run.events.iter().any(|e| {
            e["diagnosticEvent"]["severity"] == "warning"
                && e["diagnosticEvent"]["message"]
                    == "Undefined value (missing) will not show as a stack output.\n"
        });
        assert!(warned, "no warning for `missing`: {:#?}", run.events);
    });
}

/// Pulumi's `TestRegression12301Node` (full lifecycle): a JSON file named like the project
/// directory, beside it (its `PostPrepareProject`), is not loaded in place of the program.
#[test]
fn ts_json_beside_project() {
    let t = ProgramTest::new("ts_json_beside_project");
    let project = t.env.project();
    let beside = project.with_extension("json");
    std::fs::rename(project.join("decoy.json"), &beside).unwrap();
    t.lifecycle(&Options::default(), |run| {
        assert_eq!(stack_outputs(&run.state), json!({"bar": 3}));
    });
}

/// ProgramTest's `RunBuild`: the package's `build` script (`tsc`), with the TypeScript the
/// project's node_modules holds.
fn run_build(t: &ProgramTest) {
    let project = t.env.project();
    let out = std::process::Command::new("node")
        .arg(project.join("node_modules/typescript/bin/tsc"))
        .current_dir(&project)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "tsc failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Pulumi's `TestCodePathsTSC` (Quick, RunBuild): a program compiled into `bin/`, Pulumi.yaml's
/// `main`, finds its dependency one directory up.
#[test]
fn ts_codepaths_tsc() {
    let t = ProgramTest::new("ts_codepaths_tsc");
    run_build(&t);
    t.lifecycle(
        &Options {
            quick: true,
            ..Options::default()
        },
        |_| {},
    );
}

/// Pulumi's `TestESMTSCompiled` (Quick, RunBuild): an ES module TypeScript program compiled by
/// tsc runs from package.json's `main` directory with `typescript: false`.
#[test]
fn ts_esm_compiled() {
    let t = ProgramTest::new("ts_esm_compiled");
    run_build(&t);
    t.lifecycle(
        &Options {
            quick: true,
            ..Options::default()
        },
        |run| {
            assert_eq!(
                stack_outputs(&run.state),
                json!({"project": project_file("ts_esm_compiled"), "fromOther": 42})
            );
        },
    );
}
