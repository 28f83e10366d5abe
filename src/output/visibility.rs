//! Which steps a display shows, after Pulumi's `shouldShow`: unchanged resources and the
//! non-logical halves of replacements only when asked for.

use crate::engine::model::resource::is_default_provider;
use crate::engine::model::urn::ROOT_STACK_TYPE;
use crate::engine::run::events::StepInfo;
use crate::engine::{StepOp, Urn};

/// Steps Pulumi keeps out of every display and event stream: default providers' and
/// pending-replacement cleanups.
pub fn is_internal(op: StepOp, urn: &Urn) -> bool {
    op == StepOp::RemovePendingReplace || is_default_provider(urn)
}

/// The `--show-sames` and `--show-replacement-steps` choices.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Visibility {
    pub show_sames: bool,
    pub show_replacement_steps: bool,
}

impl Visibility {
    /// Whether a step is shown.
    pub fn shows(self, op: StepOp, urn: &Urn) -> bool {
        if is_internal(op, urn) {
            return false;
        }
        if op == StepOp::Same {
            return self.show_sames;
        }
        self.show_replacement_steps || op.is_logical() || !is_replacement_step(op)
    }

    /// Whether the digest lists a step: the root stack's always, as in Pulumi's digest.
    pub fn lists(self, info: &StepInfo) -> bool {
        info.urn.type_() == ROOT_STACK_TYPE || self.shows(info.op, &info.urn)
    }
}

/// Pulumi's `IsReplacementStep`: the ops that make up a replacement.
fn is_replacement_step(op: StepOp) -> bool {
    matches!(
        op,
        StepOp::Replace
            | StepOp::CreateReplacement
            | StepOp::DeleteReplaced
            | StepOp::ReadReplacement
            | StepOp::DiscardReplaced
            | StepOp::RemovePendingReplace
            | StepOp::ImportReplacement
    )
}
