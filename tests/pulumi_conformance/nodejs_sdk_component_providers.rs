//! Component providers used from TypeScript through the SDK `package add ../provider`
//! generates from their schema, as Pulumi's `TestPythonComponentProviderRun` (nodejs) and
//! `TestNodejsComponentProviderRun` (nodejs-npm, nodejs-pnpm) drive them: ProgramTest's whole lifecycle,
//! with the component under a parent, its outputs of every kind read through the SDK's typed
//! properties, and (Node.js) a resource reference to the component's random child.

use serde_json::json;

use super::harness::{ProgramTest, stack_outputs};
use super::nodejs_package_add::node_project;
use super::program_test::Options;

fn added(case: &str, program: &str, install: bool) -> ProgramTest {
    let t = node_project(case, program);
    let provider = t.env.root.path().join("provider");
    t.env.ok(&["package", "add", provider.to_str().unwrap()]);
    if install {
        t.env.ok(&["install"]);
    }
    t
}

#[test]
fn ts_python_component_provider() {
    let t = added("ts_python_component_provider", "nodejs", false);
    t.lifecycle(&Options::default(), |run| {
        let out = stack_outputs(&run.state);
        let urn = out["urn"].as_str().unwrap();
        assert!(
            urn.ends_with("::ParentComponent$component:index:MyComponent::comp"),
            "{urn}"
        );
        assert_eq!(out["strOutput"], "HELLO");
        assert_eq!(out["optionalIntOutput"], 84);
        assert_eq!(
            out["complexOutput"],
            json!({"strValue": "complex_str_output_value", "nestedValue": {"value": "nested_str_plain_value"}})
        );
        assert_eq!(out["listOutput"], json!(["A", "B", "C"]));
        assert_eq!(out["dictOutput"], json!({"a": 2, "b": 4, "c": 6}));
        assert_eq!(out["enumOutput"], "b");
        assert_eq!(out["assetOutput"]["text"], "HELLO, WORLD!", "{out}");
        assert_eq!(
            out["archiveOutput"]["assets"]["asset1"]["text"],
            "IM INSIDE AN ARCHIVE"
        );
    });
}

#[test]
fn ts_nodejs_component_provider_npm() {
    nodejs_component_provider("nodejs-npm");
}

#[test]
fn ts_nodejs_component_provider_pnpm() {
    nodejs_component_provider("nodejs-pnpm");
}

fn nodejs_component_provider(program: &str) {
    let t = added("ts_nodejs_component_provider", program, true);
    t.lifecycle(&Options::default(), |run| {
        let out = stack_outputs(&run.state);
        let urn = out["urn"].as_str().unwrap();
        assert!(
            urn.ends_with("::ParentComponent$nodejs-component-provider:index:MyComponent::comp"),
            "{urn}"
        );
        assert_eq!(out["aNumberOutput"], 246);
        assert_eq!(out["anOptionalStringOutput"], "Hello, Bonnie!");
        assert_eq!(out["aBooleanOutput"], false);
        assert!(
            out["aResourceOutputUrn"]
                .as_str()
                .unwrap()
                .contains("RandomPet::comp-pet"),
            "{out}"
        );
        assert_eq!(out["aString"], "hello");
        assert_eq!(out["enumOutput"], "d");
        assert_eq!(out["aComplexTypeOutput"]["aNumber"], 14);
        assert_eq!(
            out["aComplexTypeOutput"]["nestedComplexType"]["aNumber"],
            18
        );
    });
}
