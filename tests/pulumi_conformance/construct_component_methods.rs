//! Pulumi's `construct_component_methods` (`TestConstructMethods{Node,Python}`, Quick): a
//! remote component's method, run by its provider on the component rehydrated from the
//! program's reference, answers from the component's outputs and its argument.

use super::harness::stack_outputs;
use super::local_components::{Provider, with_component};
use super::program_test::Options;

fn methods(program: &str, provider: Provider) {
    let t = with_component("construct_component_methods", program, provider);
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
    methods("nodejs", Provider::Node);
}

#[test]
fn js_python_provider() {
    methods("nodejs", Provider::Python);
}

#[test]
fn py_node_provider() {
    methods("python", Provider::Node);
}

#[test]
fn py_python_provider() {
    methods("python", Provider::Python);
}
