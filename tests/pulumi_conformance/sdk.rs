//! Programs of the real Python, Node.js and TypeScript SDKs: stack outputs and program errors,
//! config, dynamic providers (config, secrets, serialization, type names, errors), components,
//! parenting, dependencies and aliases of components, as Pulumi's tests for those SDKs run them.

use serde_json::json;

use super::config::is_secret;
use super::harness::{ProgramTest, copies, live, managed, resources, stack_outputs, urn};
use super::program_test::Options;

/// Pulumi's `TestStackOutputsPython`: one resource, the stack, with the two outputs.
#[test]
fn py_stack_outputs() {
    let t = ProgramTest::new("py_stack_outputs");
    let state = t.up();
    assert_eq!(resources(&state).len(), 1);
    assert_eq!(stack_outputs(&state), json!({"xyz": "ABC", "foo": 42}));
    t.destroy();
}

/// Pulumi's `TestConfigBasicPython`: plain, secret and path-set values (some secret inside
/// lists and objects) reach the program as written; the program fails on any mismatch.
#[test]
fn py_config_basic() {
    let t = ProgramTest::new("py_config_basic");
    t.ok(&["config", "set", "plainValue", "a plain value"]);
    t.ok(&["config", "set", "--secret", "secretValue", "a secret value"]);
    for (key, value, secret) in [
        ("outer.inner", "value", false),
        ("names[0]", "a", false),
        ("names[1]", "b", false),
        ("names[2]", "c", false),
        ("names[3]", "hidden name", true),
        ("servers[0].port", "80", false),
        ("servers[0].host", "example", false),
        ("flags.b[0].c", "true", false),
        ("flags.b[1].c", "false", false),
        ("tokens[0]", "shh", true),
    ] {
        let mut args = vec!["config", "set", "--path"];
        if secret {
            args.push("--secret");
        }
        args.extend([key, value]);
        t.ok(&args);
    }
    let state = t.up();
    assert!(is_secret(&stack_outputs(&state)["names"]));
    assert_eq!(t.outputs()["names"], json!(["a", "b", "c", "hidden name"]));
    assert!(!state.to_string().contains("hidden name"));
    t.destroy();
}

/// Pulumi's dynamic provider config tests: `configure()` reads the stack's config.
#[test]
fn py_dynamic_config() {
    let t = ProgramTest::new("py_dynamic_config");
    t.ok(&["config", "set", "prefix", "pre-"]);
    t.up();
    assert_eq!(t.outputs()["full"], "pre-thing");
    t.destroy();
}

/// Pulumi's dynamic provider secrets tests: a secret input keeps its outputs secret in the
/// state; the plain text appears nowhere in it.
#[test]
fn py_dynamic_secrets() {
    let t = ProgramTest::new("py_dynamic_secrets");
    let state = t.up();
    let entry = live(&state, "entry");
    assert!(is_secret(&entry["inputs"]["password"]), "{entry:#}");
    assert!(is_secret(&entry["outputs"]["password"]));
    assert!(!state.to_string().contains("s3cr3t-value"));
    assert_eq!(t.outputs()["password"], "s3cr3t-value");
    assert_eq!(t.outputs()["length"], 12);
    t.destroy();
}

/// A dynamic provider's error fails the update with its message and records nothing; the
/// fixed program then creates the resource.
#[test]
fn py_dynamic_errors() {
    let t = ProgramTest::new("py_dynamic_errors");
    let out = t.up_fails();
    assert!(out.contains("the widget factory is closed today"), "{out}");
    assert!(copies(&t.checked_export(), "widget").is_empty());
    t.step("step1");
    assert_eq!(t.outputs()["made"], true);
    t.destroy();
}

/// Pulumi's `aliases/python/rename_component_and_child`: the renamed component and child keep
/// their identity (the random pet keeps its value).
#[test]
fn py_rename_component_and_child() {
    let t = ProgramTest::new("py_rename_component_and_child");
    t.up();
    let pet = t.outputs()["pet"].clone();
    let state = t.step("step1");
    assert_eq!(t.outputs()["pet"], pet, "not recreated");
    let child = live(&state, "second-pet");
    assert_eq!(child["parent"].as_str(), Some(urn(&live(&state, "second"))));
    assert!(copies(&state, "first").is_empty() && copies(&state, "first-pet").is_empty());
    t.destroy();
}

/// Pulumi's `TestStackOutputsProgramErrorNodeJS`: a program that throws leaves the outputs.
#[test]
fn js_stack_outputs_program_error() {
    let t = ProgramTest::new("js_stack_outputs_program_error");
    t.up();
    let out = t.step_fails("step1");
    assert!(out.contains("the program stops here"), "{out}");
    assert_eq!(
        stack_outputs(&t.checked_export()),
        json!({"xyz": "ABC", "foo": 42})
    );
    t.destroy();
}

/// Pulumi's `TestStackOutputsResourceErrorNodeJS`, step 2: a resource fails before the stack
/// registers its outputs, so they remain as they were.
#[test]
fn js_stack_outputs_resource_error() {
    let t = ProgramTest::new("js_stack_outputs_resource_error");
    t.up();
    let out = t.step_fails("step1");
    assert!(out.contains("this resource cannot be made"), "{out}");
    let state = t.checked_export();
    assert_eq!(stack_outputs(&state), json!({"xyz": "ABC", "foo": 42}));
    assert!(copies(&state, "doomed").is_empty());
    t.destroy();
}

/// Pulumi's `TestStackParenting`: a and f under the stack, b and c under a, d and e under c,
/// g under f; the default provider has no parent.
#[test]
fn js_stack_parenting() {
    let t = ProgramTest::new("js_stack_parenting");
    let state = t.up();
    let all = resources(&state);
    assert_eq!(all.len(), 8, "the stack and seven components: {state:#}");
    let stack = urn(&all[0]).to_string();
    assert_eq!(all[0]["type"], "pulumi:pulumi:Stack");
    let parent = |n: &str| live(&state, n)["parent"].as_str().unwrap_or("").to_string();
    let urn_of = |n: &str| urn(&live(&state, n)).to_string();
    assert_eq!(parent("a"), stack);
    assert_eq!(parent("f"), stack);
    assert_eq!(parent("b"), urn_of("a"));
    assert_eq!(parent("c"), urn_of("a"));
    assert_eq!(parent("d"), urn_of("c"));
    assert_eq!(parent("e"), urn_of("c"));
    assert_eq!(parent("g"), urn_of("f"));
    t.destroy();
}

/// Pulumi's dynamic provider serialization and type name tests: captured values and helpers
/// run in the provider, and the resource's type carries the module and type given.
#[test]
fn js_dynamic_serialization_and_type_name() {
    let t = ProgramTest::new("js_dynamic_serialization");
    let state = t.up();
    assert_eq!(t.outputs()["text"], "HELLO WORLD HELLO WORLD");
    assert_eq!(
        live(&state, "g")["type"],
        "pulumi-nodejs:dynamic/greeter:Greeting"
    );
    t.destroy();
}

/// Pulumi's `aliases/nodejs/retype_component`: a component retyped with a type alias keeps
/// itself and its child.
#[test]
fn js_retype_component() {
    let t = ProgramTest::new("js_retype_component");
    t.up();
    let pet = t.outputs()["pet"].clone();
    let state = t.step("step1");
    assert_eq!(t.outputs()["pet"], pet);
    assert_eq!(live(&state, "box")["type"], "conf:index:NewBox");
    assert!(
        urn(&live(&state, "inner"))
            .contains("conf:index:NewBox$random:index/randomPet:RandomPet::inner")
    );
    t.destroy();
}

/// Pulumi's `TestStackDependencyGraph`, in TypeScript: first depends on nothing, second on first.
#[test]
fn ts_stack_dependencies() {
    let t = ProgramTest::new("ts_stack_dependencies");
    let state = t.up();
    assert_eq!(
        live(&state, "first")["dependencies"]
            .as_array()
            .map_or(0, Vec::len),
        0
    );
    let deps = live(&state, "second")["dependencies"].clone();
    assert_eq!(deps, json!([urn(&live(&state, "first"))]));
    assert_eq!(t.outputs()["last"], 3);
    t.destroy();
}

/// A TypeScript component: children parented to it, its registered outputs recorded.
#[test]
fn ts_component() {
    let t = ProgramTest::new("ts_component");
    let state = t.up();
    let pair = live(&state, "pair");
    assert_eq!(pair["custom"], false);
    for child in ["pair-left", "pair-right"] {
        assert_eq!(live(&state, child)["parent"].as_str(), Some(urn(&pair)));
    }
    assert_eq!(managed(&state), ["pair-left", "pair-right"]);
    let words = t.outputs()["words"].as_str().unwrap().to_string();
    assert_eq!(pair["outputs"]["words"], words.as_str());
    t.destroy();
}

/// Pulumi's `recreate_resource_check` (`TestResourceRecreateCheck`): a resource deleted early by
/// a delete-before-replace cascade and registered again in the same update is checked without
/// the deleted copy's inputs (the provider fails Check when it is handed them).
#[test]
fn ts_recreate_resource_check() {
    let t = ProgramTest::new("ts_recreate_resource_check");
    let s0 = t.up();
    let s1 = t.step("step1");
    for name in ["upstream", "downstream"] {
        assert_ne!(
            live(&s1, name)["id"],
            live(&s0, name)["id"],
            "{name} is replaced"
        );
        assert_eq!(copies(&s1, name).len(), 1, "{name}: one copy left");
    }
    assert_eq!(t.outputs()["seen"], 31);
    t.destroy();
}

/// A provider's configuration in destroy and refresh, as Pulumi's: a plain run configures it from
/// the state (the program is not run), a `--run-program` run from what the program gives now.
/// The dynamic provider reports the `prefix` config it got: a read as `seen`, a delete in a log.
#[test]
fn py_dynamic_config_run_program() {
    let t = ProgramTest::new("py_dynamic_config_run_program");
    let log = t.env.root.path().join("deletes.log");
    let deleted = || std::fs::read_to_string(&log).unwrap_or_default();
    let seen = |t: &ProgramTest| live(&t.checked_export(), "thing")["outputs"]["seen"].clone();
    t.ok(&["config", "set", "log", log.to_str().unwrap()]);
    t.ok(&["config", "set", "prefix", "first-"]);
    t.up();
    t.ok(&["config", "set", "prefix", "second-"]);
    t.ok(&["refresh", "--yes", "--non-interactive"]);
    assert_eq!(
        seen(&t),
        "first-",
        "a plain refresh uses the recorded config"
    );
    t.ok(&["refresh", "--yes", "--non-interactive", "--run-program"]);
    assert_eq!(
        seen(&t),
        "second-",
        "refresh --run-program uses the program's"
    );
    t.ok(&["config", "set", "prefix", "third-"]);
    t.ok(&["destroy", "--yes", "--non-interactive"]);
    assert_eq!(
        deleted(),
        "second-\n",
        "a plain destroy uses the recorded config"
    );
    t.up();
    t.ok(&["config", "set", "prefix", "fourth-"]);
    t.ok(&["destroy", "--yes", "--non-interactive", "--run-program"]);
    assert_eq!(
        deleted(),
        "second-\nfourth-\n",
        "destroy --run-program uses the program's"
    );
    assert!(
        resources(&t.checked_export()).is_empty(),
        "the provider the program registered is deleted too"
    );
}

/// Pulumi's `TestPythonStackTruncate` (cases `normal`, `main_specified`: `main: foo.py`, and
/// `main_dir_specified`: `main: bar/`): an unhandled exception is reported from the program's
/// own frames down, the module-level call and `foo`, without the launcher's or the SDK's.
#[test]
fn py_stack_truncate() {
    for case in ["normal", "main_specified", "main_dir_specified"] {
        let t = ProgramTest::new(&format!("py_stack_truncate_{case}"));
        let log = t.env.root.path().join("events.json");
        let out = t.env.run(&[
            "up",
            "--stack",
            "dev",
            "--yes",
            "--non-interactive",
            "--event-log",
            log.to_str().unwrap(),
        ]);
        assert!(!out.status.success(), "{case}: the program raises");
        let text = std::fs::read_to_string(&log).unwrap();
        let traceback = text
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter_map(|e| e["diagnosticEvent"]["message"].as_str().map(str::to_string))
            .rfind(|m| m.contains("Traceback") && m.contains("  File "))
            .unwrap_or_else(|| panic!("{case}: no traceback in the log:\n{text}"));
        assert_eq!(
            traceback.matches("  File ").count(),
            2,
            "{case}: the program's two frames only:\n{traceback}"
        );
        assert!(traceback.contains("foobar"), "{case}:\n{traceback}");
    }
}

/// Pulumi's `TestEmptyPython` and `TestEmptyNodeJS` (Quick): a program that registers nothing
/// goes through the lifecycle with only its stack.
#[test]
fn py_empty() {
    empty("py_empty");
}

/// See [`py_empty`].
#[test]
fn js_empty() {
    empty("js_empty");
}

fn empty(case: &str) {
    let t = ProgramTest::new(case);
    let opts = Options {
        quick: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        let all = resources(&run.state);
        assert_eq!(all.len(), 1, "{:#}", run.state);
        assert_eq!(all[0]["type"], "pulumi:pulumi:Stack");
    });
}

/// Pulumi's `TestResourceWithSecretSerializationPython` (Quick): resources exported whole are
/// maps of their outputs; a property made secret by `Output.secret` or by
/// `additional_secret_outputs` is a secret there, the other one plain.
#[test]
fn py_secret_outputs() {
    secret_outputs("py_secret_outputs");
}

/// Pulumi's `TestResourceWithSecretSerializationNodejs`: see [`py_secret_outputs`].
#[test]
fn js_secret_outputs() {
    secret_outputs("js_secret_outputs");
}

fn secret_outputs(case: &str) {
    let t = ProgramTest::new(case);
    let opts = Options {
        quick: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        let out = stack_outputs(&run.state);
        assert_eq!(out["plain"]["motto"], "nothing to hide here", "{out}");
        assert!(is_secret(&out["wrapped"]["motto"]), "{out}");
        assert!(is_secret(&out["listed"]["motto"]), "{out}");
    });
}

/// Pulumi's `TestDynamicPythonReadInputs` (Quick): a dynamic provider's `read` returns inputs;
/// the refresh (`--expect-no-changes`) finds nothing changed and the inputs keep `__provider`.
#[test]
fn py_dynamic_read_inputs() {
    dynamic_read_inputs("py_dynamic_read_inputs");
}

/// Pulumi's `TestNodejsDynamicProviderReadInputs`: see [`py_dynamic_read_inputs`].
#[test]
fn js_dynamic_read_inputs() {
    dynamic_read_inputs("js_dynamic_read_inputs");
}

fn dynamic_read_inputs(case: &str) {
    let t = ProgramTest::new(case);
    let opts = Options {
        quick: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        assert_eq!(stack_outputs(&run.state)["kept_id"], "kept-1");
        let kept = live(&run.state, "kept");
        assert!(kept["inputs"].get("__provider").is_some(), "{kept}");
        assert_eq!(kept["inputs"]["note"], "remember me");
    });
}

/// Pulumi's `TestGetResourcePython` (full lifecycle, `AllowEmptyPreviewChanges`): a resource
/// looked up by URN (`ResourceOptions(urn=…)`, the `getResource` invoke) has its outputs, a
/// secret one still secret.
#[test]
fn py_get_resource() {
    let t = ProgramTest::new("py_get_resource");
    let opts = Options {
        allow_empty_preview_changes: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        assert_eq!(stack_outputs(&run.state)["lookup"], "looked up");
    });
}

/// Pulumi's `TestPartialValuesPython` (full lifecycle, `AllowEmptyPreviewChanges`): an input
/// unknown in the preview leaves only the outputs it reaches unknown, inside objects and lists;
/// in the update everything is known.
#[test]
fn py_partial_values() {
    let t = ProgramTest::new("py_partial_values");
    let opts = Options {
        allow_empty_preview_changes: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        assert_eq!(stack_outputs(&run.state)["knowns"], "checked");
        assert!(run.output.contains("knowns as expected"), "{}", run.output);
    });
}

/// Pulumi's `TestDuplicateOutputPython` (full lifecycle): one output exported under two names.
#[test]
fn py_duplicate_output() {
    let t = ProgramTest::new("py_duplicate_output");
    t.lifecycle(&Options::default(), |run| {
        let out = stack_outputs(&run.state);
        assert_eq!(out["first"], json!([1, 2]), "{out}");
        assert_eq!(out["again"], json!([1, 2]), "{out}");
    });
}

/// Pulumi's `TestOrganization` (Quick): a program sees an organization (a DIY backend's is
/// `organization`).
#[test]
fn py_organization() {
    let t = ProgramTest::new("py_organization");
    let opts = Options {
        quick: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        assert_eq!(stack_outputs(&run.state)["org"], "organization");
    });
}

/// Pulumi's `TestMissingMainDoesNotEmitStackTrace` (Quick, `ExpectFailure`): a Python project
/// without a program fails with no Python traceback.
#[test]
fn py_missing_main() {
    let t = ProgramTest::new("py_missing_main");
    let opts = Options {
        quick: true,
        expect_failure: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        assert!(!run.output.contains("Traceback"), "{}", run.output);
        assert!(
            run.output
                .contains("unable to find main python program `__main__.py` in `"),
            "{}",
            run.output
        );
    });
}
