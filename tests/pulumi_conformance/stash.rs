//! `pulumi:index:Stash`, as Pulumi's `TestStash` lifecycle test drives it: the stash keeps the
//! first value as `output` while `input` follows the program.

use serde_json::json;

use super::harness::{ProgramTest, live};

#[test]
fn py_stash() {
    let t = ProgramTest::new("py_stash");
    let state = t.up();
    let first = json!({"value": "first", "n": 1});
    assert_eq!(live(&state, "remembered")["outputs"]["output"], first);
    assert_eq!(t.outputs()["output"], first);

    t.ok(&["config", "set", "value", "second"]);
    let state = t.up();
    let stash = live(&state, "remembered");
    assert_eq!(stash["outputs"]["output"], first, "the stashed value stays");
    assert_eq!(stash["inputs"]["input"], json!({"value": "second", "n": 1}));
    assert_eq!(t.outputs()["input"], json!({"value": "second", "n": 1}));
    t.destroy();
}
