//! Component providers written with the Python SDK's component provider host and the Node.js
//! SDK's `componentProviderHost`, loaded from the project's own directory as Pulumi's
//! `TestPythonComponentProviderRun` and `TestNodejsComponentProviderRun` load them: the
//! provider's source directory (`PulumiPlugin.yaml` with `runtime: python` or `nodejs`) is
//! named in Pulumi.yaml's `packages:` (what `pulumi package add ./provider` records) or in
//! `plugins: providers:`, and started through its language as Pulumi's `RunPlugin` starts it.
//! The provider registers the component and its `random` child through stepdeck's monitor; the
//! component's outputs reach the program (Python, or YAML, which learns from the provider's
//! schema that the type is a component).

use serde_json::Value;

use super::cli_support::link_sdks;
use super::harness::{ProgramTest, live, managed, stack_outputs};

#[test]
fn py_component_provider_from_packages() {
    let t = ProgramTest::new("py_component_provider");
    greets_the_world(&t, "ParentComponent$greet:index:Greeting");
    t.destroy();
}

#[test]
fn py_component_provider_from_plugins_providers() {
    let t = ProgramTest::new("py_component_provider");
    let project = t.env.project().join("Pulumi.yaml");
    let text = std::fs::read_to_string(&project).unwrap();
    let text = text.replace(
        "packages:\n  greet: ./provider\n",
        "plugins:\n  providers:\n    - name: greet\n      path: ./provider\n",
    );
    assert!(text.contains("plugins:"), "the case's Pulumi.yaml changed");
    std::fs::write(&project, text).unwrap();
    greets_the_world(&t, "ParentComponent$greet:index:Greeting");
    t.destroy();
}

#[test]
fn py_component_provider_from_yaml() {
    let t = ProgramTest::new("py_component_provider");
    std::fs::remove_file(t.env.project().join("__main__.py")).unwrap();
    std::fs::write(t.env.project().join("Pulumi.yaml"), YAML_PROGRAM).unwrap();
    greets_the_world(&t, "greet:index:Greeting");
    t.destroy();
}

#[test]
fn js_component_provider_from_yaml() {
    let t = ProgramTest::new("js_component_provider");
    link_sdks(&t.env.project());
    greets_the_world(&t, "greet:index:Greeting");
    t.destroy();
}

#[test]
fn py_component_provider_exception() {
    let t = ProgramTest::new("py_component_provider");
    std::fs::remove_file(t.env.project().join("__main__.py")).unwrap();
    let program = YAML_PROGRAM.replace("who: world", "who: nobody");
    std::fs::write(t.env.project().join("Pulumi.yaml"), program).unwrap();
    let failed = t.up_fails();
    assert!(
        failed.contains(
            "constructing greet:index:Greeting \"hi\" failed: Unexpected <class 'Exception'>: there is nobody to greet"
        ),
        "the component's exception, as the provider reported it:\n{failed}"
    );
    for frame in ["in __init__", "in refuse"] {
        let line = failed
            .lines()
            .find(|l| l.contains("component.py\", line") && l.ends_with(frame));
        assert!(
            line.is_some(),
            "the traceback names the component's frame {frame:?}:\n{failed}"
        );
    }
    assert!(
        managed(&t.checked_export()).is_empty(),
        "nothing was created"
    );
    t.destroy();
}

/// The case's program in YAML, as Pulumi's `component-provider-host/yaml`: the component's type
/// is known to be one from the provider's schema.
const YAML_PROGRAM: &str = "name: pycomponentprovider
runtime: yaml
packages:
  greet: ./provider
resources:
  hi:
    type: greet:index:Greeting
    properties:
      who: world
      length: 6
outputs:
  urn: ${hi.urn}
  message: ${hi.message}
  suffix: ${hi.suffix}
";

/// Deploys the case: the component is where the program put it, its random suffix is the
/// component's child, and the component's outputs came back to the program.
fn greets_the_world(t: &ProgramTest, qualified_type: &str) -> Value {
    let state = t.up();
    assert_eq!(managed(&state), ["hi-suffix"]);
    let greeting = live(&state, "hi");
    let urn = greeting["urn"].as_str().unwrap();
    assert!(
        urn.ends_with(&format!("::{qualified_type}::hi")),
        "the component's URN: {urn}"
    );
    let suffix = live(&state, "hi-suffix");
    assert_eq!(suffix["type"], "random:index/randomString:RandomString");
    assert_eq!(
        suffix["parent"], greeting["urn"],
        "the provider's child is the component's"
    );
    assert_eq!(suffix["inputs"]["length"], 6);
    let outputs = stack_outputs(&state);
    assert_eq!(outputs["urn"], greeting["urn"]);
    assert_eq!(outputs["message"], "HELLO, WORLD");
    let text = outputs["suffix"].as_str().unwrap();
    assert_eq!(text, suffix["outputs"]["result"], "the child's output");
    assert_eq!(text.len(), 6);
    state
}
