//! A parameterized package's Python SDK end to end, as Pulumi's `TestParameterizedPython`
//! exercises it: `package gen-sdk <provider> pkg --language python --local` asks a real
//! parameterizable Python provider (a stand-in for Pulumi's `tests/testprovider-py`) for the
//! schema of `pkg`; a program creates, invokes, calls and reads through the generated
//! `pulumi_pkg`, which registers the package with the engine; and the SDK also works under the
//! Python SDK's mocks (the Go test's `test.py`). The project runs on pip here, with a provider
//! configured explicitly besides; the Go test itself, on uv, is the conformance suite's
//! `python_toolchains::py_parameterized`.

use std::path::Path;
use std::process::Command;

use serde_json::Value;
use stepdeck::sdkgen::{self, GeneratedSdk, SdkLanguage};

use crate::cli_support::sdk::{sdk_env, venv_on_shared_sdks};
use crate::cli_support::{Env, stderr, stdout};

/// A provider (shared with the conformance suite's `py_parameterized`) whose `testprovider`
/// package is renamed by its parameter: `Random` (a random
/// string of `length` after `prefix`, its id), `Echo` (its inputs back) with the method
/// `doEchoMethod`, and the function `doEcho`.
const TEST_PROVIDER: &str =
    include_str!("../pulumi_conformance/programs/testprovider_py/__main__.py");

/// The Go test's program, its results exported.
const PROGRAM: &str = r#"import pulumi
import pulumi_pkg as pkg

res1 = pkg.Random("res1", length=5)
res2 = pkg.do_echo("hello")
res3 = pkg.do_echo_output("hello")
res4 = pkg.Echo("echo")
res5 = res4.do_echo_method(echo="hello")
# Reading a Random gives its inputs back, so this works though it was never created.
res6 = pkg.Random.get("res6", "banana")

explicit = pkg.Provider("explicit", seed=3)
res7 = pkg.Echo("echo2", echo="through explicit", opts=pulumi.ResourceOptions(provider=explicit))

pulumi.export("result", res1.result)
pulumi.export("invoked", res2.echo)
pulumi.export("invokedOutput", res3.echo)
pulumi.export("called", res5.echo)
pulumi.export("read", res6.id)
"#;

/// The Go test's `test.py`: the SDK under the Python SDK's mocks.
const MOCKED: &str = r#"import pulumi
import pulumi.runtime
import unittest


class Mocks(pulumi.runtime.Mocks):
    def call(self, args):
        raise Exception(f"unknown function {args.token}")

    def new_resource(self, args):
        return [f"{args.name}_id", args.inputs]


class TestPackage(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self):
        pulumi.runtime.set_mocks(Mocks(), project="project", stack="stack", preview=False)
        await pulumi.runtime.settings._load_monitor_feature_support()

    async def test_should_create_random_resource(self):
        import pulumi_pkg as pkg

        random = pkg.Random("random", length=8)
        self.assertEqual(await random.id.future(), "random_id")
"#;

/// A virtualenv of the project's own, seeing the shared SDK environment's packages.
fn project_venv(dir: &Path) -> std::path::PathBuf {
    let venv = dir.join("venv");
    venv_on_shared_sdks(&venv);
    venv.join("bin/python")
}

#[test]
fn a_parameterized_packages_generated_sdk_creates_invokes_calls_and_reads_through_it() {
    let env = Env::with_passphrase("");
    let provider = env.root.path().join("testprovider-py");
    std::fs::create_dir_all(&provider).unwrap();
    std::fs::write(provider.join("__main__.py"), TEST_PROVIDER).unwrap();
    std::fs::write(
        provider.join("PulumiPlugin.yaml"),
        "runtime:\n  name: python\n  options:\n    virtualenv: venv\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(sdk_env().root.join("venv"), provider.join("venv")).unwrap();
    env.write(
        "Pulumi.yaml",
        "name: parameterized\nruntime:\n  name: python\n  options:\n    virtualenv: venv\nplugins:\n  providers:\n    - name: testprovider\n      path: ../testprovider-py\n",
    );
    env.write("requirements.txt", "pulumi\n");
    env.write("__main__.py", PROGRAM);
    env.write("test.py", MOCKED);

    let generated = env.ok(&[
        "package",
        "gen-sdk",
        "../testprovider-py",
        "pkg",
        "--language",
        "python",
        "--local",
    ]);
    let sdk_dir = env.project().join("sdk/python");
    assert!(
        sdk_dir.join("pulumi_pkg/pulumi-plugin.json").is_file(),
        "{generated}"
    );
    let python = project_venv(&env.project());
    let sdk = GeneratedSdk {
        language: SdkLanguage::Python,
        dir: sdk_dir,
        package: "pulumi-pkg".into(),
        import: "pulumi_pkg".into(),
    };
    let runtime = stepdeck::project::runtime::Runtime {
        name: "python".into(),
        options: [("virtualenv".to_string(), Value::from("venv"))].into(),
    };
    sdkgen::link(&env.project(), &runtime, &sdk).unwrap();

    let mocked = Command::new(&python)
        .args(["-m", "unittest", "test.py"])
        .current_dir(env.project())
        .output()
        .unwrap();
    assert!(mocked.status.success(), "{}", stderr(&mocked));

    env.ok(&["stack", "init", "dev"]);
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    let out: Value = serde_json::from_str(&env.ok(&[
        "stack",
        "output",
        "--json",
        "--show-secrets",
        "--stack",
        "dev",
    ]))
    .unwrap();
    assert_eq!(out["result"].as_str().map(str::len), Some(5), "{out}");
    assert_eq!(out["invoked"], "hello");
    assert_eq!(out["invokedOutput"], "hello");
    assert_eq!(out["called"], "hello");
    assert_eq!(out["read"], "banana");
    let state = env.export("dev");
    let resources = state["deployment"]["resources"].as_array().unwrap();
    let of_type = |t: &str| resources.iter().filter(|r| r["type"] == t).count();
    assert_eq!(of_type("pkg:index:Random"), 2, "res1 and the read res6");
    assert_eq!(of_type("pkg:index:Echo"), 2);
    let res1 = resources
        .iter()
        .find(|r| r["urn"].as_str().unwrap().ends_with("::res1"))
        .unwrap();
    assert!(
        res1["outputs"]["result"].is_object(),
        "the schema's secret output is kept secret in the state: {res1}"
    );
    let explicit = resources
        .iter()
        .find(|r| {
            r["urn"]
                .as_str()
                .unwrap()
                .ends_with("pulumi:providers:pkg::explicit")
        })
        .unwrap();
    assert_eq!(
        explicit["inputs"]["seed"], "3",
        "a provider's configuration is sent as JSON strings"
    );
    let provider = resources
        .iter()
        .find(|r| r["type"] == "pulumi:providers:pkg")
        .unwrap_or_else(|| panic!("the parameterized package's provider: {state}"));
    assert_eq!(provider["inputs"]["__internal"]["name"], "testprovider");
    assert_eq!(provider["inputs"]["__internal"]["parameterization"], "cGtn");
    let destroyed = env.run(&["destroy", "--stack", "dev", "--yes", "--non-interactive"]);
    assert!(destroyed.status.success(), "{}", stdout(&destroyed));
}
