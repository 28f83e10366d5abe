pub mod app;
pub mod engine;
pub mod views;
