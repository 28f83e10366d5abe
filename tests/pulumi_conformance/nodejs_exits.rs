//! How a Node.js program's end is reported (`tests/integration/nodejs/{exit-error,
//! promise-message,before-exit,omit-stacktrace}`): its exit code in the language host's words,
//! the SDK's leaked-promise message, resources registered on `beforeExit`, and errors without
//! the runtime's stack frames. Where the Go tests load the Go testprovider, `sim` stands in.

use super::cli_support::{Env, link_sdks};
use super::harness::{ProgramTest, copy_files, resources};
use super::program_test::{Options, Run};

fn quick_failure(case: &str, validate: impl FnMut(&Run)) {
    ProgramTest::new(case).lifecycle(
        &Options {
            quick: true,
            expect_failure: true,
            ..Options::default()
        },
        validate,
    );
}

/// Pulumi's `TestNodejsExitError` (Quick, ExpectFailure): `process.exit(123)` fails the update
/// with the Node language host's "Program exited with non-zero exit code: 123", and no leaked
/// promise message although one is pending.
#[test]
fn js_exit_error() {
    quick_failure("js_exit_error", |run| {
        let messages = ProgramTest::diagnostics(&run.events);
        assert!(
            messages
                .iter()
                .any(|m| m.contains("Program exited with non-zero exit code: 123")),
            "{messages:#?}"
        );
        assert!(
            !messages
                .iter()
                .any(|m| m.contains("PULUMI_DEBUG_PROMISE_LEAKS")),
            "{messages:#?}"
        );
    });
}

/// Pulumi's `TestNodejsPromiseMessage` (Quick, ExpectFailure): exiting 0 with a tracked promise
/// pending fails with the SDK's message naming `PULUMI_DEBUG_PROMISE_LEAKS`.
#[test]
fn js_promise_message() {
    quick_failure("js_promise_message", |run| {
        let messages = ProgramTest::diagnostics(&run.events);
        assert!(
            messages
                .iter()
                .any(|m| m.contains("PULUMI_DEBUG_PROMISE_LEAKS")),
            "{messages:#?}"
        );
    });
}

/// Pulumi's `TestNodejsOnBeforeExit` (Quick): the resource registered on `beforeExit` is in
/// the state after the stack and its provider.
#[test]
fn js_before_exit() {
    ProgramTest::new("js_before_exit").lifecycle(
        &Options {
            quick: true,
            ..Options::default()
        },
        |run| {
            let all = resources(&run.state);
            let types: Vec<_> = all.iter().map(|r| r["type"].as_str().unwrap()).collect();
            assert_eq!(
                types,
                [
                    "pulumi:pulumi:Stack",
                    "pulumi:providers:sim",
                    "sim:index:Resource"
                ],
                "{:#}",
                run.state
            );
            assert!(all[2]["urn"].as_str().unwrap().ends_with("::beforeExit"));
        },
    );
}

/// Pulumi's `TestNodejsStackTruncate` (Quick, ExpectFailure): a program that does not load
/// (a SyntaxError, a TSError) fails without a diagnostic holding stack frames (`    at `).
#[test]
fn js_syntax_error() {
    no_stack_frames("js_syntax_error");
}

/// See [`js_syntax_error`]: the `ts-error` program.
#[test]
fn ts_type_error() {
    no_stack_frames("ts_type_error");
}

fn no_stack_frames(case: &str) {
    quick_failure(case, |run| {
        assert!(!run.events.is_empty());
        let messages = ProgramTest::diagnostics(&run.events);
        assert!(
            !messages.iter().any(|m| m.contains("    at ")),
            "{messages:#?}"
        );
    });
}

/// Pulumi's `TestTSConfigOption` (`preview`): `runtime.options.tsconfig` picks the tsconfig the
/// program compiles with; the project's own tsconfig.json would not run it.
#[test]
fn ts_tsconfig_option() {
    let t = ProgramTest::new("ts_tsconfig_option");
    t.ok(&["preview", "--non-interactive"]);
}

/// Pulumi's `TestProjectMainNodejs` (full lifecycle): Pulumi.yaml's `main` is a directory holding
/// the program and its package.json.
#[test]
fn ts_project_main() {
    ProgramTest::new("ts_project_main").lifecycle(&Options::default(), |run| {
        assert!(
            run.output.contains("running from app/entry"),
            "{}",
            run.output
        );
    });
}

/// `TestProjectMainNodejs`'s `AbsolutePath` (`preview`): `main` as an absolute path.
#[test]
fn ts_project_main_absolute() {
    let t = ProgramTest::new("ts_project_main");
    let project = t.env.project();
    let entry = project.join("app/entry");
    std::fs::write(
        project.join("Pulumi.yaml"),
        format!(
            "name: ts-project-main\nruntime: nodejs\nmain: {}\n",
            entry.display()
        ),
    )
    .unwrap();
    let out = t.ok(&["preview", "--non-interactive"]);
    assert!(out.contains("running from app/entry"), "{out}");
}

/// `TestProjectMainNodejs`'s `ParentFolder` (`preview` in `foo/bar`): `main: ../../foo` names
/// the program (and its SDK install) two directories above Pulumi.yaml.
#[test]
fn ts_project_main_parent() {
    let env = Env::with_passphrase("");
    let project = env.project();
    std::fs::remove_file(project.join("Pulumi.yaml")).unwrap();
    copy_files(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/pulumi_conformance/programs/ts_project_main_parent"),
        &project,
    );
    link_sdks(&project.join("foo"));
    let bar = project.join("foo/bar");
    env.ok_in(&bar, &["stack", "init", "main-parent"]);
    let out = env.ok_in(&bar, &["preview", "--non-interactive"]);
    assert!(out.contains("running from foo, above Pulumi.yaml"), "{out}");
    env.ok_in(&bar, &["stack", "rm", "--yes"]);
}

/// Pulumi's `TestNodejsSourcemapProgramTypescript` (ExpectFailure): the thrown error's stack
/// names the TypeScript source's line and column, through ts-node's source map.
#[test]
fn ts_sourcemap() {
    let frame = regex::Regex::new(
        r"Error: thrown from the TypeScript source\n.*at failHere .*index\.ts:6:15",
    )
    .unwrap();
    ProgramTest::new("ts_sourcemap").lifecycle(
        &Options {
            expect_failure: true,
            ..Options::default()
        },
        |run| assert!(frame.is_match(&run.output), "{}", run.output),
    );
}
