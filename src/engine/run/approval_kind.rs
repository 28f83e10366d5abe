//! What an approval policy governs and what it says: the vocabulary the operator's handle, the
//! rules and the events share, kept apart so that none of them depends on another for it.

use crate::engine::step::StepOp;

/// The kinds of step a policy governs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ApprovalKind {
    Deletes,
    /// Both create-before-delete and delete-before-replace replacements.
    Replacements,
    Updates,
    Creates,
    /// A step on a resource a policy pack reported advisory violations on; a rule for it that
    /// says other than `auto` governs the step instead of its own kind.
    Violations,
}

impl ApprovalKind {
    pub const ALL: [ApprovalKind; 5] = [
        ApprovalKind::Deletes,
        ApprovalKind::Replacements,
        ApprovalKind::Updates,
        ApprovalKind::Creates,
        ApprovalKind::Violations,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalKind::Deletes => "deletes",
            ApprovalKind::Replacements => "replacements",
            ApprovalKind::Updates => "updates",
            ApprovalKind::Creates => "creates",
            ApprovalKind::Violations => "violations",
        }
    }

    /// The kind a step belongs to; steps that change nothing (same, read, refresh) have none,
    /// nor the delete of a replaced copy (its replacement was the decision).
    pub fn of(op: StepOp) -> Option<ApprovalKind> {
        match op {
            StepOp::Create | StepOp::Import => Some(ApprovalKind::Creates),
            StepOp::Update => Some(ApprovalKind::Updates),
            StepOp::Replace | StepOp::CreateReplacement | StepOp::ImportReplacement => {
                Some(ApprovalKind::Replacements)
            }
            StepOp::Delete => Some(ApprovalKind::Deletes),
            _ => None,
        }
    }
}

/// What to do with a step (or a delete-before-replace cascade) a policy governs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ApprovalPolicy {
    /// Hold the step's chain at its gate until someone decides.
    Ask,
    /// Run it, as Pulumi does.
    #[default]
    Auto,
    /// Skip it and what depends on it; what exists is kept as it is.
    Decline,
}

/// A policy name that is not `ask`, `auto` or `decline`; keeps the name for the message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown approval policy {0:?}: expected ask, auto or decline")]
pub struct UnknownPolicy(pub String);

impl std::str::FromStr for ApprovalPolicy {
    type Err = UnknownPolicy;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "ask" => Ok(ApprovalPolicy::Ask),
            "auto" => Ok(ApprovalPolicy::Auto),
            "decline" => Ok(ApprovalPolicy::Decline),
            other => Err(UnknownPolicy(other.to_string())),
        }
    }
}
