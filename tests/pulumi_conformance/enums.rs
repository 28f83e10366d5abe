//! Pulumi's `enums` (`TestEnumOutputNode`, `TestEnumOutputsPython`): enum values as a dynamic
//! resource's inputs reach its outputs and the stack's, through the whole lifecycle.

use super::harness::ProgramTest;
use super::program_test::Options;

#[test]
fn js_enums() {
    enums("js_enums");
}

#[test]
fn py_enums() {
    enums("py_enums");
}

fn enums(case: &str) {
    let t = ProgramTest::new(case);
    t.lifecycle(&Options::default(), |_| {
        let out = t.outputs();
        assert_eq!(out["myTreeType"], "Burgundy", "{out}");
        assert_eq!(out["myTreeFarmChanged"], "Pulumi Planters Inc.foo", "{out}");
        assert_eq!(
            out["mySentence"], "My Burgundy Rubber tree is from Pulumi Planters Inc.",
            "{out}"
        );
    });
}
