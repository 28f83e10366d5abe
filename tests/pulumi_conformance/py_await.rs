//! Python outputs still pending when the program's code ends (Pulumi's `TestPythonAwaitOutputs`,
//! each subtest Quick): the run waits for every output, exported or not, before it finishes,
//! and an apply that raises fails the update without waiting for the outputs after it.

use super::harness::{ProgramTest, name_of, resources};
use super::program_test::{Options, Run};

/// The case's lifecycle (Quick, with `expect_failure`), checking the diagnostics of its update.
fn awaited(case: &str, expect_failure: bool, check: impl Fn(&Run, &str)) {
    let t = ProgramTest::new(case);
    let opts = Options {
        quick: true,
        expect_failure,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        check(run, &ProgramTest::diagnostics(&run.events).join("\n"));
    });
}

/// `SuccessSimple`: an unexported output's print is seen.
#[test]
fn py_await_success() {
    awaited("py_await_success", false, |_, said| {
        assert!(said.contains("the magic words"), "{said}");
    });
}

/// `SuccessMultipleOutputs`: the prints of an exported output and of two unexported ones,
/// the last resolving after the others.
#[test]
fn py_await_multiple_outputs() {
    awaited("py_await_multiple_outputs", false, |_, said| {
        for word in ["the magic words", "alpha", "omega"] {
            assert!(said.contains(word), "{word} missing from {said}");
        }
    });
}

/// `ErrorHandlingSuccess`: an exception caught inside the awaited coroutine is not a failure.
#[test]
fn py_await_error_handling() {
    awaited("py_await_error_handling", false, |_, said| {
        assert!(said.contains("recovered nicely"), "{said}");
    });
}

/// `FailureSimple` (ExpectFailure): the apply's `IndexError` fails the update.
#[test]
fn py_await_failure() {
    awaited("py_await_failure", true, |run, _| {
        assert!(
            run.output.contains("IndexError: list index out of range"),
            "{}",
            run.output
        );
    });
}

/// `FailureWithExportedOutput` (ExpectFailure): the outputs resolved before the failing apply
/// are printed, the one due after it is not.
#[test]
fn py_await_failure_exported() {
    awaited("py_await_failure_exported", true, |run, said| {
        assert!(
            run.output.contains("IndexError: list index out of range"),
            "{}",
            run.output
        );
        assert!(said.contains("alpha"), "{said}");
        assert!(said.contains("reached"), "{said}");
        assert!(!said.contains("too late"), "{said}");
    });
}

/// `CreateInsideApply`: a dynamic resource created in an apply after the program's code ended
/// is registered, and its printed URN is seen.
#[test]
fn py_await_create_inside_apply() {
    awaited("py_await_create_inside_apply", false, |run, said| {
        assert!(
            said.contains("pulumi-python:dynamic:Resource::magic_string"),
            "{said}"
        );
        let names: Vec<_> = resources(&run.state)
            .iter()
            .map(|r| name_of(r).to_string())
            .collect();
        assert!(names.contains(&"magic_string".to_string()), "{names:?}");
    });
}

/// `FailureMultipleOutputs` (ExpectFailure): the prints due before the failing apply are seen,
/// the one due after it is not.
#[test]
fn py_await_failure_multiple_unexported() {
    awaited("py_await_failure_multiple_unexported", true, |run, said| {
        assert!(
            run.output.contains("IndexError: list index out of range"),
            "{}",
            run.output
        );
        assert!(said.contains("foo"), "{said}");
        assert!(said.contains("printed"), "{said}");
        assert!(!said.contains("not printed"), "{said}");
    });
}

/// `AsyncioTasks`: the output computed on a thread is awaited and printed; the task that
/// never ends is not awaited (the run finishes).
#[test]
fn py_await_asyncio_tasks() {
    awaited("py_await_asyncio_tasks", false, |_, said| {
        assert!(said.contains("PRINT: 42"), "{said}");
    });
}

/// `OutputLeak`: the program's own loop ends once every output has resolved, which it only
/// does if no future awaiting an output is left behind.
#[test]
fn py_await_output_leak() {
    awaited("py_await_output_leak", false, |_, said| {
        assert!(said.contains("PRINT: 42"), "{said}");
    });
}
