//! Pulumi's `construct_component_methods` (`TestConstructMethods{Node,Python}`, Quick): a
//! remote component's method, run by its provider on the component rehydrated from the
//! program's reference, answers from the component's outputs and its argument.

use super::harness::stack_outputs;
use super::local_providers::with_local_provider;
use super::program_test::Options;

fn methods(program: &str, provider: &str) {
    let t = with_local_provider("construct_component_methods", program, provider);
    let opts = Options {
        quick: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        assert_eq!(stack_outputs(&run.state)["message"], "Hello World, Alice!");
    });
}

#[test]
fn js_node_provider() {
    methods("nodejs", "testcomponent");
}

#[test]
fn js_python_provider() {
    methods("nodejs", "testcomponent-python");
}

#[test]
fn py_node_provider() {
    methods("python", "testcomponent");
}

#[test]
fn py_python_provider() {
    methods("python", "testcomponent-python");
}
