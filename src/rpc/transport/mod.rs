//! Where our gRPC services listen (a private Unix socket, or loopback for our own user only)
//! and the channel the engine's unary calls to plugins and programs go through.

mod loopback_peer;
pub mod server;
pub mod unary_channel;
#[cfg(test)]
mod unary_channel_tests;
