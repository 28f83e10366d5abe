//! Pulumi's policy-pack tests on the `single_resource` program (`TestAdvisoryPolicyPack`,
//! `TestMandatoryPolicyPack`, `TestMultiplePolicyPacks`, `TestPolicyPluginExtraArguments`):
//! the packs of `programs/policy/` are copied into the project directory beside the program,
//! as the Go tests import both, with their SDKs installed, and `--policy-pack DIR` names them.
//! Pulumi's Python pack asks for the uv toolchain; ours uses its `venv` with pip's SDKs.

use std::path::Path;

use super::cli_support::{link_sdks, stderr, stdout};
use super::harness::{ProgramTest, copy_files};

/// The project with the policy packs beside its program, their dependencies installed.
fn project_with_packs() -> ProgramTest {
    let t = ProgramTest::new("single_resource");
    let packs =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pulumi_conformance/programs/policy");
    copy_files(&packs, &t.env.project());
    for pack in [
        "advisory_policy_pack",
        "mandatory_policy_pack",
        "python_policy_pack",
    ] {
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
    let (ok, out, err) = run(
        &t,
        &[
            "up",
            "--skip-preview",
            "--yes",
            "--policy-pack",
            "mandatory_policy_pack",
        ],
    );
    assert!(!ok, "{out}{err}");
    assert!(out.contains("error: update failed"), "{out}");
    assert!(
        out.contains("❌ typescript@v0.0.1 (local: mandatory_policy_pack)"),
        "{out}"
    );
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
#[test]
fn py_policy_plugin_extra_arguments() {
    let t = project_with_packs();
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
