//! Pulumi's `nodejs/{oom,sourcemap-in-program-precompiled}` (`TestNodeOOM`,
//! `TestNodejsSourcemapProgramJavascript`, both ExpectFailure with the output matched): a
//! program that dies of an exhausted heap is reported with the Node.js language host's advice
//! on `nodeargs`, and an error thrown by JavaScript that `tsc` compiled ahead of time is
//! reported at its TypeScript line through the `.js.map` beside it.

use super::harness::ProgramTest;
use super::program_test::Options;

fn fails(case: &str, check: impl Fn(&str)) {
    ProgramTest::new(case).lifecycle(
        &Options {
            expect_failure: true,
            ..Options::default()
        },
        |run| check(&run.output),
    );
}

/// `TestNodeOOM`: V8's out-of-memory death ends the run with "Detected a possible out of
/// memory error". The heap limit is 128 MB where Pulumi's program sets 2048: with the SDK's
/// inspector session active V8 raises it fourfold, and 8 GB took minutes to fill here.
#[test]
fn js_oom() {
    fails("js_oom", |output| {
        assert!(
            output.contains("Detected a possible out of memory error"),
            "{output}"
        );
    });
}

/// `TestNodejsSourcemapProgramJavascript`: `index.js` (compiled by `tsc index.ts --sourceMap`,
/// run with `typescript: false`) throws; the trace names `willThrow` at index.ts line 6.
#[test]
fn js_sourcemap_precompiled() {
    let frame =
        regex::Regex::new(r"Error: this is a test error\n.*at willThrow.*index\.ts:6:11").unwrap();
    fails("js_sourcemap_precompiled", |output| {
        assert!(frame.is_match(output), "{output}");
    });
}
