//! Pulumi's `construct_component_plain` (`TestConstructPlain{Node,Python}`, Quick): a remote
//! component constructed from a plain number makes that many children through its provider:
//! the Node.js provider's are dynamic resources (with their `pulumi-nodejs` provider), the
//! Python provider's are echo resources (`sim` standing in for the Go testprovider's `Echo`).
//! Either way the stack holds nine resources.

use super::harness::resources;
use super::local_components::{Provider, with_component};
use super::program_test::Options;

fn plain(program: &str, provider: Provider) {
    let t = with_component("construct_component_plain", program, provider);
    let opts = Options {
        quick: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        let all = resources(&run.state);
        assert_eq!(all.len(), 9, "the stack's resources: {:#}", run.state);
    });
}

#[test]
fn js_node_provider() {
    plain("nodejs", Provider::Node);
}

#[test]
fn js_python_provider() {
    plain("nodejs", Provider::Python);
}

#[test]
fn py_node_provider() {
    plain("python", Provider::Node);
}

#[test]
fn py_python_provider() {
    plain("python", Provider::Python);
}
