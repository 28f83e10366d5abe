//! Pulumi's `construct_component_output_values` (`TestConstructOutputValues{Node,Python}`): a
//! remote component's inputs (objects, a map, a secret in the map) reach its provider as plain
//! values where they are known and not secret, and the secret as an output; the provider's
//! constructor fails the update otherwise. Quick, as the Go test runs it.

use super::local_components::{Provider, with_component};
use super::program_test::Options;

fn deploys(lang: &str, provider: Provider) {
    let t = with_component("construct_component_output_values", lang, provider);
    let opts = Options {
        quick: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |_| {});
}

#[test]
fn nodejs_testcomponent() {
    deploys("nodejs", Provider::Node);
}

#[test]
fn nodejs_testcomponent_python() {
    deploys("nodejs", Provider::Python);
}

#[test]
fn python_testcomponent() {
    deploys("python", Provider::Node);
}

#[test]
fn python_testcomponent_python() {
    deploys("python", Provider::Python);
}
