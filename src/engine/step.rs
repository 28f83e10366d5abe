//! Steps: the unit of work the generator plans and the executor applies.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::model::resource::ResourceState;
use super::model::urn::Urn;
use super::provider::PropertyDiff;

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
/// base resources by position). The state is shared with the base, so that a step over an
/// unchanged resource moves a pointer instead of copying its maps.
#[derive(Clone, Debug, PartialEq)]
pub struct OldState {
    pub index: usize,
    pub state: Arc<ResourceState>,
}

/// What a diff found, carried by the steps it planned (shown in displays and the JSON stream).
#[derive(Clone, Debug, Default)]
pub(crate) struct Changes {
    /// Keys whose change forces the replacement.
    pub replace_keys: Vec<String>,
    /// Keys that changed.
    pub diffs: Vec<String>,
    pub detailed_diff: BTreeMap<String, PropertyDiff>,
}

impl Changes {
    /// Changes that only name why a replacement happens (`id`, `provider`, a dependent's keys).
    pub(crate) fn replacing(keys: Vec<String>) -> Changes {
        Changes {
            replace_keys: keys,
            ..Changes::default()
        }
    }
}

/// Which half of a replacement runs first: it decides whether the old copy is deleted at the
/// end (create-before-delete) or was deleted before the create (delete-before-replace).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReplaceOrder {
    CreateBeforeDelete,
    DeleteBeforeCreate,
}

/// The state an update supersedes: a base copy, or a state written earlier in this deployment
/// (an update right after an import, Pulumi's `continueStepsFromImport`).
#[derive(Clone, Debug)]
pub(crate) enum Superseded {
    Base(OldState),
    Imported(Box<ResourceState>),
}

impl Superseded {
    pub(crate) fn state(&self) -> &ResourceState {
        match self {
            Superseded::Base(o) => &o.state,
            Superseded::Imported(s) => s,
        }
    }
}

/// One planned step: one variant per Pulumi step constructor, holding exactly the states that
/// operation has, so a step without the state its operation needs cannot be built.
// A step's new state is inline (boxing it would cost an allocation per step); only the old
// state, shared with the base, is a pointer, so a delete is much smaller than the rest.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub(crate) enum Step {
    /// `NewSameStep`: the resource is kept; its new state may differ only in what needs no
    /// provider call.
    Same { old: OldState, new: ResourceState },
    /// `NewSkippedCreateStep`: a create not performed because the resource is outside the
    /// targets (shown as `same`).
    SkippedCreate { new: ResourceState },
    /// `NewCreateStep`.
    Create { new: ResourceState },
    /// `NewUpdateStep`.
    Update {
        old: Superseded,
        new: ResourceState,
        changes: Changes,
    },
    /// `NewReplaceStep`: the logical replace, between its create and delete halves.
    Replace {
        old: OldState,
        new: ResourceState,
        changes: Changes,
        order: ReplaceOrder,
    },
    /// `NewCreateReplacementStep`.
    CreateReplacement {
        old: OldState,
        new: ResourceState,
        changes: Changes,
        order: ReplaceOrder,
    },
    /// `NewDeleteReplacementStep` with `pendingReplace`: a delete-before-replace deletes the old
    /// copy and marks it pending replacement until its replacement exists.
    DeleteBeforeReplace { old: OldState, changes: Changes },
    /// `NewDeleteReplacementStep`: the old copy a replacement left, deleted at the end.
    DeleteReplaced { old: OldState },
    /// `NewDeleteStep`.
    Delete { old: OldState },
    /// `NewDeleteStep` of a resource this run wrote again (a provider a `destroy --run-program`
    /// configured): the copy written in this run leaves the state with the base one.
    DeleteRewritten { old: OldState },
    /// `NewReadStep` of a resource the stack did not hold.
    Read { new: ResourceState },
    /// `NewReadStep` of a resource the stack already reads: the new read supersedes it.
    Reread { old: OldState, new: ResourceState },
    /// `NewReadReplacementStep`: a read takes the URN of a managed resource, deleted at the end.
    ReadReplacement { old: OldState, new: ResourceState },
    /// `NewImportStep`; `only` keeps just those of the inputs the read returns (`pulumi
    /// import --properties`).
    Import {
        new: ResourceState,
        id: String,
        only: Option<Vec<String>>,
    },
    /// `NewImportReplacementStep`: the imported resource takes the URN of another one.
    ImportReplacement {
        old: OldState,
        new: ResourceState,
        id: String,
    },
    /// `NewRefreshStep`.
    Refresh { old: OldState },
    /// `NewRemovePendingReplaceStep`: an old copy already deleted by a delete-before-replace
    /// leaves the state.
    RemovePendingReplace { old: OldState },
    /// A read resource the program no longer reads leaves the state (no provider call).
    Discard { old: OldState },
    /// The old copy of a read replacement leaves the state.
    DiscardReplaced { old: OldState },
}

impl Step {
    /// A kept resource (Pulumi's `NewSameStep`): never a copy waiting for its delete (the new
    /// state may carry another URN, the old one an alias of it).
    pub(crate) fn same(old: OldState, new: ResourceState) -> Step {
        debug_assert!(!old.state.delete, "a same step keeps a live copy");
        Step::Same { old, new }
    }

    /// An update (Pulumi's `NewUpdateStep`): never of a copy waiting for its delete.
    pub(crate) fn update(old: Superseded, new: ResourceState, changes: Changes) -> Step {
        debug_assert!(!old.state().delete, "an update's old state is live");
        Step::Update { old, new, changes }
    }

    /// The two halves of a replacement, in the order their chain runs them when it creates
    /// first (`[create-replacement, replace]`); a delete-before-replace chain puts its deletes
    /// before them and the replace first.
    pub(crate) fn replacement(
        old: OldState,
        new: ResourceState,
        changes: Changes,
        order: ReplaceOrder,
    ) -> [Step; 2] {
        debug_assert!(!old.state.delete, "a replacement replaces a live copy");
        let create = Step::CreateReplacement {
            old: old.clone(),
            new: new.clone(),
            changes: changes.clone(),
            order,
        };
        let replace = Step::Replace {
            old,
            new,
            changes,
            order,
        };
        match order {
            ReplaceOrder::CreateBeforeDelete => [create, replace],
            ReplaceOrder::DeleteBeforeCreate => [replace, create],
        }
    }

    /// Pulumi's `NewRemovePendingReplaceStep`: only of a copy pending replacement.
    pub(crate) fn remove_pending_replace(old: OldState) -> Step {
        debug_assert!(
            old.state.pending_replacement,
            "only a copy pending replacement is removed so"
        );
        Step::RemovePendingReplace { old }
    }

    pub(crate) fn op(&self) -> StepOp {
        match self {
            Step::Same { .. } | Step::SkippedCreate { .. } => StepOp::Same,
            Step::Create { .. } => StepOp::Create,
            Step::Update { .. } => StepOp::Update,
            Step::Replace { .. } => StepOp::Replace,
            Step::CreateReplacement { .. } => StepOp::CreateReplacement,
            Step::DeleteBeforeReplace { .. } | Step::DeleteReplaced { .. } => {
                StepOp::DeleteReplaced
            }
            Step::Delete { .. } | Step::DeleteRewritten { .. } => StepOp::Delete,
            Step::Read { .. } | Step::Reread { .. } => StepOp::Read,
            Step::ReadReplacement { .. } => StepOp::ReadReplacement,
            Step::Import { .. } => StepOp::Import,
            Step::ImportReplacement { .. } => StepOp::ImportReplacement,
            Step::Refresh { .. } => StepOp::Refresh,
            Step::RemovePendingReplace { .. } => StepOp::RemovePendingReplace,
            Step::Discard { .. } => StepOp::Discard,
            Step::DiscardReplaced { .. } => StepOp::DiscardReplaced,
        }
    }

    /// The base copy the step works on, when it has one.
    pub(crate) fn old(&self) -> Option<&OldState> {
        match self {
            Step::Same { old, .. }
            | Step::Replace { old, .. }
            | Step::CreateReplacement { old, .. }
            | Step::DeleteBeforeReplace { old, .. }
            | Step::DeleteReplaced { old }
            | Step::Delete { old }
            | Step::DeleteRewritten { old }
            | Step::Reread { old, .. }
            | Step::ReadReplacement { old, .. }
            | Step::ImportReplacement { old, .. }
            | Step::Refresh { old }
            | Step::RemovePendingReplace { old }
            | Step::Discard { old }
            | Step::DiscardReplaced { old }
            | Step::Update {
                old: Superseded::Base(old),
                ..
            } => Some(old),
            Step::Update {
                old: Superseded::Imported(_),
                ..
            }
            | Step::SkippedCreate { .. }
            | Step::Create { .. }
            | Step::Read { .. }
            | Step::Import { .. } => None,
        }
    }

    /// The state the step supersedes, a base copy or one written earlier in this run.
    pub(crate) fn old_state(&self) -> Option<&ResourceState> {
        match self {
            Step::Update { old, .. } => Some(old.state()),
            _ => self.old().map(|o| &*o.state),
        }
    }

    /// The state the step writes, when it writes one.
    pub(crate) fn new_state(&self) -> Option<&ResourceState> {
        match self {
            Step::DeleteBeforeReplace { .. }
            | Step::DeleteReplaced { .. }
            | Step::Delete { .. }
            | Step::DeleteRewritten { .. }
            | Step::Refresh { .. }
            | Step::RemovePendingReplace { .. }
            | Step::Discard { .. }
            | Step::DiscardReplaced { .. } => None,
            _ => Some(self.state()),
        }
    }

    /// The state the step is about: the new one when there is one.
    pub(crate) fn state(&self) -> &ResourceState {
        match self {
            Step::DeleteBeforeReplace { old, .. }
            | Step::DeleteReplaced { old }
            | Step::Delete { old }
            | Step::DeleteRewritten { old }
            | Step::Refresh { old }
            | Step::RemovePendingReplace { old }
            | Step::Discard { old }
            | Step::DiscardReplaced { old } => &old.state,
            Step::Same { new, .. }
            | Step::SkippedCreate { new }
            | Step::Create { new }
            | Step::Update { new, .. }
            | Step::Replace { new, .. }
            | Step::CreateReplacement { new, .. }
            | Step::Read { new }
            | Step::Reread { new, .. }
            | Step::ReadReplacement { new, .. }
            | Step::Import { new, .. }
            | Step::ImportReplacement { new, .. } => new,
        }
    }

    pub(crate) fn urn(&self) -> &Urn {
        &self.state().urn
    }

    /// What the diff that planned the step found.
    pub(crate) fn changes(&self) -> Option<&Changes> {
        match self {
            Step::Update { changes, .. }
            | Step::Replace { changes, .. }
            | Step::CreateReplacement { changes, .. }
            | Step::DeleteBeforeReplace { changes, .. } => Some(changes),
            _ => None,
        }
    }

    /// Whether the step belongs to a replacement that deletes before it creates.
    pub(crate) fn delete_before_replace(&self) -> bool {
        match self {
            Step::Replace { order, .. } | Step::CreateReplacement { order, .. } => {
                *order == ReplaceOrder::DeleteBeforeCreate
            }
            Step::DeleteBeforeReplace { .. } => true,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn old(name: &str) -> OldState {
        OldState {
            index: 3,
            state: Arc::new(ResourceState {
                urn: Urn::new("s", "p", None, "t:i:R", name),
                custom: true,
                id: Some("id-1".into()),
                ..ResourceState::default()
            }),
        }
    }

    #[test]
    fn a_replacement_runs_its_halves_in_its_order_and_says_which_order_it_is() {
        let o = old("a");
        let new = ResourceState {
            id: None,
            ..ResourceState::clone(&o.state)
        };
        let keys = Changes::replacing(vec!["size".into()]);
        let cbd = Step::replacement(
            o.clone(),
            new.clone(),
            keys.clone(),
            ReplaceOrder::CreateBeforeDelete,
        );
        assert_eq!(
            cbd.iter().map(Step::op).collect::<Vec<_>>(),
            [StepOp::CreateReplacement, StepOp::Replace]
        );
        assert!(cbd.iter().all(|s| !s.delete_before_replace()));
        let dbr = Step::replacement(o, new, keys, ReplaceOrder::DeleteBeforeCreate);
        assert_eq!(
            dbr.iter().map(Step::op).collect::<Vec<_>>(),
            [StepOp::Replace, StepOp::CreateReplacement]
        );
        assert!(dbr.iter().all(Step::delete_before_replace));
        assert_eq!(dbr[0].old().map(|o| o.index), Some(3));
        assert_eq!(
            dbr[0].changes().map(|c| c.replace_keys.clone()),
            Some(vec!["size".to_string()])
        );
    }

    #[test]
    fn an_update_after_an_import_has_no_base_copy_but_still_an_old_state() {
        let imported = ResourceState::clone(&old("a").state);
        let step = Step::update(
            Superseded::Imported(Box::new(imported.clone())),
            imported.clone(),
            Changes::default(),
        );
        assert_eq!(step.op(), StepOp::Update);
        assert!(step.old().is_none(), "no base position to refer to");
        assert_eq!(step.old_state(), Some(&imported));
        let delete = Step::DeleteBeforeReplace {
            old: old("b"),
            changes: Changes::default(),
        };
        assert_eq!(delete.op(), StepOp::DeleteReplaced);
        assert!(delete.new_state().is_none());
        assert_eq!(delete.urn().name(), "b");
    }
}
