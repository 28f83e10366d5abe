pub mod engine;
pub mod rpc;
