//! Pulumi's `construct_component_failures` (`TestConstructFailures{Node,Python}`): the
//! component provider fails the construct with an input properties error naming `foo`, and
//! the update fails with that error's message, the property and its value, and the reason
//! (in stepdeck's words, `constructing <type> "<name>" failed: …`, not Pulumi's `<type> resource
//! '<name>' has a problem: …`). Quick and `ExpectFailure`, as the Go test runs it.

use super::local_components::{Provider, with_component};
use super::program_test::Options;

const EXPECTED: [&str; 2] = [
    "constructing testcomponent:index:Component \"component\" failed: failing for a reason",
    "\t\t- property foo with value 'bar' has a problem: the failure reason",
];

fn fails_with_the_reason(lang: &str, provider: Provider) {
    let t = with_component("construct_component_failures", lang, provider);
    let opts = Options {
        quick: true,
        expect_failure: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        for part in EXPECTED {
            assert!(run.output.contains(part), "{part:?} in:\n{}", run.output);
        }
    });
}

#[test]
fn nodejs_testcomponent() {
    fails_with_the_reason("nodejs", Provider::Node);
}

#[test]
fn nodejs_testcomponent_python() {
    fails_with_the_reason("nodejs", Provider::Python);
}

#[test]
fn python_testcomponent() {
    fails_with_the_reason("python", Provider::Node);
}

#[test]
fn python_testcomponent_python() {
    fails_with_the_reason("python", Provider::Python);
}
