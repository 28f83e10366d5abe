//! Parameterized packages, as a generated parameterized SDK (Pulumi's `register_package`) uses
//! them: the program registers `gadgets` 2.0.0 as the `widgets` plugin parameterized with a
//! value, and creates a `gadgets:index:Gadget` through that package. The default provider
//! `pulumi:providers:gadgets::default_2_0_0` loads the `widgets` plugin and sends it the value
//! (`Parameterize`) before anything else, on every run: the update, a second update that
//! changes nothing, and a destroy, which reloads the provider from the state alone. An
//! explicit provider of the package (`pulumi.ProviderResource` with the package reference, as
//! a generated SDK's `Provider` makes it) is recorded and parameterized the same way.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::json;

use super::cli_support::sdk::sdk_env;
use super::harness::{ProgramTest, live, stack_outputs};

/// What the `widgets` plugin records in a run in which it is loaded: Parameterize first.
const PARAMETERIZED: &str = "parameterize gadgets 2.0.0 blue";

#[test]
fn py_parameterized_package() {
    let (t, log) = with_widgets_plugin();
    let state = t.up();
    let gadget = live(&state, "g1");
    assert_eq!(gadget["type"], "gadgets:index:Gadget");
    let provider = gadget["provider"].as_str().unwrap();
    assert!(
        provider.contains("::pulumi:providers:gadgets::default_2_0_0::"),
        "the parameterized package's default provider: {provider}"
    );
    assert_eq!(
        gadget["outputs"]["shade"], "blue",
        "the plugin got the value"
    );
    assert_eq!(stack_outputs(&state)["shade"], "blue");
    assert_eq!(
        stack_outputs(&state)["invoked"],
        "blue",
        "an invoke through the package reference reaches the parameterized plugin"
    );
    for provider in ["default_2_0_0", "explicit"] {
        let recorded = live(&state, provider);
        assert_eq!(recorded["type"], "pulumi:providers:gadgets");
        assert_eq!(
            recorded["inputs"],
            json!({
                "__internal": {"name": "widgets", "version": "1.0.0", "parameterization": "Ymx1ZQ=="},
                "version": "2.0.0",
            }),
            "{provider}: the base plugin and the value are recorded as Pulumi records them"
        );
        assert_eq!(recorded["outputs"], json!({"version": "2.0.0"}));
    }
    let g2 = live(&state, "g2");
    assert!(
        g2["provider"]
            .as_str()
            .unwrap()
            .contains("::pulumi:providers:gadgets::explicit::"),
        "{g2}"
    );
    assert_eq!(g2["outputs"]["shade"], "blue");
    let first = runs(&log);
    for name in ["g1", "g2"] {
        let created = format!("create gadgets:index:Gadget {name} preview=False");
        assert!(first.contains(&created), "{first:?}");
    }
    parameterized_before_anything(&first);

    std::fs::remove_file(&log).unwrap();
    t.up_with(&["--expect-no-changes"]);
    let second = runs(&log);
    parameterized_before_anything(&second);
    assert!(
        !second.iter().any(|l| l.starts_with("create")),
        "nothing is created again: {second:?}"
    );

    std::fs::remove_file(&log).unwrap();
    t.destroy();
    let mut destroy = runs(&log);
    parameterized_before_anything(&destroy);
    destroy.sort();
    assert_eq!(
        destroy,
        [
            "delete gadgets:index:Gadget g1",
            "delete gadgets:index:Gadget g2",
            PARAMETERIZED,
            PARAMETERIZED,
        ],
        "the destroy reloads both providers' parameterization from the state"
    );
}

/// Each loaded plugin's first call was Parameterize: the log's lines after each
/// `parameterize` belong to that plugin, and nothing precedes the first one.
fn parameterized_before_anything(lines: &[String]) {
    assert_eq!(
        lines.first().map(String::as_str),
        Some(PARAMETERIZED),
        "{lines:?}"
    );
    for line in lines.iter().filter(|l| l.starts_with("parameterize")) {
        assert_eq!(line, PARAMETERIZED, "every load gets the same value");
    }
}

fn runs(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// The case's project with `pulumi-resource-widgets` (the Python plugin of
/// `programs/py_parameterized_package/provider/`) on the plugin path; returns the file it
/// records its calls in.
fn with_widgets_plugin() -> (ProgramTest, PathBuf) {
    let mut t = ProgramTest::new("py_parameterized_package");
    let provider = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/pulumi_conformance/programs/py_parameterized_package/provider/__main__.py");
    let log = t.env.root.path().join("widgets.log");
    let bin = t.env.root.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let plugin = bin.join("pulumi-resource-widgets");
    std::fs::write(
        &plugin,
        format!(
            "#!/bin/sh\nWIDGETS_LOG={} exec {} -u {} \"$@\"\n",
            log.display(),
            sdk_env().python.display(),
            provider.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&plugin, std::fs::Permissions::from_mode(0o755)).unwrap();
    t.env.plugins = Some(bin);
    (t, log)
}
