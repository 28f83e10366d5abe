//! YAML parsed with the position of every node, so that the project and stack files and the
//! YAML program report problems as `file:line:column`; how much of it stepdeck reads
//! (`limits`). A leaf: it calls nothing else in the
//! crate, and both `project` and `yaml` build on it.

pub mod limits;
pub mod node;
pub mod source_error;

pub use node::{Key, MAX_DEPTH, Node, NodeKind, parse_document, parse_document_to_depth};
pub use source_error::{Pos, SourceError};
