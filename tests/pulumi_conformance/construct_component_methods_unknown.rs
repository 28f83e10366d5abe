//! Pulumi's `construct_component_methods_unknown` (`TestConstructMethodsUnknown{Node,Python}`:
//! preview only, as `construct_component_unknown`): a method called with an argument unknown
//! in preview (a sim resource's id, for the Go testprovider's `Random`) answers unknown; the
//! applies on the argument in the provider and on the result in the program must not run
//! (either exits if it does, which fails the preview).

use super::local_components::{Provider, previews_only};

fn methods_unknown(lang: &str, provider: Provider) {
    previews_only("construct_component_methods_unknown", lang, provider);
}

#[test]
fn js_node_provider() {
    methods_unknown("nodejs", Provider::Node);
}

#[test]
fn js_python_provider() {
    methods_unknown("nodejs", Provider::Python);
}

#[test]
fn py_node_provider() {
    methods_unknown("python", Provider::Node);
}

#[test]
fn py_python_provider() {
    methods_unknown("python", Provider::Python);
}
