//! Reading and importing (Pulumi's `read/read_relinquish`, `get` and `import` tests):
//! resources the stack does not own, and ones it takes over.

use super::config::is_secret;
use super::harness::{ProgramTest, copies, live, managed};
use super::program_test::{Edit, Options};

/// `get`: a read of an existing resource is recorded as external, with the cloud's outputs.
#[test]
fn read_get() {
    let t = ProgramTest::new("read_get");
    let s0 = t.up();
    let s1 = t.step("step1");
    let copy = live(&s1, "copy");
    assert_eq!(copy["external"], true);
    assert_eq!(copy["id"], live(&s0, "origin")["id"]);
    assert_eq!(t.outputs()["seen"], 1);
    t.destroy();
    assert!(
        t.env.world().is_empty(),
        "the read copy does not delete, the owner does"
    );
}

/// Pulumi's `read_relinquish`: reading a resource the stack created gives up ownership: it
/// stays in the cloud, and destroy leaves it.
#[test]
fn read_relinquish() {
    let t = ProgramTest::new("read_relinquish");
    let s0 = t.up();
    let id = live(&s0, "foo")["id"].as_str().unwrap().to_string();
    t.edit("step1");
    t.ok(&["config", "set", "fooId", &id]);
    let s1 = t.up();
    assert_eq!(live(&s1, "foo")["external"], true);
    assert_eq!(live(&s1, "foo")["id"], id.as_str());
    assert!(t.env.world().contains_key(&id));
    t.destroy();
    assert!(
        t.env.world().contains_key(&id),
        "a read resource is never deleted"
    );
}

/// The `import` option adopts a resource that exists in the cloud, without creating it.
#[test]
fn import() {
    let t = ProgramTest::new("import");
    let s0 = t.up();
    let id = live(&s0, "kept")["id"].as_str().unwrap().to_string();
    let s1 = t.step("step1");
    assert!(managed(&s1).is_empty());
    assert!(t.env.world().contains_key(&id), "retained on delete");
    t.edit("step2");
    t.ok(&["config", "set", "keptId", &id]);
    let s2 = t.up();
    assert_eq!(live(&s2, "adopted")["id"], id.as_str());
    assert_eq!(t.env.world().len(), 1, "imported, not created");
    t.destroy();
    assert!(t.env.world().is_empty());
}

/// An import whose inputs differ from the resource read (Pulumi's import since 3.174,
/// `continueStepsFromImport`): the resource is imported, then updated to the program's inputs in
/// the same deployment; nothing is created.
#[test]
fn import_then_update() {
    let t = ProgramTest::new("import_update");
    let s0 = t.up();
    let id = live(&s0, "kept")["id"].as_str().unwrap().to_string();
    t.step("step1");
    t.edit("step2");
    t.ok(&["config", "set", "keptId", &id]);
    let preview = t.ok(&["preview", "--non-interactive"]);
    assert!(
        preview.contains("adopted import") && preview.contains("adopted update"),
        "{preview}"
    );
    let s2 = t.up();
    let adopted = live(&s2, "adopted");
    assert_eq!(adopted["id"], id.as_str());
    assert_eq!(adopted["inputs"]["v"], 2);
    assert_eq!(adopted["outputs"]["v"], 2);
    let world = t.env.world();
    assert_eq!(world.len(), 1, "imported, not created");
    assert_eq!(world[&id]["properties"]["v"], 2, "{world:?}");
    t.destroy();
}

/// `additionalSecretOutputs`: the named output is a secret in the state and in what derives
/// from it; the others stay plain.
#[test]
fn additional_secret_outputs() {
    let t = ProgramTest::with_secrets("additional_secret_outputs");
    let s = t.up();
    let r = live(&s, "r");
    assert!(is_secret(&r["outputs"]["uid"]), "{r:#}");
    assert_eq!(r["outputs"]["v"], 1);
    assert!(is_secret(&super::harness::stack_outputs(&s)["uid"]));
    let hidden = t.ok(&["stack", "output", "--json"]);
    assert!(hidden.contains("[secret]"), "{hidden}");
    t.destroy();
}

/// Pulumi's `read/read_replace`: a read resource the program then declares as its own is
/// replaced by a create; the read one is left in the cloud.
#[test]
fn read_replace() {
    let t = ProgramTest::new("read_replace");
    let s0 = t.up();
    let id = live(&s0, "origin")["id"].as_str().unwrap().to_string();
    t.edit("step1");
    t.ok(&["config", "set", "originId", &id]);
    let s1 = t.up();
    assert_eq!(live(&s1, "foo")["external"], true);
    let s2 = t.step("step2");
    let foo = live(&s2, "foo");
    assert_ne!(foo["external"], true);
    assert_ne!(foo["id"], id.as_str());
    assert!(t.env.world().contains_key(&id));
    t.destroy();
    assert_eq!(t.env.world().len(), 1, "only the read resource is left");
}

/// A `get` of an ID the provider does not find fails the update and records nothing.
#[test]
fn read_missing() {
    let t = ProgramTest::new("read_missing");
    let out = t.up_fails();
    assert!(out.contains("no-such-resource"), "{out}");
    assert!(managed(&t.checked_export()).is_empty());
    t.destroy();
}

/// Pulumi's `TestReadDBR` (Quick, two edits): a resource replaced delete-before-replace takes
/// the read resource depending on it along (two deletions of one URN in one plan), and a read
/// dropped by the program is let go.
#[test]
fn js_read_dbr() {
    let t = ProgramTest::new("js_read_dbr");
    let edit = |dir| Edit {
        dir,
        ..Edit::default()
    };
    let opts = Options {
        quick: true,
        edits: vec![edit("step1"), edit("step2")],
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        let seen = live(&run.state, "seen");
        assert_eq!(seen["external"], true);
        assert_eq!(seen["id"], "out-there");
        let made = live(&run.state, "made");
        let state = if run.edit.is_none() { 8 } else { 9 };
        assert_eq!(made["outputs"]["state"], state, "{made}");
        let also = copies(&run.state, "alsoSeen");
        match run.edit {
            Some(1) => assert!(also.is_empty(), "{:#}", run.state),
            _ => {
                assert_eq!(also.len(), 1, "{:#}", run.state);
                assert_eq!(also[0]["external"], true);
                assert_eq!(also[0]["outputs"]["state"], state);
            }
        }
    });
}
