//! Pulumi's `construct_component_slow` (`TestConstructSlow{Node,Python}`): the Node.js
//! component provider's construct returns before its child (a dynamic resource whose create
//! takes seconds) is created, and the update still creates it: five resources (the stack
//! first, without a parent; the component, its child, and their two providers). Quick, as the
//! Go test runs it.

use super::harness::resources;
use super::local_components::{Provider, with_component};
use super::program_test::Options;

fn creates_the_slow_child(lang: &str) {
    let t = with_component("construct_component_slow", lang, Provider::Node);
    let opts = Options {
        quick: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        let all = resources(&run.state);
        assert_eq!(all.len(), 5, "{:#}", run.state);
        assert_eq!(all[0]["type"], "pulumi:pulumi:Stack");
        assert!(all[0]["parent"].as_str().unwrap_or("").is_empty());
        assert!(
            all.iter()
                .any(|r| r["urn"].as_str().unwrap().ends_with("::child-a")),
            "the slow child was created: {:#}",
            run.state
        );
    });
}

#[test]
fn nodejs_testcomponent() {
    creates_the_slow_child("nodejs");
}

#[test]
fn python_testcomponent() {
    creates_the_slow_child("python");
}
