//! `UnaryChannel` as a transport: against the gRPC stacks plugins are written in (grpc-js for
//! Node, grpcio for Python, each a `ResourceProvider` run as the SDKs run theirs), with
//! messages larger than gRPC's default 4 MiB both ways, deadlines, calls dropped half-way and a
//! peer going away; and against peers that misbehave: one that accepts and never answers, one
//! that stops after its headers, one that answers a truncated message.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use bytes::Bytes;
use prost_types::{Struct, Value, value::Kind};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tonic::{Code, Request};

use super::unary_channel::UnaryChannel;
use crate::rpc::MAX_MESSAGE_SIZE;
use crate::rpc::pulumirpc::resource_provider_client::ResourceProviderClient;
use crate::rpc::pulumirpc::{CheckRequest, CreateRequest};

/// A `ResourceProvider` in grpc-js with the Node SDK's server options: `Check` echoes the new
/// inputs; `Create` holds the call, saying so, and says when the call is cancelled; `goaway` on
/// stdin shuts the server down gracefully and then answers the held calls.
const NODE_PEER: &str = r#"
const grpc = require("@grpc/grpc-js");
const services = require("@pulumi/pulumi/proto/provider_grpc_pb");
const messages = require("@pulumi/pulumi/proto/provider_pb");
const { grpcChannelOptions } = require("@pulumi/pulumi/runtime/settings");
const server = new grpc.Server(grpcChannelOptions);
const held = [];
server.addService(services.ResourceProviderService, {
    check: (call, done) => {
        const reply = new messages.CheckResponse();
        reply.setInputs(call.request.getNews());
        done(null, reply);
    },
    create: (call, done) => {
        const urn = call.request.getUrn();
        call.on("cancelled", () => console.log(`cancelled ${urn}`));
        held.push(done);
        console.log(`holding ${urn}`);
    },
});
require("readline").createInterface({ input: process.stdin }).on("line", (line) => {
    if (line !== "goaway") return;
    server.tryShutdown(() => {});
    for (const done of held.splice(0)) {
        const reply = new messages.CreateResponse();
        reply.setId("released");
        done(null, reply);
    }
});
server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, port) => {
    if (e) { console.error(e); process.exit(1); }
    console.log(port);
});
"#;

/// The same peer in grpcio, with the Python SDK's server options.
const PYTHON_PEER: &str = r#"
import sys, threading
from concurrent import futures
import grpc
from pulumi.runtime._grpc_settings import _GRPC_CHANNEL_OPTIONS
from pulumi.runtime.proto import provider_pb2, provider_pb2_grpc

lock = threading.Lock()
held = []
released = threading.Event()

def say(line):
    with lock:
        print(line, flush=True)

class Peer(provider_pb2_grpc.ResourceProviderServicer):
    def Check(self, request, context):
        return provider_pb2.CheckResponse(inputs=request.news)

    def Create(self, request, context):
        wake = threading.Event()
        context.add_callback(wake.set)
        with lock:
            held.append(wake)
        say("holding " + request.urn)
        wake.wait()
        if released.is_set() and context.is_active():
            return provider_pb2.CreateResponse(id="released")
        say("cancelled " + request.urn)
        return provider_pb2.CreateResponse()

server = grpc.server(futures.ThreadPoolExecutor(max_workers=8), options=_GRPC_CHANNEL_OPTIONS)
provider_pb2_grpc.add_ResourceProviderServicer_to_server(Peer(), server)
port = server.add_insecure_port("127.0.0.1:0")
server.start()
say(str(port))
for line in sys.stdin:
    if line.strip() == "goaway":
        server.stop(grace=600)
        released.set()
        with lock:
            for wake in held:
                wake.set()
"#;

#[derive(Clone, Copy, Debug)]
enum Stack {
    GrpcJs,
    Grpcio,
}

const STACKS: [Stack; 2] = [Stack::GrpcJs, Stack::Grpcio];

/// A peer process: what it prints, line by line, and its stdin for commands.
struct Peer {
    _child: Child,
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
    address: String,
    stack: Stack,
}

fn sdk_env() -> PathBuf {
    let root = std::env::var_os("STEPDECK_SDK_ENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/sdk-env"));
    assert!(
        root.join("venv/bin/python").exists() && root.join("node_modules/@grpc/grpc-js").exists(),
        "the Pulumi SDKs are not installed in {}: run .ci/install-sdks.sh (or set STEPDECK_SDK_ENV)",
        root.display()
    );
    root
}

impl Peer {
    async fn start(stack: Stack) -> Peer {
        let env = sdk_env();
        let mut command = match stack {
            Stack::GrpcJs => {
                let mut c = Command::new("node");
                c.env("NODE_PATH", env.join("node_modules"))
                    .args(["-e", NODE_PEER]);
                c
            }
            Stack::Grpcio => {
                let mut c = Command::new(env.join("venv/bin/python"));
                c.args(["-c", PYTHON_PEER]);
                c
            }
        };
        let mut child = command
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let port = lines.next_line().await.unwrap().expect("the peer's port");
        Peer {
            _child: child,
            stdin,
            lines,
            address: format!("127.0.0.1:{}", port.trim()),
            stack,
        }
    }

    async fn client(&self) -> ResourceProviderClient<UnaryChannel> {
        let channel = UnaryChannel::connect(&self.address).await.unwrap();
        ResourceProviderClient::new(channel)
            .max_decoding_message_size(MAX_MESSAGE_SIZE)
            .max_encoding_message_size(MAX_MESSAGE_SIZE)
    }

    /// Waits until the peer prints `line`.
    async fn said(&mut self, line: &str) {
        while let Some(next) = self.lines.next_line().await.unwrap() {
            if next == line {
                return;
            }
        }
        panic!("{:?} ended without saying {line:?}", self.stack);
    }

    async fn tell(&mut self, line: &str) {
        self.stdin
            .write_all(format!("{line}\n").as_bytes())
            .await
            .unwrap();
    }
}

/// Inputs of one string field of `len` bytes.
fn blob(len: usize, fill: char) -> Struct {
    let text: String = std::iter::repeat_n(fill, len).collect();
    Struct {
        fields: BTreeMap::from([(
            "blob".to_string(),
            Value {
                kind: Some(Kind::StringValue(text)),
            },
        )]),
    }
}

fn check(news: Struct) -> CheckRequest {
    CheckRequest {
        urn: "urn:pulumi:t::p::pkg:index:Res::echo".into(),
        news: Some(news),
        ..Default::default()
    }
}

fn create(name: &str) -> CreateRequest {
    CreateRequest {
        urn: format!("urn:pulumi:t::p::pkg:index:Res::{name}"),
        ..Default::default()
    }
}

/// Bounds a call that must end, so that a hang fails the test instead of stalling it.
async fn ends<T>(what: &str, call: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(120), call)
        .await
        .unwrap_or_else(|_| panic!("{what} never ended"))
}

#[tokio::test]
async fn messages_over_4_mib_cross_both_ways_with_grpc_js_and_grpcio() {
    for stack in STACKS {
        let peer = Peer::start(stack).await;
        let client = peer.client().await;
        // Two at once on one connection: together more than its 5 MiB window.
        let (mut a, mut b) = (client.clone(), client);
        let (first, second) = (blob(6 << 20, 'a'), blob(5 << 20, 'b'));
        let (ra, rb) = ends(
            "two large checks",
            futures::future::join(
                a.check(check(first.clone())),
                b.check(check(second.clone())),
            ),
        )
        .await;
        assert_eq!(ra.unwrap().into_inner().inputs, Some(first), "{stack:?}");
        assert_eq!(rb.unwrap().into_inner().inputs, Some(second), "{stack:?}");
    }
}

#[tokio::test]
async fn a_peer_holding_a_call_ends_it_at_the_deadline_the_call_carries() {
    for stack in STACKS {
        let mut peer = Peer::start(stack).await;
        let mut client = peer.client().await;
        let mut request = Request::new(create("late"));
        request.set_timeout(Duration::from_millis(300));
        let status = ends("a call with a deadline", client.create(request))
            .await
            .unwrap_err();
        assert_eq!(
            status.code(),
            Code::DeadlineExceeded,
            "{stack:?}: {status:?}"
        );
        peer.said("cancelled urn:pulumi:t::p::pkg:index:Res::late")
            .await;
        // The connection serves the next call.
        client.check(check(blob(10, 'c'))).await.unwrap();
    }
}

#[tokio::test]
async fn dropping_a_call_cancels_it_at_the_peer() {
    for stack in STACKS {
        let mut peer = Peer::start(stack).await;
        let mut client = peer.client().await;
        let mut held = client.clone();
        let call = tokio::spawn(async move { held.create(create("dropped")).await });
        peer.said("holding urn:pulumi:t::p::pkg:index:Res::dropped")
            .await;
        call.abort();
        assert!(call.await.unwrap_err().is_cancelled());
        peer.said("cancelled urn:pulumi:t::p::pkg:index:Res::dropped")
            .await;
        client.check(check(blob(10, 'c'))).await.unwrap();
    }
}

#[tokio::test]
async fn a_peer_going_away_answers_the_call_in_flight_and_fails_later_ones() {
    for stack in STACKS {
        let mut peer = Peer::start(stack).await;
        let mut client = peer.client().await;
        let mut held = client.clone();
        let call = tokio::spawn(async move { held.create(create("in-flight")).await });
        peer.said("holding urn:pulumi:t::p::pkg:index:Res::in-flight")
            .await;
        peer.tell("goaway").await;
        let answer = ends("the call in flight", call).await.unwrap();
        assert_eq!(answer.unwrap().into_inner().id, "released", "{stack:?}");
        let later = ends("a call after GOAWAY", client.check(check(blob(10, 'c')))).await;
        assert!(later.is_err(), "{stack:?}: {later:?}");
    }
}

/// A peer that accepts the connection and never reads or writes a byte.
#[tokio::test]
async fn a_peer_that_accepts_and_never_answers_fails_the_call_at_its_deadline() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let peer = tokio::spawn(async move {
        let (_socket, _) = listener.accept().await.unwrap();
        std::future::pending::<()>().await;
    });
    let channel = UnaryChannel::connect(&address).await.unwrap();
    let mut request = Request::new(check(blob(10, 'c')));
    request.set_timeout(Duration::from_millis(300));
    let mut client = ResourceProviderClient::new(channel);
    let status = ends("a call to a stalled peer", client.check(request))
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::DeadlineExceeded, "{status:?}");
    peer.abort();
}

/// An HTTP/2 peer that answers each request with `answer`: the response's headers, then
/// `body` if any (and trailers saying OK), or nothing more ever.
async fn h2_peer(body: Option<&'static [u8]>) -> (String, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let task = tokio::spawn(async move {
        let (socket, _) = listener.accept().await.unwrap();
        let mut connection = h2::server::handshake(socket).await.unwrap();
        let mut streams = Vec::new();
        while let Some(Ok((_request, mut respond))) = connection.accept().await {
            let response = http::Response::builder()
                .header("content-type", "application/grpc")
                .body(())
                .unwrap();
            let mut stream = respond.send_response(response, false).unwrap();
            if let Some(body) = body {
                stream.send_data(Bytes::from_static(body), false).unwrap();
                let mut trailers = http::HeaderMap::new();
                trailers.insert("grpc-status", "0".parse().unwrap());
                stream.send_trailers(trailers).unwrap();
            }
            streams.push(stream);
        }
    });
    (address, task)
}

#[tokio::test]
async fn a_peer_that_stops_after_its_headers_fails_the_call_at_its_deadline() {
    let (address, peer) = h2_peer(None).await;
    let channel = UnaryChannel::connect(&address).await.unwrap();
    let mut request = Request::new(check(blob(10, 'c')));
    request.set_timeout(Duration::from_millis(300));
    let mut client = ResourceProviderClient::new(channel);
    let status = ends(
        "a call to a peer stopped after its headers",
        client.check(request),
    )
    .await
    .unwrap_err();
    assert_eq!(status.code(), Code::DeadlineExceeded, "{status:?}");
    peer.abort();
}

#[tokio::test]
async fn a_peer_that_answers_a_truncated_message_fails_the_call() {
    // A message announced as 1,024 bytes, of which three arrive before the stream ends.
    let (address, peer) = h2_peer(Some(b"\x00\x00\x00\x04\x00abc")).await;
    let channel = UnaryChannel::connect(&address).await.unwrap();
    let mut client = ResourceProviderClient::new(channel);
    let status = ends(
        "a call answered with a truncated message",
        client.check(check(blob(10, 'c'))),
    )
    .await
    .unwrap_err();
    assert_eq!(status.code(), Code::Internal, "{status:?}");
    peer.abort();
}

#[test]
fn deadlines_are_read_as_grpc_writes_them() {
    let timeout = |value: &str| {
        let mut headers = http::HeaderMap::new();
        headers.insert("grpc-timeout", value.parse().unwrap());
        super::unary_channel::grpc_timeout(&headers)
    };
    assert_eq!(timeout("2H"), Some(Duration::from_secs(7200)));
    assert_eq!(timeout("3M"), Some(Duration::from_secs(180)));
    assert_eq!(timeout("30S"), Some(Duration::from_secs(30)));
    assert_eq!(timeout("300m"), Some(Duration::from_millis(300)));
    assert_eq!(timeout("7u"), Some(Duration::from_micros(7)));
    assert_eq!(timeout("99999999n"), Some(Duration::from_nanos(99_999_999)));
    for bad in ["", "S", "123456789S", "10", "10x", "-1S", "1.5S"] {
        assert_eq!(timeout(bad), None, "{bad:?}");
    }
}
