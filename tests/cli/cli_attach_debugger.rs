//! `--attach-debugger`: a Python program started under debugpy waits for a debugger, the run
//! says where to attach (the display's line, the event log's `startDebuggingEvent` with the
//! launch configuration an editor attaches with), and goes on once a DAP client attached;
//! values Pulumi does not know are usage errors.

use serde_json::json;

use crate::cli_support::debugger_clients::{DapClient, WaitingRun};
use crate::cli_support::*;

#[test]
fn a_python_program_waits_for_debugpy_and_runs_once_attached() {
    let env = Env::new("");
    env.write("Pulumi.yaml", "name: debugged\nruntime: python\n");
    env.write(
        "__main__.py",
        "import pulumi\n\npulumi.export(\"answer\", 42)\n",
    );
    link_sdks(&env.project());
    env.ok(&["stack", "init", "dev"]);
    let log = env.root.path().join("events.json");
    let log_arg = log.display().to_string();
    let child = env.spawn(&[
        "up",
        "--yes",
        "--non-interactive",
        "--attach-debugger",
        "--event-log",
        &log_arg,
    ]);
    let (run, event) = WaitingRun::start(child, &log);
    let port = event["config"]["connect"]["port"].as_u64().unwrap();
    assert_eq!(
        event,
        json!({"config": {
            "name": "Pulumi: Program (Python)",
            "type": "python",
            "request": "attach",
            "connect": {"host": "127.0.0.1", "port": port},
            "justMyCode": true,
        }})
    );
    assert!(
        run.out.contains(&format!(
            "Waiting for debugger to attach (debugpy on 127.0.0.1:{port})..."
        )),
        "{}",
        run.out
    );
    let mut dap = DapClient::connect(u16::try_from(port).unwrap());
    dap.attach(&event["config"]);
    assert!(dap.until_terminated(), "{:?}", dap.events);
    // The editor leaves, as Pulumi's test closes its connection.
    drop(dap);
    let (ok, out) = run.finish();
    assert!(ok, "{out}");
    assert_eq!(env.ok(&["stack", "output", "answer"]).trim(), "42");
}

#[test]
fn a_python_without_debugpy_is_named_with_how_to_install_it() {
    let env = Env::new("");
    // No virtualenv: the program runs with python3 from PATH, which has no debugpy.
    env.write("Pulumi.yaml", "name: debugged\nruntime: python\n");
    env.write("__main__.py", "import pulumi\n");
    env.ok(&["stack", "init", "dev"]);
    let out = env.run(&["preview", "--attach-debugger"]);
    assert!(!out.status.success(), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("debugpy is not installed for python3 (--attach-debugger): install it with `python3 -m pip install debugpy`"),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
}

#[test]
fn an_unknown_attach_debugger_value_is_a_usage_error() {
    let env = Env::new("");
    env.ok(&["stack", "init", "dev"]);
    let out = env.run(&["preview", "--attach-debugger=plugin"]);
    assert!(!out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("invalid --attach-debugger flag value: plugin"),
        "{}",
        stderr(&out)
    );
}
