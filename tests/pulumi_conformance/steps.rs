//! Steps and step edits (Pulumi's `steps` test): creates, updates, replaces and deletes across
//! edits, with the resource count the state must hold after each.

use super::harness::{ProgramTest, live, managed};

#[test]
fn steps() {
    let t = ProgramTest::new("steps");
    let s0 = t.up();
    assert_eq!(managed(&s0), ["a", "b", "c", "d"]);
    let s1 = t.step("step1");
    assert_eq!(managed(&s1), ["a", "b", "c", "d", "e"]);
    assert_eq!(
        live(&s1, "b")["outputs"]["uid"],
        live(&s0, "b")["outputs"]["uid"],
        "b is updated in place"
    );
    assert_eq!(live(&s1, "b")["outputs"]["v"], 2);
    assert_eq!(
        live(&s1, "c")["outputs"]["uid"],
        live(&s0, "c")["outputs"]["uid"]
    );
    let s2 = t.step("step2");
    assert_eq!(managed(&s2), ["a", "b", "c", "e"]);
    assert_ne!(
        live(&s2, "c")["outputs"]["uid"],
        live(&s1, "c")["outputs"]["uid"],
        "c is replaced"
    );
    let s3 = t.step("step3");
    assert_eq!(managed(&s3), ["a"]);
    assert_eq!(
        live(&s3, "a")["outputs"]["uid"],
        live(&s0, "a")["outputs"]["uid"]
    );
    t.env.assert_no_leaks("dev");
    t.destroy();
    assert!(t.env.world().is_empty());
}
