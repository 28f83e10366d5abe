//! Pulumi's `hideDiffs` resource option (`TestHideDiffs_Plain` in pkg/engine/lifecycletest): a
//! change under a hidden path is one `~ <path> (hidden)` line of `--diff`, listed first, while
//! the other changes show as usual; the change still deploys, the option is recorded in the state
//! (`hideDiff`) and carried by the engine events (`hideDiffs`). YAML, Python and Node.js programs
//! declare the same resource, so all three render the same snapshot.

use serde_json::{Value, json};

use super::harness::{ProgramTest, live};

fn hidden_diffs(case: &str) {
    let t = ProgramTest::new(case);
    let s0 = t.up();
    assert_eq!(live(&s0, "quiet")["hideDiff"], json!(["tags", "size"]));
    t.edit("step1");
    let preview = t.ok(&["preview", "--non-interactive", "--diff"]);
    insta::assert_snapshot!("hidden_diffs_preview", preview);
    let log = t.env.root.path().join("events.jsonl");
    let s1 = t.up_with(&["--event-log", log.to_str().unwrap()]);
    let quiet = live(&s1, "quiet");
    assert_eq!(quiet["outputs"]["size"], 2, "hidden changes still deploy");
    assert_eq!(quiet["outputs"]["tags"]["owner"], "two");
    let events = std::fs::read_to_string(&log).unwrap();
    let update = events
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("each event-log line is JSON"))
        .map(|e| e["resourcePreEvent"]["metadata"].clone())
        .find(|m| m["urn"].as_str().is_some_and(|u| u.ends_with("::quiet")))
        .unwrap_or_else(|| panic!("no resourcePreEvent for quiet:\n{events}"));
    assert_eq!(update["op"], "update");
    for side in ["old", "new"] {
        assert_eq!(
            update[side]["hideDiffs"],
            json!(["tags", "size"]),
            "{update:#}"
        );
    }
    t.destroy();
}

#[test]
fn hide_diffs() {
    hidden_diffs("hide_diffs");
}

#[test]
fn py_hide_diffs() {
    hidden_diffs("py_hide_diffs");
}

#[test]
fn js_hide_diffs() {
    hidden_diffs("js_hide_diffs");
}
