//! Pulumi's `construct_component_error_apply` (`TestConstructNodeErrorApply`): the Node.js
//! component provider throws inside an apply while constructing; the update fails with that
//! error rather than hanging. Quick and `ExpectFailure`, as the Go test runs it.

use super::local_components::{Provider, fails_with};

#[test]
fn nodejs_testcomponent() {
    fails_with(
        "construct_component_error_apply",
        "nodejs",
        Provider::Node,
        &["intentional error from within an apply"],
    );
}
