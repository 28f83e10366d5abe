pub mod engine;
pub mod output;
