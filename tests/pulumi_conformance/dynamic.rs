//! Pulumi's `tests/integration/dynamic/` Python programs: dynamic providers through a whole
//! ProgramTest, with an unchanged edit that must keep the created value, the serialized
//! provider kept secret (or not, on request), resource type names and provider config.

use std::cell::RefCell;

use serde_json::Value;

use super::config::is_secret;
use super::harness::{ProgramTest, live, stack_outputs};
use super::program_test::{Config, Edit, Options, Run};

/// The lifecycle of `TestDynamicPython` and `TestDynamicPythonDisableSerializationAsSecret`:
/// the unchanged edit keeps `random_val`, and only debug diagnostics are seen; `check_provider`
/// judges the recorded `__provider` input and output.
fn random_after_no_change(case: &str, check_provider: impl Fn(&Value)) {
    let t = ProgramTest::new(case);
    let opts = Options {
        edits: vec![Edit {
            dir: "step1",
            ..Edit::default()
        }],
        ..Options::default()
    };
    let first = RefCell::new(Value::Null);
    t.lifecycle(&opts, |run: &Run| {
        let val = stack_outputs(&run.state)["random_val"].clone();
        assert!(val.is_string(), "{:#}", run.state);
        if run.edit.is_none() {
            *first.borrow_mut() = val;
            return;
        }
        assert_eq!(val, *first.borrow());
        let random = live(&run.state, "foo");
        check_provider(&random["inputs"]["__provider"]);
        check_provider(&random["outputs"]["__provider"]);
        for e in &run.events {
            let d = &e["diagnosticEvent"];
            if !d.is_null() {
                assert_eq!(d["severity"], "debug", "unexpected diagnostic {d}");
            }
        }
    });
}

/// `TestDynamicPython`: the provider is serialized as a secret (Pulumi's issue 8265 workaround).
#[test]
fn py_dynamic() {
    random_after_no_change("py_dynamic", |p| assert!(is_secret(p), "{p}"));
}

/// `TestDynamicPythonDisableSerializationAsSecret`: `serialize_as_secret_always = False` and
/// no secret captured, so `__provider` stays a plain string.
#[test]
fn py_dynamic_no_secret_serialization() {
    random_after_no_change("py_dynamic_no_secret_serialization", |p| {
        assert!(p.is_string(), "{p}");
    });
}

/// `TestCustomResourceTypeNameDynamicPython`: the class's `module` and `name` make the type.
#[test]
fn py_dynamic_resource_type_name() {
    let t = ProgramTest::new("py_dynamic_resource_type_name");
    t.lifecycle(&Options::default(), |run| {
        let urn = stack_outputs(&run.state)["urn"]
            .as_str()
            .unwrap()
            .to_string();
        let ty = urn.split("::").nth(2).unwrap();
        assert_eq!(ty, "pulumi-python:dynamic/custom-provider:CustomResource");
    });
}

/// `TestDynamicProviderConfig` (`python-config-separate-module`): secret config reaches the
/// `configure()` of a provider defined in another module.
#[test]
fn py_dynamic_config_separate_module() {
    secret_config_reaches_configure("py_dynamic_config_separate_module");
}

/// The project's secret `password` and another namespace's secret `colors:banana` reach the
/// dynamic provider's `configure()`, which answers with them as outputs.
pub(super) fn secret_config_reaches_configure(program: &str) {
    let t = ProgramTest::new(program);
    let secret = |key, value| Config {
        secret: true,
        ..Config::plain(key, value)
    };
    let opts = Options {
        config: vec![
            secret("password", "s3cret"),
            secret("colors:banana", "yellow"),
        ],
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        let outputs = stack_outputs(&run.state);
        assert_eq!(outputs["authenticated"], "200", "{outputs:#}");
        assert_eq!(outputs["color"], "yellow", "{outputs:#}");
    });
}
