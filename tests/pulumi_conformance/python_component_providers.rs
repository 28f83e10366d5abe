//! Pulumi's `component_provider/python/{bootstrap-less,package,features,recursive-types}`
//! (`TestPythonComponentProvider{BootstraplessRun,PackageRun,Features,RecursiveTypes}`): a YAML
//! program (`programs/<case>/yaml`, the project) uses a component provider written with the
//! Python SDK in `../provider`, named in `packages:` or `plugins: providers:`. ProgramTest's
//! `PrepareProject` installs the provider's dependencies (`uv add` of the SDK, which leaves a
//! `.venv` holding the SDK and the provider's own package); here that `.venv` is made from the
//! installed SDK, offline. The provider is a package run by the SDK's `pulumi.run.plugin`
//! (hosting the components the package exports, or else running its `__main__` module) or a
//! directory with a `__main__.py`.

use std::path::Path;

use serde_json::Value;

use super::cli_support::sdk::venv_on_shared_sdks;
use super::harness::{ProgramTest, copy_files, stack_outputs};
use super::program_test::Options;

/// The case's program with its provider beside it, the provider's `.venv` installed.
fn with_provider(case: &str) -> ProgramTest {
    let t = ProgramTest::new(&format!("{case}/yaml"));
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/pulumi_conformance/programs")
        .join(case)
        .join("provider");
    let provider = t.env.project().parent().unwrap().join("provider");
    std::fs::create_dir_all(&provider).unwrap();
    copy_files(&source, &provider);
    install_dependencies(&provider);
    t
}

/// What `uv add <sdk>` leaves in a Python project: a `.venv` where the SDK imports, and the
/// project's own package too when it is one (`src/`, installed editable, as a `.pth` file).
fn install_dependencies(provider: &Path) {
    let site = venv_on_shared_sdks(&provider.join(".venv"));
    if provider.join("src").is_dir() {
        let pth = format!("{}\n", provider.join("src").display());
        std::fs::write(site.join("project-src.pth"), pth).unwrap();
    }
}

/// The URN output names a component of `component_type` called `comp`, at the stack's top.
fn check_urn(outputs: &Value, component_type: &str) {
    let urn = outputs["urn"].as_str().unwrap();
    assert!(
        urn.ends_with(&format!("::{component_type}::comp")),
        "the component's URN: {urn}"
    );
}

#[test]
fn bootstrapless() {
    let t = with_provider("py_component_provider_bootstrapless");
    t.lifecycle(&Options::default(), |run| {
        check_urn(&stack_outputs(&run.state), "provider:index:MyComponent");
    });
}

#[test]
fn package() {
    let t = with_provider("py_component_provider_package");
    t.lifecycle(&Options::default(), |run| {
        check_urn(&stack_outputs(&run.state), "provider:index:MyComponent");
    });
}

#[test]
fn features() {
    let t = with_provider("py_component_provider_features");
    let opts = Options {
        quick: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        let outputs = stack_outputs(&run.state);
        check_urn(&outputs, "provider:index:MyComponent");
        for feature in ["parameterization", "transforms", "resourceHooks"] {
            assert_eq!(
                outputs[feature], true,
                "the component saw the monitor's {feature}: {outputs:#}"
            );
        }
    });
}

#[test]
fn recursive_types() {
    let t = with_provider("py_component_provider_recursive_types");
    t.lifecycle(&Options::default(), |run| {
        let outputs = stack_outputs(&run.state);
        check_urn(&outputs, "component:index:MyComponent");
        assert_eq!(
            outputs["rec"],
            serde_json::json!({"a": {"b": {"a": {"b": {}}}}}),
            "the value came back wrapped in the other type"
        );
    });
}
