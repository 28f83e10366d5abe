//! `package add` and `install` of packages for TypeScript programs, as Pulumi's
//! `TestNodePackageAddTSC`, `TestNodePackageAddTypes`, `TestInstallLocalPlugin` and
//! `TestPackageAddNamespace` (nodejs) drive them: the SDK generated from a component provider's
//! or a schema file's schema into `sdks/<name>`, linked into package.json and installed by the
//! project's package manager (whose install compiles it with the SDK's own `tsc`, against its
//! own `@types` only), then the program run through it.
//!
//! The programs' own dependencies that the installed SDKs hold (`@pulumi/pulumi`, `typescript`,
//! `@types/node`) are linked to them rather than downloaded; the generated SDK's pinned
//! compiler (`typescript@^4.7.0`, `@types/node@^20`) and the other packages come from npm.

use std::path::Path;

use serde_json::Value;

use super::cli_support::sdk::sdk_env;
use super::harness::ProgramTest;

/// The project `programs/<case>/<program>/` with its siblings beside it, its dependencies
/// linked to the installed SDKs, each sibling provider's dependencies the installed SDKs (what
/// `ptesting.InstallDependencies` leaves in it), and the package managers installed with the
/// SDKs on PATH (in the case's `bin/`, beside anything the case put there).
pub(crate) fn node_project(case: &str, program: &str) -> ProgramTest {
    let mut t = ProgramTest::in_work_dir(case, program);
    let bin = t.env.root.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for tool in ["pnpm", "yarn", "bun"] {
        let installed = sdk_env().root.join("node_modules/.bin").join(tool);
        std::os::unix::fs::symlink(installed, bin.join(tool)).unwrap();
    }
    t.env.plugins = Some(bin);
    let project = std::fs::read_to_string(t.env.project().join("Pulumi.yaml")).unwrap();
    // npm links a `file:` directory; pnpm and yarn copy one (and install its dependencies),
    // so they get `link:`.
    let protocol = if ["pnpm", "yarn"]
        .iter()
        .any(|pm| project.contains(&format!("packagemanager: {pm}")))
    {
        "link"
    } else {
        "file"
    };
    use_installed_sdks(&t.env.project().join("package.json"), protocol);
    let modules = sdk_env().root.join("node_modules");
    for entry in std::fs::read_dir(t.env.root.path()).unwrap() {
        let dir = entry.unwrap().path();
        if dir != t.env.project() && dir.join("PulumiPlugin.yaml").exists() {
            let plugin = std::fs::read_to_string(dir.join("PulumiPlugin.yaml")).unwrap();
            if plugin.contains("nodejs") {
                std::os::unix::fs::symlink(&modules, dir.join("node_modules")).unwrap();
            } else {
                std::os::unix::fs::symlink(sdk_env().root.join("venv"), dir.join("venv")).unwrap();
            }
        }
    }
    t
}

/// Points each dependency of a package.json that the installed SDKs hold at their copy.
fn use_installed_sdks(manifest: &Path, protocol: &str) {
    let modules = sdk_env().root.join("node_modules");
    let mut json: Value =
        serde_json::from_str(&std::fs::read_to_string(manifest).unwrap()).unwrap();
    let mut linked = serde_json::Map::new();
    for section in ["dependencies", "devDependencies"] {
        let Some(deps) = json.get_mut(section).and_then(Value::as_object_mut) else {
            continue;
        };
        for (name, spec) in deps.iter_mut() {
            if modules.join(name).join("package.json").exists() {
                *spec = Value::String(format!("{protocol}:{}", modules.join(name).display()));
                linked.insert(name.clone(), spec.clone());
            }
        }
    }
    if protocol == "link" {
        // pnpm and yarn resolve the SDK's own `@pulumi/pulumi` apart from the project's link
        // (to the newest release, which needs a newer Node.js than the installed SDKs' for
        // yarn): `resolutions` make it the same link.
        json["resolutions"] = Value::Object(linked);
    }
    std::fs::write(manifest, serde_json::to_string_pretty(&json).unwrap()).unwrap();
}

/// `up` and `destroy` with `--skip-preview`, as the Go tests run them after adding.
fn up_and_destroy(t: &ProgramTest) -> Value {
    t.env.ok(&[
        "up",
        "--stack",
        "dev",
        "--yes",
        "--non-interactive",
        "--skip-preview",
    ]);
    let state = t.env.export("dev");
    t.env.ok(&[
        "destroy",
        "--stack",
        "dev",
        "--yes",
        "--non-interactive",
        "--skip-preview",
    ]);
    state
}

fn component_urns(state: &Value) -> Vec<String> {
    state["deployment"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["type"] == "provider:index:MyComponent")
        .map(|r| r["urn"].as_str().unwrap().to_string())
        .collect()
}

/// `TestNodePackageAddTSC`: a failing `tsc` first on PATH (the case's `bin/`); the SDK
/// compiles with its own.
fn package_add_tsc(pm: &str) {
    let t = node_project("ts_packageadd_tsc", &format!("program-{pm}"));
    let provider = t.env.root.path().join("provider");
    t.env.ok(&["package", "add", provider.to_str().unwrap()]);
    t.env.ok(&["install"]);
    let state = up_and_destroy(&t);
    assert_eq!(component_urns(&state).len(), 1, "{state}");
}

#[test]
fn ts_packageadd_tsc_npm() {
    package_add_tsc("npm");
}

#[test]
fn ts_packageadd_tsc_pnpm() {
    package_add_tsc("pnpm");
}

#[test]
fn ts_packageadd_tsc_yarn() {
    package_add_tsc("yarn");
}

#[test]
fn ts_packageadd_tsc_bun() {
    package_add_tsc("bun");
}

/// `TestNodePackageAddTypes`: `install`, then `package add` into a project whose `@types/jest`
/// the SDK's compile must not load.
#[test]
fn ts_packageadd_types() {
    let t = node_project("ts_packageadd_types", "program");
    t.env.ok(&["install"]);
    let provider = t.env.root.path().join("provider");
    t.env.ok(&["package", "add", provider.to_str().unwrap()]);
    assert!(
        t.env
            .project()
            .join("sdks/provider/bin/index.d.ts")
            .exists()
    );
}

/// `TestInstallLocalPlugin`: `install` generates the SDK of `packages: provider:
/// ../provider@0.0.0`, then `up`.
#[test]
fn ts_packages_install_local() {
    let t = node_project("ts_packages_install_local", "example");
    t.env.ok(&["install"]);
    assert!(t.env.project().join("sdks/provider/package.json").exists());
    t.env.ok(&[
        "up",
        "--stack",
        "dev",
        "--non-interactive",
        "--skip-preview",
        "--yes",
    ]);
    let urns = component_urns(&t.env.export("dev"));
    assert_eq!(urns.len(), 1);
    assert!(
        urns[0].ends_with("::provider:index:MyComponent::test"),
        "{urns:?}"
    );
    t.env.ok(&[
        "destroy",
        "--stack",
        "dev",
        "--yes",
        "--non-interactive",
        "--skip-preview",
    ]);
}

/// `TestPackageAddNamespace` (nodejs): a schema file with a namespace gives
/// `@my-namespace/mypkg` in `sdks/my-namespace-mypkg`, and says how to import it.
#[test]
fn ts_package_add_namespace() {
    let t = node_project("ts_package_add_namespace", "nodejs");
    let stdout = t.env.ok(&["package", "add", "../provider/schema.json"]);
    assert!(
        stdout.contains(
            "You can import the SDK in your TypeScript code with:\n\n  import * as mypkg from \"@my-namespace/mypkg\""
        ),
        "{stdout}"
    );
    assert!(
        t.env
            .project()
            .join("sdks/my-namespace-mypkg/index.ts")
            .exists()
    );
}
