//! Stack outputs (Pulumi's `stack_outputs` and `stack_outputs_program_error` tests): what the
//! root stack resource records, and what a failed program leaves of them.

use serde_json::json;

use super::harness::{ProgramTest, resources, stack_outputs};
use super::program_test::{Edit, Options};

/// Pulumi's `TestStackOutputs*`: the state holds one resource, the stack, with no inputs and
/// exactly the two outputs.
#[test]
fn stack_outputs_basic() {
    let t = ProgramTest::new("stack_outputs");
    let state = t.up();
    let all = resources(&state);
    assert_eq!(all.len(), 1, "{state:#}");
    assert_eq!(all[0]["type"], "pulumi:pulumi:Stack");
    assert!(all[0]["inputs"].as_object().is_none_or(|m| m.is_empty()));
    assert_eq!(stack_outputs(&state), json!({"xyz": "ABC", "foo": 42}));
    assert_eq!(t.outputs(), json!({"xyz": "ABC", "foo": 42}));
    t.destroy();
}

/// Every JSON type survives as an output, including values read from a resource.
#[test]
fn stack_outputs_types() {
    let t = ProgramTest::new("stack_outputs_types");
    let state = t.up();
    let out = t.outputs();
    assert_eq!(out["text"], "hello");
    assert_eq!(out["number"], 4.5);
    assert_eq!(out["flag"], true);
    assert_eq!(out["list"], json!([1, "two", {"three": 3}]));
    assert_eq!(out["object"], json!({"nested": {"deep": ["x"]}}));
    assert_eq!(out["fromResource"], "dev");
    assert!(out["uid"].as_str().is_some_and(|u| !u.is_empty()));
    assert_eq!(stack_outputs(&state), out);
    t.destroy();
}

/// Pulumi's `TestStackOutputsProgramErrorNodeJS`: a program that fails before exporting
/// leaves the previous outputs untouched.
#[test]
fn stack_outputs_program_error() {
    let t = ProgramTest::new("stack_outputs_program_error");
    t.up();
    let out = t.step_fails("step1");
    assert!(out.contains("missing"), "names the bad reference:\n{out}");
    assert_eq!(
        stack_outputs(&t.checked_export()),
        json!({"xyz": "ABC", "foo": 42})
    );
    assert_eq!(t.outputs(), json!({"xyz": "ABC", "foo": 42}));
    t.destroy();
}

/// An output the program stops exporting is gone after the next update.
#[test]
fn stack_outputs_removed() {
    let t = ProgramTest::new("stack_outputs_removed");
    t.up();
    let state = t.step("step1");
    assert_eq!(stack_outputs(&state), json!({"keep": 3}));
    t.destroy();
}

/// A secret output is encrypted in the state and shown only with `--show-secrets`.
#[test]
fn stack_outputs_secret() {
    let t = ProgramTest::with_secrets("stack_outputs_secret");
    let state = t.up();
    assert!(super::config::is_secret(&stack_outputs(&state)["hidden"]));
    assert_eq!(stack_outputs(&state)["shown"], "public");
    assert_eq!(
        t.outputs(),
        json!({"hidden": "classified", "shown": "public"})
    );
    assert!(!t.ok(&["stack", "output", "--json"]).contains("classified"));
    t.destroy();
}

/// Pulumi YAML's variables, `pulumi.stack` / `pulumi.project` and builtins feed resources and
/// outputs.
#[test]
fn yaml_expressions() {
    let t = ProgramTest::new("yaml_expressions");
    t.up();
    assert_eq!(
        t.outputs(),
        json!({"name": "srv-dev", "doc": "{\"project\":\"conf\"}", "second": "dev"})
    );
    t.destroy();
}

/// Pulumi's `TestStackOutputsProgramErrorPython` (Quick; the edit `ExpectFailure`): the outputs
/// exported before the program raised replace the old ones, the rest are kept.
#[test]
fn py_stack_outputs_program_error() {
    let t = ProgramTest::new("py_stack_outputs_program_error");
    let opts = Options {
        quick: true,
        edits: vec![Edit {
            dir: "step1",
            expect_failure: true,
            ..Edit::default()
        }],
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        let want = match run.edit {
            None => json!({"xyz": "ABC", "foo": 42}),
            Some(_) => {
                assert!(
                    run.output.contains("the program gives up here"),
                    "{}",
                    run.output
                );
                json!({"xyz": "DEF", "foo": 42})
            }
        };
        assert_eq!(stack_outputs(&run.state), want);
    });
}

/// Pulumi's `TestStackOutputsResourceErrorPython` (Quick, two `ExpectFailure` edits, a
/// resource whose create fails): when an output waits on the failed resource the stack's
/// outputs stay as they were; when none does, the program finishes and they are updated.
#[test]
fn py_stack_outputs_resource_error() {
    let t = ProgramTest::new("py_stack_outputs_resource_error");
    let failing = |dir| Edit {
        dir,
        expect_failure: true,
        ..Edit::default()
    };
    let opts = Options {
        quick: true,
        edits: vec![failing("step1"), failing("step2")],
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        let want = match run.edit {
            None | Some(0) => json!({"xyz": "ABC", "foo": 42}),
            Some(_) => json!({"xyz": "DEF", "foo": 1}),
        };
        assert_eq!(stack_outputs(&run.state), want, "{}", run.output);
    });
}
