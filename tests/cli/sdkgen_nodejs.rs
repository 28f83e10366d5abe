//! The TypeScript SDK generated from a package schema (`sdkgen::generate` for Node.js): the
//! files Pulumi's local SDKs have, compiled by the real `tsc` through the SDK's own
//! `postinstall`, and a real TypeScript program run through `stepdeck` constructing a
//! component of a real Node.js component provider with every kind of property; a namespaced
//! and a parameterized package; and linking into a project's package.json.

use std::os::unix::fs::PermissionsExt;
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

/// Runs the SDK's `postinstall` as a package manager would, in its directory.
fn postinstall(sdk: &GeneratedSdk) {
    let out = Command::new("node")
        .arg("scripts/postinstall.js")
        .current_dir(&sdk.dir)
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
    postinstall(&sdk);
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

/// A parameterized package under a namespace: `gadgets` 2.0.0, served by the `widgets` plugin
/// given the value `blue` (the Python plugin of the conformance case `py_parameterized_package`).
fn gadgets_schema() -> Value {
    json!({
        "name": "gadgets",
        "namespace": "acme",
        "version": "2.0.0",
        "parameterization": {
            "baseProvider": {"name": "widgets", "version": "1.0.0"},
            "parameter": "Ymx1ZQ=="
        },
        "provider": {
            "description": "The gadgets provider.",
            "inputProperties": {"shelf": {"type": "integer"}, "label": {"type": "string"}}
        },
        "resources": {
            "gadgets:index:Gadget": {
                "inputProperties": {"size": {"type": "integer"}},
                "requiredInputs": ["size"],
                "properties": {"size": {"type": "integer"}, "shade": {"type": "string"}},
                "required": ["size", "shade"]
            }
        },
        "functions": {
            "gadgets:index:getShade": {
                "description": "The shade the package was parameterized with.",
                "outputs": {"properties": {"shade": {"type": "string"}}, "required": ["shade"]}
            }
        }
    })
}

#[test]
fn a_parameterized_package_registers_itself_and_its_resources_carry_the_reference() {
    let mut env = Env::new("");
    let project = env.project();
    env.write("Pulumi.yaml", "name: gadgetprogram\nruntime: nodejs\n");
    env.write(
        "package.json",
        r#"{"name": "gadgetprogram", "main": "index.ts", "private": true}"#,
    );
    std::fs::copy(
        Path::new(FILES).join("gadgets.ts"),
        project.join("index.ts"),
    )
    .unwrap();
    let bin = env.root.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let plugin = bin.join("pulumi-resource-widgets");
    let provider = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/pulumi_conformance/programs/py_parameterized_package/provider/__main__.py");
    std::fs::write(
        &plugin,
        format!(
            "#!/bin/sh\nWIDGETS_LOG=/dev/null exec {} -u {} \"$@\"\n",
            sdk_env().python.display(),
            provider.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&plugin, std::fs::Permissions::from_mode(0o755)).unwrap();
    env.plugins = Some(bin);

    let sdk = generate(&gadgets_schema(), &project.join("sdks/acme-gadgets"));
    assert_eq!(sdk.package, "@acme/gadgets");
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(sdk.dir.join("package.json")).unwrap())
            .unwrap();
    assert_eq!(
        manifest["pulumi"],
        json!({"resource": true, "name": "widgets", "version": "1.0.0",
               "parameterization": {"name": "gadgets", "version": "2.0.0", "value": "Ymx1ZQ=="}})
    );
    node_modules(&project, &[&sdk]);
    postinstall(&sdk);

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
    assert_eq!(out["shade"], "blue", "the plugin was parameterized: {out}");
    assert_eq!(out["explicitShade"], "blue");
    assert_eq!(
        out["invoked"], "blue",
        "the invoke went through the package"
    );
    assert_eq!(out["promised"], "blue");
    assert_eq!(out["instances"], json!([true, true]));
    let state = env.export("dev");
    let resources = state["deployment"]["resources"].as_array().unwrap();
    let provider_of = |name: &str| {
        resources
            .iter()
            .find(|r| r["urn"].as_str().unwrap().ends_with(&format!("::{name}")))
            .and_then(|r| r["provider"].as_str())
            .unwrap_or_default()
            .to_string()
    };
    assert!(
        provider_of("g1").contains("::pulumi:providers:gadgets::default_2_0_0::"),
        "{state}"
    );
    assert!(provider_of("g2").contains("::pulumi:providers:gadgets::explicit::"));
    let explicit = resources
        .iter()
        .find(|r| r["urn"].as_str().unwrap().ends_with("::explicit"))
        .unwrap();
    assert_eq!(
        (&explicit["inputs"]["shelf"], &explicit["inputs"]["label"]),
        (&json!("3"), &json!("top")),
        "a provider's configuration travels as strings, JSON for a number: {explicit}"
    );
    env.ok(&[
        "destroy",
        "--stack",
        "dev",
        "--yes",
        "--non-interactive",
        "--skip-preview",
    ]);
}

#[test]
fn linking_adds_the_sdk_to_package_json_allows_its_postinstall_and_tells_how_to_import_it() {
    let env = Env::new("");
    let project = env.project();
    env.write("package.json", r#"{"name": "linked", "private": true}"#);
    let sdk = generate(&gadgets_schema(), &project.join("sdks/acme-gadgets"));
    let runtime = stepdeck::project::runtime::Runtime {
        name: "nodejs".into(),
        options: [("packagemanager".to_string(), json!("npm"))].into(),
    };
    // npm installs the SDK offline from what the project links: its dependencies resolve to
    // the installed SDKs' directories.
    let mut manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(sdk.dir.join("package.json")).unwrap())
            .unwrap();
    let installed = sdk_env().root.join("node_modules");
    manifest["dependencies"] = json!({
        "@pulumi/pulumi": format!("file:{}", installed.join("@pulumi/pulumi").display()),
        "typescript": format!("file:{}", installed.join("typescript").display()),
        "@types/node": format!("file:{}", installed.join("@types/node").display()),
    });
    std::fs::write(sdk.dir.join("package.json"), manifest.to_string()).unwrap();

    sdkgen::link(&project, &runtime, &sdk).unwrap();
    let linked: Value =
        serde_json::from_str(&std::fs::read_to_string(project.join("package.json")).unwrap())
            .unwrap();
    assert_eq!(
        linked["dependencies"]["@acme/gadgets"],
        "file:sdks/acme-gadgets"
    );
    assert_eq!(linked["allowScripts"]["file:sdks/acme-gadgets"], true);
    assert!(
        sdk.dir.join("bin/index.js").exists(),
        "npm ran the SDK's postinstall, which compiled it"
    );
    assert!(project.join("node_modules/@acme/gadgets").exists());
    assert_eq!(
        sdkgen::usage(&sdk, "gadgets", &project, &runtime),
        "You can import the SDK in your TypeScript code with:\n\n  import * as gadgets from \"@acme/gadgets\";\n"
    );
}

/// Pulumi's Node host words the hint by the project: `typescript: false` is JavaScript with
/// `require`, unless its package.json makes it an ES module (or a tsconfig.json makes it
/// TypeScript after all).
#[test]
fn the_import_hint_follows_the_projects_language_and_module_syntax() {
    let env = Env::new("");
    let project = env.project();
    let sdk = generate(&gadgets_schema(), &project.join("sdks/acme-gadgets"));
    let javascript = stepdeck::project::runtime::Runtime {
        name: "nodejs".into(),
        options: [("typescript".to_string(), json!(false))].into(),
    };
    let hint = |runtime| sdkgen::usage(&sdk, "gadgets", &project, runtime);
    env.write("package.json", r#"{"name": "js"}"#);
    assert_eq!(
        hint(&javascript),
        "You can import the SDK in your JavaScript code with:\n\n  const gadgets = require(\"@acme/gadgets\");\n"
    );
    env.write("package.json", r#"{"name": "js", "type": "module"}"#);
    assert_eq!(
        hint(&javascript),
        "You can import the SDK in your JavaScript code with:\n\n  import * as gadgets from \"@acme/gadgets\";\n"
    );
    env.write("tsconfig.json", "{}");
    assert!(hint(&javascript).starts_with("You can import the SDK in your TypeScript code"));
}

/// Members outside the root module, as `meta.moduleFormat` places them (`pets:zoo/cage:Cage` is
/// module `zoo`): their files in `zoo/`, their types in `types.input.zoo`, the module exported
/// from the package's index; a program reaching each compiles with the SDK.
#[test]
fn members_of_other_modules_live_in_their_directories_and_compile() {
    let env = Env::new("");
    let project = env.project();
    let schema = json!({
        "name": "pets",
        "version": "0.1.0",
        "meta": {"moduleFormat": "(.*)(?:/[^/]*)"},
        "resources": {
            "pets:zoo/cage:Cage": {
                "inputProperties": {
                    "size": {"$ref": "#/types/pets:zoo/size:Size"},
                    "kind": {"$ref": "#/types/pets:zoo/kind:Kind"},
                    "plain-name": {"type": "string", "plain": true}
                },
                "properties": {
                    "size": {"$ref": "#/types/pets:zoo/size:Size"},
                    "keeper": {"$ref": "#/resources/pets:index/keeper:Keeper"}
                },
                "required": ["size"]
            },
            "pets:index/keeper:Keeper": {
                "inputProperties": {"cages": {"type": "array", "items": {"$ref": "#/resources/pets:zoo/cage:Cage"}}},
                "properties": {"count": {"type": "integer", "secret": true}}
            }
        },
        "functions": {
            "pets:zoo/listCages:listCages": {
                "inputs": {"properties": {"kind": {"$ref": "#/types/pets:zoo/kind:Kind"}}, "required": ["kind"]},
                "outputs": {"properties": {"names": {"type": "array", "items": {"type": "string"}}}, "required": ["names"]}
            }
        },
        "types": {
            "pets:zoo/size:Size": {"type": "object", "properties": {"meters": {"type": "number"}}, "required": ["meters"]},
            "pets:zoo/kind:Kind": {"type": "integer", "enum": [{"value": 1, "name": "big cat"}, {"value": 2}]}
        }
    });
    let sdk = generate(&schema, &project.join("sdks/pets"));
    for file in [
        "zoo/cage.ts",
        "zoo/listCages.ts",
        "zoo/index.ts",
        "keeper.ts",
        "index.ts",
    ] {
        assert!(sdk.dir.join(file).exists(), "{file}");
    }
    node_modules(&project, &[&sdk]);
    postinstall(&sdk);
    std::fs::write(
        project.join("index.ts"),
        r#"import * as pets from "@pulumi/pets";
const cage = new pets.zoo.Cage("c", { size: { meters: 2 }, kind: pets.types.enums.zoo.Kind.BigCat, "plain-name": "x" });
const keeper = new pets.Keeper("k", { cages: [cage] });
const kind: pets.types.enums.zoo.Kind = pets.types.enums.zoo.Kind.Value2;
const size: pets.types.input.zoo.SizeArgs = { meters: 1 };
export const names = pets.zoo.listCagesOutput({ kind }).names;
export const meters = cage.size.apply((s: pets.types.output.zoo.Size) => s.meters + 1);
export const sizeArg = size;
export const count = keeper.count;
export const isCage = pets.zoo.Cage.isInstance(cage);
"#,
    )
    .unwrap();
    std::fs::write(
        project.join("tsconfig.json"),
        r#"{"compilerOptions": {"strict": true, "noEmit": true, "module": "commonjs", "target": "es2020", "types": ["node"]}, "files": ["index.ts"]}"#,
    )
    .unwrap();
    let tsc = sdk_env().root.join("node_modules/typescript/bin/tsc");
    let out = Command::new("node")
        .arg(tsc)
        .current_dir(&project)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the program compiles against the SDK:\n{}{}",
        stdout(&out),
        stderr(&out)
    );
}
