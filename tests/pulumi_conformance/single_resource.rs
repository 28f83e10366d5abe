//! Pulumi's `single_resource` program (one dynamic resource) as its Go tests drive it:
//! `TestEngineEvents` (the update's engine events name the stack, the resource and its default
//! provider) and `Test{Up,Preview,Refresh,Destroy}_OutputJSONSummary` (with `--output json`,
//! that command's standard output is one JSON summary of what it did, Pulumi's
//! `display.SummaryJSON`).

use serde_json::Value;

use super::harness::ProgramTest;
use super::program_test::{Options, Stdouts};

/// `TestEngineEvents` (Quick): three `resourcePreEvent`s, the default provider's among them.
#[test]
fn js_engine_events() {
    let t = ProgramTest::new("single_resource");
    let opts = Options {
        quick: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        let types: Vec<&str> = run
            .events
            .iter()
            .filter_map(|e| e["resourcePreEvent"]["metadata"]["type"].as_str())
            .collect();
        assert_eq!(types.len(), 3, "{types:?}");
        for t in [
            "pulumi:pulumi:Stack",
            "pulumi-nodejs:dynamic:Resource",
            "pulumi:providers:pulumi-nodejs",
        ] {
            assert!(types.contains(&t), "no resourcePreEvent for {t}: {types:?}");
        }
    });
}

/// The one summary object `verb` printed, with Pulumi's checks on it: the run succeeded and
/// each listed resource has a URN, type, name and op (which `op_ok` accepts).
fn summary_of(stdouts: &Stdouts, verb: &str, op_ok: impl Fn(&str) -> bool) -> Value {
    let (_, out) = stdouts
        .iter()
        .find(|(v, _)| *v == verb)
        .unwrap_or_else(|| panic!("no `{verb}` was run"));
    let summary: Value = serde_json::from_str(out.trim())
        .unwrap_or_else(|e| panic!("`{verb}` stdout is not one JSON object ({e}):\n{out}"));
    assert_eq!(summary["result"], "succeeded", "{summary}");
    let resources = summary["resources"].as_array().cloned().unwrap_or_default();
    assert!(!resources.is_empty(), "no resources listed: {summary}");
    for r in &resources {
        for field in ["urn", "type", "name", "op"] {
            assert!(
                r[field].as_str().is_some_and(|s| !s.is_empty()),
                "{field} missing: {r}"
            );
        }
        let op = r["op"].as_str().unwrap_or_default();
        assert!(op_ok(op), "`{verb}` lists op {op}: {r}");
    }
    summary
}

fn non_empty_changes(summary: &Value) {
    assert!(
        summary["summary"]
            .as_object()
            .is_some_and(|m| !m.is_empty()),
        "no change counts: {summary}"
    );
}

/// `TestUp_OutputJSONSummary` (Quick, `UpdateCommandlineFlags: --output json`).
#[test]
fn js_up_output_json_summary() {
    let t = ProgramTest::new("single_resource");
    let opts = Options {
        quick: true,
        update_flags: vec!["--output", "json"],
        ..Options::default()
    };
    let stdouts = t.lifecycle_stdouts(&opts, |run| assert!(run.state.is_object()));
    non_empty_changes(&summary_of(&stdouts, "up", |op| op != "same"));
}

/// `TestPreview_OutputJSONSummary` (SkipExportImport, SkipEmptyPreviewUpdate, SkipRefresh,
/// `PreviewCommandlineFlags: --output json`): against an empty stack, all creates.
#[test]
fn js_preview_output_json_summary() {
    let t = ProgramTest::new("single_resource");
    let opts = Options {
        skip_export_import: true,
        skip_empty_preview_update: true,
        skip_refresh: true,
        preview_flags: vec!["--output", "json"],
        ..Options::default()
    };
    let stdouts = t.lifecycle_stdouts(&opts, |run| assert!(run.state.is_object()));
    non_empty_changes(&summary_of(&stdouts, "preview", |op| op != "same"));
}

/// `TestRefresh_OutputJSONSummary` (Quick, `RefreshCommandlineFlags: --output json`): every
/// resource inspected is listed with op `refresh`.
#[test]
fn js_refresh_output_json_summary() {
    let t = ProgramTest::new("single_resource");
    let opts = Options {
        quick: true,
        refresh_flags: vec!["--output", "json"],
        ..Options::default()
    };
    let stdouts = t.lifecycle_stdouts(&opts, |run| assert!(run.state.is_object()));
    summary_of(&stdouts, "refresh", |op| op == "refresh");
}

/// `TestDestroy_OutputJSONSummary` (Quick, `DestroyCommandlineFlags: --output json`): every
/// resource listed is a delete.
#[test]
fn js_destroy_output_json_summary() {
    let t = ProgramTest::new("single_resource");
    let opts = Options {
        quick: true,
        destroy_flags: vec!["--output", "json"],
        ..Options::default()
    };
    let stdouts = t.lifecycle_stdouts(&opts, |run| assert!(run.state.is_object()));
    non_empty_changes(&summary_of(&stdouts, "destroy", |op| op == "delete"));
}
