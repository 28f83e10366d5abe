//! Pulumi's `construct_component_provider_explicit` (`TestConstructProviderExplicit{Node,
//! Python}`): with default providers disabled, an explicit provider of the component's package,
//! configured with a message, constructs a remote component given it as `provider` and one whose
//! local parent was given it in `providers`; both answer with the message. The Go test's only
//! component provider is written in Go (Go: left out); a Python stand-in
//! (`testcomponent-python`, on the SDK's experimental provider interface, which lets it keep
//! Configure's `message`) plays it here. Quick, as the Go test runs it.

use super::harness::stack_outputs;
use super::local_components::{Provider, with_component};
use super::program_test::Options;

fn constructs_with_the_explicit_provider(lang: &str) {
    let t = with_component(
        "construct_component_provider_explicit",
        lang,
        Provider::Python,
    );
    let opts = Options {
        quick: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        let outputs = stack_outputs(&run.state);
        assert_eq!(outputs["message"], "hello world");
        assert_eq!(outputs["nestedMessage"], "hello world");
    });
}

#[test]
fn nodejs_testcomponent_stand_in() {
    constructs_with_the_explicit_provider("nodejs");
}

#[test]
fn python_testcomponent_stand_in() {
    constructs_with_the_explicit_provider("python");
}
