//! Resource lifecycles across edits: protect, delete-before-replace (with its cascade and a
//! dropped dependent), double pending deletes, partial failures, ignore/replace on changes,
//! retain on delete, failures, refresh and destroy.

use serde_json::Value;

use super::harness::{ProgramTest, copies, live, managed, resources};
use super::program_test::Options;

fn id(state: &Value, name: &str) -> Value {
    live(state, name)["id"].clone()
}

/// `b`, which reads `a`'s `uid`, was updated with the replaced `a`'s.
fn assert_reads_new_a(state: &Value) {
    assert_eq!(
        live(state, "b")["outputs"]["a"],
        live(state, "a")["outputs"]["uid"]
    );
}

/// Pulumi's `TestProtectedResources`: a protected resource may be updated, not deleted; once
/// unprotected it can be.
#[test]
fn protect() {
    let t = ProgramTest::new("protect");
    let s0 = t.up();
    assert_eq!(live(&s0, "eternal")["protect"], true);
    let s1 = t.step("step1");
    assert_eq!(live(&s1, "eternal")["outputs"]["v"], 2);
    assert_eq!(id(&s1, "eternal"), id(&s0, "eternal"));
    let out = t.step_fails("step2");
    assert!(out.contains("protect"), "names the protection:\n{out}");
    let s2 = t.checked_export();
    assert_eq!(managed(&s2), ["eternal"]);
    let s3 = t.step("step3");
    assert_ne!(live(&s3, "eternal")["protect"], true);
    let s4 = t.step("step4");
    assert!(managed(&s4).is_empty());
    assert!(t.env.world().is_empty());
    t.destroy();
}

/// A protected resource cannot be replaced either (Pulumi's step generator refuses it).
#[test]
fn protect_replace() {
    let t = ProgramTest::new("protect_replace");
    let s0 = t.up();
    let out = t.step_fails("step1");
    assert!(out.contains("protect"), "{out}");
    assert_eq!(id(&t.checked_export(), "eternal"), id(&s0, "eternal"));
    t.ok(&[
        "state",
        "unprotect",
        "--yes",
        "urn:pulumi:dev::conf::sim:index:Resource::eternal",
    ]);
    t.destroy();
}

/// Destroy refuses a protected resource until it is unprotected.
#[test]
fn protect_destroy() {
    let t = ProgramTest::new("protect_destroy");
    t.up();
    let out = t
        .env
        .run(&["destroy", "--stack", "dev", "--yes", "--non-interactive"]);
    assert!(!out.status.success());
    assert_eq!(managed(&t.checked_export()), ["eternal"]);
    assert_eq!(t.env.world().len(), 1);
    t.ok(&[
        "state",
        "unprotect",
        "--yes",
        "urn:pulumi:dev::conf::sim:index:Resource::eternal",
    ]);
    t.destroy();
    assert!(t.env.world().is_empty());
}

/// Pulumi's `TestDeleteBeforeCreate`: a delete-before-replace replaces what depends on it,
/// and leaves the rest alone.
#[test]
fn delete_before_replace_cascade() {
    let t = ProgramTest::new("dbr");
    let s0 = t.up();
    let s1 = t.step("step1");
    assert_ne!(id(&s1, "db"), id(&s0, "db"));
    assert_ne!(id(&s1, "app"), id(&s0, "app"), "the dependent is replaced");
    assert_eq!(id(&s1, "web"), id(&s0, "web"));
    assert_eq!(t.env.world().len(), 3);
    t.destroy();
}

/// The `deleteBeforeReplace` option with `replaceOnChanges` on a resource of no DBR type.
#[test]
fn delete_before_replace_option() {
    let t = ProgramTest::new("dbr_option");
    let s0 = t.up();
    let s1 = t.step("step1");
    assert_ne!(id(&s1, "a"), id(&s0, "a"));
    assert_eq!(id(&s1, "b"), id(&s0, "b"), "b is updated in place");
    assert_reads_new_a(&s1);
    t.env.assert_no_leaks("dev");
    t.destroy();
}

/// A dependent deleted by the cascade that the program no longer declares is gone in the same
/// deployment, and later deletes keep the snapshot valid (the issue's cause 5).
#[test]
fn delete_before_replace_dropped_dependent() {
    let t = ProgramTest::new("dbr_dropped_dependent");
    t.up();
    let s1 = t.step("step1");
    assert_eq!(managed(&s1), ["db"]);
    assert!(copies(&s1, "app").is_empty());
    let s2 = t.step("step2");
    assert!(managed(&s2).is_empty());
    assert!(t.env.world().is_empty());
    t.destroy();
}

fn pending_deletes(state: &Value, name: &str) -> usize {
    copies(state, name)
        .iter()
        .filter(|r| r["delete"] == true)
        .count()
}

/// Pulumi's `TestDoublePendingDelete`: a replacement whose dependent then fails leaves the old
/// copy pending delete; a second such failure leaves two; a good update deletes both.
#[test]
fn double_pending_delete() {
    let t = ProgramTest::new("double_pending_delete");
    t.up();
    t.step_fails("step1");
    let s1 = t.checked_export();
    assert_eq!(pending_deletes(&s1, "a"), 1, "{s1:#}");
    t.step_fails("step2");
    let s2 = t.checked_export();
    assert_eq!(pending_deletes(&s2, "a"), 2, "{s2:#}");
    let s3 = t.step("step3");
    assert_eq!(pending_deletes(&s3, "a"), 0);
    assert_eq!(managed(&s3), ["a", "b"]);
    t.env.assert_no_leaks("dev");
    t.destroy();
}

/// Pulumi's `TestPartialState`: a create that fails after making the resource keeps it, its
/// outputs and `initErrors`; the next update retries it as an update.
#[test]
fn partial_state_create() {
    let t = ProgramTest::new("partial_create");
    t.up_fails();
    let s0 = t.checked_export();
    let half = live(&s0, "half");
    assert!(has_init_errors(&half), "{half:#}");
    assert_eq!(half["outputs"]["v"], 1);
    let s1 = t.step("step1");
    assert_eq!(id(&s1, "half"), half["id"], "updated, not recreated");
    assert!(!has_init_errors(&live(&s1, "half")));
    t.destroy();
}

/// Whether a resource's state records errors from a create or update that did not initialise it.
fn has_init_errors(resource: &Value) -> bool {
    resource["initErrors"]
        .as_array()
        .is_some_and(|e| !e.is_empty())
}

/// A partially failed update records the new outputs with `initErrors`.
#[test]
fn partial_state_update() {
    let t = ProgramTest::new("partial_update");
    let s0 = t.up();
    t.step_fails("step1");
    let s1 = t.checked_export();
    let half = live(&s1, "half");
    assert_eq!(half["outputs"]["v"], 2);
    assert!(has_init_errors(&half));
    let s2 = t.step("step2");
    assert_eq!(id(&s2, "half"), id(&s0, "half"));
    assert!(!has_init_errors(&live(&s2, "half")));
    t.destroy();
}

/// `ignoreChanges` keeps the recorded input, so there is nothing to update.
#[test]
fn ignore_changes() {
    let t = ProgramTest::new("ignore_changes");
    t.up();
    let s1 = t.step("step1");
    assert_eq!(live(&s1, "r")["inputs"]["v"], 1);
    t.destroy();
}

/// `replaceOnChanges` replaces only for the listed property.
#[test]
fn replace_on_changes() {
    let t = ProgramTest::new("replace_on_changes");
    let s0 = t.up();
    let s1 = t.step("step1");
    assert_eq!(id(&s1, "r"), id(&s0, "r"));
    let s2 = t.step("step2");
    assert_ne!(id(&s2, "r"), id(&s1, "r"));
    t.env.assert_no_leaks("dev");
    t.destroy();
}

/// `retainOnDelete`: destroy drops the resource from the state, not from the cloud.
#[test]
fn retain_on_delete() {
    let t = ProgramTest::new("retain_on_delete");
    let s0 = t.up();
    t.destroy();
    let world = t.env.world();
    assert_eq!(world.len(), 1);
    assert!(world.contains_key(id(&s0, "kept").as_str().unwrap()));
}

/// A failed create stops what depends on it and keeps everything else recorded.
#[test]
fn resource_failure() {
    let t = ProgramTest::new("resource_failure");
    t.up();
    let out = t.step_fails("step1");
    assert!(out.contains("failOn"), "{out}");
    let s1 = t.checked_export();
    assert_eq!(managed(&s1), ["good"]);
    t.env.assert_no_leaks("dev");
    t.destroy();
}

/// Refresh takes drift and out-of-band deletes from the provider into the state.
#[test]
fn refresh() {
    let t = ProgramTest::new("refresh");
    let s0 = t.up();
    let path = t.env.world_path();
    let mut world: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let drifting = id(&s0, "drifting");
    let vanishing = id(&s0, "vanishing");
    let resources = world["resources"].as_object_mut().unwrap();
    resources.remove(vanishing.as_str().unwrap());
    set_everywhere(
        resources.get_mut(drifting.as_str().unwrap()).unwrap(),
        "v",
        7.into(),
    );
    std::fs::write(&path, world.to_string()).unwrap();
    t.ok(&["refresh", "--yes", "--non-interactive"]);
    let s1 = t.checked_export();
    assert_eq!(managed(&s1), ["drifting"]);
    assert_eq!(live(&s1, "drifting")["outputs"]["v"], 7, "{s1:#}");
    let s2 = t.up();
    assert_eq!(live(&s2, "drifting")["outputs"]["v"], 1);
    assert_eq!(managed(&s2), ["drifting", "vanishing"]);
    t.destroy();
}

/// Sets `key` to `value` wherever it appears in `doc` (a cloud-side change of a property).
fn set_everywhere(doc: &mut Value, key: &str, value: Value) {
    match doc {
        Value::Object(map) => {
            for (k, v) in map.iter_mut() {
                if k == key {
                    *v = value.clone();
                } else {
                    set_everywhere(v, key, value.clone());
                }
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|v| set_everywhere(v, key, value.clone())),
        _ => {}
    }
}

/// `up --target`: only the targeted resource changes; the next full update does the rest.
#[test]
fn targeted_update() {
    let t = ProgramTest::new("targeted_update");
    t.up();
    t.edit("step1");
    t.ok(&[
        "up",
        "--yes",
        "--non-interactive",
        "--target",
        "urn:pulumi:dev::conf::sim:index:Resource::a",
    ]);
    let s1 = t.checked_export();
    assert_eq!(live(&s1, "a")["outputs"]["v"], 2);
    assert_eq!(live(&s1, "b")["outputs"]["v"], 1);
    let s2 = t.up();
    assert_eq!(live(&s2, "b")["outputs"]["v"], 2);
    t.destroy();
}

/// `up --replace`: the resource is replaced without a diff, and what reads it is updated.
#[test]
fn replace_flag() {
    let t = ProgramTest::new("replace_flag");
    let s0 = t.up();
    let s1 = t.up_with(&["--replace", "urn:pulumi:dev::conf::sim:index:Resource::a"]);
    assert_ne!(id(&s1, "a"), id(&s0, "a"));
    assert_eq!(id(&s1, "b"), id(&s0, "b"));
    assert_reads_new_a(&s1);
    t.env.assert_no_leaks("dev");
    t.destroy();
}

/// `deletedWith`: deleting the owner deletes the part with it, so the part's own delete is
/// never called.
#[test]
fn deleted_with() {
    let t = ProgramTest::new("deleted_with");
    let s0 = t.up();
    assert!(
        live(&s0, "part")["deletedWith"]
            .as_str()
            .unwrap()
            .ends_with("::owner")
    );
    let s1 = t.step("step1");
    assert!(managed(&s1).is_empty());
    let world = t.env.world();
    assert_eq!(world.len(), 1);
    assert!(world.contains_key(id(&s0, "part").as_str().unwrap()));
    t.destroy();
}

/// An unknown resource type fails the update before anything registers, as Pulumi YAML's type
/// check of the whole template does: the error names the file, line and type; the resource the
/// broken one depends on is not created and the state is unchanged.
#[test]
fn invalid_type() {
    let t = ProgramTest::new("invalid_type");
    let s0 = t.up();
    let out = t.step_fails("step1");
    assert!(
        out.contains(
            "Pulumi.yaml:10:3: error resolving type of resource broken: unable to find resource type \"sim:index:NoSuchThing\" in resource provider \"sim\""
        ),
        "{out}"
    );
    assert_eq!(
        resources(&t.checked_export()),
        resources(&s0),
        "the state is unchanged"
    );
    assert_eq!(t.env.world().len(), 1, "nothing was created");
    t.destroy();
}

/// `retainOnDelete` on a replacement: the new copy is created and the old one is only
/// dropped from the state, left in the cloud.
#[test]
fn retain_on_replace() {
    let t = ProgramTest::new("retain_on_replace");
    let s0 = t.up();
    let s1 = t.step("step1");
    assert_ne!(id(&s1, "kept"), id(&s0, "kept"));
    assert_eq!(copies(&s1, "kept").len(), 1);
    let world = t.env.world();
    assert!(world.contains_key(id(&s0, "kept").as_str().unwrap()));
    assert!(world.contains_key(id(&s1, "kept").as_str().unwrap()));
    t.destroy();
    assert_eq!(t.env.world().len(), 2);
}

/// Pulumi's `TestCustomTimeouts` (two programs, Quick; the second `ExpectFailure`): custom
/// timeouts given as the class or a dict deploy; a string is refused and nothing is made.
#[test]
fn py_custom_timeouts() {
    let quick = |expect_failure| Options {
        quick: true,
        expect_failure,
        ..Options::default()
    };
    ProgramTest::new("py_custom_timeouts_ok").lifecycle(&quick(false), |run| {
        assert_eq!(resources(&run.state).len(), 5, "{:#}", run.state);
    });
    ProgramTest::new("py_custom_timeouts_bad").lifecycle(&quick(true), |run| {
        assert!(copies(&run.state, "nonsense").is_empty(), "{:#}", run.state);
    });
}
