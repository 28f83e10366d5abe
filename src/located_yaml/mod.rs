//! YAML parsed with the position of every node, so that the project and stack files and the
//! YAML program report problems as `file:line:column`. A leaf: it calls nothing else in the
//! crate, and both `project` and `yaml` build on it.

pub mod node;
pub mod source_error;

pub use node::{Key, MAX_DEPTH, Node, NodeKind, parse_document, parse_document_to_depth};
pub use source_error::{Pos, SourceError};
