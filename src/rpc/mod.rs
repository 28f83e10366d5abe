//! Pulumi's gRPC protocol: the resource monitor and engine services SDK programs talk to, the
//! provider plugin client and launcher, the language hosts, and Struct⇄property marshalling;
//! and stepdeck's own console protocol (`console_*`), which serves a deployment's console to
//! watchers elsewhere.

pub mod callbacks;
pub mod codec;
pub mod console_addr;
pub mod console_client;
mod console_gate;
pub mod console_hub;
pub mod console_names;
pub mod console_server;
pub mod console_tee;
pub mod console_token;
pub mod console_wire;
mod descriptors;
pub mod engine_service;
pub mod hook_callbacks;
pub mod language_host;
mod launcher_file;
mod loopback_peer;
pub mod marshal;
pub mod monitor_service;
pub mod package_refs;
pub mod plugin;
pub mod plugin_providers;
mod private_dir;
pub mod provider_client;
pub mod server;
pub mod transforms;
pub mod unary_channel;

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

#[cfg(test)]
mod sdk_program_tests;
