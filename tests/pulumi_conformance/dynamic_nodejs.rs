//! Pulumi's `tests/integration/dynamic/` Node.js programs (TypeScript, as Pulumi's are): a
//! dynamic provider configured from the stack's config, one reading `PULUMI_CONFIG`, one whose
//! create throws, and one whose serialized closure must not shadow `exports`.

use serde_json::Value;

use super::harness::{ProgramTest, stack_outputs};
use super::program_test::{Config, Options};

/// The `resOpFailedEvent`s among an update's events, by their step's operation.
fn failed_ops(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| e.get("resOpFailedEvent"))
        .map(|f| f["metadata"]["op"].as_str().unwrap_or("").to_string())
        .collect()
}

/// `TestNodejsDynamicProviderConfig`: secret config (the project's `password`, another
/// namespace's `colors:banana`) reaches the provider's `configure()`.
#[test]
fn ts_dynamic_config() {
    super::dynamic::secret_config_reaches_configure("ts_dynamic_config");
}

/// `TestErrorCreateDynamicNode` (ExpectFailure): the update fails, and its events say the
/// resource's create failed.
#[test]
fn ts_dynamic_error_create() {
    let t = ProgramTest::new("ts_dynamic_error_create");
    let opts = Options {
        expect_failure: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        assert_eq!(failed_ops(&run.events), ["create"], "{}", run.output);
        assert!(run.output.contains("boom!"), "{}", run.output);
    });
}

/// `TestPulumiConfig`: the provider process sees the stack's config in `PULUMI_CONFIG`, so the
/// id it takes from `pulumi-nodejs:id` is the one set.
#[test]
fn ts_dynamic_pulumi_config() {
    let t = ProgramTest::new("ts_dynamic_pulumi_config");
    let opts = Options {
        config: vec![Config::plain("pulumi-nodejs:id", "testing123")],
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        let outputs = stack_outputs(&run.state);
        assert_eq!(outputs.as_object().map(|o| o.len()), Some(1), "{outputs:#}");
        assert_eq!(outputs["rid"], "testing123", "{outputs:#}");
    });
}

/// `TestNodeJSReservedIdentifierShadowing`: the provider serialized from a module with named
/// imports loads and creates; no step fails.
#[test]
fn ts_dynamic_reserved_identifier_shadowing() {
    let t = ProgramTest::new("ts_dynamic_reserved_identifier_shadowing");
    t.lifecycle(&Options::default(), |run| {
        assert!(failed_ops(&run.events).is_empty(), "{}", run.output);
    });
}
