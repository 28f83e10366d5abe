//! The Python SDK generated from a package schema: imported by the real Python SDK, its
//! classes, types, enums, invokes and parameterization as a program uses them; linked into
//! projects as Pulumi's Python host links it; and a real program deploying a real Python
//! component provider's component through it.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};
use stepdeck::project::runtime::Runtime;
use stepdeck::sdkgen::{self, GeneratedSdk, SdkLanguage, SdkOptions};

use crate::cli_support::sdk::{sdk_env, venv_on_shared_sdks};
use crate::cli_support::{Env, stdout};

/// A component with every property kind the conformance programs use (numbers, optional
/// strings, booleans, nested object types, an enum, arrays, maps, another package's
/// resource), a custom resource with a method and assets, a resource in a module of its own,
/// a function and the provider's config.
fn components_schema() -> Value {
    json!({
        "name": "comps",
        "version": "0.0.1",
        "description": "Components for the Python SDK test.",
        "provider": {
            "inputProperties": {"greeting": {"type": "string"}}
        },
        "types": {
            "comps:index:Nested": {
                "type": "object",
                "properties": {"aNumber": {"type": "number"}},
                "required": ["aNumber"]
            },
            "comps:index:Complex": {
                "type": "object",
                "description": "A number and a nested type.",
                "properties": {
                    "aNumber": {"type": "number"},
                    "nestedComplexType": {"$ref": "#/types/comps:index:Nested"}
                },
                "required": ["aNumber", "nestedComplexType"]
            },
            "comps:index:Color": {
                "type": "string",
                "enum": [{"value": "red"}, {"value": "light-blue", "name": "LightBlue"}]
            }
        },
        "resources": {
            "comps:index:Box": {
                "isComponent": true,
                "description": "A box of outputs computed from its inputs.",
                "inputProperties": {
                    "aNumber": {"type": "number", "description": "Doubled."},
                    "anOptionalString": {"type": "string"},
                    "aBooleanInput": {"type": "boolean"},
                    "aComplexTypeInput": {"$ref": "#/types/comps:index:Complex"},
                    "enumInput": {"$ref": "#/types/comps:index:Color"},
                    "names": {"type": "array", "items": {"type": "string"}},
                    "tags": {"type": "object", "additionalProperties": {"type": "string"}}
                },
                "requiredInputs": ["aNumber", "aBooleanInput", "aComplexTypeInput", "enumInput"],
                "properties": {
                    "aNumberOutput": {"type": "number"},
                    "anOptionalStringOutput": {"type": "string"},
                    "aBooleanOutput": {"type": "boolean"},
                    "aComplexTypeOutput": {"$ref": "#/types/comps:index:Complex"},
                    "aResourceOutput": {
                        "$ref": "/random/v4.21.4/schema.json#/resources/random:index%2FrandomPet:RandomPet"
                    },
                    "enumOutput": {"$ref": "#/types/comps:index:Color"},
                    "names": {"type": "array", "items": {"type": "string"}}
                },
                "required": ["aNumberOutput", "aBooleanOutput", "aComplexTypeOutput",
                             "aResourceOutput", "enumOutput", "names"]
            },
            "comps:index:Echo": {
                "inputProperties": {"echo": {"type": "string"}, "file": {"$ref": "pulumi.json#/Asset"}},
                "properties": {
                    "echo": {"type": "string", "replaceOnChanges": true},
                    "archive": {"$ref": "pulumi.json#/Archive"},
                    "bucket": {"$ref": "#/resources/comps:storage:Bucket"}
                },
                "methods": {"doEchoMethod": "comps:index:Echo/doEchoMethod"}
            },
            "comps:storage:Bucket": {
                "inputProperties": {"class": {"type": "string"}},
                "properties": {"class": {"type": "string"}}
            }
        },
        "functions": {
            "comps:index:doEcho": {
                "inputs": {"properties": {"echo": {"type": "string"}}},
                "outputs": {"properties": {"echo": {"type": "string"}}}
            },
            "comps:index:Echo/doEchoMethod": {
                "inputs": {"properties": {
                    "__self__": {"$ref": "#/resources/comps:index:Echo"},
                    "echo": {"type": "string"}
                }},
                "outputs": {"properties": {"echo": {"type": "string"}}}
            }
        }
    })
}

/// The shared SDK environment's Python, with `dirs` on its path.
fn python(dirs: &[&Path], script: &str) -> String {
    let path = std::env::join_paths(dirs).unwrap();
    let out = Command::new(sdk_env().python)
        .arg("-c")
        .arg(script)
        .env("PYTHONPATH", path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "python failed:\n{}\n{}",
        stdout(&out),
        String::from_utf8_lossy(&out.stderr)
    );
    stdout(&out)
}

fn generate(schema: &Value, out: &Path) -> GeneratedSdk {
    sdkgen::generate(
        schema,
        SdkLanguage::Python,
        out,
        &SdkOptions { local: true },
    )
    .unwrap()
}

#[test]
fn the_sdk_names_its_distribution_and_module_from_the_schema() {
    let dir = tempfile::tempdir().unwrap();
    let sdk = generate(&components_schema(), &dir.path().join("comps"));
    assert_eq!(
        (sdk.package.as_str(), sdk.import.as_str()),
        ("pulumi-comps", "pulumi_comps")
    );
    let pyproject = std::fs::read_to_string(dir.path().join("comps/pyproject.toml")).unwrap();
    assert!(pyproject.contains("name = \"pulumi-comps\""), "{pyproject}");
    assert!(
        pyproject.contains("\"pulumi>=3.0.0,<4.0.0\""),
        "{pyproject}"
    );

    let namespaced = json!({"name": "my-pkg", "namespace": "my-namespace", "resources": {}});
    let sdk = generate(&namespaced, &dir.path().join("ns"));
    assert_eq!(
        (sdk.package.as_str(), sdk.import.as_str()),
        ("my-namespace-my-pkg", "my_namespace_my_pkg")
    );
    assert!(
        dir.path()
            .join("ns/my_namespace_my_pkg/__init__.py")
            .exists()
    );
    assert_eq!(
        sdkgen::usage(
            &sdk,
            "my-pkg",
            dir.path(),
            &stepdeck::project::runtime::Runtime {
                name: "python".into(),
                options: Default::default()
            }
        ),
        "You can import the SDK in your Python code with:\n\n  import my_namespace_my_pkg as my_pkg\n"
    );

    let renamed = json!({"name": "x", "language": {"python": {"packageName": "custom_x"}}});
    let sdk = generate(&renamed, &dir.path().join("x"));
    assert_eq!(
        (sdk.package.as_str(), sdk.import.as_str()),
        ("custom_x", "custom_x")
    );
}

#[test]
fn the_generated_classes_translate_wire_names_and_read_nested_outputs() {
    let dir = tempfile::tempdir().unwrap();
    generate(&components_schema(), &dir.path().join("comps"));
    let out = python(
        &[&dir.path().join("comps")],
        r#"
import pulumi
import pulumi_comps as comps
from pulumi import _types
from pulumi.runtime import rpc

assert comps.Color.LIGHT_BLUE == "light-blue" and comps.Color.RED.value == "red"
args = comps.BoxArgs(a_number=1, a_boolean_input=True, enum_input=comps.Color.RED,
                     a_complex_type_input=comps.ComplexArgs(a_number=2, nested_complex_type=comps.NestedArgs(a_number=3)))
assert args.a_number == 1 and args.a_complex_type_input.nested_complex_type.a_number == 3
assert _types.input_type_py_to_pulumi_names(comps.BoxArgs)["a_complex_type_input"] == "aComplexTypeInput"
assert _types.resource_py_to_pulumi_names(comps.Box)["a_number_output"] == "aNumberOutput"
import pulumi_random
types = _types.resource_types(comps.Box)
assert types["aResourceOutput"] is pulumi_random.RandomPet and types["aComplexTypeOutput"] is comps.outputs.Complex
assert "a_number" in comps.ComplexArgsDict.__annotations__
complex = rpc.translate_output_properties({"aNumber": 4, "nestedComplexType": {"aNumber": 5}}, lambda n: n, comps.outputs.Complex)
assert complex.a_number == 4 and complex.nested_complex_type.a_number == 5
assert _types.output_type_types(comps.Echo.DoEchoMethodResult) == {"echo": str}
assert _types.resource_types(comps.Echo)["bucket"] is comps.storage.Bucket, "a resource of another module"
assert _types.input_type_py_to_pulumi_names(comps.storage.BucketArgs) == {"class_": "class"}
assert _types.output_type_types(comps.DoEchoResult) == {"echo": str}
assert callable(comps.Echo.get) and callable(comps.do_echo) and callable(comps.do_echo_output)
assert not hasattr(comps, "echo_do_echo_method"), "a method is not a function of the module"
assert comps.Provider.__mro__[1] is pulumi.ProviderResource
assert comps.Box.__mro__[1] is pulumi.ComponentResource
assert comps.Echo.__mro__[1] is pulumi.CustomResource
print("ok")
"#,
    );
    assert_eq!(out.trim(), "ok");
    let echo = std::fs::read_to_string(dir.path().join("comps/pulumi_comps/echo.py")).unwrap();
    assert!(
        echo.contains("pulumi.ResourceOptions(replace_on_changes=[\"echo\"])"),
        "a property the schema replaces on: {echo}"
    );
}

/// A parameterized package's schema, as Pulumi's Python test provider answers for `pkg`.
fn parameterized_schema() -> Value {
    json!({
        "name": "pkg",
        "version": "0.0.1",
        "parameterization": {
            "baseProvider": {"name": "testprovider", "version": "0.0.1"},
            "parameter": "cGtn"
        },
        "resources": {
            "pkg:index:Random": {
                "properties": {"length": {"type": "integer"}, "result": {"type": "string"}},
                "inputProperties": {"length": {"type": "integer"}},
                "requiredInputs": ["length"]
            }
        }
    })
}

#[test]
fn a_parameterized_package_registers_itself_and_its_resources_carry_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    generate(&parameterized_schema(), &dir.path().join("pkg"));
    let plugin: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("pkg/pulumi_pkg/pulumi-plugin.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(plugin["name"], "testprovider");
    assert_eq!(plugin["parameterization"]["name"], "pkg");
    assert_eq!(plugin["parameterization"]["value"], "cGtn");
    let out = python(
        &[&dir.path().join("pkg")],
        r#"
import asyncio
import pulumi
import pulumi.runtime
from pulumi.runtime import settings

registered = []
class Mocks(pulumi.runtime.Mocks):
    def call(self, args):
        raise Exception(f"unknown function {args.token}")
    def new_resource(self, args):
        return [f"{args.name}_id", args.inputs]

async def main():
    pulumi.runtime.set_mocks(Mocks(), project="project", stack="stack", preview=False)
    await settings._load_monitor_feature_support()
    monitor = settings.get_monitor()
    original = monitor.RegisterPackage
    def spy(request):
        registered.append((request.name, request.version, request.parameterization.name))
        return original(request)
    monitor.RegisterPackage = spy
    import pulumi_pkg as pkg
    random = pkg.Random("random", length=8)
    assert await random.id.future() == "random_id"
    by_args = pkg.Random("by-args", pkg.RandomArgs(length=3))
    assert await by_args.id.future() == "by-args_id"
    try:
        pkg.Random("missing")
        raise AssertionError("a missing required input is refused")
    except TypeError as e:
        assert "length" in str(e)

asyncio.run(main())
assert registered and registered[0] == ("testprovider", "0.0.1", "pkg"), registered
print("ok")
"#,
    );
    assert_eq!(out.trim(), "ok");
}

fn python_runtime(options: Value) -> Runtime {
    Runtime {
        name: "python".into(),
        options: options
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
    }
}

/// A project directory with `file` written, and the `random` SDK generated in `sdks/random`.
fn project_with(file: &str, text: &str) -> (tempfile::TempDir, GeneratedSdk) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(file), text).unwrap();
    let sdk = generate(
        &json!({"name": "random", "resources": {}}),
        &dir.path().join("sdks/random"),
    );
    (dir, sdk)
}

#[test]
fn linking_with_pip_lists_the_sdk_in_requirements_once() {
    let (dir, sdk) = project_with(
        "requirements.txt",
        "pulumi>=3.0.0,<4.0.0\npulumi-random==4.1\n",
    );
    let runtime = python_runtime(json!({}));
    sdkgen::link(dir.path(), &runtime, &sdk).unwrap();
    let first = std::fs::read_to_string(dir.path().join("requirements.txt")).unwrap();
    assert_eq!(first, "pulumi>=3.0.0,<4.0.0\nsdks/random\n");
    sdkgen::link(dir.path(), &runtime, &sdk).unwrap();
    let second = std::fs::read_to_string(dir.path().join("requirements.txt")).unwrap();
    assert_eq!(first, second, "linking again changes nothing");
}

#[test]
fn linking_with_uv_or_poetry_names_the_sdk_as_a_path_source() {
    let pyproject = "[project]\nname = \"p\"\nversion = \"0.1.0\"\ndependencies = [\n    \"pulumi>=3.0.0,<4.0.0\",\n]\n";
    for (toolchain, table) in [
        ("uv", "tool.uv.sources"),
        ("poetry", "tool.poetry.dependencies"),
    ] {
        let (dir, sdk) = project_with("pyproject.toml", pyproject);
        let runtime = python_runtime(json!({"toolchain": toolchain}));
        sdkgen::link(dir.path(), &runtime, &sdk).unwrap();
        sdkgen::link(dir.path(), &runtime, &sdk).unwrap();
        let script = format!(
            "import tomllib\nd = tomllib.load(open('{}', 'rb'))\nt = d\nfor k in '{table}'.split('.'):\n    t = t[k]\nprint(t['pulumi-random']['path'])\nprint(d['project']['dependencies'])",
            dir.path().join("pyproject.toml").display()
        );
        let out = python(&[], &script);
        let mut lines = out.lines();
        assert_eq!(lines.next(), Some("sdks/random"), "{toolchain}: {out}");
        let deps = lines.next().unwrap();
        assert_eq!(
            deps.contains("'pulumi-random'"),
            toolchain == "uv",
            "{toolchain}: uv adds the dependency, poetry's table is the dependency: {deps}"
        );
    }
}

#[test]
fn linking_a_pip_project_without_requirements_says_what_is_missing() {
    let (dir, sdk) = project_with("Pulumi.yaml", "name: p\nruntime: python\n");
    let err = sdkgen::link(dir.path(), &python_runtime(json!({})), &sdk).unwrap_err();
    assert!(err.to_string().contains("requirements.txt"), "{err}");
}

/// The component provider the end-to-end test deploys with: components whose schema the
/// Python SDK infers from these classes, matching [`components_schema`]'s `Box`.
const BOX_PROVIDER: &str = r#"from enum import Enum
from typing import Optional, TypedDict

import pulumi
import pulumi_random as random
from pulumi.provider.experimental import component_provider_host


class Nested(TypedDict):
    a_number: pulumi.Input[float]


class Complex(TypedDict):
    a_number: pulumi.Input[float]
    nested_complex_type: pulumi.Input[Nested]


class Color(Enum):
    RED = "red"
    LIGHT_BLUE = "light-blue"


class BoxArgs(TypedDict):
    a_number: pulumi.Input[float]
    an_optional_string: Optional[pulumi.Input[str]]
    a_boolean_input: pulumi.Input[bool]
    a_complex_type_input: pulumi.Input[Complex]
    enum_input: pulumi.Input[Color]


class Box(pulumi.ComponentResource):
    a_number_output: pulumi.Output[float]
    an_optional_string_output: pulumi.Output[Optional[str]]
    a_boolean_output: pulumi.Output[bool]
    a_complex_type_output: pulumi.Output[Complex]
    a_resource_output: pulumi.Output[random.RandomPet]
    enum_output: pulumi.Output[Color]

    def __init__(self, name: str, args: BoxArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("comps:index:Box", name, {}, opts)
        self.a_number_output = pulumi.Output.from_input(args["a_number"]).apply(lambda n: n * 2)
        self.an_optional_string_output = pulumi.Output.from_input(
            args.get("an_optional_string") or "World").apply(lambda s: f"Hello, {s}!")
        self.a_boolean_output = pulumi.Output.from_input(args["a_boolean_input"]).apply(lambda b: not b)
        self.a_complex_type_output = pulumi.Output.from_input(args["a_complex_type_input"]).apply(
            lambda c: {"a_number": c["a_number"] * 2,
                       "nested_complex_type": {"a_number": c["nested_complex_type"]["a_number"] * 2}})
        self.a_resource_output = pulumi.Output.from_input(
            random.RandomPet(f"{name}-pet", opts=pulumi.ResourceOptions(parent=self)))
        self.enum_output = pulumi.Output.from_input(args["enum_input"]).apply(
            lambda e: Color.RED if e == Color.LIGHT_BLUE else Color.LIGHT_BLUE)
        self.register_outputs({})


if __name__ == "__main__":
    component_provider_host(name="comps", components=[Box])
"#;

/// The program: both call forms, every output kind read through the generated classes.
const BOX_PROGRAM: &str = r#"import pulumi
import pulumi_comps as comps

box = comps.Box(
    "box",
    a_number=21,
    a_boolean_input=pulumi.Output.from_input(True),
    a_complex_type_input={"aNumber": 7, "nestedComplexType": {"aNumber": 9}},
    enum_input=comps.Color.RED,
)
by_args = comps.Box("by-args", comps.BoxArgs(
    a_number=1, a_boolean_input=False, an_optional_string="Args",
    a_complex_type_input=comps.ComplexArgs(a_number=1, nested_complex_type=comps.NestedArgs(a_number=2)),
    enum_input=comps.Color.LIGHT_BLUE))
pulumi.export("aNumberOutput", box.a_number_output)
pulumi.export("anOptionalStringOutput", box.an_optional_string_output)
pulumi.export("aBooleanOutput", box.a_boolean_output)
pulumi.export("aComplexTypeOutput", box.a_complex_type_output)
pulumi.export("nestedNumber", box.a_complex_type_output.nested_complex_type.a_number)
pulumi.export("aResourceOutputUrn", box.a_resource_output.urn)
pulumi.export("enumOutput", box.enum_output)
pulumi.export("byArgs", by_args.an_optional_string_output)
"#;

/// A virtualenv of the project's own, seeing the shared SDK environment's packages.
fn project_venv(dir: &Path) {
    venv_on_shared_sdks(&dir.join("venv"));
}

#[test]
fn a_python_program_deploys_a_python_component_through_its_generated_sdk() {
    let env = Env::new("");
    let provider = env.root.path().join("provider");
    std::fs::create_dir_all(&provider).unwrap();
    std::fs::write(provider.join("__main__.py"), BOX_PROVIDER).unwrap();
    std::fs::write(
        provider.join("PulumiPlugin.yaml"),
        "runtime:\n  name: python\n  options:\n    virtualenv: venv\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(sdk_env().root.join("venv"), provider.join("venv")).unwrap();
    env.write(
        "Pulumi.yaml",
        "name: boxes\nruntime:\n  name: python\n  options:\n    virtualenv: venv\nplugins:\n  providers:\n    - name: comps\n      path: ../provider\n",
    );
    env.write("requirements.txt", "pulumi>=3.0.0,<4.0.0\n");
    env.write("__main__.py", BOX_PROGRAM);
    project_venv(&env.project());
    let sdk = generate(&components_schema(), &env.project().join("sdks/comps"));
    sdkgen::link(
        &env.project(),
        &python_runtime(json!({"virtualenv": "venv"})),
        &sdk,
    )
    .unwrap();

    env.ok(&["stack", "init", "dev"]);
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    let out: Value =
        serde_json::from_str(&env.ok(&["stack", "output", "--json", "--stack", "dev"])).unwrap();
    assert_eq!(out["aNumberOutput"], 42);
    assert_eq!(out["anOptionalStringOutput"], "Hello, World!");
    assert_eq!(out["aBooleanOutput"], false);
    assert_eq!(
        out["aComplexTypeOutput"],
        json!({"aNumber": 14, "nestedComplexType": {"aNumber": 18}})
    );
    assert_eq!(out["nestedNumber"], 18);
    assert_eq!(out["enumOutput"], "light-blue");
    assert_eq!(out["byArgs"], "Hello, Args!");
    let urn = out["aResourceOutputUrn"].as_str().unwrap();
    assert!(
        urn.ends_with("::comps:index:Box$random:index/randomPet:RandomPet::box-pet"),
        "the output is the random package's resource: {urn}"
    );
}
