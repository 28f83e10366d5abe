//! stepdeck: a deployment engine in the Pulumi model with a live operator's console.

pub mod app;
#[cfg(feature = "testing")]
pub mod bench_support;
pub mod console;
pub mod engine;
pub mod fault;
pub mod file_limits;
pub mod located_yaml;
pub mod memory;
pub mod output;
pub mod policy;
pub mod private_dir;
pub mod project;
pub mod providers;
pub mod rpc;
pub mod sdkgen;
pub mod state;
pub mod views;
pub mod yaml;
