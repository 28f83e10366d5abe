//! `--attach-debugger` as Pulumi's `TestDebuggerAttachNodejs` and `TestPluginDebuggerAttachPython`
//! drive it: a preview started in the background waits for a debugger, announces where in its
//! event log's `startDebuggingEvent`, and goes on once a real client attached: a Chrome DevTools
//! Protocol client lets a Node.js program run, a Debug Adapter Protocol client attaches to a
//! Python provider plugin under debugpy.

use serde_json::Value;

use super::cli_support::debugger_clients::{DapClient, WaitingRun, inspector_port_lock};
use super::cli_support::{Env, link_sdks, sdk};
use super::harness::{ProgramTest, copy_files};

/// `TestDebuggerAttachNodejs`: `preview --attach-debugger --event-log`; the inspector's port
/// is the event's `port`, else Node's 9229. (Its `pulumi install` runs npm; the SDKs are linked
/// instead, as for every Node.js case.)
#[test]
fn js_debugger_attach() {
    let t = ProgramTest::new("js_debugger");
    let _port = inspector_port_lock();
    let log = t.env.root.path().join("debugger.log");
    let log_arg = log.display().to_string();
    let child = t
        .env
        .spawn(&["preview", "--attach-debugger", "--event-log", &log_arg]);
    let (mut run, event) = WaitingRun::start(child, &log);
    let config = &event["config"];
    assert_eq!(config["type"], "node", "{event}");
    assert_eq!(config["request"], "attach", "{event}");
    assert_eq!(config["name"], "Pulumi: Program (nodejs)", "{event}");
    assert!(config["processId"].is_u64(), "{event}");
    let port = config["port"]
        .as_u64()
        .map_or(9229, |p| u16::try_from(p).unwrap());
    run.let_node_run(port);
    let (ok, out) = run.finish();
    assert!(
        ok,
        "the preview completes once the debugger let it run:\n{out}"
    );
    assert!(out.contains("message: \"hello\""), "{out}");
    assert!(
        !out.contains("Debugger listening on"),
        "the inspector's own lines are not the program's output:\n{out}"
    );
}

/// `TestPluginDebuggerAttachPython`: `preview --attach-debugger=plugins` on a YAML program
/// whose package is a Python plugin from source (`package add ../python-plugin`: its
/// `PulumiPlugin.yaml`, its `.venv` as installing its dependencies leaves it); a DAP client attaches with the announced
/// configuration; the plugin then serves, and the preview fails on its unimplemented `Check`
/// with the plugin's message (on the stack's row, where Pulumi shows it on the resource's).
#[test]
fn py_plugin_debugger_attach() {
    let case = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/pulumi_conformance/programs/debug_plugin");
    let env = Env::new("");
    copy_files(&case.join("program"), &env.project());
    let plugin = env.root.path().join("python-plugin");
    std::fs::create_dir(&plugin).unwrap();
    copy_files(&case.join("python-plugin"), &plugin);
    std::os::unix::fs::symlink(sdk::sdk_env().root.join("venv"), plugin.join(".venv")).unwrap();
    env.ok(&["package", "add", "../python-plugin"]);
    env.ok(&["stack", "init", "plugin-debugger-test"]);
    let log = env.root.path().join("plugin_debugger.log");
    let log_arg = log.display().to_string();
    let child = env.spawn(&[
        "preview",
        "--attach-debugger=plugins",
        "--event-log",
        &log_arg,
    ]);
    let (run, event) = WaitingRun::start(child, &log);
    let config: &Value = &event["config"];
    assert_eq!(config["type"], "python", "{event}");
    assert_eq!(config["name"], "Pulumi: Plugin (debugplugin)", "{event}");
    let port = u16::try_from(config["connect"]["port"].as_u64().unwrap()).unwrap();
    let mut dap = DapClient::connect(port);
    let responses = dap.attach(config);
    assert_eq!(
        responses,
        ["initialize", "configurationDone", "attach"],
        "{:?}",
        dap.events
    );
    assert!(
        dap.until_terminated(),
        "debugpy reports the plugin's end: {:?}",
        dap.events
    );
    assert!(
        dap.events.iter().any(|e| e == "process"),
        "{:?}",
        dap.events
    );
    // The editor leaves, as Pulumi's test closes its connection.
    drop(dap);
    let (ok, out) = run.finish();
    assert!(!ok, "the plugin implements no Check:\n{out}");
    assert!(
        out.contains(
            "debugplugin:index:MyDebugResource::debugResource: Unexpected <class 'NotImplementedError'>: Method not implemented!"
        ),
        "{out}"
    );
}

/// Beyond Pulumi's tests: a Node.js plugin from source (the TypeScript component provider of
/// `js_component_provider`) under `--attach-debugger=plugin:greet` waits in Node's inspector
/// until a CDP client lets it run; the preview then plans the component.
#[test]
fn js_plugin_debugger_attach() {
    let t = ProgramTest::new("js_component_provider");
    link_sdks(&t.env.project());
    let _port = inspector_port_lock();
    let log = t.env.root.path().join("plugin_debugger.log");
    let log_arg = log.display().to_string();
    let child = t.env.spawn(&[
        "preview",
        "--attach-debugger=plugin:greet",
        "--event-log",
        &log_arg,
    ]);
    let (mut run, event) = WaitingRun::start(child, &log);
    let config = &event["config"];
    assert_eq!(config["type"], "node", "{event}");
    assert_eq!(config["name"], "Pulumi: Plugin (greet)", "{event}");
    let port = config["port"]
        .as_u64()
        .map_or(9229, |p| u16::try_from(p).unwrap());
    run.let_node_run(port);
    let (ok, out) = run.finish();
    assert!(
        ok,
        "the preview completes once the debugger let the plugin run:\n{out}"
    );
    assert!(out.contains("greet:index:Greeting"), "{out}");
}
