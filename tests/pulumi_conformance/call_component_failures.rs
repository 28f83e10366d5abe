//! Pulumi's `call_component_failures` (`TestCallFailures{Node,Python}`): a method call on a
//! remote component fails in its provider with an input property error naming `foo`, and the
//! update fails with the property and the reason (in stepdeck's words, `call of <token>
//! failed: …`, not Pulumi's `call to function '<token>' failed: …`). Quick and
//! `ExpectFailure`, as the Go test runs it.

use super::local_components::{Provider, fails_with};

fn fails_with_the_reason(lang: &str, provider: Provider) {
    fails_with(
        "call_component_failures",
        lang,
        provider,
        &[
            "call of testcomponent:index:Component/getMessage failed:",
            "\t\t- property foo has a problem: the failure reason",
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
