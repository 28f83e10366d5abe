//! The built-in providers as programs use them (Pulumi's `TestExplicitProvider`, random and
//! command resources): default and explicit provider references, secret results, commands run
//! on create and on delete.

use super::config::is_secret;
use super::harness::{ProgramTest, live, resources, urn};

/// Pulumi's `TestExplicitProvider`: the stack, two providers and two resources; each resource
/// refers to its own provider by URN and ID.
#[test]
fn explicit_provider() {
    let t = ProgramTest::new("explicit_provider");
    let state = t.up();
    assert_eq!(resources(&state).len(), 5, "{state:#}");
    let reference = |name: &str| {
        let p = live(&state, name);
        format!("{}::{}", urn(&p), p["id"].as_str().unwrap())
    };
    assert_eq!(live(&state, "a")["provider"], reference("default").as_str());
    assert_eq!(live(&state, "b")["provider"], reference("p").as_str());
    t.destroy();
}

/// A random password is a secret, stable across updates.
#[test]
fn random_password() {
    let t = ProgramTest::with_secrets("random_password");
    let state = t.up();
    assert!(is_secret(&live(&state, "pw")["outputs"]["result"]));
    let out = t.outputs();
    assert_eq!(out["password"].as_str().map(str::len), Some(20));
    assert_eq!(out["pet"].as_str().unwrap().split('-').count(), 2);
    t.up();
    assert_eq!(t.outputs(), out);
    t.destroy();
}

/// A local command runs its create command once, and its delete command on destroy, both in
/// the project directory (where Pulumi runs its plugins).
#[test]
fn command_local() {
    let t = ProgramTest::new("command_local");
    t.up();
    assert_eq!(t.outputs()["said"], "created-by-command");
    t.destroy();
    assert!(t.env.project().join("deleted-marker").exists());
}
