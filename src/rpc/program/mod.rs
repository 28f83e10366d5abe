//! SDK programs: Python and Node.js programs run by their language hosts against our resource
//! monitor, and the Python launcher they start from.

pub mod language_host;
mod launcher_file;
#[cfg(test)]
mod sdk_program_tests;
