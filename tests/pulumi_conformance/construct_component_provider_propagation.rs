//! Pulumi's `construct_component_provider_propagation` (`TestConstructProviderPropagation{Node,
//! Python}`, the regression test of pulumi/pulumi#12593): a provider given to a remote
//! component as `provider`, in a `providers` list or in a `providers` map reaches the children
//! its component provider registers; a component given none leaves its child to the default
//! provider. The Go test's only component provider is written in Go (Go: left out), and its
//! child is the Go testprovider's `Random`: a Python stand-in (`testcomponent-python`) plays
//! the component provider and `sim:index:Resource` the child. Quick, as the Go test runs it.

use std::collections::BTreeMap;

use super::harness::{name_of, resources};
use super::local_components::{Provider, with_component};
use super::program_test::Options;

fn children_use_the_components_provider(lang: &str) {
    let t = with_component(
        "construct_component_provider_propagation",
        lang,
        Provider::Python,
    );
    let opts = Options {
        quick: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        let providers: BTreeMap<String, String> = resources(&run.state)
            .iter()
            .filter(|r| r["type"] == "sim:index:Resource")
            .map(|r| {
                let reference = r["provider"].as_str().unwrap();
                let urn = reference.split("::").take(4).collect::<Vec<_>>();
                (name_of(r).to_string(), urn[3].to_string())
            })
            .collect();
        let expected: BTreeMap<String, String> = [
            ("uses_default", "default"),
            ("uses_provider", "explicit"),
            ("uses_providers", "explicit"),
            ("uses_providers_map", "explicit"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        assert_eq!(providers, expected, "{:#}", run.state);
    });
}

#[test]
fn nodejs_testcomponent_stand_in() {
    children_use_the_components_provider("nodejs");
}

#[test]
fn python_testcomponent_stand_in() {
    children_use_the_components_provider("python");
}
