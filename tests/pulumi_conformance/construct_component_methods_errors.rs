//! Pulumi's `construct_component_methods_errors` (`TestConstructMethodsErrors{Node,Python}`,
//! Quick, ExpectFailure): the failures a method's provider answers with reach the program,
//! whose SDK fails with them (`the failure reason (the failure property)`).

use super::local_components::{Provider, fails_with};

fn methods_errors(lang: &str, provider: Provider) {
    fails_with(
        "construct_component_methods_errors",
        lang,
        provider,
        &["the failure reason (the failure property)"],
    );
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
