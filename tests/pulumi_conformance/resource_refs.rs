//! Pulumi's `resource_refs_get_resource/python`: component outputs holding resource references,
//! read back by URN (`pulumi:pulumi:getResource`) and rehydrated through a resource module.

use super::harness::ProgramTest;
use super::program_test::Options;

/// `TestResourceRefsGetResourcePython` (Quick): the program's own assertions on the read-back
/// child (URN and message) hold.
#[test]
fn py_resource_refs_get_resource() {
    let t = ProgramTest::new("py_resource_refs_get_resource");
    let opts = Options {
        quick: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        assert!(!run.output.contains("Traceback"), "{}", run.output);
    });
}
