pub mod engine;
pub mod project;
pub mod yaml;
