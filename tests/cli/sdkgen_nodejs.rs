//! The TypeScript SDK generated from a package schema (`sdkgen::generate` for Node.js): the
//! files Pulumi's local SDKs have, compiled by the real `tsc` through the SDK's own
//! `postinstall`, and a real TypeScript program run through `stepdeck` constructing a
//! component of a real Node.js component provider with every kind of property; a namespaced
//! and a parameterized package; and linking into a project's package.json.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};
use stepdeck::sdkgen::{self, GeneratedSdk, SdkLanguage, SdkOptions};

use super::cli_support::sdk::sdk_env;
use super::cli_support::{Env, stderr, stdout};

const FILES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cli/sdkgen_nodejs");

/// The schema Pulumi's Node.js component provider host would answer for `provider.ts`.
fn kit_schema() -> Value {
    let num = json!({"type": "number"});
    let size_ref = json!({"$ref": "#/types/kit:index:Size"});
    json!({
        "name": "kit",
        "version": "1.0.0",
        "description": "Components of every property kind",
        "language": {"nodejs": {"respectSchemaVersion": true}},
        "dependencies": [{"name": "random", "version": "4.21.2"}],
        "resources": {
            "kit:index:Kit": {
                "isComponent": true,
                "description": "A kit: one output of each kind.",
                "inputProperties": {
                    "label": {"type": "string", "description": "Shouted back."},
                    "count": num,
                    "enabled": {"type": "boolean"},
                    "size": size_ref,
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "weights": {"type": "object", "additionalProperties": num},
                    "color": {"$ref": "#/types/kit:index:Color"},
                    "note": {"$ref": "pulumi.json#/Asset"},
                    "bundle": {"$ref": "pulumi.json#/Archive"}
                },
                "requiredInputs": ["bundle", "color", "count", "label", "note", "size", "tags", "weights"],
                "properties": {
                    "shout": {"type": "string"},
                    "doubled": num,
                    "disabled": {"type": "boolean"},
                    "area": size_ref,
                    "upperTags": {"type": "array", "items": {"type": "string"}},
                    "total": num,
                    "otherColor": {"$ref": "#/types/kit:index:Color"},
                    "noteText": {"type": "string"},
                    "bundleKeys": {"type": "array", "items": {"type": "string"}},
                    "pet": {"$ref": "/random/v4.21.2/schema.json#/resources/random:index%2FrandomPet:RandomPet"}
                },
                "required": ["area", "bundleKeys", "disabled", "doubled", "noteText", "otherColor", "pet", "shout", "total", "upperTags"]
            }
        },
        "types": {
            "kit:index:Size": {
                "type": "object",
                "properties": {"width": num, "height": num},
                "required": ["width"]
            },
            "kit:index:Color": {
                "type": "string",
                "description": "Red or blue.",
                "enum": [{"name": "Red", "value": "red"}, {"name": "Blue", "value": "blue"}]
            }
        }
    })
}

/// A project's `node_modules` holding the installed SDKs, with `@pulumi/<name>` of each
/// generated SDK linked to its directory (what installing `file:sdks/<name>` leaves).
fn node_modules(project: &Path, sdks: &[&GeneratedSdk]) {
    let from = sdk_env().root.join("node_modules");
    let to = project.join("node_modules");
    for dir in [&to, &to.join("@pulumi")] {
        std::fs::create_dir_all(dir).unwrap();
    }
    for entry in std::fs::read_dir(&from).unwrap() {
        let name = entry.unwrap().file_name();
        if name != "@pulumi" {
            std::os::unix::fs::symlink(from.join(&name), to.join(&name)).unwrap();
        }
    }
    for entry in std::fs::read_dir(from.join("@pulumi")).unwrap() {
        let name = entry.unwrap().file_name();
        std::os::unix::fs::symlink(
            from.join("@pulumi").join(&name),
            to.join("@pulumi").join(&name),
        )
        .unwrap();
    }
    for sdk in sdks {
        let link = to.join(&sdk.package);
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&sdk.dir, link).unwrap();
    }
}

/// Runs the SDK's `postinstall` as a package manager would: `node_modules/.bin` first on PATH.
fn postinstall(project: &Path, sdk: &GeneratedSdk) {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let paths =
        std::iter::once(project.join("node_modules/.bin")).chain(std::env::split_paths(&path));
    let out = Command::new("node")
        .arg("scripts/postinstall.js")
        .current_dir(&sdk.dir)
        .env("PATH", std::env::join_paths(paths).unwrap())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the SDK compiles:\n{}{}",
        stdout(&out),
        stderr(&out)
    );
}

fn generate(schema: &Value, dir: &Path) -> GeneratedSdk {
    sdkgen::generate(
        schema,
        SdkLanguage::Nodejs,
        dir,
        &SdkOptions { local: true },
    )
    .unwrap()
}

#[test]
fn a_component_of_every_property_kind_runs_through_its_generated_sdk() {
    let env = Env::new("");
    let project = env.project();
    env.write(
        "Pulumi.yaml",
        "name: kitprogram\nruntime: nodejs\npackages:\n  kit: ./provider\n",
    );
    env.write(
        "package.json",
        r#"{"name": "kitprogram", "main": "index.ts", "private": true}"#,
    );
    std::fs::copy(
        Path::new(FILES).join("program.ts"),
        project.join("index.ts"),
    )
    .unwrap();
    let provider = project.join("provider");
    std::fs::create_dir_all(&provider).unwrap();
    std::fs::copy(
        Path::new(FILES).join("provider.ts"),
        provider.join("index.ts"),
    )
    .unwrap();
    std::fs::write(provider.join("PulumiPlugin.yaml"), "runtime: nodejs\n").unwrap();
    std::fs::write(
        provider.join("package.json"),
        r#"{"name": "kit", "version": "1.0.0", "main": "index.ts"}"#,
    )
    .unwrap();

    let sdk = generate(&kit_schema(), &project.join("sdks/kit"));
    assert_eq!(sdk.package, "@pulumi/kit");
    assert_eq!(sdk.import, "@pulumi/kit");
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(sdk.dir.join("package.json")).unwrap())
            .unwrap();
    assert_eq!(manifest["name"], "@pulumi/kit");
    assert_eq!(manifest["main"], "bin/index.js");
    assert_eq!(
        manifest["scripts"]["postinstall"],
        "node ./scripts/postinstall.js"
    );
    assert_eq!(manifest["dependencies"]["@pulumi/random"], "4.21.2");
    assert!(
        manifest["dependencies"]["typescript"].is_string(),
        "{manifest}"
    );
    assert_eq!(
        manifest["pulumi"],
        json!({"resource": true, "name": "kit", "version": "1.0.0"})
    );
    assert_eq!(
        std::fs::read_to_string(sdk.dir.join(".gitignore")).unwrap(),
        "node_modules/\nbin/\n"
    );

    node_modules(&project, &[&sdk]);
    postinstall(&project, &sdk);
    for compiled in [
        "bin/index.js",
        "bin/index.d.ts",
        "bin/kit.js",
        "bin/provider.js",
        "bin/package.json",
    ] {
        assert!(sdk.dir.join(compiled).exists(), "{compiled} is compiled");
    }

    env.ok(&["stack", "init", "dev"]);
    env.ok(&[
        "up",
        "--stack",
        "dev",
        "--yes",
        "--non-interactive",
        "--skip-preview",
    ]);
    let out: Value =
        serde_json::from_str(&env.ok(&["stack", "output", "--json", "--stack", "dev"])).unwrap();
    assert!(
        out["urn"]
            .as_str()
            .unwrap()
            .ends_with("::ParentComponent$kit:index:Kit::k"),
        "{out}"
    );
    assert_eq!(out["shout"], "HELLO");
    assert_eq!(out["doubled"], 42);
    assert_eq!(out["disabled"], false);
    assert_eq!(out["area"], 12);
    assert_eq!(out["upperTags"], json!(["A", "B"]));
    assert_eq!(out["total"], 3);
    assert_eq!(out["otherColor"], "blue");
    assert_eq!(out["noteText"], "a note");
    assert_eq!(out["bundleKeys"], json!(["inner"]));
    assert_eq!(
        out["petIsRandomPet"], true,
        "the reference came back as a RandomPet"
    );
    assert_eq!(out["instance"], true);
    let managed = env.managed("dev");
    assert_eq!(managed.len(), 1, "the component's child only: {managed:?}");
    assert_eq!(managed[0].0, "k-pet");
    assert_eq!(out["pet"], managed[0].1.as_str(), "the child's id");
    env.ok(&[
        "destroy",
        "--stack",
        "dev",
        "--yes",
        "--non-interactive",
        "--skip-preview",
    ]);
}
