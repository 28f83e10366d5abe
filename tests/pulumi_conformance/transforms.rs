//! Pulumi's `transforms` tests (`tests/integration/transforms/{python,nodejs}/simple`) as
//! programs of our own: stack transforms rewrite every registration (a tag in `keepers`), a
//! component's transform reaches its child, a transform's alias keeps a renamed resource's
//! identity, an invoke transform rewrites the invoke's arguments, and a transform that throws
//! fails the registration with its message.

use serde_json::json;

use super::harness::{ProgramTest, live, managed};

/// The checks both SDKs' programs share; `throws` also runs the step whose transform raises.
fn transforms(case: &str, throws: bool) {
    let t = ProgramTest::new(case);
    let state = t.up();
    let db = live(&state, "db");
    assert_eq!(
        db["inputs"]["keepers"],
        json!({"owner": "platform", "order": ">stack"})
    );
    let inner = live(&state, "box-inner");
    assert_eq!(inner["inputs"]["length"], 12, "the component's transform");
    // A resource's ancestors' transforms run before the stack's (Pulumi's order: own, parent
    // chain from the nearest, then stack).
    assert_eq!(
        inner["inputs"]["keepers"],
        json!({"owner": "platform", "order": ">component>stack"})
    );
    let outputs = t.outputs();
    assert_eq!(outputs["innerLength"], 12);
    assert_eq!(outputs["ran"], "transformed", "the invoke transform");
    let id = db["id"].clone();

    t.ok(&["config", "set", "renamed", "true"]);
    let state = t.up();
    assert_eq!(managed(&state), ["box-inner", "db-renamed"]);
    assert_eq!(
        live(&state, "db-renamed")["id"],
        id,
        "the alias a transform added kept the pet"
    );

    if throws {
        t.ok(&["config", "set", "fail", "true"]);
        let out = t.up_fails();
        assert!(
            out.contains("transform of random:index/randomPet:RandomPet \"late\" failed")
                && out.contains("late resources are not allowed here"),
            "{out}"
        );
        assert_eq!(managed(&t.checked_export()), ["box-inner", "db-renamed"]);
    }
    t.destroy();
}

#[test]
fn py_transforms() {
    transforms("py_transforms", true);
}

/// Node's program failure path costs tens of seconds (its error stays in flight until the
/// process gives up), so the throwing step runs for Python only.
#[test]
fn js_transforms() {
    transforms("js_transforms", false);
}
