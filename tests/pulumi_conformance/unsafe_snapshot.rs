//! Pulumi's `unsafe_snapshot_tests/bad_resource` (`TestUnsafeSnapshotManagerRetainsResourcesOnError`,
//! Quick, ExpectFailure, with `PULUMI_EXPERIMENTAL` 1 and 0 and `PULUMI_SKIP_CHECKPOINTS=1`): a
//! thousand and one resources are created before a resource's input throws; the failed update's
//! state keeps all of them (stack, provider, `base` and `base-0`…`base-999`), not the failed one.
//! stepdeck accepts both variables and writes its checkpoints regardless, so the Go test's two
//! runs are one run here (the program is a thousand Node registrations: run it once).

use super::harness::ProgramTest;
use super::program_test::Options;

#[test]
fn js_unsafe_snapshot() {
    let t = ProgramTest::new("js_unsafe_snapshot_bad_resource");
    let opts = Options {
        quick: true,
        expect_failure: true,
        env: vec![
            ("PULUMI_EXPERIMENTAL", "1"),
            ("PULUMI_SKIP_CHECKPOINTS", "1"),
        ],
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        let resources = run.state["deployment"]["resources"]
            .as_array()
            .map_or(0, Vec::len);
        assert_eq!(resources, 3 + 1000, "the state after the failed update");
    });
}
