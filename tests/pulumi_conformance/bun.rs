//! Pulumi's bun programs (`tests/integration/bun`, `about/bun`): `runtime: bun` runs the
//! Node.js SDK's program runner with bun (`bun run`), TypeScript compiled by bun itself, as
//! Pulumi's Node.js language host does in its bun mode. `TestBun` and `TestBunCallbacks` through
//! ProgramTest (`sim` for the test provider's `Echo`), `TestDebuggerAttachBun` (bun's inspector,
//! spoken to in WebKit's protocol) and `TestAboutBun`. bun is the one installed with the SDKs,
//! put on PATH; the SDKs are linked in where the Go tests run `bun install` and `bun link`.

use super::cli_support::debugger_clients::{
    WaitingRun, bun_inspector_initialized, inspector_port_lock,
};
use super::cli_support::sdk::sdk_env;
use super::harness::{ProgramTest, stack_outputs};
use super::program_test::{Options, Run};

/// The case's project, bun (from the installed SDKs) first on PATH.
fn bun_project(case: &str) -> ProgramTest {
    let mut t = ProgramTest::new(case);
    let bin = t.env.root.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let bun = sdk_env().root.join("node_modules/.bin/bun");
    std::os::unix::fs::symlink(bun, bin.join("bun")).unwrap();
    t.env.plugins = Some(bin);
    t
}

/// `TestBun`: the full lifecycle; the program's `isBun` output says bun ran it.
#[test]
fn bun_simple() {
    let t = bun_project("bun_simple");
    t.lifecycle(&Options::default(), |run: &Run| {
        let outputs = stack_outputs(&run.state);
        assert_eq!(outputs["isBun"], true, "{outputs:#}");
        assert_eq!(outputs["name"], "hello", "{outputs:#}");
        let exec = outputs["execPath"].as_str().unwrap_or_default();
        assert!(exec.contains("bun"), "{outputs:#}");
    });
}

/// `TestBunCallbacks` (Quick): a `beforeCreate` hook runs in the program, which bun runs.
#[test]
fn bun_callbacks() {
    let t = bun_project("bun_callbacks");
    let opts = Options {
        quick: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run: &Run| {
        let printed = run.events.iter().any(|e| {
            let d = &e["diagnosticEvent"];
            d["severity"] == "info"
                && d["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("hook called"))
        });
        assert!(printed, "no `hook called` info: {:#?}", run.events);
        assert_eq!(stack_outputs(&run.state)["isBun"], true, "{:#}", run.state);
    });
}

/// `TestDebuggerAttachBun`: `preview --attach-debugger --event-log` (with
/// `PULUMI_DEBUG_COMMANDS`) announces bun's inspector (`type: bun`, its WebSocket `url`); a
/// client sends `Runtime.enable` and `Inspector.initialized`, and once bun answered the
/// program runs and the preview succeeds.
#[test]
fn bun_debugger_attach() {
    let t = bun_project("bun_debugger");
    let _port = inspector_port_lock();
    let log = t.env.root.path().join("debugger.log");
    let log_arg = log.display().to_string();
    let mut preview = t
        .env
        .command(&["preview", "--attach-debugger", "--event-log", &log_arg]);
    let child = preview
        .env("PULUMI_DEBUG_COMMANDS", "true")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (run, event) = WaitingRun::start(child, &log);
    let config = &event["config"];
    assert_eq!(config["type"], "bun", "{event}");
    assert_eq!(config["request"], "attach", "{event}");
    assert_eq!(config["name"], "Pulumi: Program (bun)", "{event}");
    let url = config["url"].as_str().unwrap_or_default();
    assert!(url.starts_with("ws://127.0.0.1:"), "{event}");
    let received = bun_inspector_initialized(url);
    let (ok, out) = run.finish();
    assert!(
        ok,
        "the preview completes once the debugger is initialized ({received:?}):\n{out}"
    );
    assert!(out.contains("message: \"hello\""), "{out}");
}

/// `TestAboutBun`: `about` names the language plugin `bun` with a version, bun as the package
/// manager and its version.
#[test]
fn bun_about() {
    let t = bun_project("bun_about");
    let text = t.env.ok(&["about"]);
    t.env.ok(&["stack", "rm", "--yes"]);
    let matches = |pattern: &str| regex::Regex::new(pattern).unwrap().is_match(&text);
    assert!(matches(r"language\W+bun\W+\d+\.\d+"), "{text}");
    assert!(text.contains("packagemanager='bun'"), "{text}");
    assert!(matches(r"packagemanagerVersion='\d+\.\d+\.\d+'"), "{text}");
}
