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

/// The built-in `command` and `random` providers through the real pulumi-command and
/// pulumi-random Python SDKs, with the options their schemas have: a command's directory,
/// environment, stdin, interpreter and asset/archive globs, the `run` function, random values
/// shaped by their options, an import by value; changing a keeper and a trigger replaces what
/// they keep.
#[test]
fn py_builtin_options() {
    let t = ProgramTest::new("py_builtin_options");
    let state = t.up();
    let out = t.outputs();
    assert_eq!(out["stdout"], "from stdin", "stdin reached the command");
    let work = t.env.project().join("work");
    assert_eq!(
        std::fs::read_to_string(work.join("out/a.txt")).unwrap(),
        "hello",
        "the environment reached the command, run in `dir`"
    );
    assert_eq!(out["assets"], serde_json::json!(["out/a.txt", "out/b.txt"]));
    assert_eq!(
        out["archived"],
        serde_json::json!(["out/a.txt", "out/b.txt"])
    );
    assert_eq!(
        out["ran"],
        format!("ran in {}", work.canonicalize().unwrap().display())
    );
    let token = out["token"].as_str().unwrap();
    assert_eq!(token.len(), 12);
    assert!(token.chars().filter(|c| *c == '#').count() >= 2, "{token}");
    assert!(
        token.chars().filter(char::is_ascii_digit).count() >= 3,
        "{token}"
    );
    assert!(
        token.chars().all(|c| c.is_ascii_alphanumeric() || c == '#'),
        "{token}"
    );
    let tag = out["tagHex"].as_str().unwrap().to_string();
    assert!(tag.starts_with("t-") && tag.len() == 2 + 8, "{tag}");
    let pet = out["pet"].as_str().unwrap();
    assert!(
        pet.starts_with("pre_") && pet.split('_').count() == 4,
        "{pet}"
    );
    let number = out["number"].as_f64().unwrap();
    assert!((1.0..=1000.0).contains(&number));
    let shuffled = out["shuffled"].as_array().unwrap();
    assert_eq!(shuffled.len(), 2);
    let ordered = out["ordered"].as_str().unwrap();
    assert_eq!(ordered.chars().nth(14), Some('7'), "RandomUuid7: {ordered}");
    assert_eq!(out["adopted"], "myspecialdata", "imported by its value");
    let build_id = live(&state, "build")["id"].clone();

    t.ok(&["config", "set", "keeper", "two"]);
    let state = t.up();
    let again = t.outputs();
    assert_ne!(again["tagHex"], tag, "a changed keeper replaces the id");
    assert_ne!(
        live(&state, "build")["id"],
        build_id,
        "a changed trigger replaces the command"
    );
    assert_eq!(again["token"], out["token"], "what no keeper names stays");
    assert_eq!(again["number"], out["number"]);
    t.destroy();
}
