//! Packages a project names in `packages:`, driven as Pulumi's Go tests drive them (not
//! ProgramTest): `package get-schema` of a Node.js component provider (its scoped package
//! name gives the schema's namespace; an invalid name is the provider host's error), `install`
//! then `up` of a YAML program using it, `install` refusing a cycle among plugin directories,
//! and pulumi-yaml's authored YAML components added with `package add ../provider`, one of
//! them moving a child from its old unprefixed URN by alias.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::cli_support::sdk::sdk_env;
use super::cli_support::{Env, stderr, stdout};
use super::harness::copy_files;

/// The case's directory tree (`programs/<case>/`) copied into the environment's root; the
/// root of the copy.
fn imported(env: &Env, case: &str) -> PathBuf {
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/pulumi_conformance/programs")
        .join(case);
    let to = env.root.path().join(case);
    std::fs::create_dir_all(&to).unwrap();
    copy_files(&from, &to);
    to
}

/// `e.InstallDependencies()` for a Node.js provider: the installed SDK linked in.
fn node_dependencies(dir: &Path) {
    std::os::unix::fs::symlink(
        sdk_env().root.join("node_modules"),
        dir.join("node_modules"),
    )
    .unwrap();
}

/// `TestInstallLocalPluginCycle`.
#[test]
fn packages_install_cycle() {
    let env = Env::new("");
    let root = imported(&env, "packages_install_cycle");
    let out = env
        .command_in(&root.join("example"), &["install"])
        .output()
        .unwrap();
    assert!(!out.status.success(), "{}", stdout(&out));
    assert!(
        stderr(&out).contains(
            "installing `packages` from Pulumi.yaml: cycle found: ../ts-provider-a -> ../ts-provider-b -> ../ts-provider-a\n"
        ),
        "{}",
        stderr(&out)
    );
}

/// `TestNodeComponentNamespace` (the schema) and `TestNodeCanConstructNamespacedComponent`.
#[test]
fn namespaced_component() {
    let env = Env::new("");
    let root = imported(&env, "namespaced_component");
    node_dependencies(&root);
    let schema: Value =
        serde_json::from_str(&env.ok_in(&root, &["package", "get-schema", "."])).unwrap();
    assert_eq!(schema["name"], "namespaced-component");
    assert_eq!(schema["namespace"], "my-namespace");
    let component = &schema["resources"]["namespaced-component:index:MyComponent"];
    assert!(component.is_object(), "{schema}");
    assert_eq!(
        component["inputProperties"]["anInput"]["$ref"],
        "#/types/namespaced-component:index:Nested"
    );

    let example = root.join("example");
    env.ok_in(
        &example,
        &[
            "stack",
            "select",
            "organization/namespaced_component",
            "--create",
        ],
    );
    env.ok_in(&example, &["install"]);
    env.ok_in(&example, &["up", "--non-interactive", "--skip-preview"]);
    let state: Value = serde_json::from_str(&env.ok_in(&example, &["stack", "export"])).unwrap();
    let types: Vec<&str> = state["deployment"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["type"].as_str())
        .collect();
    assert!(
        types.contains(&"namespaced-component:index:MyComponent"),
        "{types:?}"
    );
}

/// `TestNodeInvalidComponentName`.
#[test]
fn namespaced_component_invalid_name() {
    let env = Env::new("");
    let root = imported(&env, "namespaced_component_invalid_name");
    node_dependencies(&root);
    let out = env
        .command_in(&root, &["package", "get-schema", "."])
        .output()
        .unwrap();
    assert!(!out.status.success(), "{}", stdout(&out));
    assert!(
        stderr(&out).contains(
            "Error: Invalid provider name '-namespaced-component' in package.json. Provider names must start with a letter"
        ),
        "{}",
        stderr(&out)
    );
}

/// The authored components' program: stack `test`, `package add ../provider`, `up`.
fn added_and_up(env: &Env, program: &Path, stack: &str) {
    env.ok_in(program, &["stack", "init", stack]);
    env.ok_in(program, &["package", "add", "../provider"]);
    env.ok_in(
        program,
        &["up", "--non-interactive", "--skip-preview", "--yes"],
    );
}

fn output(env: &Env, program: &Path, name: &str) -> String {
    env.ok_in(program, &["stack", "output", name])
        .trim_end_matches('\n')
        .to_string()
}

/// pulumi-yaml's `TestAuthoredComponent`.
#[test]
fn yaml_authored_component() {
    let env = Env::new("");
    let program = imported(&env, "yaml_authored_component").join("program");
    added_and_up(&env, &program, "organization/component-consumer/test");
    let pet = output(&env, &program, "randomPet");
    assert_eq!(pet.split('-').count(), 4, "{pet}");
    assert!(pet.starts_with("test-"), "{pet}");
    assert_eq!(output(&env, &program, "randomString").len(), 8);
}

/// pulumi-yaml's `TestComponentChildAliasMigration`.
#[test]
fn yaml_component_alias_migration() {
    let env = Env::new("");
    let program = imported(&env, "yaml_component_alias_migration").join("program");
    added_and_up(&env, &program, "organization/component-alias-test/test");
    let component_child = output(&env, &program, "componentChild");
    assert_eq!(component_child.len(), 8, "{component_child}");
    let top_level_child = output(&env, &program, "topLevelChild");
    assert_eq!(top_level_child.len(), 8, "{top_level_child}");

    // The stack as one written before the prefix: the inner child at its unprefixed URN.
    let exported = env.ok_in(&program, &["stack", "export"]);
    let prefixed = "$random:index/randomString:RandomString::myComp-child";
    let unprefixed = "$random:index/randomString:RandomString::child";
    assert!(exported.contains(prefixed), "{exported}");
    let rewritten = exported.replace(prefixed, unprefixed);
    let file = program.join("rewritten-state.json");
    std::fs::write(&file, rewritten).unwrap();
    env.ok_in(
        &program,
        &["stack", "import", "--file", file.to_str().unwrap()],
    );

    env.ok_in(
        &program,
        &["up", "--non-interactive", "--skip-preview", "--yes"],
    );
    assert_eq!(
        output(&env, &program, "componentChild"),
        component_child,
        "the alias rebinds the inner child"
    );
    assert_eq!(
        output(&env, &program, "topLevelChild"),
        top_level_child,
        "the top-level child is untouched"
    );
}
