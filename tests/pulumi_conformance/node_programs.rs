//! Node.js programs ProgramTest runs with `Quick` and nothing else to check: code paths from a
//! package.json whose version is not semver (`TestInvalidVersionInPackageJson`), a first-class
//! provider with a secret in its configuration (`TestProviderSecretConfig`).

use super::harness::ProgramTest;
use super::program_test::Options;

fn quick(case: &str) {
    let opts = Options {
        quick: true,
        ..Options::default()
    };
    ProgramTest::new(case).lifecycle(&opts, |_| {});
}

/// Pulumi's `TestInvalidVersionInPackageJson`: the program throws unless its code paths are
/// package.json's dependencies and optional dependencies.
#[test]
fn invalid_package_json() {
    quick("invalid_package_json");
}

/// Pulumi's `TestProviderSecretConfig` (pulumi/pulumi#2741).
#[test]
fn provider_secret_config() {
    quick("provider_secret_config");
}
