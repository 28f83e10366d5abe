//! Pulumi's `construct_component_methods_errors` (`TestConstructMethodsErrors{Node,Python}`,
//! Quick, ExpectFailure): the failures a method's provider answers with reach the program,
//! whose SDK fails with them (`the failure reason (the failure property)`).

use super::local_components::{Provider, with_component};
use super::program_test::Options;

fn methods_errors(program: &str, provider: Provider) {
    let t = with_component("construct_component_methods_errors", program, provider);
    let opts = Options {
        quick: true,
        expect_failure: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        assert!(
            run.output
                .contains("the failure reason (the failure property)"),
            "the method's failure, as the SDK words it:\n{}",
            run.output
        );
    });
}

#[test]
fn js_node_provider() {
    methods_errors("nodejs", Provider::Node);
}

#[test]
fn js_python_provider() {
    methods_errors("nodejs", Provider::Python);
}

#[test]
fn py_node_provider() {
    methods_errors("python", Provider::Node);
}

#[test]
fn py_python_provider() {
    methods_errors("python", Provider::Python);
}
