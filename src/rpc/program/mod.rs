//! SDK programs: Python and Node.js programs run by their language hosts against our resource
//! monitor, the scripts they start with (Python launcher, Node preload), and inline programs an Automation API runs
//! in its own process (`client_program`).

pub mod client_program;
pub mod language_host;
mod launcher_file;
mod out_of_memory;
pub mod poetry;
#[cfg(test)]
mod sdk_program_tests;
pub mod served_program;
pub mod typechecker;
pub mod uv;
