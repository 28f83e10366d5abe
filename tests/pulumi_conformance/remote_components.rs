//! Remote (multi-language) components, as Pulumi's `construct_component` tests run them: a
//! program constructs `pairs:index:Pair`, served by a component provider written with the
//! other SDK and run as the plugin `pulumi-resource-pairs`: a Python program uses the Node.js
//! provider (`programs/py_remote_component/provider/index.js`), a Node.js program the Python
//! one (`programs/js_remote_component/provider/__main__.py`). The provider registers the
//! component and its children through stepdeck's monitor; the program gets the component's
//! outputs, and a method call on the component (`Call`) is answered by the provider; a
//! construct the provider fails fails the update.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use super::cli_support::sdk::sdk_env;
use super::harness::{ProgramTest, live, managed, stack_outputs};

#[test]
fn py_remote_component() {
    let provider = provider_source("py_remote_component/provider/index.js");
    let node_path = sdk_env().root.join("node_modules");
    let t = with_plugin(
        "py_remote_component",
        &format!(
            "NODE_PATH={} exec node {} \"$@\"",
            node_path.display(),
            provider.display()
        ),
    );
    deploys_a_pair(&t, "pyremote");
    t.destroy();
}

#[test]
fn js_remote_component() {
    let provider = provider_source("js_remote_component/provider/__main__.py");
    let t = with_plugin(
        "js_remote_component",
        &format!(
            "exec {} -u {} \"$@\"",
            sdk_env().python.display(),
            provider.display()
        ),
    );
    deploys_a_pair(&t, "jsremote");
    let failed = t.step_fails("step1");
    assert!(
        failed.contains("unknown resource type pairs:index:Trio"),
        "the provider's construct error fails the update:\n{failed}"
    );
    t.destroy();
}

fn provider_source(relative: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/pulumi_conformance/programs")
        .join(relative)
}

/// The case's project with `pulumi-resource-pairs` (a shell script running `command`) on the
/// plugin path.
fn with_plugin(case: &str, command: &str) -> ProgramTest {
    let mut t = ProgramTest::new(case);
    let bin = t.env.root.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let plugin = bin.join("pulumi-resource-pairs");
    std::fs::write(&plugin, format!("#!/bin/sh\n{command}\n")).unwrap();
    std::fs::set_permissions(&plugin, std::fs::Permissions::from_mode(0o755)).unwrap();
    t.env.plugins = Some(bin);
    t
}

/// Deploys the case: the component is the stack's child, its pets are the component's
/// children, the outputs came through, and the method answered.
fn deploys_a_pair(t: &ProgramTest, project: &str) {
    let state = t.up();
    assert_eq!(managed(&state), ["pair-first", "pair-second"]);
    let pair = live(&state, "pair");
    assert_eq!(pair["type"], "pairs:index:Pair");
    assert!(
        pair["parent"]
            .as_str()
            .unwrap()
            .ends_with(&format!("::{project}-dev"))
    );
    let first = live(&state, "pair-first");
    assert_eq!(
        first["parent"], pair["urn"],
        "the provider's child is the component's"
    );
    assert_eq!(first["inputs"]["prefix"], "p");
    let outputs = stack_outputs(&state);
    assert_eq!(outputs["first"], first["id"]);
    assert_eq!(outputs["second"], live(&state, "pair-second")["id"]);
    assert_eq!(
        outputs["described"], "hello from pair",
        "the method's answer (Call)"
    );
}
