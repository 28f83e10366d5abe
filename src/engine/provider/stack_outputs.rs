//! What the builtin `pulumi` provider needs from the state backend to serve stack references:
//! another stack's recorded state, read-only.

use crate::engine::model::snapshot::Snapshot;

/// The resource type that exposes another stack's outputs (`name`, `outputs`,
/// `secretOutputNames`).
pub(crate) const STACK_REFERENCE_TYPE: &str = "pulumi:pulumi:StackReference";

/// A stack that could not be read: unknown, misnamed, or its state unreadable.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct StackReadError(pub String);

/// Reads other stacks of the backend a deployment runs on, so that stack references work
/// without the engine knowing how or where state is stored.
pub trait StackOutputsSource: Send + Sync {
    /// The named stack's last recorded state (checkpoint and journal), secrets decrypted with
    /// that stack's own secrets provider and still marked secret. `name` is written as a
    /// program writes it: `organization/<project>/<stack>`, `organization/<stack>` or `<stack>`.
    fn snapshot(&self, name: &str) -> Result<Snapshot, StackReadError>;
}
