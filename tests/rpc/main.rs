//! pulumirpc over real gRPC: marshalling, the resource monitor's validation, provider plugins and dynamic providers, and the built-in providers.

#![allow(clippy::unwrap_used, clippy::panic)]

#[path = "../rpc_support/mod.rs"]
mod rpc_support;

mod providers_command;
mod providers_random;
mod providers_sim;
mod rpc_dynamic_provider;
mod rpc_engine_start_debugging;
mod rpc_marshal;
mod rpc_monitor_validation;
mod rpc_provider_client;
