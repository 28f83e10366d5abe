//! Pulumi's `gather_plugin/{nodejs,python}` (`TestProviderDownloadURL`, SkipPreview,
//! SkipEmptyPreviewUpdate): a resource on its default provider and an explicit provider each
//! name where their plugin is downloaded from (`pluginDownloadURL`). The exported state
//! (`ExportStateValidator`) records each URL in the provider's `__internal` inputs and nowhere
//! else: not in its outputs, not at the top level, not on the resources. The test provider is a
//! Python plugin in `programs/gather_plugin/testprovider` (standing in for Pulumi's Go one),
//! named by Pulumi.yaml's `plugins: providers:` and copied into the project with its `venv`.

use std::path::Path;

use serde_json::Value;

use super::cli_support::sdk::sdk_env;
use super::harness::{ProgramTest, copy_files, resources, urn};
use super::program_test::Options;

/// `__internal.pluginDownloadURL` of a property map, or "" (the Go test's `getPluginDownloadURL`).
fn download_url(props: &Value) -> &str {
    props["__internal"]["pluginDownloadURL"]
        .as_str()
        .unwrap_or("")
}

fn is_default_provider(r: &Value) -> bool {
    let name = urn(r).rsplit("::").next().unwrap_or("");
    is_provider(r) && (name == "default" || name.starts_with("default_"))
}

fn is_provider(r: &Value) -> bool {
    r["type"]
        .as_str()
        .is_some_and(|t| t.starts_with("pulumi:providers:"))
}

/// The Go test's `validate`, on the exported state.
fn validate(state: &Value) {
    let all = resources(state);
    for r in &all {
        let (inputs, outputs) = (&r["inputs"], &r["outputs"]);
        let expected = if is_default_provider(r) {
            Some("get.example.test")
        } else if is_provider(r) {
            Some("get.pulumi.test/providers")
        } else {
            None
        };
        if let Some(url) = expected {
            assert_eq!(download_url(inputs), url, "inputs of {r:#}");
            assert_eq!(download_url(outputs), "", "outputs of {r:#}");
        }
        assert!(inputs.get("pluginDownloadURL").is_none(), "{r:#}");
        assert!(outputs.get("pluginDownloadURL").is_none(), "{r:#}");
    }
    assert!(all.len() > 1, "more than the stack: {state:#}");
}

fn gather_plugin(lang: &str) {
    let t = ProgramTest::new(&format!("gather_plugin/{lang}"));
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/pulumi_conformance/programs/gather_plugin/testprovider");
    let dir = t.env.project().join("testprovider");
    std::fs::create_dir_all(&dir).unwrap();
    copy_files(&source, &dir);
    std::os::unix::fs::symlink(sdk_env().root.join("venv"), dir.join("venv")).unwrap();
    let opts = Options {
        skip_preview: true,
        skip_empty_preview_update: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| validate(&run.state));
}

#[test]
fn js_gather_plugin() {
    gather_plugin("nodejs");
}

#[test]
fn py_gather_plugin() {
    gather_plugin("python");
}
