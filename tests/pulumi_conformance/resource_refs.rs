//! Pulumi's `resource_refs_get_resource/{python,nodejs}`: component outputs holding resource
//! references, read back by URN (`pulumi:pulumi:getResource`) and rehydrated through a
//! resource module.

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

/// `TestResourceRefsGetResourceNode` (Quick): the container read back by URN rehydrates its
/// child through the resource module, with the child's URN and message (the program asserts
/// both; a failed assertion fails the update).
#[test]
fn ts_resource_refs_get_resource() {
    let t = ProgramTest::new("ts_resource_refs_get_resource");
    let opts = Options {
        quick: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        assert!(!run.output.contains("AssertionError"), "{}", run.output);
    });
}
