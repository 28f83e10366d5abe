//! The provider plugin client against a real Python dynamic provider (`python -m
//! pulumi.dynamic` from the Pulumi SDK), launched by `PluginProviders`.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::rpc_support;
use std::path::Path;
use std::sync::Arc;

use stepdeck::engine::model::property::props;
use stepdeck::engine::provider::{
    CheckRequest, CreateRequest, DeleteRequest, DiffChanges, DiffRequest, ProviderError,
    UpdateRequest,
};
use stepdeck::engine::{EventSink, PropertyMap, PropertyValue, Provider, ProviderFactory, Urn};
use stepdeck::rpc::plugin::PluginContext;
use stepdeck::rpc::plugin::providers::PluginProviders;

/// A factory with no built-in packages, so every package goes to plugins.
struct NoBuiltins;

impl ProviderFactory for NoBuiltins {
    fn load(&self, package: &str, _: Option<&str>) -> Result<Arc<dyn Provider>, ProviderError> {
        Err(ProviderError::Failed(format!(
            "no built-in provider for {package}"
        )))
    }
}

const PROVIDER_PY: &str = r#"
import os, sys
from pulumi.dynamic import ResourceProvider, CheckResult, CheckFailure, CreateResult, DiffResult, UpdateResult
from pulumi.dynamic.dynamic import serialize_provider

MARKER = sys.argv[1]

class Greeter(ResourceProvider):
    def check(self, olds, news):
        failures = [] if "name" in news else [CheckFailure("name", "name is required")]
        return CheckResult(news, failures)

    def create(self, props):
        if props.get("crash"):
            os._exit(3)
        if props.get("fail"):
            raise Exception("greeter refused: " + props["name"])
        return CreateResult("g-" + props["name"], {"message": props["greeting"] + ", " + props["name"], "name": props["name"]})

    def diff(self, id, olds, news):
        replaces = ["name"] if olds.get("name") != news.get("name") else []
        changed = bool(replaces) or olds.get("message") != news["greeting"] + ", " + news["name"]
        return DiffResult(changes=changed, replaces=replaces, delete_before_replace=True)

    def update(self, id, olds, news):
        return UpdateResult({"message": news["greeting"] + ", " + news["name"], "name": news["name"]})

    def delete(self, id, props):
        with open(MARKER, "a") as f:
            f.write(id + "\n")

print(serialize_provider(Greeter()))
"#;

fn serialized_provider(python: &Path, dir: &Path, marker: &Path) -> String {
    let script = dir.join("make_provider.py");
    std::fs::write(&script, PROVIDER_PY).unwrap();
    let out = std::process::Command::new(python)
        .arg(&script)
        .arg(marker)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

struct Fixture {
    provider: Arc<dyn Provider>,
    serialized: String,
    marker: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

fn fixture() -> Fixture {
    let env = rpc_support::sdk_env();
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("deleted.txt");
    let serialized = serialized_provider(&env.python, dir.path(), &marker);
    let ctx = PluginContext::new(dir.path(), "proj", env.python.clone(), EventSink::none());
    let factory = PluginProviders::new(Arc::new(NoBuiltins), ctx);
    let provider = factory.load("pulumi-python", None).unwrap();
    Fixture {
        provider,
        serialized,
        marker,
        _dir: dir,
    }
}

fn urn(name: &str) -> Urn {
    Urn::parse(&format!(
        "urn:pulumi:dev::proj::pulumi-python:dynamic:Resource::{name}"
    ))
    .unwrap()
}

fn inputs(f: &Fixture, extra: &[(&str, PropertyValue)]) -> PropertyMap {
    let mut m = props([
        (
            "__provider",
            PropertyValue::Secret(Box::new(f.serialized.clone().into())),
        ),
        ("greeting", "hello".into()),
        ("name", "world".into()),
    ]);
    m.extend(extra.iter().map(|(k, v)| (k.to_string(), v.clone())));
    m
}

#[tokio::test(flavor = "multi_thread")]
async fn python_dynamic_provider_lifecycle() {
    let f = fixture();
    let p = &f.provider;
    let cfg = p.configure(&PropertyMap::new()).await.unwrap();
    assert!(
        !cfg.accept_secrets,
        "the Python dynamic provider does not accept secrets"
    );

    let news = inputs(&f, &[]);
    let checked = p
        .check(CheckRequest {
            urn: urn("g1"),
            olds: PropertyMap::new(),
            news: news.clone(),
            random_seed: vec![1; 32],
        })
        .await
        .unwrap();
    assert!(checked.failures.is_empty());
    assert!(checked.inputs["__provider"].is_secret(), "re-marked secret");
    assert_eq!(checked.inputs["name"], "world".into());

    let mut missing = news.clone();
    missing.remove("name");
    let bad = p
        .check(CheckRequest {
            urn: urn("g1"),
            olds: PropertyMap::new(),
            news: missing,
            random_seed: Vec::new(),
        })
        .await
        .unwrap();
    assert_eq!(bad.failures[0].property, "name");

    let created = p
        .create(CreateRequest {
            urn: urn("g1"),
            inputs: checked.inputs.clone(),
            timeout: 0.0,
            preview: false,
        })
        .await
        .unwrap();
    assert_eq!(created.id, "g-world");
    assert_eq!(created.outputs["message"], "hello, world".into());
    assert!(created.outputs["__provider"].is_secret());

    let changed = inputs(&f, &[("greeting", "hi".into())]);
    let diff = p
        .diff(DiffRequest {
            urn: urn("g1"),
            id: created.id.clone(),
            old_inputs: checked.inputs.clone(),
            old_outputs: created.outputs.clone(),
            new_inputs: changed.clone(),
            ignore_changes: Vec::new(),
        })
        .await
        .unwrap();
    assert_eq!(diff.changes, DiffChanges::Some);
    assert!(!diff.replaces());

    let updated = p
        .update(UpdateRequest {
            urn: urn("g1"),
            id: created.id.clone(),
            old_inputs: checked.inputs.clone(),
            old_outputs: created.outputs.clone(),
            new_inputs: changed.clone(),
            timeout: 0.0,
            ignore_changes: Vec::new(),
            preview: false,
        })
        .await
        .unwrap();
    assert_eq!(updated["message"], "hi, world".into());

    let renamed = inputs(&f, &[("name", "moon".into())]);
    let diff = p
        .diff(DiffRequest {
            urn: urn("g1"),
            id: created.id.clone(),
            old_inputs: changed,
            old_outputs: updated.clone(),
            new_inputs: renamed,
            ignore_changes: Vec::new(),
        })
        .await
        .unwrap();
    assert_eq!(diff.replace_keys, vec!["name".to_string()]);
    assert!(diff.delete_before_replace);

    p.delete(DeleteRequest {
        urn: urn("g1"),
        id: created.id.clone(),
        inputs: checked.inputs.clone(),
        outputs: updated,
        timeout: 0.0,
    })
    .await
    .unwrap();
    assert_eq!(std::fs::read_to_string(&f.marker).unwrap(), "g-world\n");

    // The provider does not support preview: preview creates predict the inputs locally.
    let predicted = p
        .create(CreateRequest {
            urn: urn("g2"),
            inputs: news.clone(),
            timeout: 0.0,
            preview: true,
        })
        .await
        .unwrap();
    assert_eq!(predicted.id, "");
    assert_eq!(predicted.outputs, news);
    p.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn provider_errors_carry_the_providers_message() {
    let f = fixture();
    f.provider.configure(&PropertyMap::new()).await.unwrap();
    let err = f
        .provider
        .create(CreateRequest {
            urn: urn("bad"),
            inputs: inputs(&f, &[("fail", true.into())]),
            timeout: 0.0,
            preview: false,
        })
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("greeter refused: world"),
        "unexpected error: {err}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_plugin_that_dies_mid_call_is_named_in_the_error() {
    let f = fixture();
    f.provider.configure(&PropertyMap::new()).await.unwrap();
    let err = f
        .provider
        .create(CreateRequest {
            urn: urn("boom"),
            inputs: inputs(&f, &[("crash", true.into())]),
            timeout: 0.0,
            preview: false,
        })
        .await
        .unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("plugin pulumi-resource-pulumi-python exited unexpectedly during Create"),
        "unexpected error: {msg}"
    );
    assert!(msg.contains("exit status: 3"), "unexpected error: {msg}");
}

#[test]
fn a_missing_plugin_is_a_clear_load_error() {
    let env = rpc_support::sdk_env();
    let dir = tempfile::tempdir().unwrap();
    let mut ctx = PluginContext::new(dir.path(), "proj", env.python, EventSink::none());
    ctx.plugin_dirs = vec![dir.path().to_path_buf()];
    let factory = PluginProviders::new(Arc::new(NoBuiltins), ctx);
    let err = factory.load("nosuchpkg", Some("1.2.3")).err().unwrap();
    let msg = err.to_string();
    assert!(
        msg.contains("pulumi-resource-nosuchpkg is not on PATH"),
        "{msg}"
    );
    assert!(msg.contains("resource-nosuchpkg-v1.2.3"), "{msg}");
}

const NODE_PROVIDER_JS: &str = r#"
const sc = require("@pulumi/pulumi/runtime/closure/serializeClosure");
const provider = {
    async create(inputs) {
        return { id: "n-" + inputs.name, outs: { message: "hi, " + inputs.name } };
    },
};
sc.serializeFunction(() => provider, { allowSecrets: true }).then((sf) => process.stdout.write(sf.text));
"#;

/// A directory with the SDK's node_modules and `js` (a script printing a serialized provider)
/// run in it; returns the directory and what the script printed.
fn serialized_node_provider(js: &str) -> (tempfile::TempDir, String) {
    let env = rpc_support::sdk_env();
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(
        env.root.join("node_modules"),
        dir.path().join("node_modules"),
    )
    .unwrap();
    std::fs::write(dir.path().join("make_provider.js"), js).unwrap();
    let out = std::process::Command::new("node")
        .arg("make_provider.js")
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (dir, String::from_utf8(out.stdout).unwrap())
}

#[tokio::test(flavor = "multi_thread")]
async fn node_dynamic_provider_creates() {
    let env = rpc_support::sdk_env();
    let (dir, serialized) = serialized_node_provider(NODE_PROVIDER_JS);
    let ctx = PluginContext::new(dir.path(), "proj", env.python, EventSink::none());
    let factory = PluginProviders::new(Arc::new(NoBuiltins), ctx);
    let p = factory.load("pulumi-nodejs", None).unwrap();
    let cfg = p.configure(&PropertyMap::new()).await.unwrap();
    assert!(!cfg.accept_secrets);
    let urn = Urn::parse("urn:pulumi:dev::proj::pulumi-nodejs:dynamic:Resource::n1").unwrap();
    let inputs = props([
        ("__provider", PropertyValue::String(serialized)),
        ("name", "node".into()),
    ]);
    let created = p
        .create(CreateRequest {
            urn,
            inputs,
            timeout: 0.0,
            preview: false,
        })
        .await
        .unwrap();
    assert_eq!(created.id, "n-node");
    assert_eq!(created.outputs["message"], "hi, node".into());
}

const NODE_CONFIG_PROVIDER_JS: &str = r#"
const sc = require("@pulumi/pulumi/runtime/closure/serializeClosure");
const provider = {
    async create() {
        const config = JSON.parse(process.env.PULUMI_CONFIG);
        return { id: config.id, outs: { seen: Object.keys(config).sort().join(",") } };
    },
};
sc.serializeFunction(() => provider, { allowSecrets: true }).then((sf) => process.stdout.write(sf.text));
"#;

/// Pulumi's plugin host hands each provider plugin its package's config in `PULUMI_CONFIG`
/// (`TestPulumiConfig` reads `pulumi-nodejs:id` there): the keys without their namespace, and
/// no other package's.
#[tokio::test(flavor = "multi_thread")]
async fn node_dynamic_provider_sees_its_package_config_in_the_environment() {
    let env = rpc_support::sdk_env();
    let (dir, serialized) = serialized_node_provider(NODE_CONFIG_PROVIDER_JS);
    let mut ctx = PluginContext::new(dir.path(), "proj", env.python, EventSink::none());
    ctx.config = [
        ("pulumi-nodejs:id", "testing123"),
        ("pulumi-nodejs:region", "north"),
        ("proj:id", "not this one"),
        ("pulumi-python:id", "nor this"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let factory = PluginProviders::new(Arc::new(NoBuiltins), ctx);
    let p = factory.load("pulumi-nodejs", None).unwrap();
    p.configure(&PropertyMap::new()).await.unwrap();
    let created = p
        .create(CreateRequest {
            urn: Urn::parse("urn:pulumi:dev::proj::pulumi-nodejs:dynamic:Resource::c").unwrap(),
            inputs: props([("__provider", PropertyValue::String(serialized))]),
            timeout: 0.0,
            preview: false,
        })
        .await
        .unwrap();
    assert_eq!(created.id, "testing123");
    assert_eq!(created.outputs["seen"], "id,region".into());
}
