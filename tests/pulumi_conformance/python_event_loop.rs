//! Pulumi's `python/stuck-eventloop` (`TestStuckEventLoop`, Quick, ExpectFailure; testprovider,
//! `sim` standing in for its Echo): one resource's transform raises while another's is still
//! awaiting. The failed registration ends the program with the error; the awaiting transform's
//! call must not keep the run from ending (the SDK shuts its callback server down, and the
//! engine answers the cut-off registration and finishes).

use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use super::harness::ProgramTest;
use super::program_test::Options;

/// How long the whole lifecycle may take: well under the 180 s the program's waiting transform
/// would keep a stuck run going, so a hang fails the case instead of outlasting it.
const BOUND: Duration = Duration::from_secs(120);

/// `TestStuckEventLoop`: the run ends within the bound (the Go test's `select` on its
/// `time.After`), and its output holds the raised error.
#[test]
fn py_stuck_eventloop() {
    let (done, finished) = mpsc::channel();
    let lifecycle = std::thread::spawn(move || {
        let t = ProgramTest::new("py_stuck_eventloop");
        let opts = Options {
            quick: true,
            expect_failure: true,
            ..Options::default()
        };
        let mut output = String::new();
        t.lifecycle(&opts, |run| output = run.output.clone());
        done.send(output).unwrap();
    });
    let output = match finished.recv_timeout(BOUND) {
        Ok(output) => output,
        Err(RecvTimeoutError::Disconnected) => {
            std::panic::resume_unwind(lifecycle.join().unwrap_err())
        }
        Err(RecvTimeoutError::Timeout) => panic!("the lifecycle did not end within {BOUND:?}"),
    };
    assert!(output.contains("delay failed"), "{output}");
}
