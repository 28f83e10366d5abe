//! `--attach-debugger`: which programs and plugins start under a debugger (`targets`), and how
//! each language's debugger is started and announced, as Pulumi's Node.js and Python language
//! hosts do it: Node's inspector (`node_inspector`), bun's (`bun_inspector`), Python's debugpy
//! (`debugpy`).

pub mod bun_inspector;
pub mod debugpy;
mod free_port;
pub mod node_inspector;
pub mod targets;
