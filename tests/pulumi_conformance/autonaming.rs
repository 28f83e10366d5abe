//! Pulumi's `autonaming` (`TestAutonaming`, Quick, `OrderedConfig` by path, testprovider's
//! `Named` played by `sim:index:Named`): the name a resource the program leaves unnamed gets
//! with no autonaming config, with `pulumi:autonaming.mode` verbatim, and with a pattern for
//! its package that reads other config; a name the program gives is kept, and a component
//! type without a module part registers.

use super::harness::{ProgramTest, stack_outputs};
use super::program_test::{Config, Options};

#[test]
fn js_autonaming_unconfigured() {
    autonaming("default-name", Vec::new());
}

#[test]
fn js_autonaming_verbatim() {
    autonaming(
        "test1",
        vec![Config::path("pulumi:autonaming.mode", "verbatim")],
    );
}

#[test]
fn js_autonaming_provider_pattern() {
    autonaming(
        "bar-test1",
        vec![
            Config::path(
                "pulumi:autonaming.providers.sim.pattern",
                "${config.foo}-${name}",
            ),
            Config::path("foo", "bar"),
        ],
    );
}

fn autonaming(auto_name: &str, config: Vec<Config>) {
    let t = ProgramTest::new("js_autonaming");
    let opts = Options {
        quick: true,
        config,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        let outputs = stack_outputs(&run.state);
        assert_eq!(outputs["explicitName"], "explicit-name", "{outputs}");
        assert_eq!(outputs["autoName"], auto_name, "{outputs}");
        let urn = outputs["componentUrn"].as_str().unwrap_or_default();
        assert!(urn.ends_with("::test3"), "{urn}");
    });
}
