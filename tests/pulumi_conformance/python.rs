//! Programs of Pulumi's `tests/integration/python/` family that check the Python SDK itself:
//! config getters, property-name translation, generated constructors' overloads, a dependency
//! cycle the SDK names, and an excepthook regression, each driven as its Go test drives it.

use super::cli_support::{stderr, stdout};
use super::harness::ProgramTest;
use super::program_test::{Options, Run};

/// `TestConfigGetterOverloads`: three config values set, then one preview; every getter
/// overload reads them (the program asserts the values).
#[test]
fn py_config_getter_types() {
    let t = ProgramTest::new("py_config_getter_types");
    t.env.ok(&["config", "set", "foo", "bar"]);
    t.env.ok(&["config", "set", "foo_int", "42"]);
    t.env.ok(&["config", "set", "--secret", "foo_secret", "3"]);
    t.env.ok(&["preview", "--non-interactive"]);
}

/// `TestPythonTranslation` (Quick): resources registered under mocks, which assert the
/// camelCase inputs of the old translation hooks and of `@input_type` args classes; the
/// outputs' applies assert the names read back.
#[test]
fn py_translation() {
    let t = ProgramTest::new("py_translation");
    let opts = Options {
        quick: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        assert!(!run.output.contains("Traceback"), "{}", run.output);
    });
}

/// `TestRegress18176` (Quick, SkipUpdate): neither preview nor update runs, so the program's
/// pass-through transform never meets an interpreter shutting down: no events, and no
/// `Error in sys.excepthook` from refresh or destroy.
#[test]
fn py_excepthook() {
    let t = ProgramTest::new("py_excepthook");
    let opts = Options {
        quick: true,
        skip_update: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run: &Run| {
        assert!(run.events.is_empty(), "{:?}", run.events);
        assert!(
            !run.output.contains("Error in sys.excepthook"),
            "{}",
            run.output
        );
    });
}

/// `TestFailsOnImplicitDependencyCyclesPython` (manual lifecycle: initialize, then the preview
/// must fail): the SDK names the resource in the cycle and says what to review.
#[test]
fn py_implicit_dependency_cycles() {
    let t = ProgramTest::new("py_implicit_dependency_cycles");
    let out = t.env.run(&["preview", "--non-interactive", "--diff"]);
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(!out.status.success(), "{text}");
    assert!(
        text.contains(
            "RuntimeError: We have detected a circular dependency involving a resource of type \
             my:module:Child-1 named a-child-1."
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "Please review any `depends_on`, `parent` or other dependency relationships between \
             your resources to ensure no cycles have been introduced in your program."
        ),
        "{text}"
    );
}

/// `TestPythonResourceArgs` (Quick, with the SDK generated from its schema): every constructor
/// overload of a generated resource registers the inputs the mocks expect.
#[test]
fn py_resource_args() {
    let t = ProgramTest::new("py_resource_args");
    let opts = Options {
        quick: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        assert!(!run.output.contains("Traceback"), "{}", run.output);
    });
}
