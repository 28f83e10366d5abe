//! Pulumi's `construct_component_failures` (`TestConstructFailures{Node,Python}`): the
//! component provider fails the construct with an input properties error naming `foo`, and
//! the update fails with that error's message, the property and its value, and the reason
//! (in stepdeck's words, `constructing <type> "<name>" failed: …`, not Pulumi's `<type> resource
//! '<name>' has a problem: …`). Quick and `ExpectFailure`, as the Go test runs it.

use super::local_components::{Provider, fails_with};

fn fails_with_the_reason(lang: &str, provider: Provider) {
    fails_with(
        "construct_component_failures",
        lang,
        provider,
        &[
            "constructing testcomponent:index:Component \"component\" failed: failing for a reason",
            "\t\t- property foo with value 'bar' has a problem: the failure reason",
        ],
    );
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
