//! The YAML program language (Pulumi YAML's format), evaluated in-process against the engine's
//! resource monitor: `node` (spanned parse) → `ast` (checked shapes) → `analyze` (references,
//! dependencies, cycles) → `evaluate` (concurrent registration).

pub mod analyze;
mod assignable;
pub use crate::engine::model::asset;
pub mod ast;
pub mod builtin;
mod builtin_call;
pub mod compiler;
pub mod component;
pub mod component_schema;
pub mod error;
pub mod evaluate;
pub mod functions;
pub mod interpolate;
pub mod program;
pub mod remote_components;
pub mod scope;
mod stack_reference;
mod type_check;

pub use crate::located_yaml::node;
pub use error::{Pos, SourceError, YamlError};
pub use evaluate::YamlProgram;
pub use node::{Key, Node, NodeKind};
pub use type_check::is_component_type;

#[cfg(test)]
mod builtin_tests;
#[cfg(test)]
mod program_tests;
#[cfg(test)]
mod test_monitor;
#[cfg(test)]
mod tests;
