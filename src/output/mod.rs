//! Non-interactive outputs built on the engine's event stream: plain progress lines in Pulumi's
//! wording, and Pulumi-shaped JSON for CI.

pub mod json;
pub mod plain;
pub mod summary;
