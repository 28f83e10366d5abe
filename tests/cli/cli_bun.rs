//! `runtime: bun`: a Node.js project whose program bun runs (its TypeScript compiled by bun, not
//! the SDK's ts-node), installed with bun, described by `about` as bun, and debugged through
//! bun's inspector, as Pulumi's Node.js language host does in its bun mode.

#![allow(clippy::unwrap_used, clippy::panic)]

use serde_json::Value;

use crate::cli_support::debugger_clients::{
    WaitingRun, bun_inspector_initialized, inspector_port_lock,
};
use crate::cli_support::sdk::sdk_env;
use crate::cli_support::*;

/// A bun project running `program` (TypeScript), the installed SDKs linked in and the bun
/// installed with them first on PATH.
fn bun_project(program: &str, options: &str) -> Env {
    let mut env = Env::with_passphrase("");
    env.write(
        "Pulumi.yaml",
        &format!("name: bunny\nruntime:\n  name: bun\n  options:\n{options}"),
    );
    env.write(
        "package.json",
        r#"{"name": "bunny", "main": "index.ts", "dependencies": {"@pulumi/pulumi": "^3"}}"#,
    );
    env.write("index.ts", program);
    link_sdks(&env.project());
    let bin = env.root.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(
        sdk_env().root.join("node_modules/.bin/bun"),
        bin.join("bun"),
    )
    .unwrap();
    env.plugins = Some(bin);
    env
}

/// TypeScript bun runs itself; `typescript: true` (ts-node, in node) is ignored as Pulumi's
/// bun mode ignores it.
const PROGRAM: &str = r#"import * as pulumi from "@pulumi/pulumi";
const runtime: string = process.versions.bun !== undefined ? "bun" : "node";
export const ranBy = runtime;
export const typescriptByTsNode = process.env.PULUMI_NODEJS_TYPESCRIPT ?? "unset";
"#;

#[test]
fn a_bun_project_runs_its_typescript_with_bun() {
    let env = bun_project(
        PROGRAM,
        "    typescript: true\n    nodeargs: --no-warnings\n",
    );
    env.ok(&["stack", "init", "dev"]);
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    let outputs: Value =
        serde_json::from_str(&env.ok(&["stack", "output", "--json", "--stack", "dev"])).unwrap();
    assert_eq!(outputs["ranBy"], "bun", "{outputs:#}");
    assert_eq!(outputs["typescriptByTsNode"], "unset", "{outputs:#}");
}

#[test]
fn about_in_a_bun_project_names_bun_its_version_and_package_manager() {
    let env = bun_project(PROGRAM, "    packagemanager: bun\n");
    let about: Value = serde_json::from_str(&env.ok(&["about", "--json"])).unwrap();
    assert_eq!(about["plugins"][0]["kind"], "language", "{about:#}");
    assert_eq!(about["plugins"][0]["name"], "bun", "{about:#}");
    assert_eq!(about["runtime"]["language"], "bun", "{about:#}");
    assert_eq!(about["runtime"]["packagemanager"], "bun", "{about:#}");
    let bun_version = about["runtime"]["version"].as_str().unwrap();
    assert!(bun_version.starts_with("1."), "{about:#}");
    assert_eq!(about["runtime"]["packagemanagerVersion"], bun_version);
    assert!(
        about["runtime"]["executable"]
            .as_str()
            .unwrap()
            .ends_with("/bun"),
        "{about:#}"
    );
    assert_eq!(
        about["dependencies"][0]["name"], "@pulumi/pulumi",
        "{about:#}"
    );
}

#[test]
fn install_in_a_bun_project_installs_with_bun_whatever_packagemanager_says() {
    let env = bun_project(PROGRAM, "    packagemanager: npm\n");
    // Nothing to fetch: one dependency, from a directory beside the project.
    let dep = env.root.path().join("local-dep");
    std::fs::create_dir_all(&dep).unwrap();
    std::fs::write(
        dep.join("package.json"),
        r#"{"name": "local-dep", "version": "1.0.0"}"#,
    )
    .unwrap();
    env.write(
        "package.json",
        r#"{"name": "bunny", "main": "index.ts", "dependencies": {"local-dep": "file:../local-dep"}}"#,
    );
    std::fs::remove_file(env.project().join("node_modules")).unwrap();
    env.ok(&["install"]);
    assert!(env.project().join("bun.lock").exists());
    assert!(!env.project().join("package-lock.json").exists());
}

#[test]
fn a_bun_program_waits_in_buns_inspector_until_a_debugger_initializes() {
    let env = bun_project(
        "import * as pulumi from \"@pulumi/pulumi\";\nexport const message = \"hello\";\n",
        "    packagemanager: bun\n",
    );
    env.ok(&["stack", "init", "dev"]);
    let _port = inspector_port_lock();
    let log = env.root.path().join("debugger.log");
    let log_arg = log.display().to_string();
    let child = env.spawn(&["preview", "--attach-debugger", "--event-log", &log_arg]);
    let (run, event) = WaitingRun::start(child, &log);
    let config = &event["config"];
    assert_eq!(config["type"], "bun", "{event}");
    assert_eq!(config["request"], "attach", "{event}");
    assert_eq!(config["name"], "Pulumi: Program (bun)", "{event}");
    let received = bun_inspector_initialized(config["url"].as_str().unwrap());
    let (ok, out) = run.finish();
    assert!(
        ok,
        "the preview goes on once initialized ({received:?}):\n{out}"
    );
    assert!(out.contains("message: \"hello\""), "{out}");
}

#[test]
fn a_bun_project_refuses_a_node_sdk_older_than_bun_needs() {
    let env = bun_project(PROGRAM, "    packagemanager: bun\n");
    std::fs::remove_file(env.project().join("node_modules")).unwrap();
    let sdk = env.project().join("node_modules/@pulumi/pulumi");
    std::fs::create_dir_all(sdk.join("cmd/run")).unwrap();
    std::fs::write(
        sdk.join("package.json"),
        r#"{"name": "@pulumi/pulumi", "version": "3.200.0"}"#,
    )
    .unwrap();
    std::fs::write(sdk.join("cmd/run/index.js"), "process.exit(0);\n").unwrap();
    env.ok(&["stack", "init", "dev"]);
    let out = env.run(&["preview", "--stack", "dev", "--non-interactive"]);
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(!out.status.success(), "{text}");
    assert!(
        text.contains(
            "the bun runtime requires @pulumi/pulumi >= 3.226.0, but 3.200.0 is installed"
        ),
        "{text}"
    );
}

#[test]
fn a_provider_plugin_on_runtime_bun_is_refused_by_name() {
    let env = Env::new(
        "plugins:\n  providers:\n    - name: greet\n      path: ./greet\nresources:\n  g:\n    type: greet:index:Greeting\n",
    );
    let plugin = env.project().join("greet");
    std::fs::create_dir_all(&plugin).unwrap();
    std::fs::write(plugin.join("PulumiPlugin.yaml"), "runtime: bun\n").unwrap();
    env.ok(&["stack", "init", "dev"]);
    let out = env.run(&["preview", "--stack", "dev", "--non-interactive"]);
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(!out.status.success(), "{text}");
    assert!(
        text.contains("PulumiPlugin.yaml: a plugin on runtime bun is not supported"),
        "{text}"
    );
}
