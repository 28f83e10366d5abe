//! What a chain waits at before it may run: a delete-before-replace cascade, or one step an
//! approval policy governs. Both share one numbering and one decision path.

use super::generator::Cascade;
use crate::engine::model::urn::Urn;
use crate::engine::run::approval::ApprovalKind;
use crate::engine::run::events::CascadeId;
use crate::engine::step::{Step, StepOp};

/// The gate in front of one chain.
pub(crate) enum Gate {
    Cascade(Cascade),
    Step {
        id: CascadeId,
        op: StepOp,
        urn: Urn,
        kind: ApprovalKind,
    },
}

impl Gate {
    /// The step of a chain a policy governs, shown as the chain's operation (a replacement's
    /// create-replacement counts as the replace), with its kind.
    pub(in crate::engine) fn governed(steps: &[Step]) -> Option<(StepOp, Urn, ApprovalKind)> {
        steps.iter().find_map(|s| {
            let kind = ApprovalKind::of(s.op())?;
            let op = match kind {
                ApprovalKind::Replacements => StepOp::Replace,
                _ => s.op(),
            };
            Some((op, s.urn().clone(), kind))
        })
    }

    pub(in crate::engine) fn id(&self) -> CascadeId {
        match self {
            Gate::Cascade(c) => c.id,
            Gate::Step { id, .. } => *id,
        }
    }

    /// The step's URN, or the cascade's root.
    pub(in crate::engine) fn urn(&self) -> &Urn {
        match self {
            Gate::Cascade(c) => &c.root,
            Gate::Step { urn, .. } => urn,
        }
    }

    pub(in crate::engine) fn op(&self) -> StepOp {
        match self {
            Gate::Cascade(_) => StepOp::Replace,
            Gate::Step { op, .. } => *op,
        }
    }

    pub(in crate::engine) fn kind(&self) -> ApprovalKind {
        match self {
            Gate::Cascade(_) => ApprovalKind::Replacements,
            Gate::Step { kind, .. } => *kind,
        }
    }
}
