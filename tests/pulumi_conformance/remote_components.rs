//! Remote (multi-language) components, as Pulumi's `construct_component` tests run them: a
//! Python program constructs `pairs:index:Pair`, served by a component provider written with
//! the Node.js SDK (`programs/py_remote_component/provider/index.js`, run as the plugin
//! `pulumi-resource-pairs`). The provider registers the component and its children through
//! stepdeck's monitor; the program gets the component's outputs, and a method call on the
//! component (`Call`) is answered by the provider.

use std::os::unix::fs::PermissionsExt;

use super::cli_support::sdk::sdk_env;
use super::harness::{ProgramTest, live, managed, stack_outputs};

#[test]
fn py_remote_component() {
    let mut t = ProgramTest::new("py_remote_component");
    let bin = t.env.root.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let provider = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/pulumi_conformance/programs/py_remote_component/provider/index.js");
    let plugin = bin.join("pulumi-resource-pairs");
    std::fs::write(
        &plugin,
        format!(
            "#!/bin/sh\nNODE_PATH={} exec node {} \"$@\"\n",
            sdk_env().root.join("node_modules").display(),
            provider.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&plugin, std::fs::Permissions::from_mode(0o755)).unwrap();
    t.env.plugins = Some(bin);

    let state = t.up();
    assert_eq!(managed(&state), ["pair-first", "pair-second"]);
    let pair = live(&state, "pair");
    assert_eq!(pair["type"], "pairs:index:Pair");
    assert!(pair["parent"].as_str().unwrap().ends_with("::pyremote-dev"));
    let first = live(&state, "pair-first");
    assert_eq!(
        first["parent"], pair["urn"],
        "the provider's child is the component's"
    );
    assert_eq!(first["inputs"]["prefix"], "p");
    let outputs = stack_outputs(&state);
    assert_eq!(outputs["first"], first["id"]);
    assert_eq!(outputs["second"], live(&state, "pair-second")["id"]);
    assert_eq!(
        outputs["described"], "hello from pair",
        "the method's answer (Call)"
    );
    t.destroy();
}
