//! Pulumi's `program_error` (`TestProgramError{Nodejs,Python}`, Quick, testprovider): an
//! update whose program throws midway does not go on to delete the resources it did not
//! reach (`sim` resources stand in for the test provider's Random).

use super::harness::{ProgramTest, resources};
use super::program_test::{Edit, Options};

#[test]
fn py_program_error() {
    program_error("py_program_error");
}

#[test]
fn js_program_error() {
    program_error("js_program_error");
}

fn program_error(case: &str) {
    let t = ProgramTest::new(case);
    let opts = Options {
        quick: true,
        edits: vec![Edit {
            dir: "step1",
            expect_failure: true,
            ..Edit::default()
        }],
        ..Options::default()
    };
    let mut runs = 0;
    t.lifecycle(&opts, |run| {
        runs += 1;
        let types: Vec<String> = resources(&run.state)
            .iter()
            .map(|r| r["type"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(
            types,
            [
                "pulumi:pulumi:Stack",
                "pulumi:providers:sim",
                "sim:index:Resource",
                "sim:index:Resource"
            ],
            "{}",
            run.output
        );
        if run.edit.is_some() {
            assert!(
                run.output.contains("This is a test error"),
                "{}",
                run.output
            );
        }
    });
    assert_eq!(runs, 2, "the update and the failing edit were both checked");
}
