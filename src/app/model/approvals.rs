//! What waits for the operator: delete-before-replace cascades and the step gates an approval
//! policy opens, each decided once (by the operator, a decision file or the policy), or
//! abandoned when the run stops first.

use std::collections::HashMap;
use std::time::Duration;

use foldhash::fast::RandomState as FastHash;

use crate::engine::run::approval::ApprovalKind;
use crate::engine::run::events::{CascadeId, CascadeMember, ChainId, Decider};
use crate::engine::{StepOp, Urn};

/// A delete-before-replace cascade shown to the operator.
#[derive(Clone, Debug)]
pub struct Cascade {
    pub id: CascadeId,
    pub chain: ChainId,
    pub root: Urn,
    pub members: Vec<CascadeMember>,
    /// `Some((approved, by))` once decided.
    pub decided: Option<(bool, Decider)>,
    pub at: Duration,
    /// Planned by a preview: nothing waits for a decision yet.
    pub planned: bool,
    /// The run ended (failed or cancelled) before anyone decided: it will not run.
    pub abandoned: bool,
    /// When an approval timeout declines it if still undecided (console clock).
    pub deadline: Option<Duration>,
    /// A single step's gate, with no members: its operation, kind, and whether its policy
    /// asks (else it declines). `None` for a delete-before-replace cascade.
    pub step: Option<(StepOp, ApprovalKind, bool)>,
}

impl Cascade {
    /// Whether the operator still has to decide it.
    pub fn waiting(&self) -> bool {
        self.decided.is_none() && !self.planned && !self.abandoned
    }

    /// Whether the operator may decide it in the preview for the apply: planned, and not
    /// decided already by its policy (one the operator declined in an earlier preview may be
    /// approved again).
    pub fn to_decide(&self) -> bool {
        self.planned && matches!(self.decided, None | Some((false, Decider::Operator(_))))
    }

    /// The root, then the other members (as the engine lists them; it lists the root too).
    pub(super) fn urns(&self) -> Vec<Urn> {
        std::iter::once(self.root.clone())
            .chain(
                self.members
                    .iter()
                    .filter(|m| m.urn != self.root)
                    .map(|m| m.urn.clone()),
            )
            .collect()
    }
}

/// Every cascade and gate, in the order announced, and how many still wait.
#[derive(Clone, Debug, Default)]
pub struct Approvals {
    cascades: Vec<Cascade>,
    index: HashMap<CascadeId, usize, FastHash>,
    undecided: usize,
}

impl Approvals {
    /// Every DBR cascade and gate, decided or not, in the order announced.
    pub fn all(&self) -> &[Cascade] {
        &self.cascades
    }

    /// The cascade `id`, in O(1).
    pub fn get(&self, id: CascadeId) -> Option<&Cascade> {
        self.index.get(&id).map(|&i| &self.cascades[i])
    }

    /// Cascades that still wait for a decision.
    pub fn undecided(&self) -> usize {
        self.undecided
    }

    /// A cascade of `root` and `members` held in `chain` (announced again: its members
    /// anew). A preview's is planned: nobody waits for it.
    pub(super) fn open(
        &mut self,
        (id, chain): (CascadeId, ChainId),
        root: &Urn,
        members: &[CascadeMember],
        now: Duration,
        preview: bool,
    ) {
        let k = match self.index.get(&id) {
            Some(&k) => k,
            None => {
                self.cascades.push(Cascade {
                    id,
                    chain,
                    root: root.clone(),
                    members: Vec::new(),
                    decided: None,
                    at: now,
                    planned: preview,
                    abandoned: false,
                    deadline: None,
                    step: None,
                });
                self.index.insert(id, self.cascades.len() - 1);
                if !preview {
                    self.undecided += 1;
                }
                self.cascades.len() - 1
            }
        };
        self.cascades[k].members = members.to_vec();
    }

    /// The gate `id` is a single step's: its op, kind, and whether its policy asks.
    pub(super) fn set_step(&mut self, id: CascadeId, step: (StepOp, ApprovalKind, bool)) {
        if let Some(&k) = self.index.get(&id) {
            self.cascades[k].step = Some(step);
        }
    }

    /// The latest gate held on `root` that still waits is declined at `at` unless decided.
    pub(super) fn set_deadline(&mut self, root: &Urn, at: Duration) {
        if let Some(c) = self
            .cascades
            .iter_mut()
            .rev()
            .find(|c| c.root == *root && c.waiting())
        {
            c.deadline = Some(at);
        }
    }

    /// The cascade `id` was decided; `None` when no such cascade was announced.
    pub(super) fn decide(
        &mut self,
        id: CascadeId,
        approved: bool,
        by: &Decider,
    ) -> Option<&Cascade> {
        let &k = self.index.get(&id)?;
        if self.cascades[k].waiting() {
            self.undecided -= 1;
        }
        self.cascades[k].decided = Some((approved, by.clone()));
        Some(&self.cascades[k])
    }

    /// The run stopped: every cascade still waiting is abandoned; for each, in order, its
    /// chain and its resources.
    pub(super) fn abandon_waiting(&mut self) -> Vec<(ChainId, Vec<Urn>)> {
        let mut abandoned = Vec::new();
        for c in self.cascades.iter_mut().filter(|c| c.waiting()) {
            c.abandoned = true;
            self.undecided = self.undecided.saturating_sub(1);
            abandoned.push((c.chain, c.urns()));
        }
        abandoned
    }
}
