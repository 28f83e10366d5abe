//! stepdeck's console protocol (`stepdeck.console.v1`): serves a deployment's events and takes
//! the operator's actions for watchers elsewhere (`stepdeck attach`).

pub mod addr;
pub mod client;
mod descriptors;
mod gate;
pub mod hub;
pub mod names;
pub mod server;
pub mod tee;
pub mod token;
pub mod wire;
