//! Pulumi's `types/python/{simple,declared}` (`TestPythonTypes`, full lifecycle): the Python
//! SDK's input and output types, declared by annotations or by getters, carry an object
//! property through a dynamic resource and on to other resources and the stack's outputs.

use super::harness::ProgramTest;
use super::program_test::Options;

#[test]
fn py_types_simple() {
    types("py_types_simple");
}

#[test]
fn py_types_declared() {
    types("py_types_declared");
}

fn types(case: &str) {
    let t = ProgramTest::new(case);
    t.lifecycle(&Options::default(), |_| {
        let out = t.outputs();
        for res in ["res", "res2", "res3", "res4"] {
            assert_eq!(out[format!("{res}_first_value")], "hello", "{out}");
            assert_eq!(out[format!("{res}_second_value")], 42.0, "{out}");
        }
    });
}
