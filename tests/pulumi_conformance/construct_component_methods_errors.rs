//! Pulumi's `construct_component_methods_errors` (`TestConstructMethodsErrors{Node,Python}`,
//! Quick, ExpectFailure): the failures a method's provider answers with reach the program,
//! whose SDK fails with them (`the failure reason (the failure property)`).

use super::local_providers::with_local_provider;
use super::program_test::Options;

fn methods_errors(program: &str, provider: &str) {
    let t = with_local_provider("construct_component_methods_errors", program, provider);
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
    methods_errors("nodejs", "testcomponent");
}

#[test]
fn js_python_provider() {
    methods_errors("nodejs", "testcomponent-python");
}

#[test]
fn py_node_provider() {
    methods_errors("python", "testcomponent");
}

#[test]
fn py_python_provider() {
    methods_errors("python", "testcomponent-python");
}
