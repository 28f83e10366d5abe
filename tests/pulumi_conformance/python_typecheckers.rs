//! Pulumi's `runtime.options.typechecker` tests (`TestMypySupport`, `TestPyrightSupport`,
//! `TestTypecheckerMissingError`): a program on uv, ProgramTest with `Quick` and
//! `ExpectFailure`; the checker runs in the program's virtualenv before the program and fails
//! the update, its report in the update's diagnostic events. mypy and pyright come from PyPI
//! through uv's cache (pyright's wheel carries its Node.js program, run with `node` on PATH).

use super::harness::ProgramTest;
use super::program_test::{Options, Run};

fn quick_failure_on_uv(case: &str, validate: impl FnMut(&Run)) {
    ProgramTest::on_uv(case, |_| {}).lifecycle(
        &Options {
            quick: true,
            expect_failure: true,
            ..Options::default()
        },
        validate,
    );
}

/// The diagnostic messages of a run, line endings as Pulumi's test normalises them.
fn messages(run: &Run) -> Vec<String> {
    ProgramTest::diagnostics(&run.events)
        .into_iter()
        .map(|m| m.replace("\r\n", "\n"))
        .collect()
}

/// `TestMypySupport`: one diagnostic is exactly mypy's line about the export, as Pulumi's host
/// forwards it (its newline kept, the diagnostic's own added).
#[test]
fn py_mypy() {
    quick_failure_on_uv("py_mypy", |run| {
        let expected = "__main__.py:8: error: Argument 1 to \"export\" has incompatible type \
                        \"int\"; expected \"str\"  [arg-type]\n\n";
        let messages = messages(run);
        assert!(messages.iter().any(|m| m == expected), "{messages:#?}");
    });
}

/// `TestPyrightSupport`: a diagnostic ends with pyright's error about the export.
#[test]
fn py_pyright() {
    quick_failure_on_uv("py_pyright", |run| {
        let expected = "__main__.py:8:15 - error: Argument of type \"Literal[42]\" cannot be \
                        assigned to parameter \"name\" of type \"str\" in function \"export\"\n\n";
        let messages = messages(run);
        assert!(
            messages.iter().any(|m| m.ends_with(expected)),
            "{messages:#?}"
        );
    });
}

/// `TestTypecheckerMissingError`: pyright named but not installed fails the update in the
/// words of Pulumi's host.
#[test]
fn py_pyright_missing() {
    quick_failure_on_uv("py_pyright_missing", |run| {
        let expected = "The typechecker option is set to pyright, but pyright is not installed. \
                        Please add an entry for pyright to requirements.txt";
        let messages = messages(run);
        assert!(
            messages.iter().any(|m| m.contains(expected)),
            "{messages:#?}"
        );
    });
}
