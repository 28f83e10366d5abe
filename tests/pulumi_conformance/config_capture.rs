//! Pulumi's `config_capture_e2e/nodejs`: closures serialized by the Node.js SDK
//! (`runtime.serializeFunction`) read the stack's config when run, whether they captured the
//! program's `Config` or make their own.

use super::harness::ProgramTest;
use super::program_test::{Config, Options};

/// `TestConfigCaptureNodeJS` (Quick, config `value`): both closures run and see `it works`.
#[test]
fn ts_config_capture() {
    let t = ProgramTest::new("ts_config_capture");
    let opts = Options {
        quick: true,
        config: vec![Config::plain("value", "it works")],
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        assert!(
            run.output.contains("outside capture works"),
            "{}",
            run.output
        );
        assert!(
            run.output.contains("inside capture works"),
            "{}",
            run.output
        );
    });
}
