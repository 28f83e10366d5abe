//! Steps: the unit of work the generator plans and the executor applies.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::provider::PropertyDiff;
use super::resource::ResourceState;
use super::urn::Urn;

/// Step operations, in the order Pulumi lists them (summaries follow this order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StepOp {
    Same,
    Create,
    Update,
    Delete,
    Replace,
    CreateReplacement,
    DeleteReplaced,
    Read,
    ReadReplacement,
    Refresh,
    Discard,
    DiscardReplaced,
    RemovePendingReplace,
    Import,
    ImportReplacement,
}

impl StepOp {
    pub const ALL: [StepOp; 15] = [
        StepOp::Same,
        StepOp::Create,
        StepOp::Update,
        StepOp::Delete,
        StepOp::Replace,
        StepOp::CreateReplacement,
        StepOp::DeleteReplaced,
        StepOp::Read,
        StepOp::ReadReplacement,
        StepOp::Refresh,
        StepOp::Discard,
        StepOp::DiscardReplaced,
        StepOp::RemovePendingReplace,
        StepOp::Import,
        StepOp::ImportReplacement,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            StepOp::Same => "same",
            StepOp::Create => "create",
            StepOp::Update => "update",
            StepOp::Delete => "delete",
            StepOp::Replace => "replace",
            StepOp::CreateReplacement => "create-replacement",
            StepOp::DeleteReplaced => "delete-replaced",
            StepOp::Read => "read",
            StepOp::ReadReplacement => "read-replacement",
            StepOp::Refresh => "refresh",
            StepOp::Discard => "discard",
            StepOp::DiscardReplaced => "discard-replaced",
            StepOp::RemovePendingReplace => "remove-pending-replace",
            StepOp::Import => "import",
            StepOp::ImportReplacement => "import-replacement",
        }
    }

    /// The symbol Pulumi's display puts before a row.
    pub fn prefix(self) -> &'static str {
        match self {
            StepOp::Same => "  ",
            StepOp::Create => "+ ",
            StepOp::Update | StepOp::Refresh | StepOp::RemovePendingReplace => "~ ",
            StepOp::Delete => "- ",
            StepOp::Replace => "+-",
            StepOp::CreateReplacement => "++",
            StepOp::DeleteReplaced => "--",
            StepOp::Read => "> ",
            StepOp::ReadReplacement => ">>",
            StepOp::Discard => "< ",
            StepOp::DiscardReplaced => "<<",
            StepOp::Import => "= ",
            StepOp::ImportReplacement => "=>",
        }
    }

    pub fn past_tense(self) -> &'static str {
        match self {
            StepOp::Same => "unchanged",
            StepOp::Create => "created",
            StepOp::Update => "updated",
            StepOp::Delete => "deleted",
            StepOp::Replace => "replaced",
            StepOp::CreateReplacement => "created replacement",
            StepOp::DeleteReplaced => "deleted original",
            StepOp::Read => "read",
            StepOp::ReadReplacement => "read for replacement",
            StepOp::Refresh => "refreshed",
            StepOp::Discard => "discarded",
            StepOp::DiscardReplaced => "discarded original",
            StepOp::RemovePendingReplace => "removed pending replacement",
            StepOp::Import => "imported",
            StepOp::ImportReplacement => "imported replacement",
        }
    }

    /// The status shown while the step runs.
    pub fn progressive(self) -> &'static str {
        match self {
            StepOp::Same => "same",
            StepOp::Create => "creating",
            StepOp::Update => "updating",
            StepOp::Delete => "deleting",
            StepOp::Replace => "replacing",
            StepOp::CreateReplacement => "creating replacement",
            StepOp::DeleteReplaced => "deleting original",
            StepOp::Read => "reading",
            StepOp::ReadReplacement => "reading for replacement",
            StepOp::Refresh => "refreshing",
            StepOp::Discard => "discarding",
            StepOp::DiscardReplaced => "discarding original",
            StepOp::RemovePendingReplace => "removing pending replacement",
            StepOp::Import => "importing",
            StepOp::ImportReplacement => "importing replacement",
        }
    }

    /// Logical steps stand for a resource in summaries; physical halves of a replacement do not.
    pub fn is_logical(self) -> bool {
        !matches!(
            self,
            StepOp::CreateReplacement
                | StepOp::DeleteReplaced
                | StepOp::ReadReplacement
                | StepOp::ImportReplacement
                | StepOp::Refresh
                | StepOp::RemovePendingReplace
        )
    }

    /// Whether applying the step changes the world (and so is journaled before it runs).
    pub fn is_mutating(self) -> bool {
        !matches!(
            self,
            StepOp::Same | StepOp::Replace | StepOp::RemovePendingReplace
        )
    }

    pub fn parse(s: &str) -> Option<StepOp> {
        StepOp::ALL.into_iter().find(|op| op.as_str() == s)
    }
}

impl fmt::Display for StepOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An old state taken from the base snapshot, with its position there (the journal refers to
/// base resources by position).
#[derive(Clone, Debug, PartialEq)]
pub struct OldState {
    pub index: usize,
    pub state: ResourceState,
}

/// One planned step.
#[derive(Clone, Debug)]
pub struct Step {
    pub op: StepOp,
    pub urn: Urn,
    pub old: Option<OldState>,
    pub new: Option<ResourceState>,
    /// Keys whose change forces replacement (for replace steps), or changed keys.
    pub keys: Vec<String>,
    pub diffs: Vec<String>,
    pub detailed_diff: BTreeMap<String, PropertyDiff>,
    /// For delete-replaced in a DBR chain: mark the old state pending replacement, not gone.
    pub pending_replace: bool,
    /// A create not performed because the resource is outside the targets.
    pub skipped_create: bool,
    /// A replace that deletes before it creates.
    pub delete_before_replace: bool,
    /// The old state was written earlier in this deployment (an update right after an
    /// import, or the delete of a provider a `destroy --run-program` configured), so the step
    /// supersedes that new state too.
    pub old_is_new: bool,
}

impl Step {
    pub fn new(op: StepOp, urn: Urn) -> Step {
        Step {
            op,
            urn,
            old: None,
            new: None,
            keys: Vec::new(),
            diffs: Vec::new(),
            detailed_diff: BTreeMap::new(),
            pending_replace: false,
            skipped_create: false,
            delete_before_replace: false,
            old_is_new: false,
        }
    }

    pub fn with_old(mut self, old: OldState) -> Step {
        self.old = Some(old);
        self
    }

    pub fn with_new(mut self, new: ResourceState) -> Step {
        self.new = Some(new);
        self
    }

    /// The state the step is about: the new one when there is one.
    pub fn state(&self) -> &ResourceState {
        match (&self.new, &self.old) {
            (Some(n), _) => n,
            (None, Some(o)) => &o.state,
            (None, None) => unreachable!("a step always has an old or a new state"),
        }
    }

    pub fn type_(&self) -> &str {
        &self.state().type_
    }
}
