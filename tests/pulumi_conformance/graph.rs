//! The resource graph (Pulumi's `stack_dependencies`, `stack_parenting` and `duplicate_urns`
//! tests): dependencies and parents as recorded in the state, and URNs that must be unique.

use super::harness::{ProgramTest, copies, live, managed, urn};
use super::program_test::{Edit, Options};

/// Pulumi's `TestStackDependencyGraph`: explicit and implicit dependencies are recorded, per
/// property too, and only for the resources that were really referenced.
#[test]
fn stack_dependencies() {
    let t = ProgramTest::new("dependencies");
    let s = t.up();
    let (a, b, c) = (
        urn(&live(&s, "a")).to_string(),
        urn(&live(&s, "b")).to_string(),
        urn(&live(&s, "c")).to_string(),
    );
    assert_eq!(
        live(&s, "a")["dependencies"].as_array().map_or(0, Vec::len),
        0
    );
    assert_eq!(live(&s, "b")["dependencies"], serde_json::json!([a]));
    assert_eq!(live(&s, "c")["dependencies"], serde_json::json!([b]));
    assert_eq!(
        live(&s, "c")["propertyDependencies"]["fromB"],
        serde_json::json!([b])
    );
    let mut d: Vec<String> = serde_json::from_value(live(&s, "d")["dependencies"].clone()).unwrap();
    d.sort();
    let mut want = vec![a.clone(), c.clone()];
    want.sort();
    assert_eq!(d, want);
    assert_eq!(
        live(&s, "d")["propertyDependencies"]["fromA"],
        serde_json::json!([a])
    );
    t.destroy();
}

/// Pulumi's `TestStackParenting`: each child names its parent, and its URN carries the parent's
/// type chain; destroy deletes children before parents.
#[test]
fn stack_parenting() {
    let t = ProgramTest::new("parenting");
    let s = t.up();
    let root = live(&s, "root");
    let mid = live(&s, "mid");
    assert_eq!(mid["parent"].as_str(), Some(urn(&root)));
    assert_eq!(live(&s, "leaf")["parent"].as_str(), Some(urn(&mid)));
    assert_eq!(live(&s, "sibling")["parent"].as_str(), Some(urn(&root)));
    assert!(
        urn(&live(&s, "leaf"))
            .contains("sim:index:Resource$sim:index:Resource$sim:index:Resource::leaf")
    );
    assert!(
        root["parent"]
            .as_str()
            .unwrap()
            .contains("pulumi:pulumi:Stack")
    );
    t.destroy();
    assert!(t.env.world().is_empty());
}

/// Pulumi's `TestDuplicateURNs`: two resources with one URN fail the update and record
/// neither twice; the same name on different types is fine.
#[test]
fn duplicate_urns() {
    let t = ProgramTest::new("duplicate_urns");
    let out = t.up_fails();
    assert!(out.to_lowercase().contains("duplicate"), "{out}");
    assert!(managed(&t.checked_export()).len() <= 1);
    let s = t.step("step1");
    assert_eq!(managed(&s), ["same", "same"]);
    t.destroy();
}

/// A dependency the program drops is dropped from the state, after which the dependency can be
/// deleted while its former dependent stays.
#[test]
fn dependency_removed() {
    let t = ProgramTest::new("dependency_removed");
    let s0 = t.up();
    assert_eq!(
        live(&s0, "b")["dependencies"]
            .as_array()
            .map_or(0, Vec::len),
        1
    );
    let s1 = t.step("step1");
    assert_eq!(
        live(&s1, "b")["dependencies"]
            .as_array()
            .map_or(0, Vec::len),
        0
    );
    let s2 = t.step("step2");
    assert_eq!(managed(&s2), ["b"]);
    t.destroy();
}

/// Pulumi's `TestDependencySteps` (Quick, one edit): an edit that turns a dependency around
/// (`second` on `first` becomes `first` on `second`) deploys, each resource once.
#[test]
fn js_dependency_steps() {
    let t = ProgramTest::new("js_dependency_steps");
    let opts = Options {
        quick: true,
        edits: vec![Edit {
            dir: "step1",
            ..Edit::default()
        }],
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        let (first, second) = (live(&run.state, "first"), live(&run.state, "second"));
        let needs = |r: &serde_json::Value, other: &serde_json::Value| {
            r["dependencies"]
                .as_array()
                .is_some_and(|d| d.contains(&other["urn"]))
        };
        match run.edit {
            None => assert!(needs(&second, &first), "{:#}", run.state),
            Some(_) => assert!(needs(&first, &second) && !needs(&second, &first)),
        }
        assert_eq!(copies(&run.state, "first").len(), 1);
        assert_eq!(copies(&run.state, "second").len(), 1);
    });
}

/// Pulumi's `TestStackBadParenting` (Quick, `ExpectFailure`): a parent that is not a resource
/// fails the program.
#[test]
fn js_stack_bad_parenting() {
    let t = ProgramTest::new("js_stack_bad_parenting");
    let opts = Options {
        quick: true,
        expect_failure: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        assert!(copies(&run.state, "orphan").is_empty(), "{:#}", run.state);
    });
}
