pub mod engine;
pub mod output;
pub mod providers;
