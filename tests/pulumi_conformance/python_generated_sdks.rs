//! Python programs using a component provider through the SDK `package add` generates from its
//! schema, prepared as their Go tests' `PrepareProject` prepares them:
//! `component_provider/nodejs/component-provider-host/python` (`TestNodejsComponentProviderRun`:
//! a TypeScript provider hosted by the Node.js SDK), `component_provider/python/
//! component-in-component` (`TestPythonComponentProviderInComponentProvider`: a Python provider
//! whose component uses another provider's component through that provider's SDK), and
//! `package-add/namespace/python` (`TestPackageAddNamespace`: the SDK of a namespaced schema).
//! ProgramTest's `InstallDependencies` (a virtualenv with the Pulumi SDK) is a virtualenv of the
//! project's own seeing the installed SDK, made offline; `package add` and `install` then link
//! and install the generated SDKs into it.

use std::path::{Path, PathBuf};

use super::cli_support::sdk::{sdk_env, venv_on_shared_sdks};
use super::cli_support::{Env, stderr, stdout};
use super::harness::{ProgramTest, copy_files, stack_outputs};
use super::program_test::Options;

/// `programs/<case>/<dir>` copied to `<dir>` beside the project; its path.
fn beside(t: &ProgramTest, case: &str, dir: &str) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/pulumi_conformance/programs")
        .join(case)
        .join(dir);
    let to = t.env.project().parent().unwrap().join(dir);
    std::fs::create_dir_all(&to).unwrap();
    copy_files(&source, &to);
    to
}

/// `ptesting.InstallDependencies` of a Python directory: `dir/venv`, a virtualenv of its own
/// (replacing the harness's link to the shared one) where the installed Pulumi SDK imports.
fn python_dependencies(dir: &Path) {
    let venv = dir.join("venv");
    if venv.is_symlink() {
        std::fs::remove_file(&venv).unwrap();
    }
    venv_on_shared_sdks(&venv);
}

/// `ptesting.InstallDependencies` of a Node.js directory: the installed SDKs linked in.
fn node_dependencies(dir: &Path) {
    std::os::unix::fs::symlink(
        sdk_env().root.join("node_modules"),
        dir.join("node_modules"),
    )
    .unwrap();
}

/// `TestNodejsComponentProviderRun` (python): `package add` of the TypeScript provider,
/// `install`, then ProgramTest's lifecycle.
#[test]
fn node_component_provider_host_python() {
    let case = "node_component_provider_host_python";
    let t = ProgramTest::new(&format!("{case}/python"));
    let provider = beside(&t, case, "provider");
    node_dependencies(&provider);
    python_dependencies(&t.env.project());
    let added = t.env.ok(&["package", "add", provider.to_str().unwrap()]);
    assert!(
        added.contains("import pulumi_nodejs_component_provider as nodejs_component_provider"),
        "{added}"
    );
    t.env.ok(&["install"]);
    t.lifecycle(&Options::default(), |run| {
        let outputs = stack_outputs(&run.state);
        let urn = outputs["urn"].as_str().unwrap();
        assert!(
            urn.ends_with("::ParentComponent$nodejs-component-provider:index:MyComponent::comp"),
            "{urn}"
        );
        assert_eq!(outputs["aNumberOutput"], 246);
        assert_eq!(outputs["anOptionalStringOutput"], "Hello, Bonnie!");
        assert_eq!(outputs["aBooleanOutput"], false);
        let pet = outputs["aResourceOutputUrn"].as_str().unwrap();
        assert!(pet.contains("RandomPet::comp-pet"), "{pet}");
        assert_eq!(outputs["aString"], "hello");
        assert_eq!(outputs["enumOutput"], "d");
        assert_eq!(outputs["aComplexTypeOutput"]["aNumber"], 14);
        assert_eq!(
            outputs["aComplexTypeOutput"]["nestedComplexType"]["aNumber"],
            18
        );
    });
}

/// `TestPythonComponentProviderInComponentProvider`: `package add ../provider-nested` in the
/// provider, `install` in the program (whose `packages:` names `../provider`), then
/// ProgramTest's lifecycle.
#[test]
fn py_component_in_component() {
    let case = "py_component_in_component";
    let t = ProgramTest::new(&format!("{case}/program"));
    let provider = beside(&t, case, "provider");
    let nested = beside(&t, case, "provider-nested");
    python_dependencies(&provider);
    // Pulumi installs a plugin directory's requirements before it runs the plugin.
    python_dependencies(&nested);
    t.env
        .ok_in(&provider, &["package", "add", nested.to_str().unwrap()]);
    python_dependencies(&t.env.project());
    t.env.ok(&["install"]);
    t.lifecycle(&Options::default(), |run| {
        assert_eq!(stack_outputs(&run.state)["str_output"], "HELLO, PULUMI!");
    });
}

/// `TestPackageAddNamespace` (python): the import line printed, the module written under
/// `sdks/<namespace>-<name>`.
#[test]
fn package_add_namespace_python() {
    let env = Env::new("");
    let root = env.root.path().join("namespace");
    std::fs::create_dir_all(&root).unwrap();
    copy_files(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/pulumi_conformance/programs/package_add_namespace_python"),
        &root,
    );
    let python = root.join("python");
    let out = env
        .command_in(&python, &["package", "add", "../provider/schema.json"])
        .output()
        .unwrap();
    let printed = stdout(&out);
    assert!(out.status.success(), "{printed}{}", stderr(&out));
    assert!(
        printed.contains(
            "You can import the SDK in your Python code with:\n\n  import my_namespace_mypkg as mypkg"
        ),
        "{printed}"
    );
    assert!(
        python
            .join("sdks/my-namespace-mypkg/my_namespace_mypkg")
            .is_dir()
    );
    let pyproject = std::fs::read_to_string(python.join("pyproject.toml")).unwrap();
    assert!(
        pyproject.contains("my-namespace-mypkg = { path = \"sdks/my-namespace-mypkg\" }"),
        "uv's path source: {pyproject}"
    );
}
