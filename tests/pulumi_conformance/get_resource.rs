//! Pulumi's `get_resource/nodejs`: a resource read back by URN (`pulumi:pulumi:getResource`)
//! has the outputs it was created with, a secret one still secret.

use super::config::is_secret;
use super::harness::{ProgramTest, stack_outputs};
use super::program_test::Options;

/// `TestGetResourceNode` (AllowEmptyPreviewChanges): `foo` comes back plain, `secret` as a secret.
#[test]
fn ts_get_resource() {
    let t = ProgramTest::new("ts_get_resource");
    let opts = Options {
        allow_empty_preview_changes: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        let outputs = stack_outputs(&run.state);
        assert_eq!(outputs["foo"], "foo", "{outputs:#}");
        assert!(is_secret(&outputs["secret"]), "{outputs:#}");
    });
}
