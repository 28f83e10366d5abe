pub mod engine;
pub mod output;
pub mod project;
pub mod providers;
pub mod rpc;
pub mod state;
pub mod yaml;
