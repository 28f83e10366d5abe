//! Real Python and Node SDK programs run by `SdkProgram` against our resource monitor service,
//! with a harness answering the engine's `SourceEvent`s in place of the deployment loop.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tokio::sync::mpsc;

use super::language_host::{BAIL_MESSAGE, NodeEngine, NodeOptions, Runtime, SdkProgram};
use crate::engine::program::source::{DeploymentInfo, SourceEvent};
use crate::engine::provider::ProviderError;
use crate::engine::{
    EngineEvent, EventSink, Goal, Program, ProgramError, PropertyMap, PropertyValue, Provider,
    ProviderFactory, ProviderRegistry, RegisterStatus, Registered, ResourceMonitor, Severity, Urn,
};

const RANDOM_STRING: &str = "random:index/randomString:RandomString";

struct NoProviders;

impl ProviderFactory for NoProviders {
    fn load(&self, package: &str, _: Option<&str>) -> Result<Arc<dyn Provider>, ProviderError> {
        Err(ProviderError::Failed(format!(
            "no provider for {package} in this test"
        )))
    }
}

/// What the program sent, in arrival order.
#[derive(Default)]
struct Recorded {
    goals: Vec<Goal>,
    outputs: BTreeMap<Urn, PropertyMap>,
}

fn sdk_env() -> PathBuf {
    let root = std::env::var_os("STEPDECK_SDK_ENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/sdk-env"));
    assert!(
        root.join("venv/bin/python").exists() && root.join("node_modules/@pulumi/pulumi").exists(),
        "the Pulumi SDKs are not installed in {}: run .ci/install-sdks.sh (or set STEPDECK_SDK_ENV)",
        root.display()
    );
    root
}

/// A monitor whose registrations are answered like a random provider would: custom resources
/// get an id and `result` (unknown in preview).
fn harness(dry_run: bool, events: EventSink) -> (ResourceMonitor, Arc<Mutex<Recorded>>) {
    harness_failing(dry_run, events, &[])
}

/// Like `harness`, but the resources named in `fail` report a failed step (continue-on-error).
fn harness_failing(
    dry_run: bool,
    events: EventSink,
    fail: &'static [&'static str],
) -> (ResourceMonitor, Arc<Mutex<Recorded>>) {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let info = Arc::new(DeploymentInfo {
        stack: "dev".into(),
        project: "proj".into(),
        dry_run,
        parallel: 4,
        config: [
            ("proj:greeting".to_string(), "hello".to_string()),
            ("proj:secretThing".to_string(), "s3cr3t".to_string()),
        ]
        .into_iter()
        .collect(),
        secret_keys: vec!["proj:secretThing".into()],
    });
    let registry = Arc::new(ProviderRegistry::new(Arc::new(NoProviders), &[]));
    let monitor = ResourceMonitor::new(tx, info, registry, events);
    let recorded = Arc::new(Mutex::new(Recorded::default()));
    let rec = recorded.clone();
    tokio::spawn(async move {
        while let Some(ev) = rx.recv().await {
            match ev {
                SourceEvent::Register { goal, reply } => {
                    let urn =
                        Urn::new("dev", "proj", goal.parent.as_ref(), &goal.type_, &goal.name);
                    let mut outputs = goal.properties.clone();
                    let mut id = goal.custom.then(|| format!("id-{}", goal.name));
                    if goal.type_ == RANDOM_STRING {
                        let result = if dry_run {
                            id = None;
                            PropertyValue::Unknown
                        } else {
                            PropertyValue::String(format!("rand-{}", goal.name))
                        };
                        outputs.insert("result".into(), result);
                    }
                    let status = if fail.contains(&goal.name.as_str()) {
                        outputs.clear();
                        id = None;
                        RegisterStatus::Failed
                    } else {
                        RegisterStatus::Success
                    };
                    rec.lock().unwrap().goals.push(*goal);
                    let _ = reply.send(Ok(Registered {
                        urn,
                        id,
                        outputs,
                        status,
                        unknown: false,
                    }));
                }
                SourceEvent::RegisterOutputs {
                    urn,
                    outputs,
                    reply,
                } => {
                    rec.lock().unwrap().outputs.insert(urn, outputs);
                    let _ = reply.send(Ok(()));
                }
                SourceEvent::Read { goal, reply } => {
                    // Reads are not part of these tests: the recorder holds no resources.
                    let _ = reply.send(Err(crate::engine::RegisterError::UnknownResource(goal.id)));
                }
                SourceEvent::Shutdown { reply } => {
                    let _ = reply.send(Ok(()));
                }
            }
        }
    });
    (monitor, recorded)
}

fn drain(rx: &mut mpsc::UnboundedReceiver<EngineEvent>) -> Vec<(Severity, String)> {
    let mut out = Vec::new();
    while let Ok(ev) = rx.try_recv() {
        if let EngineEvent::Diagnostic {
            severity, message, ..
        } = ev
        {
            out.push((severity, message));
        }
    }
    out
}

const PY_PROGRAM: &str = r#"
import pulumi
import pulumi_random as random

cfg = pulumi.Config()
a = random.RandomString("a", length=8)
b = random.RandomString(
    "b",
    length=4,
    keepers={"fromA": a.result},
    opts=pulumi.ResourceOptions(
        additional_secret_outputs=["result"],
        protect=True,
        ignore_changes=["special"],
        delete_before_replace=True,
        custom_timeouts=pulumi.CustomTimeouts(create="2m"),
        aliases=[pulumi.Alias(name="oldb")],
        replace_with=[a],
        replacement_trigger=pulumi.Output.secret({"generation": 2}),
    ),
)

class Comp(pulumi.ComponentResource):
    def __init__(self, name, opts=None):
        super().__init__("my:mod:Comp", name, None, opts)
        self.child = random.RandomString(f"{name}-child", length=3, opts=pulumi.ResourceOptions(parent=self))
        self.register_outputs({"childResult": self.child.result})

comp = Comp("comp")
pulumi.log.info("hello from the program")
print("printed line")
pulumi.export("aResult", a.result)
pulumi.export("bResult", b.result)
pulumi.export("greeting", cfg.require("greeting"))
pulumi.export("secretCfg", cfg.require_secret("secretThing"))
"#;

const JS_PROGRAM: &str = r#"
const pulumi = require("@pulumi/pulumi");
const random = require("@pulumi/random");
const cfg = new pulumi.Config();
const a = new random.RandomString("a", { length: 8 });
const b = new random.RandomString("b", { length: 4, keepers: { fromA: a.result } },
    { additionalSecretOutputs: ["result"] });
class Comp extends pulumi.ComponentResource {
    constructor(name, opts) {
        super("my:mod:Comp", name, {}, opts);
        this.child = new random.RandomString(`${name}-child`, { length: 3 }, { parent: this });
        this.registerOutputs({ childResult: this.child.result });
    }
}
const comp = new Comp("comp");
console.log("printed line");
exports.aResult = a.result;
exports.bResult = b.result;
exports.greeting = cfg.require("greeting");
exports.secretCfg = cfg.requireSecret("secretThing");
"#;

fn write(dir: &Path, file: &str, text: &str) {
    std::fs::write(dir.join(file), text).unwrap();
}

fn python_program(dir: &Path, source: &str) -> SdkProgram {
    let venv = sdk_env().join("venv");
    write(dir, "Pulumi.yaml", "name: proj\nruntime: python\n");
    write(dir, "__main__.py", source);
    let (events, _) = EventSink::channel();
    SdkProgram::new(
        Runtime::Python {
            virtualenv: Some(venv),
        },
        dir,
        events,
    )
}

async fn run(program: SdkProgram, monitor: ResourceMonitor) -> Result<(), ProgramError> {
    let program: Box<dyn Program> = Box::new(program);
    tokio::time::timeout(std::time::Duration::from_secs(120), program.run(monitor))
        .await
        .expect("the program did not finish in time")
}

fn goal<'a>(rec: &'a Recorded, name: &str) -> &'a Goal {
    rec.goals
        .iter()
        .find(|g| g.name == name)
        .unwrap_or_else(|| panic!("{name} was not registered"))
}

fn assert_program_registrations(rec: &Recorded, stack: &Urn) {
    let s = goal(rec, "proj-dev");
    assert_eq!(s.type_, "pulumi:pulumi:Stack");
    assert!(!s.custom && s.parent.is_none());
    let a = goal(rec, "a");
    assert!(a.custom);
    assert_eq!(a.parent.as_ref(), Some(stack));
    assert_eq!(a.properties["length"], PropertyValue::Number(8.0));
    let p = rec
        .goals
        .iter()
        .find(|g| g.type_ == "pulumi:providers:random")
        .cloned()
        .expect("a default provider for random");
    let version = p.version.clone().expect("the SDK asks for its version");
    assert_eq!(
        p.name,
        format!("default_{}", version.replace(['.', '-', '+'], "_"))
    );
    let provider_urn = format!(
        "urn:pulumi:dev::proj::pulumi:providers:random::{}::",
        p.name
    );
    assert!(
        a.provider
            .as_ref()
            .unwrap()
            .to_string()
            .starts_with(&provider_urn),
        "{:?}",
        a.provider
    );
    let b = goal(rec, "b");
    assert_eq!(b.additional_secret_outputs, vec!["result".to_string()]);
    let a_urn = Urn::new("dev", "proj", Some(stack), RANDOM_STRING, "a");
    assert!(b.dependencies.contains(&a_urn));
    assert_eq!(b.property_dependencies["keepers"], vec![a_urn]);
    let comp = goal(rec, "comp");
    assert!(!comp.custom);
    let child = goal(rec, "comp-child");
    assert_eq!(
        child.parent.as_ref().map(Urn::as_str),
        Some("urn:pulumi:dev::proj::my:mod:Comp::comp")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn python_program_registers_resources_with_every_option() {
    let dir = tempfile::tempdir().unwrap();
    let (events, mut rx) = EventSink::channel();
    let (monitor, recorded) = harness(false, EventSink::none());
    let venv = sdk_env().join("venv");
    write(dir.path(), "Pulumi.yaml", "name: proj\nruntime: python\n");
    write(dir.path(), "__main__.py", PY_PROGRAM);
    let program = SdkProgram::new(
        Runtime::Python {
            virtualenv: Some(venv),
        },
        dir.path(),
        events,
    );
    run(program, monitor.clone()).await.unwrap();

    let rec = recorded.lock().unwrap();
    let stack = Urn::parse("urn:pulumi:dev::proj::pulumi:pulumi:Stack::proj-dev").unwrap();
    assert_eq!(monitor.root(), Some(stack.clone()));
    assert_program_registrations(&rec, &stack);
    let b = goal(&rec, "b");
    assert_eq!(
        b.properties["keepers"].as_object().unwrap()["fromA"],
        "rand-a".into()
    );
    assert_eq!(b.protect, Some(true));
    assert_eq!(b.ignore_changes, vec!["special".to_string()]);
    assert_eq!(b.delete_before_replace, Some(true));
    assert_eq!(
        b.replace_with.iter().map(Urn::name).collect::<Vec<_>>(),
        ["a"]
    );
    assert_eq!(
        b.replacement_trigger.reveal(),
        PropertyValue::Object([("generation".to_string(), PropertyValue::Number(2.0))].into())
    );
    assert!(
        b.replacement_trigger.contains_secrets(),
        "the trigger stays secret"
    );
    assert_eq!(b.custom_timeouts.as_ref().unwrap().create, 120.0);
    assert!(
        matches!(&b.aliases[0], crate::engine::Alias::Spec { name: Some(n), .. } if n == "oldb")
    );
    assert!(
        b.source_position
            .as_deref()
            .unwrap()
            .contains("__main__.py#")
    );

    let outs = &rec.outputs[&stack];
    assert_eq!(outs["aResult"], "rand-a".into());
    assert_eq!(outs["greeting"], "hello".into());
    assert_eq!(
        outs["bResult"],
        PropertyValue::Secret(Box::new("rand-b".into())),
        "additionalSecretOutputs applied"
    );
    assert_eq!(
        outs["secretCfg"],
        PropertyValue::Secret(Box::new("s3cr3t".into()))
    );
    let comp = Urn::parse("urn:pulumi:dev::proj::my:mod:Comp::comp").unwrap();
    assert_eq!(rec.outputs[&comp]["childResult"], "rand-comp-child".into());

    let diags = drain(&mut rx);
    assert!(
        diags.contains(&(Severity::Info, "hello from the program".into())),
        "{diags:?}"
    );
    assert!(
        diags.contains(&(Severity::Info, "printed line".into())),
        "{diags:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn python_preview_sends_unknowns_onward() {
    let dir = tempfile::tempdir().unwrap();
    let (monitor, recorded) = harness(true, EventSink::none());
    run(python_program(dir.path(), PY_PROGRAM), monitor)
        .await
        .unwrap();
    let rec = recorded.lock().unwrap();
    let b = goal(&rec, "b");
    assert_eq!(
        b.properties["keepers"].as_object().unwrap()["fromA"],
        PropertyValue::Unknown
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failing_python_program_reports_and_bails() {
    let dir = tempfile::tempdir().unwrap();
    let (events, mut rx) = EventSink::channel();
    let (monitor, _) = harness(false, events.clone());
    write(
        dir.path(),
        "__main__.py",
        "import pulumi\nraise ValueError('kaboom 42')\n",
    );
    let venv = sdk_env().join("venv");
    let program = SdkProgram::new(
        Runtime::Python {
            virtualenv: Some(venv),
        },
        dir.path(),
        events,
    );
    let err = run(program, monitor).await.unwrap_err();
    assert_eq!(err.0, BAIL_MESSAGE);
    let diags = drain(&mut rx);
    assert!(
        diags
            .iter()
            .any(|(s, m)| *s == Severity::Error && m.contains("kaboom 42")),
        "{diags:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_python_without_the_sdk_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let venv = dir.path().join("bare");
    let made = std::process::Command::new("python3")
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .status()
        .unwrap();
    assert!(made.success());
    write(dir.path(), "__main__.py", "import pulumi\n");
    let (monitor, _) = harness(false, EventSink::none());
    let program = SdkProgram::new(
        Runtime::Python {
            virtualenv: Some("bare".into()),
        },
        dir.path(),
        EventSink::none(),
    );
    let err = run(program, monitor).await.unwrap_err();
    assert!(
        err.0.contains("the Pulumi Python SDK is not installed"),
        "{err}"
    );
    assert!(err.0.contains("bare/bin/python"), "{err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn node_program_registers_resources() {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(
        sdk_env().join("node_modules"),
        dir.path().join("node_modules"),
    )
    .unwrap();
    write(dir.path(), "Pulumi.yaml", "name: proj\nruntime: nodejs\n");
    write(
        dir.path(),
        "package.json",
        r#"{"name":"proj","main":"index.js"}"#,
    );
    write(dir.path(), "index.js", JS_PROGRAM);
    let (events, mut rx) = EventSink::channel();
    let (monitor, recorded) = harness(false, EventSink::none());
    run(
        SdkProgram::new(Runtime::Nodejs(NodeOptions::default()), dir.path(), events),
        monitor.clone(),
    )
    .await
    .unwrap();
    let rec = recorded.lock().unwrap();
    let stack = Urn::parse("urn:pulumi:dev::proj::pulumi:pulumi:Stack::proj-dev").unwrap();
    assert_eq!(monitor.root(), Some(stack.clone()));
    assert_program_registrations(&rec, &stack);
    let outs = &rec.outputs[&stack];
    assert_eq!(
        outs["bResult"],
        PropertyValue::Secret(Box::new("rand-b".into()))
    );
    assert_eq!(
        outs["secretCfg"],
        PropertyValue::Secret(Box::new("s3cr3t".into()))
    );
    assert_eq!(outs["greeting"], "hello".into());
    let diags = drain(&mut rx);
    assert!(
        diags.contains(&(Severity::Info, "printed line".into())),
        "{diags:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn node_without_the_sdk_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "index.js", JS_PROGRAM);
    let (monitor, _) = harness(false, EventSink::none());
    let err = run(
        SdkProgram::new(
            Runtime::Nodejs(NodeOptions::default()),
            dir.path(),
            EventSink::none(),
        ),
        monitor,
    )
    .await
    .unwrap_err();
    assert!(
        err.0.contains("the Pulumi Node.js SDK is not installed"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failed_registration_is_reported_as_a_result_and_the_program_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let (monitor, recorded) = harness_failing(false, EventSink::none(), &["a"]);
    run(python_program(dir.path(), PY_PROGRAM), monitor)
        .await
        .unwrap();
    let rec = recorded.lock().unwrap();
    let b = goal(&rec, "b");
    assert_eq!(
        b.properties["keepers"].as_object().unwrap()["fromA"],
        PropertyValue::Unknown,
        "outputs of a failed resource resolve as unknown"
    );
}

fn node_options(
    json: serde_json::Value,
) -> Result<Runtime, super::language_host::LanguageHostError> {
    Runtime::from_project("nodejs", json.as_object().expect("an object"))
}

#[test]
fn node_runtime_options_are_read_as_pulumis_node_host_reads_them() {
    assert_eq!(
        node_options(serde_json::json!({})).unwrap(),
        Runtime::Nodejs(NodeOptions {
            typescript: true,
            tsconfig: None,
            nodeargs: Vec::new(),
            engine: NodeEngine::Node,
        })
    );
    assert_eq!(
        node_options(serde_json::json!({
            "typescript": false,
            "tsconfig": "tsconfig.pulumi.json",
            "nodeargs": "--require './pre load.js' --inspect",
            "packagemanager": "pnpm",
        }))
        .unwrap(),
        Runtime::Nodejs(NodeOptions {
            typescript: false,
            tsconfig: Some("tsconfig.pulumi.json".into()),
            nodeargs: vec![
                "--require".into(),
                "./pre load.js".into(),
                "--inspect".into()
            ],
            engine: NodeEngine::Node,
        })
    );
    for (options, message) in [
        (
            serde_json::json!({"typescript": "yes"}),
            "runtime.options.typescript must be true or false",
        ),
        (
            serde_json::json!({"nodeargs": 3}),
            "runtime.options.nodeargs must be a string",
        ),
        (
            serde_json::json!({"packagemanager": "cargo"}),
            "runtime.options.packagemanager must be one of auto, npm, yarn, pnpm or bun",
        ),
    ] {
        let err = node_options(options).unwrap_err().to_string();
        assert!(err.contains(message), "{err}");
    }
}

#[test]
fn a_bun_project_is_a_nodejs_one_run_by_bun_without_nodes_options() {
    let options = serde_json::json!({
        "typescript": true,
        "tsconfig": "tsconfig.pulumi.json",
        "nodeargs": "--inspect",
        "packagemanager": "npm",
    });
    assert_eq!(
        Runtime::from_project("bun", options.as_object().unwrap()).unwrap(),
        Runtime::Nodejs(NodeOptions {
            typescript: false,
            tsconfig: None,
            nodeargs: Vec::new(),
            engine: NodeEngine::Bun,
        })
    );
    let bad = serde_json::json!({"nodeargs": 3});
    let err = Runtime::from_project("bun", bad.as_object().unwrap())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("runtime.options.nodeargs must be a string"),
        "{err}"
    );
}
