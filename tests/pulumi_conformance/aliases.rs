//! Aliases in every form YAML can write (Pulumi's `aliases` tests: rename, adopt into a
//! parent, extract from a parent, rename and adopt, URN aliases): the edit that
//! renames must neither create nor delete, so the resource keeps its identity.

use super::harness::{ProgramTest, copies, live, managed, urn};
use super::program_test::{Edit, Options};

/// Deploys the case, then its step1 (and step2, if `steps` says so), checking that `from`
/// became `to` with the same ID and nothing else was created.
fn renamed(case: &str, steps: &[&str], from: &str, to: &str) -> serde_json::Value {
    let t = ProgramTest::new(case);
    let before = t.up();
    let id = live(&before, from)["id"].clone();
    let mut state = before;
    for step in steps {
        state = t.step(step);
    }
    assert_eq!(live(&state, to)["id"], id, "{case}: {to} is {from}");
    assert!(!managed(&state).contains(&from.to_string()) || from == to);
    assert_eq!(
        t.env.world().len(),
        managed(&state).len(),
        "{case}: nothing was created"
    );
    t.destroy();
    state
}

#[test]
fn alias_rename() {
    renamed("alias_rename", &["step1"], "res1", "res2");
}

#[test]
fn alias_rename_twice() {
    renamed("alias_rename", &["step1", "step2"], "res1", "res3");
}

#[test]
fn alias_urn() {
    renamed("alias_urn", &["step1"], "old", "new");
}

#[test]
fn alias_adopt_into_parent() {
    let state = renamed("alias_adopt", &["step1"], "child", "child");
    assert_eq!(
        live(&state, "child")["parent"].as_str(),
        Some(urn(&live(&state, "parent")))
    );
}

#[test]
fn alias_extract_from_parent() {
    let state = renamed("alias_extract", &["step1"], "child", "child");
    assert!(
        live(&state, "child")["urn"]
            .as_str()
            .unwrap()
            .contains("::sim:index:Resource::child")
    );
    assert!(
        !live(&state, "child")["urn"].as_str().unwrap().contains("$"),
        "no parent type in the URN"
    );
}

#[test]
fn alias_rename_and_adopt() {
    let state = renamed("alias_rename_adopt", &["step1"], "orphan", "child");
    assert!(urn(&live(&state, "child")).contains("sim:index:Resource$sim:index:Resource::child"));
}

/// Pulumi's `aliases/*/retype_*`: a type change through a `type` alias keeps the resource, and a
/// refresh then records the inputs the provider reads, never an output the original type
/// computed (Pulumi's `RefreshStep` takes the provider's inputs), so nothing shows as changed.
#[test]
fn alias_retype() {
    let t = ProgramTest::new("alias_retype");
    let s0 = t.up();
    let arn = live(&s0, "r")["outputs"]["arn"].clone();
    assert!(arn.is_string(), "{s0:#}");
    let s1 = t.step("step1");
    assert_eq!(live(&s1, "r")["id"], live(&s0, "r")["id"]);
    t.ok(&["refresh", "--yes", "--non-interactive"]);
    let r = live(&t.checked_export(), "r");
    assert_eq!(r["inputs"], serde_json::json!({"v": 1}), "{r:#}");
    assert_eq!(r["outputs"]["arn"], arn);
    t.destroy();
}

/// Pulumi's `TestPythonAliasAfterFailedUpdate` (Quick; the first edit `ExpectFailure`, sim
/// resources for the testprovider's): a resource moved out of its component without an alias
/// in an update that then fails, and then given an alias
/// naming the old parent, ends as one resource, outside the component.
#[test]
fn py_alias_after_failed_update() {
    let t = ProgramTest::new("py_alias_after_failed_update");
    let opts = Options {
        quick: true,
        edits: vec![
            Edit {
                dir: "step1",
                expect_failure: true,
                ..Edit::default()
            },
            Edit {
                dir: "step2",
                ..Edit::default()
            },
        ],
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        if run.edit == Some(0) {
            return;
        }
        let echoes = copies(&run.state, "echo");
        assert_eq!(echoes.len(), 1, "{:#}", run.state);
        let want = if run.edit.is_none() {
            "::my:index:Holder$sim:index:Resource::echo"
        } else {
            "::sim:index:Resource::echo"
        };
        assert!(urn(&echoes[0]).ends_with(want), "{:#}", run.state);
    });
}

/// Pulumi's `TestPythonAliases` (Quick; the edit `ExpectNoChanges`): ten ways to move a
/// component or its child (rename, adopt, extract, retype, many type aliases, a child named
/// after its renamed parent), each aliased so that the edit changes nothing.
#[test]
fn py_aliases() {
    aliases("py_aliases");
}

/// `TestNodejsAliases` (Quick; step2 ExpectNoChanges): the same ten scenarios in JavaScript.
#[test]
fn js_aliases() {
    aliases("js_aliases");
}

fn aliases(case: &str) {
    let t = ProgramTest::new(case);
    let opts = Options {
        quick: true,
        edits: vec![Edit {
            dir: "step1",
            expect_no_changes: true,
            ..Edit::default()
        }],
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        if run.edit.is_some() {
            let names = managed_components(&run.state);
            for moved in [
                "after",
                "box-loose",
                "bigshelf-kid",
                "renamed-kid",
                "second-name",
            ] {
                assert!(names.contains(&moved.to_string()), "{moved}: {names:?}");
            }
        }
    });
}

/// The names of every resource but the stack and providers.
fn managed_components(state: &serde_json::Value) -> Vec<String> {
    super::harness::resources(state)
        .iter()
        .filter(|r| r["type"] != "pulumi:pulumi:Stack")
        .map(|r| super::harness::name_of(r).to_string())
        .collect()
}
