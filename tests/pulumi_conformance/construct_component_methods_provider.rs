//! Pulumi's `construct_component_methods_provider` (`TestConstructMethodsProvider{Node,Python}`,
//! Quick): components given an explicit provider of another package (`sim`, for the Go
//! testprovider) as `provider` and in `providers` still have their methods answered by their
//! own package's provider.

use super::harness::stack_outputs;
use super::local_components::{Provider, with_component};
use super::program_test::Options;

fn methods_provider(program: &str, provider: Provider) {
    let t = with_component("construct_component_methods_provider", program, provider);
    let opts = Options {
        quick: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        let outputs = stack_outputs(&run.state);
        assert_eq!(outputs["message1"], "Hello World, Alice!");
        assert_eq!(outputs["message2"], "Hi There, Bob!");
    });
}

#[test]
fn js_node_provider() {
    methods_provider("nodejs", Provider::Node);
}

#[test]
fn js_python_provider() {
    methods_provider("nodejs", Provider::Python);
}

#[test]
fn py_node_provider() {
    methods_provider("python", Provider::Node);
}

#[test]
fn py_python_provider() {
    methods_provider("python", Provider::Python);
}
