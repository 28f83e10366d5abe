//! Pulumi's gRPC protocol: the resource monitor and engine services SDK programs talk to, the
//! provider plugin client and launcher, the language hosts, policy packs (analyzers), and
//! Struct⇄property marshalling;
//! and stepdeck's own console protocol (`console`), which serves a deployment's console to
//! watchers elsewhere.

pub mod callbacks;
pub mod codec;
pub mod console;
pub mod debugger;
pub mod event_stream;
pub mod marshal;
pub mod monitor;
pub mod plugin;
pub mod policy;
pub mod program;
pub mod transport;

/// The generated pulumirpc messages, clients and servers (from our own `proto/` files).
#[allow(clippy::all, missing_docs)]
pub mod pulumirpc {
    tonic::include_proto!("pulumirpc");
}

/// The console protocol's messages, client and server (`proto/stepdeck/console/v1`).
#[allow(clippy::all, missing_docs)]
pub mod console_proto {
    tonic::include_proto!("stepdeck.console.v1");
}

/// Pulumi raises gRPC message limits to 400 MiB; tonic's default decode limit is 4 MiB.
pub const MAX_MESSAGE_SIZE: usize = 400 * 1024 * 1024;
