//! The resource monitor over real gRPC during real deployments journaled to a real file
//! backend: malformed requests are refused with INVALID_ARGUMENT naming the field, nothing
//! invalid reaches the journal, the stack stays loadable, and the monitor listens only on a
//! private Unix socket.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::rpc_support;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use prost::Message;
use prost_types::value::Kind;
use prost_types::{ListValue, Struct, Value};
use stepdeck::engine::{
    Deployment, DeploymentResult, EventSink, Options, Outcome, Program, ProgramError, ProgramFn,
    ResourceMonitor, Snapshot,
};
use stepdeck::providers::BuiltinProviders;
use stepdeck::rpc::monitor::serve;
use stepdeck::rpc::program::language_host::{Runtime, SdkProgram};
use stepdeck::rpc::pulumirpc::engine_client::EngineClient;
use stepdeck::rpc::pulumirpc::resource_monitor_client::ResourceMonitorClient;
use stepdeck::rpc::pulumirpc::{
    Alias, ReadResourceRequest, RegisterResourceOutputsRequest, RegisterResourceRequest,
    ResourceInvokeRequest, SetRootResourceRequest, SupportsFeatureRequest, alias,
    register_resource_request,
};
use stepdeck::rpc::transport::server::connect;
use stepdeck::state::{Backend, BackendUrl, FileBackend, StackRef};
use stepdeck::yaml::YamlProgram;
use tokio::sync::watch;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::transport::Channel;
use tonic::{Code, Status};

const STACK: &str = "urn:pulumi:dev::proj::pulumi:pulumi:Stack::proj-dev";
const RANDOM: &str = "random:index/randomString:RandomString";
const BOGUS: &str = "urn:pulumi:dev::proj::my:c:C::nobody";
const COMP: &str = "urn:pulumi:dev::proj::my:c:C::comp";

type Monitor = ResourceMonitorClient<Channel>;

/// A stack in a file backend, in a temp directory.
struct Stack {
    dir: tempfile::TempDir,
    backend: FileBackend,
    stack: StackRef,
}

fn new_stack() -> Stack {
    let dir = tempfile::tempdir().unwrap();
    let url = BackendUrl::parse(&format!("file://{}", dir.path().display())).unwrap();
    let backend = FileBackend::open(&url).unwrap();
    let stack = StackRef::new("proj", "dev").unwrap();
    backend.create_stack(&stack).unwrap();
    Stack {
        dir,
        backend,
        stack,
    }
}

/// Runs one deployment whose program serves the monitor and hands its address to `client`;
/// returns what the client returned and the stack's snapshot as loaded again from disk.
async fn deploy<T, F, Fut>(stack: &Stack, client: F) -> (T, Snapshot)
where
    T: Send + 'static,
    F: FnOnce(String) -> Fut + Send + 'static,
    Fut: Future<Output = T> + Send + 'static,
{
    let out = Arc::new(Mutex::new(None));
    let slot = out.clone();
    let program = ProgramFn(move |monitor: ResourceMonitor| async move {
        let refused = Arc::new(watch::Sender::new(false));
        let (addr, server) = serve(monitor, EventSink::none(), "org", refused)
            .await
            .map_err(|e| ProgramError(e.to_string()))?;
        let result = client(addr.to_string()).await;
        server.shutdown().await;
        *slot.lock().unwrap() = Some(result);
        Ok(())
    });
    let (result, loaded) = run_on_stack(stack, Box::new(program)).await;
    assert!(
        result.outcome.is_success(),
        "the deployment failed: {:?}",
        result.outcome
    );
    let value = out.lock().unwrap().take().expect("the program ran");
    (value, loaded)
}

/// Runs one deployment of `program` against the stack in its file backend; returns the result
/// and the snapshot as loaded again from disk (which must pass its integrity check).
async fn run_on_stack(stack: &Stack, program: Box<dyn Program>) -> (DeploymentResult, Snapshot) {
    let lock = stack.backend.lock(&stack.stack, "up").unwrap();
    let (base, journal) = stack.backend.begin_deployment(&lock, None).unwrap();
    let options = Options {
        stack: "dev".into(),
        project: "proj".into(),
        parallel: 4,
        ..Options::default()
    };
    let providers = BuiltinProviders::new(stack.dir.path().join("world.json"));
    let result = Deployment::new(
        options,
        base,
        Arc::new(providers),
        Box::new(journal),
        EventSink::none(),
    )
    .run(Some(program))
    .await;
    stack.backend.finish_deployment(&lock, None).unwrap();
    drop(lock);
    let loaded = stack.backend.load(&stack.stack, None).unwrap().snapshot;
    loaded.verify_integrity().unwrap();
    assert_eq!(loaded.resources, result.snapshot.resources);
    (result, loaded)
}

async fn client(addr: &str) -> Monitor {
    ResourceMonitorClient::new(connect(addr).await.unwrap())
}

fn component(ty: &str, name: &str) -> RegisterResourceRequest {
    RegisterResourceRequest {
        r#type: ty.into(),
        name: name.into(),
        parent: STACK.into(),
        ..Default::default()
    }
}

fn stack_request() -> RegisterResourceRequest {
    RegisterResourceRequest {
        r#type: "pulumi:pulumi:Stack".into(),
        name: "proj-dev".into(),
        ..Default::default()
    }
}

fn random(name: &str) -> RegisterResourceRequest {
    RegisterResourceRequest {
        r#type: RANDOM.into(),
        name: name.into(),
        custom: true,
        parent: STACK.into(),
        object: Some(Struct {
            fields: [("length".to_string(), number(8.0))].into_iter().collect(),
        }),
        ..Default::default()
    }
}

fn number(n: f64) -> Value {
    Value {
        kind: Some(Kind::NumberValue(n)),
    }
}

fn names(snap: &Snapshot) -> Vec<String> {
    snap.resources
        .iter()
        .map(|r| r.urn.name().to_string())
        .collect()
}

/// The status a refused call got: INVALID_ARGUMENT, its message starting with `field`.
fn assert_refused(what: &str, r: Result<impl std::fmt::Debug, Status>, field: &str) {
    let status = r.expect_err(what);
    assert_eq!(status.code(), Code::InvalidArgument, "{what}: {status:?}");
    assert!(
        status.message().starts_with(field),
        "{what}: {:?} does not name {field}",
        status.message()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn malformed_requests_are_refused_naming_the_field_and_never_journaled() {
    let stack = new_stack();
    let (provider_ref, snap) = deploy(&stack, |addr| async move {
        let mut m = client(&addr).await;
        let rr = "RegisterResourceRequest";
        // Before the stack exists, a resource naming it as its parent is refused.
        assert_refused(
            "stack parent before the stack",
            m.register_resource(component("my:c:C", "early")).await,
            &format!("{rr}.parent: {STACK} is not a registered resource"),
        );
        m.register_resource(stack_request()).await.unwrap();
        m.register_resource(component("my:c:C", "comp"))
            .await
            .unwrap();
        let a = m.register_resource(random("a")).await.unwrap().into_inner();
        assert!(!a.id.is_empty());
        let mut prov = random("p");
        prov.r#type = "pulumi:providers:random".into();
        prov.object = None;
        let prov = m.register_resource(prov).await.unwrap().into_inner();
        let provider_ref = format!("{}::{}", prov.urn, prov.id);

        let cases: Vec<(&str, RegisterResourceRequest, String)> = vec![
            ("empty request", RegisterResourceRequest::default(), format!("{rr}.type: must not be empty")),
            ("empty name", component("my:c:C", ""), format!("{rr}.name: must not be empty")),
            ("custom type without module", { let mut r = random("t1"); r.r#type = "random".into(); r }, format!("{rr}.type:")),
            ("type with a URN separator", component("my::c", "t2"), format!("{rr}.type:")),
            ("type with a $", component("my:c$d:E", "t3"), format!("{rr}.type:")),
            ("unknown parent", { let mut r = component("my:c:C", "u1"); r.parent = BOGUS.into(); r }, format!("{rr}.parent: {BOGUS} is not a registered resource")),
            ("garbage parent", { let mut r = component("my:c:C", "u2"); r.parent = "nonsense".into(); r }, format!("{rr}.parent:")),
            ("second stack", { let mut r = stack_request(); r.name = "other".into(); r }, format!("{rr}.type: the stack is registered already")),
            ("stack with a parent", { let mut r = stack_request(); r.parent = STACK.into(); r }, format!("{rr}.parent: the root stack cannot have a parent")),
            ("unknown dependency", { let mut r = random("d1"); r.dependencies = vec![a.urn.clone(), BOGUS.into()]; r }, format!("{rr}.dependencies[1]: {BOGUS} is not a registered resource")),
            ("unknown property dependency", { let mut r = random("d2"); r.property_dependencies.insert("length".into(), register_resource_request::PropertyDependencies { urns: vec![BOGUS.into()] }); r }, format!("{rr}.propertyDependencies.length[0]:")),
            ("unknown deletedWith", { let mut r = random("d3"); r.deleted_with = BOGUS.into(); r }, format!("{rr}.deletedWith: {BOGUS} is not a registered resource")),
            ("unknown replaceWith", { let mut r = random("rw1"); r.replace_with = vec![a.urn.clone(), BOGUS.into()]; r }, format!("{rr}.replaceWith[1]: {BOGUS} is not a registered resource")),
            ("garbage replaceWith", { let mut r = random("rw2"); r.replace_with = vec!["nonsense".into()]; r }, format!("{rr}.replaceWith:")),
            ("NaN replacementTrigger", { let mut r = random("rt"); r.replacement_trigger = Some(number(f64::NAN)); r }, format!("{rr}.replacementTrigger:")),
            ("malformed provider reference", { let mut r = random("p1"); r.provider = "not-a-reference".into(); r }, format!("{rr}.provider: bad provider reference 'not-a-reference': expected '<provider URN>::<provider ID>'")),
            ("provider reference to a non-provider", { let mut r = random("p2"); r.provider = format!("{}::{}", a.urn, a.id); r }, format!("{rr}.provider: bad provider reference '{}::{}': the URN does not name a provider resource", a.urn, a.id)),
            ("provider reference without an ID", { let mut r = random("p3"); r.provider = format!("{}::", prov.urn); r }, format!("{rr}.provider: bad provider reference '{}::': the provider ID is empty", prov.urn)),
            ("unregistered provider", { let mut r = random("p4"); r.provider = "urn:pulumi:dev::proj::pulumi:providers:random::ghost::id1".into(); r }, format!("{rr}.provider: urn:pulumi:dev::proj::pulumi:providers:random::ghost is not a registered resource")),
            ("malformed providers map", { let mut r = component("my:c:C", "p5"); r.providers.insert("random".into(), "junk".into()); r }, format!("{rr}.providers.random:")),
            ("garbage version", { let mut r = random("v1"); r.version = "four point two".into(); r }, format!("{rr}.version: \"four point two\" is not a semantic version")),
            ("malformed alias urn", { let mut r = random("al1"); r.alias_ur_ns = vec!["nope".into()]; r }, format!("{rr}.aliasURNs:")),
            ("alias spec with a bad type", { let mut r = random("al2"); r.aliases = vec![Alias { alias: Some(alias::Alias::Spec(alias::Spec { r#type: "bad".into(), ..Default::default() })) }]; r }, format!("{rr}.aliases[0].type:")),
            ("alias spec with a bad stack", { let mut r = random("al3"); r.aliases = vec![Alias { alias: Some(alias::Alias::Spec(alias::Spec { stack: "a::b".into(), ..Default::default() })) }]; r }, format!("{rr}.aliases[0].stack:")),
            ("empty alias", { let mut r = random("al4"); r.aliases = vec![Alias { alias: None }]; r }, format!("{rr}.aliases:")),
            ("garbage timeout", { let mut r = random("ct"); r.custom_timeouts = Some(register_resource_request::CustomTimeouts { create: "soon".into(), ..Default::default() }); r }, format!("{rr}.customTimeouts.create:")),
            ("NaN input", { let mut r = random("nan"); r.object.as_mut().unwrap().fields.insert("x".into(), number(f64::NAN)); r }, format!("{rr}.object.x: NaN is not a finite number")),
            ("bad ignoreChanges path", { let mut r = random("ic"); r.ignore_changes = vec!["a[".into()]; r }, format!("{rr}.ignoreChanges[0]:")),
            ("bad hideDiffs path", { let mut r = random("hd"); r.hide_diffs = vec!["tags".into(), "a[".into()]; r }, format!("{rr}.hideDiffs[1]:")),
            ("import of a component", { let mut r = component("my:c:C", "im"); r.import_id = "x".into(); r }, format!("{rr}.importId:")),
        ];
        for (what, req, field) in cases {
            assert_refused(what, m.register_resource(req).await, &field);
        }

        let ro = "RegisterResourceOutputsRequest";
        assert_refused(
            "outputs for an unknown URN",
            m.register_resource_outputs(RegisterResourceOutputsRequest { urn: BOGUS.into(), outputs: None }).await,
            &format!("{ro}.urn: {BOGUS} is not a registered resource"),
        );
        assert_refused(
            "outputs with an infinite number",
            m.register_resource_outputs(RegisterResourceOutputsRequest {
                urn: STACK.into(),
                outputs: Some(Struct { fields: [("x".to_string(), number(f64::INFINITY))].into_iter().collect() }),
            })
            .await,
            &format!("{ro}.outputs.x:"),
        );
        let read = |ty: &str, name: &str, id: &str| ReadResourceRequest {
            r#type: ty.into(),
            name: name.into(),
            id: id.into(),
            ..Default::default()
        };
        assert_refused("read without an ID", m.read_resource(read(RANDOM, "r1", "")).await, "ReadResourceRequest.id:");
        assert_refused("read of a bad type", m.read_resource(read("random", "r2", "x")).await, "ReadResourceRequest.type:");
        assert_refused(
            "read with a malformed provider",
            m.read_resource(ReadResourceRequest { provider: "junk".into(), ..read(RANDOM, "r4", "x") }).await,
            "ReadResourceRequest.provider: bad provider reference 'junk': expected '<provider URN>::<provider ID>'",
        );
        assert_refused(
            "read under an unknown parent",
            m.read_resource(ReadResourceRequest { parent: BOGUS.into(), ..read(RANDOM, "r3", "x") }).await,
            "ReadResourceRequest.parent:",
        );
        let invoke = |tok: &str, provider: &str, version: &str| ResourceInvokeRequest {
            tok: tok.into(),
            provider: provider.into(),
            version: version.into(),
            ..Default::default()
        };
        assert_refused("invoke without a token", m.invoke(invoke("", "", "")).await, "ResourceInvokeRequest.tok: must not be empty");
        assert_refused("invoke with a bad provider", m.invoke(invoke("random:index:f", "junk", "")).await, "ResourceInvokeRequest.provider: bad provider reference 'junk': expected '<provider URN>::<provider ID>'");
        assert_refused("invoke with a bad version", m.invoke(invoke("random:index:f", "", "x.y")).await, "ResourceInvokeRequest.version:");
        assert_refused(
            "feature without an id",
            m.supports_feature(SupportsFeatureRequest { id: String::new() }).await,
            "SupportsFeatureRequest.id:",
        );

        let mut engine = EngineClient::new(connect(&addr).await.unwrap());
        assert_refused(
            "root set to an unknown stack",
            engine.set_root_resource(SetRootResourceRequest { urn: BOGUS.into() }).await,
            &format!("SetRootResourceRequest.urn: {BOGUS} is not a registered resource"),
        );
        assert_refused(
            "root set to a component",
            engine.set_root_resource(SetRootResourceRequest { urn: COMP.into() }).await,
            "SetRootResourceRequest.urn:",
        );
        engine.set_root_resource(SetRootResourceRequest { urn: STACK.into() }).await.unwrap();

        // The deployment goes on: a valid registration after all of that is served.
        let mut b = random("b");
        b.dependencies = vec![a.urn.clone()];
        b.provider = provider_ref.clone();
        b.replace_with = vec![a.urn.clone()];
        b.replacement_trigger = Some(number(7.0));
        m.register_resource(b).await.unwrap();
        for id in ["replaceWith", "replacementTrigger"] {
            let has = m.supports_feature(SupportsFeatureRequest { id: id.into() }).await.unwrap();
            assert!(has.into_inner().has_support, "{id} is supported");
        }
        provider_ref
    })
    .await;
    assert_eq!(
        names(&snap),
        ["proj-dev", "comp", "default", "a", "p", "b"],
        "only the valid registrations are recorded"
    );
    let b = snap.resources.iter().find(|r| r.urn.name() == "b").unwrap();
    assert_eq!(
        b.provider.as_ref().map(ToString::to_string).as_deref(),
        Some(provider_ref.as_str())
    );
    let a = snap.resources.iter().find(|r| r.urn.name() == "a").unwrap();
    assert_eq!(b.replace_with, std::slice::from_ref(&a.urn));
    assert_eq!(
        b.replacement_trigger,
        stepdeck::engine::PropertyValue::Number(7.0)
    );
}

/// Mode and owner of a path.
fn mode_and_owner(p: &Path) -> (u32, u32) {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::symlink_metadata(p).unwrap();
    (m.mode() & 0o777, m.uid())
}

fn own_uid() -> u32 {
    mode_and_owner(Path::new("/proc/self")).1
}

/// Tries to open the socket from another process running as `uid`; its exit status says
/// whether it could.
fn connect_as(uid: Option<u32>, socket: &Path) -> std::process::Output {
    use std::os::unix::process::CommandExt;
    let mut cmd = std::process::Command::new("python3");
    cmd.args([
        "-c",
        "import socket, sys\ns = socket.socket(socket.AF_UNIX)\ns.connect(sys.argv[1])\nprint('connected')",
    ])
    .arg(socket);
    if let Some(uid) = uid {
        cmd.uid(uid).gid(uid);
    }
    cmd.output().unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_monitor_listens_only_on_a_private_socket_that_is_gone_afterwards() {
    let stack = new_stack();
    let (socket, _) = deploy(&stack, |addr| async move {
        let socket = PathBuf::from(
            addr.strip_prefix("unix:")
                .unwrap_or_else(|| panic!("{addr} is not a unix: address")),
        );
        let dir = socket.parent().unwrap().to_path_buf();
        assert_eq!(
            mode_and_owner(&dir),
            (0o700, own_uid()),
            "{}",
            dir.display()
        );
        // The program's own process reaches it.
        let mut m = client(&addr).await;
        m.register_resource(stack_request()).await.unwrap();
        // Another user cannot even reach the socket (we can only switch users as root).
        if own_uid() == 0 {
            let other = connect_as(Some(65534), &socket);
            assert!(!other.status.success(), "another user connected");
            assert!(
                String::from_utf8_lossy(&other.stderr).contains("PermissionError"),
                "{}",
                String::from_utf8_lossy(&other.stderr)
            );
        }
        // A process that guesses a wrong path reaches nothing.
        let wrong = dir.join("monitor.sock");
        assert!(!connect_as(None, &wrong).status.success());
        assert!(connect_as(None, &socket).status.success());
        socket
    })
    .await;
    assert!(!socket.exists(), "the socket outlives the deployment");
    assert!(
        !socket.parent().unwrap().exists(),
        "the private directory outlives the deployment"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_registered_package_reference_gives_its_version_to_the_default_provider() {
    use stepdeck::rpc::pulumirpc::{Parameterization, RegisterPackageRequest};
    let stack = new_stack();
    let (_, snap) = deploy(&stack, |addr| async move {
        let mut m = client(&addr).await;
        m.register_resource(stack_request()).await.unwrap();
        let package = |version: &str| RegisterPackageRequest {
            name: "random".into(),
            version: version.into(),
            ..Default::default()
        };
        let reference = m
            .register_package(package("4.16.0"))
            .await
            .unwrap()
            .into_inner()
            .r#ref;
        let again = m
            .register_package(package("4.16.0"))
            .await
            .unwrap()
            .into_inner()
            .r#ref;
        assert_eq!(reference, again, "one package, one reference");
        m.register_resource(RegisterResourceRequest {
            package_ref: reference.clone(),
            ..random("pinned")
        })
        .await
        .unwrap();
        assert_refused(
            "an unregistered reference",
            m.register_resource(RegisterResourceRequest {
                package_ref: "nope".into(),
                ..random("loose")
            })
            .await,
            "RegisterResourceRequest.packageRef:",
        );
        let parameterized = m
            .register_package(RegisterPackageRequest {
                parameterization: Some(Parameterization {
                    name: "mine".into(),
                    version: "1.0.0".into(),
                    value: vec![7],
                }),
                ..package("4.16.0")
            })
            .await
            .unwrap()
            .into_inner()
            .r#ref;
        assert_ne!(
            parameterized, reference,
            "a parameterized package is its own"
        );
        assert_refused(
            "the base package's type under the parameterized package's reference",
            m.register_resource(RegisterResourceRequest {
                package_ref: parameterized,
                ..random("based")
            })
            .await,
            "RegisterResourceRequest.packageRef:",
        );
    })
    .await;
    let pinned = snap
        .resources
        .iter()
        .find(|r| r.urn.name() == "pinned")
        .unwrap();
    let provider = pinned.provider.as_ref().unwrap().to_string();
    assert!(
        provider.contains("::default_4_16_0::"),
        "the package's version picks the default provider: {provider}"
    );
    assert!(!names(&snap).contains(&"loose".to_string()));
    assert!(!names(&snap).contains(&"based".to_string()));
}

/// Opens a TCP connection to `addr` as `uid`, sends HTTP/2's client preface and prints how many
/// bytes the server answered before closing or a second passed.
fn speak_http2_as(uid: Option<u32>, addr: std::net::SocketAddr) -> String {
    use std::os::unix::process::CommandExt;
    let mut cmd = std::process::Command::new("python3");
    cmd.args([
        "-c",
        "import socket, sys\ns = socket.create_connection(('127.0.0.1', int(sys.argv[1])))\ns.settimeout(1)\ns.sendall(b'PRI * HTTP/2.0\\r\\n\\r\\nSM\\r\\n\\r\\n' + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0]))\ntry:\n    print(len(s.recv(100)))\nexcept OSError:\n    print(0)",
    ])
    .arg(addr.port().to_string());
    if let Some(uid) = uid {
        cmd.uid(uid).gid(uid);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn plugins_loopback_engine_answers_only_our_own_user() {
    let (addr, handle) = stepdeck::rpc::monitor::engine_service::serve_engine(EventSink::none())
        .await
        .unwrap();
    assert!(addr.ip().is_loopback(), "{addr}");
    let ours = tokio::task::spawn_blocking(move || speak_http2_as(None, addr))
        .await
        .unwrap();
    assert_ne!(ours, "0", "our own process gets the server's SETTINGS");
    // Another user's connection is closed unanswered (we can only switch users as root).
    if own_uid() == 0 {
        let theirs = tokio::task::spawn_blocking(move || speak_http2_as(Some(65534), addr))
            .await
            .unwrap();
        assert_eq!(theirs, "0", "another user got an answer");
    }
    handle.shutdown().await;
}

const PY_SENDS_A_BOGUS_PARENT: &str = r#"
import grpc
import pulumi
from pulumi.runtime import settings
from pulumi.runtime.proto import resource_pb2

pulumi.ComponentResource("my:c:C", "good")
try:
    settings.get_monitor().RegisterResource(
        resource_pb2.RegisterResourceRequest(type="my:c:C", name="bad", parent="urn:pulumi:dev::proj::my:c:C::nobody")
    )
    print("accepted")
except grpc.RpcError as e:
    print("refused", e.code().name, e.details())
"#;

#[tokio::test(flavor = "multi_thread")]
async fn a_python_program_gets_invalid_argument_for_a_bogus_parent() {
    let env = rpc_support::sdk_env();
    let stack = new_stack();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("Pulumi.yaml"),
        "name: proj\nruntime: python\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("__main__.py"), PY_SENDS_A_BOGUS_PARENT).unwrap();
    let (events, mut rx) = EventSink::channel();
    let program = SdkProgram::new(
        Runtime::Python {
            virtualenv: Some(env.root.join("venv")),
        },
        dir.path(),
        events,
    );
    assert_eq!(
        program.python(),
        env.python,
        "the program runs on the SDK's interpreter"
    );
    let (result, snap) = run_on_stack(&stack, Box::new(program)).await;
    let mut lines = Vec::new();
    while let Ok(ev) = rx.try_recv() {
        if let stepdeck::engine::EngineEvent::Diagnostic { message, .. } = ev {
            lines.push(message);
        }
    }
    assert!(
        result.outcome.is_success(),
        "{:?} {lines:#?}",
        result.outcome
    );
    assert!(
        lines.iter().any(|l| l
            == &format!(
                "refused INVALID_ARGUMENT RegisterResourceRequest.parent: {BOGUS} is not a registered resource"
            )),
        "{lines:#?}"
    );
    assert_eq!(names(&snap), ["proj-dev", "good"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_yaml_program_gets_the_same_checks() {
    let stack = new_stack();
    let text = r#"name: proj
runtime: yaml
resources:
  good:
    type: random:index/randomString:RandomString
    properties:
      length: 4
  bad:
    type: random:index/randomString:RandomString
    properties:
      length: ${good.length}
    options:
      version: four-ish
"#;
    let program = YamlProgram::parse("Pulumi.yaml", text, "proj").unwrap();
    let (result, snap) = run_on_stack(&stack, Box::new(program)).await;
    let Outcome::Failed(msg) = &result.outcome else {
        panic!("{:?}", result.outcome)
    };
    let msg = msg.message();
    assert!(
        msg.contains("version: \"four-ish\" is not a semantic version"),
        "{msg}"
    );
    assert!(
        !names(&snap).contains(&"bad".to_string()),
        "{:?}",
        names(&snap)
    );
}

/// Sends raw bytes as a method's request message and decodes nothing of the answer.
#[derive(Clone, Default)]
struct RawCodec;

struct RawEncoder;
struct RawDecoder;

impl Encoder for RawEncoder {
    type Item = Vec<u8>;
    type Error = Status;
    fn encode(&mut self, item: Vec<u8>, buf: &mut EncodeBuf<'_>) -> Result<(), Status> {
        use bytes::BufMut;
        buf.put_slice(&item);
        Ok(())
    }
}

impl Decoder for RawDecoder {
    type Item = Vec<u8>;
    type Error = Status;
    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<Vec<u8>>, Status> {
        use bytes::Buf;
        let mut out = vec![0; buf.remaining()];
        buf.copy_to_slice(&mut out);
        Ok(Some(out))
    }
}

impl Codec for RawCodec {
    type Encode = Vec<u8>;
    type Decode = Vec<u8>;
    type Encoder = RawEncoder;
    type Decoder = RawDecoder;
    fn encoder(&mut self) -> RawEncoder {
        RawEncoder
    }
    fn decoder(&mut self) -> RawDecoder {
        RawDecoder
    }
}

async fn send_raw(channel: Channel, method: &'static str, body: Vec<u8>) -> Result<(), Status> {
    let mut grpc = tonic::client::Grpc::new(channel);
    grpc.ready()
        .await
        .map_err(|e| Status::unavailable(e.to_string()))?;
    let path = tonic::codegen::http::uri::PathAndQuery::from_static(method);
    grpc.unary(tonic::Request::new(body), path, RawCodec)
        .await
        .map(|_| ())
}

const METHODS: &[&str] = &[
    "/pulumirpc.ResourceMonitor/RegisterResource",
    "/pulumirpc.ResourceMonitor/RegisterResourceOutputs",
    "/pulumirpc.ResourceMonitor/ReadResource",
    "/pulumirpc.ResourceMonitor/Invoke",
    "/pulumirpc.ResourceMonitor/SupportsFeature",
    "/pulumirpc.Engine/Log",
    "/pulumirpc.Engine/SetRootResource",
];

/// protobuf bytes of a Value holding `depth` Structs nested in each other, built from the
/// inside out without recursion (a recursive encoder would itself overflow).
fn nested_struct_bytes(depth: usize) -> Vec<u8> {
    fn len_field(tag: u8, body: &[u8], out: &mut Vec<u8>) {
        out.push(tag);
        prost::encoding::encode_varint(body.len() as u64, out);
        out.extend_from_slice(body);
    }
    let mut value = Value {
        kind: Some(Kind::NullValue(0)),
    }
    .encode_to_vec();
    for _ in 0..depth {
        let mut entry = Vec::new();
        len_field(0x0a, b"a", &mut entry);
        len_field(0x12, &value, &mut entry);
        let mut st = Vec::new();
        len_field(0x0a, &entry, &mut st);
        value.clear();
        len_field(0x2a, &st, &mut value);
    }
    value
}

/// A RegisterResource request for a component whose input `deep` is `value_bytes`.
fn request_with_value(name: &str, value_bytes: &[u8]) -> Vec<u8> {
    let mut req = component("my:c:C", name).encode_to_vec();
    let mut entry = Vec::new();
    entry.push(0x0a);
    prost::encoding::encode_varint(4, &mut entry);
    entry.extend_from_slice(b"deep");
    entry.push(0x12);
    prost::encoding::encode_varint(value_bytes.len() as u64, &mut entry);
    entry.extend_from_slice(value_bytes);
    let mut object = Vec::new();
    object.push(0x0a);
    prost::encoding::encode_varint(entry.len() as u64, &mut object);
    object.extend_from_slice(&entry);
    req.push(0x2a);
    prost::encoding::encode_varint(object.len() as u64, &mut req);
    req.extend_from_slice(&object);
    req
}

#[tokio::test(flavor = "multi_thread")]
async fn deep_structs_huge_lists_and_garbage_bytes_are_refused_and_the_server_lives_on() {
    let stack = new_stack();
    let (_, snap) = deploy(&stack, |addr| async move {
        let channel = connect(&addr).await.unwrap();
        let mut m = ResourceMonitorClient::new(channel.clone());
        m.register_resource(stack_request()).await.unwrap();

        // Shallow nesting is fine; 10,000 levels get a clear error, and no stack overflows.
        send_raw(
            channel.clone(),
            METHODS[0],
            request_with_value("shallow", &nested_struct_bytes(20)),
        )
        .await
        .unwrap();
        let deep = send_raw(
            channel.clone(),
            METHODS[0],
            request_with_value("deep", &nested_struct_bytes(10_000)),
        )
        .await;
        let status = deep.expect_err("10,000 nested structs");
        assert_eq!(status.code(), Code::InvalidArgument);
        assert!(
            status
                .message()
                .starts_with("malformed RegisterResourceRequest:")
                && status
                    .message()
                    .contains("nest deeper than protobuf's limit"),
            "{}",
            status.message()
        );

        // A list of more values than one request may carry is refused; a big one is fine.
        let list = |n: usize| Value {
            kind: Some(Kind::ListValue(ListValue {
                values: vec![
                    Value {
                        kind: Some(Kind::BoolValue(true))
                    };
                    n
                ],
            })),
        };
        let mut huge = component("my:c:C", "huge");
        huge.object = Some(Struct {
            fields: [("l".to_string(), list(1_000_001))].into_iter().collect(),
        });
        assert_refused(
            "a list of 1,000,001 values",
            m.register_resource(huge).await,
            "RegisterResourceRequest.object.l",
        );
        let mut big = component("my:c:C", "big");
        big.object = Some(Struct {
            fields: [("l".to_string(), list(100_000))].into_iter().collect(),
        });
        m.register_resource(big).await.unwrap();

        // Bytes that are not HTTP/2 at all, straight into the socket.
        {
            use tokio::io::AsyncWriteExt;
            let path = addr.strip_prefix("unix:").unwrap();
            let mut raw = tokio::net::UnixStream::connect(path).await.unwrap();
            let _ = raw
                .write_all(b"\x00\x01garbage that is no HTTP/2 preface\r\n\r\n")
                .await;
        }

        // Random bytes as the message of every method.
        let mut runner = TestRunner::new(Config {
            cases: 64,
            ..Config::default()
        });
        let rt = tokio::runtime::Handle::current();
        let ch = channel.clone();
        tokio::task::spawn_blocking(move || {
            runner
                .run(
                    &(
                        0..METHODS.len(),
                        proptest::collection::vec(any::<u8>(), 1..256),
                    ),
                    |(i, bytes)| {
                        let r = rt.block_on(send_raw(ch.clone(), METHODS[i], bytes));
                        if let Err(s) = r {
                            prop_assert_eq!(
                                s.code(),
                                Code::InvalidArgument,
                                "{}: {:?}",
                                METHODS[i],
                                s
                            );
                        }
                        Ok(())
                    },
                )
                .unwrap();
        })
        .await
        .unwrap();

        // The server still serves.
        m.register_resource(component("my:c:C", "after"))
            .await
            .unwrap();
    })
    .await;
    for name in ["proj-dev", "shallow", "big", "after"] {
        assert!(
            names(&snap).contains(&name.to_string()),
            "{name} missing: {:?}",
            names(&snap)
        );
    }
    assert!(!names(&snap).iter().any(|n| n == "deep" || n == "huge"));
}

/// A field value the fuzzer picks, and whether the monitor must accept it.
#[derive(Clone, Debug)]
struct Pick<T> {
    value: T,
    valid: bool,
}

fn pick<T: Clone + std::fmt::Debug + 'static>(
    valid: &[T],
    invalid: &[T],
) -> BoxedStrategy<Pick<T>> {
    let tag = |values: &[T], valid: bool| -> Vec<Pick<T>> {
        values
            .iter()
            .map(|v| Pick {
                value: v.clone(),
                valid,
            })
            .collect()
    };
    let (good, bad) = (tag(valid, true), tag(invalid, false));
    if good.is_empty() {
        return proptest::sample::select(bad).boxed();
    }
    prop_oneof![3 => proptest::sample::select(good), 1 => proptest::sample::select(bad)].boxed()
}

fn urn_pick() -> impl Strategy<Value = Pick<String>> {
    pick(
        &[STACK.to_string(), COMP.to_string()],
        &[
            BOGUS.to_string(),
            "garbage".to_string(),
            "urn:pulumi:dev::proj::pulumi:pulumi:Stack::other".to_string(),
        ],
    )
}

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Kind::NullValue(0)),
        any::<bool>().prop_map(Kind::BoolValue),
        (-1e12f64..1e12).prop_map(Kind::NumberValue),
        ".{0,8}".prop_map(Kind::StringValue),
    ]
    .prop_map(|k| Value { kind: Some(k) });
    leaf.prop_recursive(4, 48, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(|values| Value {
                kind: Some(Kind::ListValue(ListValue { values }))
            }),
            proptest::collection::btree_map("[a-z]{1,4}", inner, 0..4).prop_map(|m| Value {
                kind: Some(Kind::StructValue(Struct {
                    fields: m.into_iter().collect()
                })),
            }),
        ]
    })
}

/// A registration built from fuzzed fields, and whether every field is valid.
fn registration() -> impl Strategy<Value = (RegisterResourceRequest, bool)> {
    let ty = pick(
        &["my:c:C", "my:mod/sub:Thing", "any component type"].map(String::from),
        &["", "my::c", "a$b", "x\u{1}y"].map(String::from),
    );
    let custom_ty = pick(&[], &["", "random", "a:b", "a::b:c"].map(String::from));
    let name = pick(&[true], &[false]);
    let parent = prop_oneof![
        Just(Pick {
            value: String::new(),
            valid: true
        }),
        urn_pick()
    ];
    let deps = proptest::collection::vec(urn_pick(), 0..3);
    let prop_deps = proptest::collection::vec(urn_pick(), 0..3);
    let deleted_with = prop_oneof![
        Just(Pick {
            value: String::new(),
            valid: true
        }),
        urn_pick()
    ];
    let version = pick(
        &["", "1.2.3", "v2.0.0-beta.1"].map(String::from),
        &["1", "x.y.z", "1.2.3.4"].map(String::from),
    );
    let provider = pick(
        &[String::new()],
        &[
            "junk",
            "urn:pulumi:dev::proj::pulumi:providers:random::ghost::id",
        ]
        .map(String::from),
    );
    let alias = pick(
        &[None],
        &[
            Some(Alias { alias: None }),
            Some(Alias {
                alias: Some(alias::Alias::Urn("nope".into())),
            }),
            Some(Alias {
                alias: Some(alias::Alias::Spec(alias::Spec {
                    stack: "a::b".into(),
                    ..Default::default()
                })),
            }),
        ],
    );
    let timeout = pick(
        &["", "1m30s"].map(String::from),
        &["soon", "5d"].map(String::from),
    );
    let object = (
        proptest::collection::btree_map("[a-z]{1,6}", value(), 0..5),
        pick(&[None], &[Some(f64::NAN), Some(f64::INFINITY)]),
    );
    let custom = any::<bool>();
    (
        (ty, custom_ty, custom, name, parent, deps, prop_deps),
        (deleted_with, version, provider, alias, timeout, object),
    )
        .prop_map(
            |(
                (ty, custom_ty, custom, name, parent, deps, prop_deps),
                (deleted_with, version, provider, alias, timeout, (fields, odd)),
            )| {
                let ty = if custom { custom_ty } else { ty };
                let mut fields: std::collections::BTreeMap<String, Value> = fields;
                if let Some(n) = odd.value {
                    fields.insert("n".into(), number(n));
                }
                let req = RegisterResourceRequest {
                    r#type: ty.value.clone(),
                    name: if name.value {
                        "x".into()
                    } else {
                        String::new()
                    },
                    custom,
                    parent: parent.value.clone(),
                    dependencies: deps.iter().map(|d| d.value.clone()).collect(),
                    property_dependencies: [(
                        "k".to_string(),
                        register_resource_request::PropertyDependencies {
                            urns: prop_deps.iter().map(|d| d.value.clone()).collect(),
                        },
                    )]
                    .into_iter()
                    .collect(),
                    deleted_with: deleted_with.value.clone(),
                    version: version.value.clone(),
                    provider: provider.value.clone(),
                    aliases: alias.value.clone().into_iter().collect(),
                    custom_timeouts: Some(register_resource_request::CustomTimeouts {
                        create: timeout.value.clone(),
                        ..Default::default()
                    }),
                    object: Some(Struct {
                        fields: fields.into_iter().collect(),
                    }),
                    ..Default::default()
                };
                let valid = ty.valid
                    && name.valid
                    && parent.valid
                    && deps.iter().chain(&prop_deps).all(|d| d.valid)
                    && deleted_with.valid
                    && version.valid
                    && provider.valid
                    && alias.valid
                    && timeout.valid
                    && odd.valid;
                (req, valid)
            },
        )
}

/// Sends `cases` fuzzed registrations during one deployment: each valid one is accepted, each
/// other one refused with INVALID_ARGUMENT; the stack then holds exactly the accepted ones.
async fn fuzz_registrations(cases: u32) {
    let stack = new_stack();
    let (accepted, snap) = deploy(&stack, move |addr| async move {
        let channel = connect(&addr).await.unwrap();
        let mut m = ResourceMonitorClient::new(channel.clone());
        m.register_resource(stack_request()).await.unwrap();
        m.register_resource(component("my:c:C", "comp"))
            .await
            .unwrap();
        let accepted = Arc::new(Mutex::new(Vec::new()));
        let seen = accepted.clone();
        let rt = tokio::runtime::Handle::current();
        let mut runner = TestRunner::new(Config {
            cases,
            ..Config::default()
        });
        let counter = std::sync::atomic::AtomicUsize::new(0);
        tokio::task::spawn_blocking(move || {
            runner
                .run(&registration(), |(mut req, valid)| {
                    if !req.name.is_empty() {
                        let n = counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        req.name = format!("r{n}");
                    }
                    let name = req.name.clone();
                    let mut m = ResourceMonitorClient::new(channel.clone());
                    let r = rt.block_on(m.register_resource(req.clone()));
                    match r {
                        Ok(_) => {
                            prop_assert!(valid, "accepted an invalid request: {req:?}");
                            seen.lock().unwrap().push(name);
                        }
                        Err(s) => {
                            prop_assert!(!valid, "refused a valid request: {s:?} {req:?}");
                            prop_assert_eq!(s.code(), Code::InvalidArgument, "{:?}", s);
                        }
                    }
                    Ok(())
                })
                .unwrap();
        })
        .await
        .unwrap();
        accepted.lock().unwrap().clone()
    })
    .await;
    let mut expected = vec!["proj-dev".to_string(), "comp".to_string()];
    expected.extend(accepted);
    let mut got = names(&snap);
    got.sort();
    expected.sort();
    assert_eq!(got, expected);
}

#[tokio::test(flavor = "multi_thread")]
async fn fuzzed_registrations_are_accepted_or_refused_and_the_journal_stays_valid() {
    fuzz_registrations(96).await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "a longer fuzzing run: cargo test --test rpc_monitor_validation -- --ignored"]
async fn fuzzed_registrations_long_run() {
    fuzz_registrations(3000).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failed_function_call_gets_its_code_from_the_kind_of_error() {
    let stack = new_stack();
    deploy(&stack, |addr| async move {
        let mut m = client(&addr).await;
        m.register_resource(stack_request()).await.unwrap();
        let get_resource = |args: Option<Struct>| ResourceInvokeRequest {
            tok: "pulumi:pulumi:getResource".into(),
            args,
            ..Default::default()
        };
        // The request is wrong: INVALID_ARGUMENT.
        let missing = m.invoke(get_resource(None)).await.unwrap_err();
        assert_eq!(missing.code(), Code::InvalidArgument, "{missing:?}");
        assert_eq!(
            missing.message(),
            "pulumi:pulumi:getResource needs the string argument 'urn'"
        );
        // A well-formed request that fails: INTERNAL.
        let args = Struct {
            fields: [(
                "urn".to_string(),
                Value {
                    kind: Some(Kind::StringValue(BOGUS.into())),
                },
            )]
            .into(),
        };
        let unknown = m.invoke(get_resource(Some(args))).await.unwrap_err();
        assert_eq!(unknown.code(), Code::Internal, "{unknown:?}");
        assert_eq!(unknown.message(), format!("unknown resource {BOGUS}"));
        let failed = m
            .invoke(ResourceInvokeRequest {
                tok: "pulumi:pulumi:noSuchFunction".into(),
                ..Default::default()
            })
            .await
            .unwrap_err();
        assert_eq!(failed.code(), Code::Internal, "{failed:?}");
        assert!(
            failed
                .message()
                .starts_with("invoke of pulumi:pulumi:noSuchFunction failed: "),
            "{failed:?}"
        );
    })
    .await;
}

/// A local component's outputs may reference resources registered after it; registered again
/// (a `same` step keeping its old outputs), it answers none, as Pulumi's monitor does, so the
/// SDK never tries to rehydrate a reference to a resource this run has not registered yet.
#[tokio::test(flavor = "multi_thread")]
async fn a_local_component_registered_again_answers_no_outputs() {
    let stack = new_stack();
    let (first, snap) = deploy(&stack, component_with_outputs).await;
    assert!(first.is_empty());
    let comp = snap
        .resources
        .iter()
        .find(|r| r.urn.to_string() == COMP)
        .unwrap();
    assert!(
        comp.outputs.contains_key("n"),
        "the component's outputs are kept"
    );
    let (second, _) = deploy(&stack, component_with_outputs).await;
    assert!(second.is_empty(), "no outputs for a component: {second:?}");
}

/// Registers the stack and the component `comp` with the output `n`; answers the outputs the
/// component's registration answered.
async fn component_with_outputs(addr: String) -> std::collections::BTreeMap<String, Value> {
    let mut m = client(&addr).await;
    m.register_resource(stack_request()).await.unwrap();
    let answer = m
        .register_resource(component("my:c:C", "comp"))
        .await
        .unwrap()
        .into_inner();
    m.register_resource_outputs(RegisterResourceOutputsRequest {
        urn: COMP.into(),
        outputs: Some(Struct {
            fields: [("n".to_string(), number(1.0))].into_iter().collect(),
        }),
    })
    .await
    .unwrap();
    answer.object.unwrap_or_default().fields
}
