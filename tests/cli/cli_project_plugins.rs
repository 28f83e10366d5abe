//! Provider plugins the project names by path in Pulumi.yaml's `plugins: providers:`: an
//! executable `pulumi-resource-<name>`, or a directory holding one, serves its package, ahead
//! of any built-in provider of the same name; a path that serves nothing, and a malformed
//! entry, are errors naming them. A YAML program's `Main.yaml` may name component provider
//! directories in its own `packages:`. A Python provider without a `__main__.py` is run as
//! Pulumi runs it bootstrap-less: the SDK hosts the components of the installed package its
//! `pyproject.toml` names.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::Value;

use super::cli_support::sdk::sdk_env;
use super::cli_support::{Env, stderr, stdout};

/// A YAML program constructing the `greet` component of the conformance case's Python provider.
const GREETING: &str = "resources:
  hi:
    type: greet:index:Greeting
    properties:
      who: world
outputs:
  message: ${hi.message}
";

/// `bin/pulumi-resource-greet` in the project: a script running the Python component provider.
fn greet_plugin(env: &Env) {
    let provider = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/pulumi_conformance/programs/py_component_provider/provider/__main__.py");
    let bin = env.project().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let plugin = bin.join("pulumi-resource-greet");
    std::fs::write(
        &plugin,
        format!(
            "#!/bin/sh\nexec {} -u {} \"$@\"\n",
            sdk_env().python.display(),
            provider.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&plugin, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn greets(env: &Env) {
    env.ok(&["stack", "init", "dev"]);
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    let out: Value =
        serde_json::from_str(&env.ok(&["stack", "output", "--json", "--stack", "dev"])).unwrap();
    assert_eq!(out["message"], "HELLO, WORLD");
    let state = env.export("dev");
    let children: Vec<&Value> = state["deployment"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["type"] == "random:index/randomString:RandomString")
        .collect();
    assert_eq!(children.len(), 1, "the component's child: {state}");
    assert!(
        children[0]["parent"]
            .as_str()
            .unwrap()
            .ends_with("::greet:index:Greeting::hi")
    );
}

#[test]
fn a_plugin_directory_named_in_plugins_providers_serves_its_package() {
    let env = Env::new(&format!(
        "plugins:\n  providers:\n    - name: greet\n      path: ./bin\n{GREETING}"
    ));
    greet_plugin(&env);
    greets(&env);
}

#[test]
fn a_plugin_executable_named_in_plugins_providers_serves_its_package() {
    let env = Env::new(&format!(
        "plugins:\n  providers:\n    - name: greet\n      path: bin/pulumi-resource-greet\n      version: 0.0.1\n{GREETING}"
    ));
    greet_plugin(&env);
    greets(&env);
}

#[test]
fn a_named_plugin_comes_before_the_built_in_provider_and_a_missing_one_is_named() {
    let env = Env::new(
        "plugins:\n  providers:\n    - name: random\n      path: ./nowhere\nresources:\n  pet:\n    type: random:RandomPet\n",
    );
    env.ok(&["stack", "init", "dev"]);
    let out = env.run(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(!out.status.success(), "{text}");
    assert!(
        text.contains("no provider plugin for package \"random\"")
            && text.contains("nowhere does not exist"),
        "{text}"
    );
    assert!(env.managed("dev").is_empty(), "nothing was created");
}

#[test]
fn a_malformed_plugins_entry_is_a_usage_error_naming_the_field() {
    let env = Env::new("plugins:\n  providers:\n    - name: greet\nresources: {}\n");
    let out = env.run(&["preview", "--stack", "dev", "--non-interactive"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let text = stderr(&out);
    assert!(
        text.contains("Pulumi.yaml:5") && text.contains("`plugins.providers[0]` is missing `path`"),
        "{text}"
    );
}

#[test]
fn a_component_provider_named_in_main_yaml_packages_serves_its_package() {
    let env = Env::new("");
    let case = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/pulumi_conformance/programs/py_component_provider/provider");
    let provider = env.project().join("provider");
    std::fs::create_dir_all(&provider).unwrap();
    for file in ["PulumiPlugin.yaml", "__main__.py", "component.py"] {
        std::fs::copy(case.join(file), provider.join(file)).unwrap();
    }
    // Not a YAML component package: its other YAML files are none of the program's business.
    std::fs::write(provider.join("settings.yaml"), "key: [unclosed\n").unwrap();
    std::os::unix::fs::symlink(sdk_env().root.join("venv"), env.project().join("venv")).unwrap();
    env.write(
        "Main.yaml",
        &format!("packages:\n  greet: ./provider\n{GREETING}"),
    );
    greets(&env);
}

#[test]
fn a_python_provider_without_main_runs_the_package_its_pyproject_names() {
    let env = Env::new(&format!("packages:\n  greet: ./provider\n{GREETING}"));
    let case = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/pulumi_conformance/programs/py_component_provider/provider");
    let provider = env.project().join("provider");
    let package = provider.join("src/greet");
    std::fs::create_dir_all(&package).unwrap();
    std::fs::copy(
        case.join("PulumiPlugin.yaml"),
        provider.join("PulumiPlugin.yaml"),
    )
    .unwrap();
    std::fs::copy(case.join("component.py"), package.join("component.py")).unwrap();
    std::fs::write(
        package.join("__init__.py"),
        "from .component import Greeting\n",
    )
    .unwrap();
    std::fs::write(
        provider.join("pyproject.toml"),
        "[build-system]\nrequires = [\"setuptools\"]\n\n[project]\nname = \"greet\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(sdk_env().root.join("venv"), env.project().join("venv")).unwrap();
    env.ok(&["stack", "init", "dev"]);
    // The package as `pip install -e ./provider` would make it importable.
    let up = env
        .command(&["up", "--stack", "dev", "--yes", "--non-interactive"])
        .env("PYTHONPATH", provider.join("src"))
        .output()
        .unwrap();
    assert!(up.status.success(), "{}{}", stdout(&up), stderr(&up));
    let out: Value =
        serde_json::from_str(&env.ok(&["stack", "output", "--json", "--stack", "dev"])).unwrap();
    assert_eq!(out["message"], "HELLO, WORLD");
}

/// A YAML program's values are checked against the plugin's schema (`GetSchema`) before
/// anything registers: a list for the string `who`, text for the integer `length`, and a
/// property the component does not have fail the preview at their line.
#[test]
fn values_a_plugins_schema_refuses_fail_the_preview_at_their_line() {
    let env = Env::new(
        "plugins:\n  providers:\n    - name: greet\n      path: ./bin\nresources:\n  hi:\n    type: greet:index:Greeting\n    properties:\n      who: [world]\n      length: four\n      whom: world\n",
    );
    greet_plugin(&env);
    env.ok(&["stack", "init", "dev"]);
    let out = env.run(&["preview", "--stack", "dev", "--non-interactive"]);
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(!out.status.success(), "{text}");
    for expected in [
        "Pulumi.yaml:11:12: greet:index:Greeting is not assignable from",
        "who: Cannot assign 'List<string>' to 'string'",
        "length: Cannot assign type 'string' to type 'integer'",
        "Property whom does not exist on 'greet:index:Greeting'",
    ] {
        assert!(text.contains(expected), "{expected}\n---\n{text}");
    }
}
