//! Signals to a running update (Pulumi's `TestCancelSignal`): SIGINT or SIGTERM cancels it
//! gracefully, with Pulumi's `error: update canceled` in the output and a failing exit.

use std::io::{BufRead, BufReader, Read};

use super::harness::ProgramTest;

/// Starts `up`, waits for the program to print `Sleeping`, sends `signal`, and checks the
/// update ends cancelled.
fn cancelled_by(signal: libc::c_int) {
    let t = ProgramTest::new("cancel");
    let mut child = t.env.spawn(&["up", "--skip-preview", "--yes"]);
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut out = String::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        out.push_str(&line);
        out.push('\n');
        if line.contains("Sleeping") {
            break;
        }
    }
    assert!(out.contains("Sleeping"), "the program never ran:\n{out}");
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
    for line in lines {
        out.push_str(&line.unwrap());
        out.push('\n');
    }
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    assert!(
        status.code().is_some_and(|c| c != 0),
        "exits non-zero ({status:?}):\n{out}{err}"
    );
    assert!(out.contains("error: update canceled"), "{out}{err}");
    t.env.ok(&["stack", "export"]);
}

/// Pulumi's `TestCancelSignal/interrupt`.
#[test]
fn cancel_sigint() {
    cancelled_by(libc::SIGINT);
}

/// Pulumi's `TestCancelSignal/terminated`.
#[test]
fn cancel_sigterm() {
    cancelled_by(libc::SIGTERM);
}
