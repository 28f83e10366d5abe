pub mod engine;
pub mod state;
