//! Pulumi's `construct_component_methods_unknown` (`TestConstructMethodsUnknown{Node,Python}`:
//! preview only, as `construct_component_unknown`): a method called with an argument unknown
//! in preview (a sim resource's id, for the Go testprovider's `Random`) answers unknown; the
//! applies on the argument in the provider and on the result in the program must not run
//! (either exits if it does, which fails the preview).

use super::local_components::{Provider, with_component};
use super::program_test::Options;

fn methods_unknown(program: &str, provider: Provider) {
    let t = with_component("construct_component_methods_unknown", program, provider);
    let opts = Options {
        skip_refresh: true,
        skip_update: true,
        skip_export_import: true,
        skip_empty_preview_update: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |_| {});
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
