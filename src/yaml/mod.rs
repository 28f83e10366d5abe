//! The YAML program language (Pulumi YAML's format), evaluated in-process against the engine's
//! resource monitor.

pub mod analyze;
pub mod ast;
pub mod error;
pub mod evaluate;
pub mod interpolate;
pub mod node;

pub use error::{Pos, SourceError};
pub use node::{Key, Node, NodeKind};
