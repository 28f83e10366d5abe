//! Pulumi's `construct_component_provider` (`TestConstructProvider{Node,Python}`): a program
//! hands a remote component a first-class provider of the component's package (`providers`);
//! the component provider rehydrates it from its reference and the component's `message` is
//! that provider's. Quick, as the Go test runs it.

use super::harness::stack_outputs;
use super::local_components::{Provider, with_component};
use super::program_test::Options;

fn passes_the_provider(lang: &str, provider: Provider) {
    let t = with_component("construct_component_provider", lang, provider);
    let opts = Options {
        quick: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        assert_eq!(stack_outputs(&run.state)["message"], "hello world");
    });
}

#[test]
fn nodejs_testcomponent() {
    passes_the_provider("nodejs", Provider::Node);
}

#[test]
fn nodejs_testcomponent_python() {
    passes_the_provider("nodejs", Provider::Python);
}

#[test]
fn python_testcomponent() {
    passes_the_provider("python", Provider::Node);
}

#[test]
fn python_testcomponent_python() {
    passes_the_provider("python", Provider::Python);
}
