//! What a program prints and logs reaches the update's engine events as diagnostics, as
//! Pulumi's `printf` (`TestPrintf{NodeJS,Python}`) and `log_debug` (`TestLogDebug{Node,Python}`)
//! tests check on ProgramTest's `Events`.

use super::harness::ProgramTest;
use super::program_test::{Options, Run};

/// `TestPrintfPython` (Quick): every line of stdout and stderr is a diagnostic, the last ones
/// without their newline too.
#[test]
fn py_printf() {
    printf("py_printf");
}

/// `TestPrintfNodeJS` (Quick): see [`py_printf`].
#[test]
fn js_printf() {
    printf("js_printf");
}

/// `TestLogDebugPython` (Quick): a debug log is a `debug` diagnostic, and a simple program
/// emits at least one and at most 25 of them.
#[test]
fn py_log_debug() {
    log_debug("py_log_debug");
}

/// `TestLogDebugNode` (Quick): see [`py_log_debug`].
#[test]
fn js_log_debug() {
    log_debug("js_log_debug");
}

fn quick() -> Options {
    Options {
        quick: true,
        ..Options::default()
    }
}

/// The diagnostics among a run's events: (severity, message).
fn diagnostics(run: &Run) -> Vec<(String, String)> {
    run.events
        .iter()
        .filter_map(|e| {
            let d = &e["diagnosticEvent"];
            Some((
                d["severity"].as_str()?.to_string(),
                d["message"].as_str()?.to_string(),
            ))
        })
        .collect()
}

/// Pulumi's `printfTestValidation`: "Line 0" to "Line 10" and "Errln 10" to "Errln 20", each
/// found in order at the start of a diagnostic's message.
fn printf(case: &str) {
    let t = ProgramTest::new(case);
    t.lifecycle(&quick(), |run| {
        let (mut out, mut err) = (0, 0);
        for (_, message) in diagnostics(run) {
            if message.starts_with(&format!("Line {out}")) {
                out += 1;
            } else if message.starts_with(&format!("Errln {}", err + 10)) {
                err += 1;
            }
        }
        assert_eq!((out, err), (11, 11), "{:#?}", diagnostics(run));
    });
}

fn log_debug(case: &str) {
    let t = ProgramTest::new(case);
    t.lifecycle(&quick(), |run| {
        let debug = diagnostics(run)
            .into_iter()
            .filter(|(severity, _)| severity == "debug")
            .count();
        assert!(
            (1..=25).contains(&debug),
            "{debug} debug events: {:#?}",
            diagnostics(run)
        );
    });
}
