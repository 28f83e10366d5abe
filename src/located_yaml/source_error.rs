//! Errors located in a source file: every problem in a project, stack or program file is
//! reported as `file:line:column: message`, the form editors and terminals make clickable.

use std::fmt;

/// A 1-based line and column in a source file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// One problem at one place in one file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{pos}: {message}")]
pub struct SourceError {
    pub file: String,
    pub pos: Pos,
    pub message: String,
}

impl SourceError {
    pub fn new(file: &str, pos: Pos, message: impl Into<String>) -> SourceError {
        SourceError {
            file: file.to_string(),
            pos,
            message: message.into(),
        }
    }
}
