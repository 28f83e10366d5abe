//! `about` in a Node.js or Python project says what Pulumi's language host for it would: the
//! language plugin, the runtime's executable, the package manager (npm, with its version) or
//! toolchain, and the program's direct dependencies with their installed versions.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::cli_support;
use serde_json::{Value, json};

use cli_support::*;

fn about_json(env: &Env) -> Value {
    serde_json::from_str(&env.ok(&["about", "--json"])).unwrap()
}

#[test]
fn a_nodejs_project_lists_its_package_json_dependencies_as_installed() {
    let env = Env::new("");
    env.write("Pulumi.yaml", "name: about-node\nruntime: nodejs\n");
    env.write(
        "package.json",
        r#"{"name": "about-node", "dependencies": {"@pulumi/pulumi": "^3"}, "devDependencies": {"@types/node": "*"}}"#,
    );
    link_sdks(&env.project());
    let about = about_json(&env);
    let names: Vec<&str> = about["dependencies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["@pulumi/pulumi", "@types/node"], "{about:#}");
    let version = about["dependencies"][0]["version"].as_str().unwrap();
    assert!(version.starts_with("3."), "{about:#}");
    assert_eq!(about["runtime"]["packagemanager"], "npm");
    assert!(
        about["runtime"]["executable"]
            .as_str()
            .unwrap()
            .ends_with("node")
    );
    assert_eq!(about["plugins"][0]["kind"], "language");
    assert_eq!(about["plugins"][0]["name"], "nodejs");
    let text = env.ok(&["about"]);
    assert!(text.contains("Dependencies:"), "{text}");
    assert!(text.contains("packagemanager='npm'"), "{text}");
}

#[test]
fn a_python_project_lists_what_its_virtualenv_has_installed() {
    let env = Env::new("");
    env.write(
        "Pulumi.yaml",
        "name: about-py\nruntime:\n  name: python\n  options:\n    virtualenv: venv\n",
    );
    link_sdks(&env.project());
    let about = about_json(&env);
    let deps = about["dependencies"].as_array().unwrap();
    assert!(
        deps.iter().any(|d| d["name"] == "pulumi-random"),
        "pip's names are normalised: {about:#}"
    );
    assert!(
        about["runtime"]["executable"]
            .as_str()
            .unwrap()
            .ends_with("venv/bin/python"),
        "{about:#}"
    );
    assert_eq!(
        about["plugins"][0],
        json!({"name": "python", "version": about["plugins"][0]["version"], "kind": "language"})
    );
}
