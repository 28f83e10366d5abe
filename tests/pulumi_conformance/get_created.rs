//! Pulumi's `get_created` (`TestGetCreated`, Quick): a program reads a resource by the id of
//! one it creates in the same run.

use super::harness::{ProgramTest, live};
use super::program_test::Options;

#[test]
fn js_get_created() {
    let t = ProgramTest::new("js_get_created");
    let opts = Options {
        quick: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        assert_eq!(live(&run.state, "a")["id"], "0");
        let b = live(&run.state, "b");
        assert_eq!(b["id"], "0", "{b}");
        assert_eq!(b["external"], true, "{b}");
    });
}
