//! `package get-schema|add|gen-sdk` and `install` of `packages:`, as Pulumi's `packagecmd`
//! behaves: a schema from a schema file, a YAML component package or a provider plugin
//! (parameterized by the arguments after the source); `add` needs a project or plugin, or
//! `--language` outside one, and records the package in Pulumi.yaml keeping the rest of the
//! file; `install` refuses a cycle among local plugin directories before anything runs.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

use super::cli_support::sdk::sdk_env;
use super::cli_support::{stderr, stdout};

/// `stepdeck args…` run in `dir`, with `bin` first on PATH when given.
fn run_in(dir: &Path, bin: Option<&Path>, args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_stepdeck"));
    c.args(args).current_dir(dir).stdin(Stdio::null());
    if let Some(bin) = bin {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let paths = std::iter::once(bin.to_path_buf()).chain(std::env::split_paths(&path));
        c.env("PATH", std::env::join_paths(paths).unwrap());
    }
    c.output().unwrap()
}

fn ok_in(dir: &Path, bin: Option<&Path>, args: &[&str]) -> Output {
    let out = run_in(dir, bin, args);
    assert!(
        out.status.success(),
        "{args:?} failed:\n{}{}",
        stdout(&out),
        stderr(&out)
    );
    out
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const SCHEMA: &str = r#"{"name": "mypkg", "namespace": "my-namespace", "version": "1.0.0"}"#;

/// A YAML component package: `random-plugin-component` with one component, in two files.
fn yaml_component_package(dir: &Path) {
    write(
        &dir.join("PulumiPlugin.yaml"),
        "name: random-plugin-component\nruntime: yaml\ncomponents:\n  petGenerator:\n    inputs:\n      length:\n        type: integer\n      prefix:\n        type: string\n        default: pet\n    resources:\n      pet:\n        type: random:RandomPet\n        properties:\n          length: ${length}\n    outputs:\n      pet: ${pet.id}\n",
    );
    write(
        &dir.join("more.yaml"),
        "components:\n  stringGenerator:\n    inputs:\n      lengths:\n        type: array\n        items:\n          type: integer\n    resources: {}\n",
    );
}

#[test]
fn package_add_outside_a_project_needs_language() {
    let root = tempfile::tempdir().unwrap();
    write(&root.path().join("schema.json"), SCHEMA);
    let out = run_in(root.path(), None, &["package", "add", "./schema.json"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("no project file found"), "{err}");
    assert!(err.contains("--language"), "{err}");
    assert!(!root.path().join("sdks").exists());
}

#[test]
fn package_add_with_language_inside_a_project_is_refused() {
    let root = tempfile::tempdir().unwrap();
    write(&root.path().join("provider/schema.json"), SCHEMA);
    let project = root.path().join("nodejs");
    write(&project.join("Pulumi.yaml"), "name: p\nruntime: nodejs\n");
    let out = run_in(
        &project,
        None,
        &[
            "package",
            "add",
            "--language",
            "nodejs",
            "../provider/schema.json",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("--language is for use outside a Pulumi project or plugin"),
        "{err}"
    );
    assert!(err.contains("Pulumi.yaml"), "{err}");
}

/// `TestPackageAddStandaloneLanguage` (python): outside a project, `--language` picks the
/// language; the SDK is written under `sdks/<namespace>-<name>` and linked into the
/// directory's own manifest, and no project file is made.
#[test]
fn package_add_standalone_language_links_into_the_manifest_and_creates_no_project() {
    let root = tempfile::tempdir().unwrap();
    write(&root.path().join("provider/schema.json"), SCHEMA);
    let dir = root.path().join("python");
    write(&dir.join("requirements.txt"), "pulumi>=3.0.0\n");
    let out = ok_in(
        &dir,
        None,
        &[
            "package",
            "add",
            "--language",
            "python",
            "../provider/schema.json",
        ],
    );
    assert!(
        stdout(&out).contains(
            "You can import the SDK in your Python code with:\n\n  import my_namespace_mypkg as mypkg"
        ),
        "{}",
        stdout(&out)
    );
    assert!(
        dir.join("sdks/my-namespace-mypkg/my_namespace_mypkg")
            .is_dir()
    );
    let manifest = std::fs::read_to_string(dir.join("requirements.txt")).unwrap();
    assert!(manifest.contains("my-namespace-mypkg"), "{manifest}");
    assert!(!dir.join("Pulumi.yaml").exists());
    assert!(!dir.join("PulumiPlugin.yaml").exists());
}

#[test]
fn package_add_records_a_yaml_component_package_keeping_the_file() {
    let root = tempfile::tempdir().unwrap();
    yaml_component_package(&root.path().join("provider"));
    let project = root.path().join("program");
    let original = "name: consumer\n# the program\nruntime: yaml\nresources: {}\n";
    write(&project.join("Pulumi.yaml"), original);
    let out = ok_in(&project, None, &["package", "add", "../provider"]);
    assert!(
        stderr(&out).contains("Added package random-plugin-component"),
        "{}",
        stderr(&out)
    );
    let recorded = format!("{original}packages:\n  random-plugin-component: ../provider\n");
    let text = std::fs::read_to_string(project.join("Pulumi.yaml")).unwrap();
    assert_eq!(text, recorded);
    // Added again: the same entry, not a second one.
    ok_in(&project, None, &["package", "add", "../provider"]);
    let again = std::fs::read_to_string(project.join("Pulumi.yaml")).unwrap();
    assert_eq!(again, recorded);
    // In place of an SDK, pulumi-yaml's package declaration.
    let decl = project.join("sdks/random-plugin-component/random-plugin-component-0.0.0.yaml");
    assert_eq!(
        std::fs::read_to_string(decl).unwrap(),
        "packageDeclarationVersion: 1\nname: random-plugin-component\nversion: 0.0.0\n"
    );
}

#[test]
fn get_schema_of_a_yaml_component_package_is_pulumi_yamls() {
    let root = tempfile::tempdir().unwrap();
    yaml_component_package(root.path());
    let out = ok_in(root.path(), None, &["package", "get-schema", "."]);
    let schema: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(schema["name"], "random-plugin-component");
    assert_eq!(schema["version"], "0.0.0");
    let pet = &schema["resources"]["random-plugin-component:index:petGenerator"];
    assert_eq!(pet["isComponent"], true);
    assert_eq!(
        pet["inputProperties"],
        json!({"length": {"type": "integer"}, "prefix": {"type": "string", "default": "pet"}})
    );
    assert_eq!(pet["requiredInputs"], json!(["length"]));
    assert_eq!(
        pet["properties"],
        json!({"pet": {"$ref": "pulumi.json#/Any"}})
    );
    let strings = &schema["resources"]["random-plugin-component:index:stringGenerator"];
    assert_eq!(
        strings["inputProperties"]["lengths"],
        json!({"type": "array", "items": {"type": "integer"}})
    );
}

#[test]
fn get_schema_reads_a_schema_file_and_refuses_parameters_for_it() {
    let root = tempfile::tempdir().unwrap();
    write(
        &root.path().join("schema.yaml"),
        "name: mypkg\nversion: 1.0.0\nresources:\n  mypkg:index:Thing:\n    isComponent: true\n",
    );
    let out = ok_in(root.path(), None, &["package", "get-schema", "schema.yaml"]);
    let schema: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        schema,
        json!({"name": "mypkg", "version": "1.0.0", "resources": {"mypkg:index:Thing": {"isComponent": true}}})
    );
    write(&root.path().join("schema.json"), SCHEMA);
    let out = run_in(
        root.path(),
        None,
        &["package", "get-schema", "schema.json", "extra"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("parameterization arguments are not supported for json files"),
        "{}",
        stderr(&out)
    );
    let out = run_in(root.path(), None, &["package", "get-schema", "./missing"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("missing does not exist"),
        "{}",
        stderr(&out)
    );
}

/// `bin/pulumi-resource-tables`: a Python provider plugin that, parameterized with
/// `--rows N`, serves the package `rows-N` at version `N.0.0`, and answers its schema.
fn tables_plugin(root: &Path) -> std::path::PathBuf {
    let source = root.join("tables.py");
    write(
        &source,
        r#"import json, sys
from pulumi.provider.experimental.provider import (
    GetSchemaRequest, GetSchemaResponse, ParameterizeRequest, ParameterizeResponse,
    ParametersArgs, Provider)
from pulumi.provider.experimental.server import main

class Tables(Provider):
    async def parameterize(self, request: ParameterizeRequest) -> ParameterizeResponse:
        params = request.parameters
        assert isinstance(params, ParametersArgs)
        assert params.args[0] == "--rows", params.args
        n = params.args[1]
        return ParameterizeResponse(f"rows-{n}", f"{n}.0.0")

    async def get_schema(self, request: GetSchemaRequest) -> GetSchemaResponse:
        if not request.subpackage_name:
            return GetSchemaResponse(json.dumps({"name": "tables", "version": "1.0.0"}))
        return GetSchemaResponse(json.dumps({
            "name": request.subpackage_name,
            "version": request.subpackage_version,
            "parameterization": {
                "baseProvider": {"name": "tables", "version": "1.0.0"},
                "parameter": "Mw==",
            },
        }))

if __name__ == "__main__":
    main(sys.argv[1:], "1.0.0", Tables())
"#,
    );
    let bin = root.join("bin");
    let plugin = bin.join("pulumi-resource-tables");
    write(
        &plugin,
        &format!(
            "#!/bin/sh\nexec {} -u {} \"$@\"\n",
            sdk_env().python.display(),
            source.display()
        ),
    );
    std::fs::set_permissions(&plugin, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

#[test]
fn a_plugin_is_parameterized_with_the_arguments_after_the_source() {
    let root = tempfile::tempdir().unwrap();
    let bin = tables_plugin(root.path());
    let plain = ok_in(
        root.path(),
        Some(&bin),
        &["package", "get-schema", "tables"],
    );
    let schema: Value = serde_json::from_str(&stdout(&plain)).unwrap();
    assert_eq!(schema, json!({"name": "tables", "version": "1.0.0"}));
    let out = ok_in(
        root.path(),
        Some(&bin),
        &["package", "get-schema", "tables", "--", "--rows", "3"],
    );
    let schema: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(schema["name"], "rows-3");
    assert_eq!(schema["version"], "3.0.0");

    // Added to a YAML project: recorded as the base plugin with its parameters.
    let project = root.path().join("program");
    write(&project.join("Pulumi.yaml"), "name: p\nruntime: yaml\n");
    let out = ok_in(
        &project,
        Some(&bin),
        &["package", "add", "tables", "--", "--rows", "3"],
    );
    assert!(
        stderr(&out).contains("Added package rows-3"),
        "{}",
        stderr(&out)
    );
    let text = std::fs::read_to_string(project.join("Pulumi.yaml")).unwrap();
    assert_eq!(
        text,
        "name: p\nruntime: yaml\npackages:\n  rows-3:\n    parameters:\n      - --rows\n      - \"3\"\n    source: tables\n    version: 1.0.0\n"
    );
    // By the executable's path: recorded by the plugin's name and version.
    let exe = bin.join("pulumi-resource-tables");
    ok_in(&project, None, &["package", "add", exe.to_str().unwrap()]);
    let text = std::fs::read_to_string(project.join("Pulumi.yaml")).unwrap();
    assert!(
        text.ends_with("  tables:\n    source: tables\n    version: 1.0.0\n"),
        "{text}"
    );
    let decl = project.join("sdks/rows-3/rows-3-3.0.0.yaml");
    assert_eq!(
        std::fs::read_to_string(decl).unwrap(),
        "packageDeclarationVersion: 1\nname: tables\nversion: 1.0.0\nparameterization:\n    name: rows-3\n    version: 3.0.0\n    value: Mw==\n"
    );
}

/// Two Node.js plugin directories each needing the other, and a YAML project needing `a`.
fn cycle(root: &Path) {
    write(
        &root.join("a/PulumiPlugin.yaml"),
        "runtime: nodejs\npackages:\n  b: ../b\n",
    );
    write(
        &root.join("b/PulumiPlugin.yaml"),
        "runtime: nodejs\npackages:\n  a: ../a\n",
    );
    write(
        &root.join("example/Pulumi.yaml"),
        "name: cycle\nruntime: yaml\npackages:\n  a: ../a\n",
    );
}

#[test]
fn install_refuses_a_cycle_among_local_plugins() {
    let root = tempfile::tempdir().unwrap();
    cycle(root.path());
    let out = run_in(&root.path().join("example"), None, &["install"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains(
            "installing `packages` from Pulumi.yaml: cycle found: ../a -> ../b -> ../a\n"
        ),
        "{}",
        stderr(&out)
    );
    // In a plugin directory, its own packages are installed, and the cycle is found from there.
    let out = run_in(&root.path().join("a"), None, &["install"]);
    assert!(
        stderr(&out).contains(
            "installing `packages` from PulumiPlugin.yaml: cycle found: . -> ../b -> .\n"
        ),
        "{}",
        stderr(&out)
    );
}

#[test]
fn install_of_a_yaml_project_with_a_yaml_component_package_succeeds() {
    let root = tempfile::tempdir().unwrap();
    yaml_component_package(&root.path().join("provider"));
    let project = root.path().join("program");
    write(
        &project.join("Pulumi.yaml"),
        "name: consumer\nruntime: yaml\npackages:\n  random-plugin-component: ../provider\n",
    );
    ok_in(&project, None, &["install"]);
}

#[test]
fn gen_sdk_refuses_a_language_it_cannot_generate() {
    let root = tempfile::tempdir().unwrap();
    write(&root.path().join("schema.json"), SCHEMA);
    let out = run_in(
        root.path(),
        None,
        &["package", "gen-sdk", "schema.json", "--language", "go"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("cannot generate an SDK for go"),
        "{}",
        stderr(&out)
    );
    assert!(!root.path().join("sdk").exists());
}

#[test]
fn package_add_in_a_plugin_directory_records_it_in_pulumiplugin_yaml() {
    let root = tempfile::tempdir().unwrap();
    yaml_component_package(&root.path().join("provider"));
    let plugin = root.path().join("outer");
    write(
        &plugin.join("PulumiPlugin.yaml"),
        "name: outer\nruntime: yaml\n",
    );
    // From a subdirectory: the enclosing plugin is found upward, the path recorded from it.
    let sub = plugin.join("src");
    std::fs::create_dir_all(&sub).unwrap();
    ok_in(&sub, None, &["package", "add", "../../provider"]);
    assert_eq!(
        std::fs::read_to_string(plugin.join("PulumiPlugin.yaml")).unwrap(),
        "name: outer\nruntime: yaml\npackages:\n  random-plugin-component: ../provider\n"
    );
}

#[test]
fn a_local_source_may_carry_a_version_after_an_at_sign() {
    let root = tempfile::tempdir().unwrap();
    yaml_component_package(&root.path().join("provider"));
    let out = ok_in(
        root.path(),
        None,
        &["package", "get-schema", "./provider@0.0.0"],
    );
    let schema: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(schema["name"], "random-plugin-component");
}

/// A Node.js plugin source directory whose dependencies are not installed gets them (its package
/// manager's `install` there) before it is asked for its schema, as Pulumi's `InstallPluginAt`
/// runs the language host's install first; what npm prints stays off stdout, the schema's.
#[test]
fn a_node_plugins_dependencies_are_installed_before_it_is_asked_for_its_schema() {
    let root = tempfile::tempdir().unwrap();
    let plugin = root.path().join("provider");
    write(&plugin.join("PulumiPlugin.yaml"), "runtime: nodejs\n");
    let sdk = sdk_env().root.join("node_modules/@pulumi/pulumi");
    let manifest = json!({
        "name": "provider",
        "dependencies": {"@pulumi/pulumi": format!("file:{}", sdk.display())},
    });
    write(&plugin.join("package.json"), &manifest.to_string());
    write(
        &plugin.join("index.ts"),
        "import * as pulumi from \"@pulumi/pulumi\";\n\nexport interface MyComponentArgs {}\n\n\
         export class MyComponent extends pulumi.ComponentResource {\n    \
         constructor(name: string, args: MyComponentArgs, opts?: pulumi.ComponentResourceOptions) {\n        \
         super(\"provider:index:MyComponent\", name, args, opts);\n    }\n}\n",
    );
    let out = ok_in(root.path(), None, &["package", "get-schema", "./provider"]);
    let schema: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        schema["resources"]["provider:index:MyComponent"]["isComponent"],
        true
    );
    assert!(plugin.join("node_modules/@pulumi/pulumi").exists());
}
