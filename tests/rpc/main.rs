//! pulumirpc over real gRPC: marshalling, the resource monitor's validation, provider plugins and dynamic providers, and the built-in providers.

#![allow(clippy::unwrap_used, clippy::panic)]

#[path = "../rpc_support/mod.rs"]
mod rpc_support;

mod rpc_marshal;
mod rpc_dynamic_provider;
mod rpc_provider_client;
mod rpc_monitor_validation;
mod providers_command;
mod providers_random;
mod providers_sim;
