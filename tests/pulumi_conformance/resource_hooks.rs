//! Pulumi's `tests/integration/resource_hooks/` programs beyond the basic ones: a hook seeing a
//! secret input (Python, Node.js), hooks declared by decorator (one of them run in previews
//! too), and hooks a transform binds to a resource, a remote component and its child (Python,
//! Node.js). `sim` stands in for the testprovider's resources; a Python component provider
//! (`testcomponent`) for its remote `Component`.

use serde_json::Value;

use super::harness::ProgramTest;
use super::local_components::{Provider, with_component};
use super::program_test::Options;

/// `testutil.RequirePrinted`: some diagnostic event of `severity` contains `text`.
fn printed(events: &[Value], severity: &str, text: &str) -> bool {
    events.iter().any(|e| {
        let d = &e["diagnosticEvent"];
        d["severity"] == severity && d["message"].as_str().is_some_and(|m| m.contains(text))
    })
}

/// `TestPythonResourceHooksSecrets` (Quick): the before-create hook's assertions on the secret
/// input hold, and it logs that it ran.
#[test]
fn py_hooks_secret() {
    hook_sees_the_secret("py_hooks_secret");
}

fn hook_sees_the_secret(program: &str) {
    let t = ProgramTest::new(program);
    let opts = Options {
        quick: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        assert!(
            printed(&run.events, "info", "hook called"),
            "{:?}",
            run.events
        );
    });
}

/// `TestPythonHookDecorator` (SkipEmptyPreviewUpdate): the preview runs the `on_dry_run` hook
/// (`hook called True` in its output), the update runs both (`hook called False`).
#[test]
fn py_hook_decorator() {
    let t = ProgramTest::new("py_hook_decorator");
    let opts = Options {
        skip_empty_preview_update: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        assert!(run.output.contains("hook called True"), "{}", run.output);
        assert!(
            printed(&run.events, "info", "hook called False"),
            "{:?}",
            run.events
        );
        assert!(
            printed(
                &run.events,
                "info",
                "after_create was called with length = 10"
            ),
            "{:?}",
            run.events
        );
    });
}

/// `TestNodejsResourceHooksSecrets` (Quick): as `py_hooks_secret`, with the Node.js SDK.
#[test]
fn js_hooks_secret() {
    hook_sees_the_secret("js_hooks_secret");
}

/// `Test{Python,Nodejs}ResourceHooksTransform` (Quick): the transform's anonymous after-create
/// hook runs for the resource, for the component (seeing its child's ID) and for the child its
/// provider registers. The transform runs twice on the component (the program's registration
/// and its provider's), each time adding a hook; the second finds the first bound (Construct
/// passes the component's hooks on) and so takes the next name.
fn hooks_set_by_a_transform(lang: &str) {
    let t = with_component("resource_hooks_transform", lang, Provider::Python);
    let opts = Options {
        quick: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        for text in [
            "fun was called with length = 10",
            "fun_comp was called with child",
            "fun_child was called with length = 7",
        ] {
            assert!(
                printed(&run.events, "info", text),
                "{text:?} in {:?}",
                run.events
            );
        }
    });
}

#[test]
fn py_hooks_transform() {
    hooks_set_by_a_transform("python");
}

#[test]
fn js_hooks_transform() {
    hooks_set_by_a_transform("nodejs");
}
