//! `new` from a local template, then `up`, as Pulumi's `TestPulumiNewWithPackages` runs it (not
//! ProgramTest): the template's `packages:` name a Node.js component provider beside it, whose
//! own dependencies `new` installs before it asks the provider for its schema, generates the
//! SDK the program imports (`file:sdks/provider`) and installs the project. Everything the
//! template names (`@pulumi/pulumi`, TypeScript) comes from npm, as in the Go test.

use std::path::Path;

use super::cli_support::Env;

/// Pulumi's `TestPulumiNewWithPackages`: `new <template> --yes --force --name test-packages
/// --stack test-packages` in an empty directory, then `up --non-interactive --skip-preview`;
/// the component is the stack's output.
#[test]
fn ts_new_with_packages() {
    let template = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/pulumi_conformance/programs/new_nodejs_with_packages");
    let template = template.display().to_string();
    let env = Env::with_passphrase("");
    let dir = env.root.path().join("test-packages");
    std::fs::create_dir(&dir).unwrap();
    let args = [
        "new",
        &template,
        "--yes",
        "--force",
        "--name",
        "test-packages",
        "--stack",
        "test-packages",
    ];
    env.ok_in(&dir, &args);
    env.ok_in(&dir, &["up", "--non-interactive", "--skip-preview"]);
    let outputs: serde_json::Value =
        serde_json::from_str(&env.ok_in(&dir, &["stack", "output", "--json"])).unwrap();
    assert_eq!(
        outputs["comp"]["urn"],
        "urn:pulumi:test-packages::test-packages::provider:index:MyComponent::test"
    );
}
