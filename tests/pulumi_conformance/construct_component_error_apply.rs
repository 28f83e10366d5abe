//! Pulumi's `construct_component_error_apply` (`TestConstructNodeErrorApply`): the Node.js
//! component provider throws inside an apply while constructing; the update fails with that
//! error rather than hanging. Quick and `ExpectFailure`, as the Go test runs it.

use super::local_components::{Provider, with_component};
use super::program_test::Options;

#[test]
fn nodejs_testcomponent() {
    let t = with_component("construct_component_error_apply", "nodejs", Provider::Node);
    let opts = Options {
        quick: true,
        expect_failure: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        assert!(
            run.output
                .contains("intentional error from within an apply"),
            "{}",
            run.output
        );
    });
}
