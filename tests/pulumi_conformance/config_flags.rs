//! Config given on the command line and checked against the project's declarations (Pulumi's
//! `TestConfigFlag`, `TestRefreshDestroySkipConfigValidationByDefault`,
//! `TestSkipConfigValidation`), and the CLI versions a project accepts
//! (`TestValidatePulumiVersionRange`), each run command for command as its Go test runs them.

use super::cli_support::{stderr, stdout};
use super::harness::ProgramTest;

impl ProgramTest {
    /// Runs a command (on the selected stack) that must succeed; returns its stdout.
    fn runs(&self, args: &[&str]) -> String {
        self.env.ok(args)
    }

    /// Runs a command that must fail; returns its stderr.
    fn refused(&self, args: &[&str]) -> String {
        let out = self.env.run(args);
        assert!(
            !out.status.success(),
            "{}: `{}` should have failed:\n{}{}",
            self.name(),
            args.join(" "),
            stdout(&out),
            stderr(&out)
        );
        stderr(&out)
    }
}

/// Pulumi's `TestConfigFlag`: `--config` on up, refresh and destroy (with `--run-program`)
/// reaches the program and is written to the stack's settings file; without it, the missing
/// required key stops refresh and destroy that run the program.
#[test]
fn config_flag() {
    let t = ProgramTest::new("config_flag");
    t.runs(&["stack", "init", "config-flag-test"]);
    let given = "config-flag:example=an-example";
    let settings = t.env.project().join("Pulumi.config-flag-test.yaml");
    let written = || {
        let text = std::fs::read_to_string(&settings).unwrap();
        assert!(text.contains("config-flag:example: an-example"), "{text}");
    };
    let out = t.runs(&["up", "--skip-preview", "--yes", "--config", given]);
    assert!(out.contains("an-example"), "{out}");
    written();
    for command in ["refresh", "destroy"] {
        std::fs::remove_file(&settings).unwrap();
        t.refused(&[command, "--run-program", "--yes"]);
        let out = t.runs(&[command, "--run-program", "--yes", "--config", given]);
        assert!(out.contains("an-example"), "{command}:\n{out}");
        written();
    }
}

/// Pulumi's `TestRefreshDestroySkipConfigValidationByDefault`: refresh and destroy that do not
/// run the program take the stack's config unchecked; with `--run-program` it is checked.
#[test]
fn refresh_destroy_skip_config_validation_by_default() {
    let t = ProgramTest::new("config_flag");
    t.runs(&["stack", "init", "config-flag-test"]);
    t.runs(&[
        "up",
        "--skip-preview",
        "--yes",
        "--config",
        "config-flag:example=an-example",
    ]);
    std::fs::remove_file(t.env.project().join("Pulumi.config-flag-test.yaml")).unwrap();
    t.runs(&["refresh", "--yes"]);
    t.runs(&["destroy", "--yes"]);
    let err = t.refused(&["refresh", "--run-program", "--yes"]);
    assert!(err.contains("config-flag:example"), "names the key:\n{err}");
}

/// Pulumi's `TestSkipConfigValidation`: `--skip-config-validation` (or
/// `PULUMI_OPTION_SKIP_CONFIG_VALIDATION`) lets preview, up, refresh and destroy run although a
/// required key is unset.
#[test]
fn skip_config_validation() {
    let t = ProgramTest::new("config_skip_validation");
    t.runs(&["stack", "init", "skip-validation-test"]);
    let err = t.refused(&["preview"]);
    assert!(err.contains("validating stack config"), "{err}");
    let err = t.refused(&["up", "--skip-preview", "--yes"]);
    assert!(err.contains("validating stack config"), "{err}");
    t.runs(&["preview", "--skip-config-validation"]);
    t.runs(&["up", "--skip-preview", "--yes", "--skip-config-validation"]);
    t.runs(&[
        "refresh",
        "--run-program",
        "--skip-config-validation",
        "--yes",
    ]);
    let out = t
        .env
        .command(&["up", "--skip-preview", "--yes"])
        .env("PULUMI_OPTION_SKIP_CONFIG_VALIDATION", "true")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the environment variable skips validation:\n{}{}",
        stdout(&out),
        stderr(&out)
    );
    t.runs(&[
        "destroy",
        "--run-program",
        "--yes",
        "--skip-config-validation",
    ]);
}

/// Pulumi's `TestValidatePulumiVersionRange`: a `requiredPulumiVersion` the CLI's version does
/// not satisfy stops the preview, in Pulumi's words.
#[test]
fn required_pulumi_version() {
    let t = ProgramTest::new("required_pulumi_version");
    t.runs(&["stack", "init", "required-version-test"]);
    let err = t.refused(&["preview"]);
    let said = err
        .lines()
        .find(|l| l.contains("does not satisfy"))
        .unwrap_or_else(|| panic!("no version error:\n{err}"));
    let rest = said
        .split("Pulumi CLI version ")
        .nth(1)
        .unwrap_or_else(|| panic!("{said}"));
    assert!(
        rest.ends_with(" does not satisfy the version range \"<1.0.0\""),
        "{said}"
    );
}
