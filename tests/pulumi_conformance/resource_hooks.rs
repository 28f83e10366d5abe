//! Pulumi's `tests/integration/resource_hooks/` Python programs beyond the basic one: a hook
//! seeing a secret input, and hooks declared by decorator (one of them run in previews too).
//! `sim` stands in for the testprovider's resources.

use serde_json::Value;

use super::harness::ProgramTest;
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
    let t = ProgramTest::new("py_hooks_secret");
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
