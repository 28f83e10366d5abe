//! Resource hooks and error hooks as Pulumi's lifecycle tests (`resource_hooks_test.go`) and
//! the SDKs' hook integration tests exercise them, through real Python and Node programs: hooks run
//! around create and delete with the inputs and outputs Pulumi passes, a failing before-hook
//! stops its step, an error hook retries a create that fails once, and a destroy needs the
//! program (`--run-program`) to run delete hooks.

use super::harness::{ProgramTest, managed, resources};

/// The lines the program's hooks appended to `hooks.log`, and a fresh log for the next run.
fn take_log(t: &ProgramTest) -> Vec<String> {
    let path = t.env.project().join("hooks.log");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let _ = std::fs::remove_file(&path);
    text.lines().map(str::to_string).collect()
}

/// What both SDKs' programs show: create hooks with the new inputs and outputs, an error hook
/// retrying `flaky`'s create once, delete hooks around a delete while the program still
/// serves them, and a destroy that needs `--run-program`. `two` is how the SDK prints the
/// pet's length (Python `2.0`, Node `2`).
fn create_and_delete_hooks(t: &ProgramTest, two: &str, extra: impl FnOnce(&ProgramTest)) {
    let state = t.up();
    assert_eq!(managed(&state), ["flaky", "pet"]);
    let pet = t.outputs()["pet"].as_str().unwrap().to_string();
    let log = take_log(t);
    // The preview runs no hook (none is on_dry_run); the update runs each once. `pet` and
    // `flaky` are independent, so only each one's own hooks are ordered.
    assert_eq!(log.len(), 3, "{log:?}");
    let (pets, others): (Vec<&String>, Vec<&String>) =
        log.iter().partition(|l| l.contains(" pet "));
    assert!(
        pets[0].starts_with(&format!("before_create pet length={two}")),
        "{log:?}"
    );
    assert_eq!(*pets[1], format!("after_create pet id={pet} length={two}"));
    assert_eq!(others, ["on_error flaky create errors=1"]);
    let recorded = &super::harness::live(&state, "pet")["resourceHooks"];
    assert_eq!(
        recorded["BeforeDelete"],
        serde_json::json!(["before-delete"])
    );
    assert_eq!(recorded["AfterDelete"], serde_json::json!(["after-delete"]));

    extra(t);

    // Dropping the pet deletes it between its delete hooks, while the program still serves them.
    t.ok(&["config", "set", "dropPet", "true"]);
    assert_eq!(managed(&t.up()), ["flaky"]);
    assert_eq!(
        take_log(t),
        [
            format!("before_delete pet id={pet} length={two}"),
            format!("after_delete pet id={pet}"),
        ]
    );

    // A destroy that does not run the program cannot call delete hooks: refused, nothing lost.
    t.ok(&["config", "rm", "dropPet"]);
    t.up();
    take_log(t);
    let refused = t
        .env
        .run(&["destroy", "--stack", "dev", "--yes", "--non-interactive"]);
    assert_eq!(refused.status.code(), Some(1));
    let text = super::cli_support::stdout(&refused);
    assert!(
        text.contains("delete hooks registered, but the program is not running")
            && text.contains("--run-program"),
        "{text}"
    );
    assert_eq!(managed(&t.checked_export()), ["flaky", "pet"]);
    t.ok(&["destroy", "--yes", "--non-interactive", "--run-program"]);
    assert!(resources(&t.checked_export()).is_empty());
    let log = take_log(t);
    assert_eq!(log.len(), 2, "{log:?}");
    assert!(log[0].starts_with("before_delete pet") && log[1].starts_with("after_delete pet"));
}

#[test]
fn py_hooks() {
    let t = ProgramTest::new("py_hooks");
    create_and_delete_hooks(&t, "2.0", |t| {
        // A before-hook that fails stops its resource's create and fails the update.
        t.ok(&["config", "set", "refuse", "true"]);
        let out = t.up_fails();
        assert!(
            out.contains("before hook \"refuse\" failed")
                && out.contains("refused may not be created today"),
            "{out}"
        );
        assert_eq!(managed(&t.checked_export()), ["flaky", "pet"]);
        t.ok(&["config", "rm", "refuse"]);
        take_log(t);
    });
}

#[test]
fn js_hooks() {
    create_and_delete_hooks(&ProgramTest::new("js_hooks"), "2", |_| {});
}

/// An error hook that keeps answering "retry" gives up after its own limit: the create fails
/// with the provider's error once the hook says no.
#[test]
fn py_error_hook_gives_up() {
    let t = ProgramTest::new("py_hooks");
    t.ok(&["config", "set", "failTimes", "5"]);
    let out = t.up_fails();
    assert!(
        out.contains("failed because its `failOn` input lists \"create\""),
        "{out}"
    );
    assert!(
        out.contains("retrying create due to on-error hook request (2/100)"),
        "{out}"
    );
    let log = take_log(&t);
    assert_eq!(
        log.iter()
            .filter(|l| l.starts_with("on_error flaky"))
            .count(),
        3,
        "{log:?}"
    );
    assert!(!managed(&t.checked_export()).contains(&"flaky".to_string()));
}

/// A component's after-create hook runs once the component registered its outputs and sees
/// them; one that throws leaves its component recorded and fails the update with its message
/// (Pulumi's `ExecuteRegisterResourceOutputs`).
#[test]
fn js_component_hooks() {
    let t = ProgramTest::new("js_component_hooks");
    let state = t.up();
    assert_eq!(managed(&state), ["holder-pet"]);
    let pet = t.outputs()["petId"].as_str().unwrap().to_string();
    assert_eq!(take_log(&t), [format!("after_create holder petId={pet}")]);

    t.ok(&["config", "set", "broken", "true"]);
    let failed = t.up_fails();
    assert!(
        failed.contains("after hook \"after-create-fails\" failed")
            && failed.contains("the holder is not ready"),
        "{failed}"
    );
    let state = t.checked_export();
    let broken = super::harness::live(&state, "broken");
    assert_eq!(broken["type"], "test:index:Holder");
    assert!(broken["outputs"]["petId"].is_string(), "{broken}");
    assert_eq!(managed(&state), ["broken-pet", "holder-pet"]);
    t.destroy();
}
