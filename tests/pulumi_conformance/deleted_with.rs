//! Pulumi's `deleted_with` (`TestDeletedWith{Node,Python}`, Quick, testprovider): a resource
//! whose delete fails is `deletedWith` another, so destroying the stack never calls its delete
//! and succeeds (`sim` resources stand in for the test provider's Random and FailsOnDelete).

use super::harness::{ProgramTest, live};
use super::program_test::Options;

#[test]
fn py_deleted_with() {
    deleted_with("py_deleted_with");
}

#[test]
fn js_deleted_with() {
    deleted_with("js_deleted_with");
}

fn deleted_with(case: &str) {
    let t = ProgramTest::new(case);
    let opts = Options {
        quick: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        let random = live(&run.state, "random");
        let doomed = live(&run.state, "failsondelete");
        assert_eq!(doomed["deletedWith"], random["urn"], "{doomed}");
    });
}
