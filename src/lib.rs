pub mod engine;
pub mod providers;
