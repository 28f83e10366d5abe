//! Decisions the operator makes on the cascades a preview plans, carried into the apply: the
//! apply approves or declines the same cascade (same root, same dependents) without asking
//! again, and asks as usual when the apply's cascade differs from the one explored. The
//! operator's choice to clear the stack's pending creates rides along the same way.

use std::collections::BTreeMap;

use crate::engine::{StepOp, Urn};

use serde::{Deserialize, Serialize};

use super::model::{Cascade, Model, PlannedBehind, Resource, planned_behind};
use super::selection::{Resolved, Selection};

/// One decision made in a preview.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Preset {
    pub approve: bool,
    /// The cascade's root and dependents as the preview planned them.
    pub members: Vec<Urn>,
}

/// Preview decisions by cascade root, and the pending creates marked to be cleared.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Presets {
    decisions: BTreeMap<Urn, Preset>,
    /// How many pending creates the operator marked to clear, when marked.
    clear_pending_creates: Option<usize>,
    /// The resources marked in the preview (`space`, `x`).
    pub selection: Selection,
    /// The selection as the apply runs it, resolved when the operator applied (`y`).
    pub applied_selection: Option<Resolved>,
    /// What the apply expects from the preview, when its whole plan is applied.
    pub expected: Expected,
}

/// What a preview tells the apply after it, in the operator's console and in every watcher's:
/// the steps the apply's progress counts against (by resource too, so that a decline in the
/// apply takes its resources' steps out) and what is planned behind each cascade (shown while
/// the cascade waits).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Expected {
    pub steps: Option<usize>,
    pub by_urn: BTreeMap<Urn, usize>,
    pub behind: PlannedBehind,
}

impl Expected {
    /// The whole plan of the finished preview `m`.
    pub fn from_preview(m: &Model) -> Expected {
        Expected {
            steps: Some(m.counts.previewed_steps()),
            by_urn: m.counts.previewed_by_urn().clone(),
            behind: planned_behind(m),
        }
    }

    /// As served to watchers (`Hello.preview_plan`).
    pub fn encode(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// What a served run's `Hello` carried: nothing when it had no preview.
    pub fn decode(bytes: &[u8]) -> Result<Expected, serde_json::Error> {
        if bytes.is_empty() {
            return Ok(Expected::default());
        }
        serde_json::from_slice(bytes)
    }
}

fn members(c: &Cascade) -> Vec<Urn> {
    let mut urns: Vec<Urn> = std::iter::once(c.root.clone())
        .chain(c.members.iter().map(|m| m.urn.clone()))
        .collect();
    urns.sort();
    urns.dedup();
    urns
}

impl Presets {
    /// Records (or replaces) the decision on a cascade the preview planned.
    pub fn decide(&mut self, c: &Cascade, approve: bool) {
        self.decisions.insert(
            c.root.clone(),
            Preset {
                approve,
                members: members(c),
            },
        );
    }

    /// Roots of the cascades declined in the preview: a preview run again declines them as
    /// the apply will.
    pub fn declined_roots(&self) -> Vec<Urn> {
        self.decisions
            .iter()
            .filter(|(_, p)| !p.approve)
            .map(|(root, _)| root.clone())
            .collect()
    }

    /// The decision made on `c` in the preview, if any.
    pub fn get(&self, c: &Cascade) -> Option<bool> {
        self.decisions.get(&c.root).map(|p| p.approve)
    }

    /// Whether the preview decided the apply's cascade `c` (same root, same dependents): the
    /// apply does not wait on it.
    pub fn decides(&self, c: &Cascade) -> bool {
        self.decisions
            .get(&c.root)
            .is_some_and(|p| p.members == members(c))
    }

    /// The decision for the apply's cascade `c`, taken out so it is used once; None when the
    /// preview decided nothing about it or planned a different cascade.
    pub fn take_matching(&mut self, c: &Cascade) -> Option<bool> {
        let p = self.decisions.get(&c.root)?;
        if p.members != members(c) {
            return None;
        }
        self.decisions.remove(&c.root).map(|p| p.approve)
    }

    /// Whether the preview's operator declined the cascade `r` is in: the apply keeps it as it
    /// is, so the preview shows it kept, not with the op it would have had.
    pub fn keeps(&self, m: &Model, r: &Resource) -> bool {
        m.run.preview
            && r.cascade
                .and_then(|id| m.approvals.get(id))
                .is_some_and(|c| self.get(c) == Some(false))
    }

    /// How many rows of `op` the preview's declines keep as they are: they leave its counts.
    pub fn kept(&self, m: &Model, op: StepOp) -> usize {
        if !m.run.preview {
            return 0;
        }
        m.approvals
            .all()
            .iter()
            .filter(|c| c.decided.is_none() && self.get(c) == Some(false))
            .flat_map(members)
            .filter(|urn| m.get(urn).is_some_and(|r| r.op == Some(op)))
            .count()
    }

    /// Marks (or unmarks) the preview's `count` pending creates to be cleared by the apply.
    pub fn mark_pending_creates(&mut self, count: Option<usize>) {
        self.clear_pending_creates = count;
    }

    /// How many pending creates are marked to be cleared, if any are.
    pub fn pending_creates_marked(&self) -> Option<usize> {
        self.clear_pending_creates
    }

    /// The mark, taken out for the apply's options so it is used once.
    pub fn take_pending_creates_mark(&mut self) -> Option<usize> {
        self.clear_pending_creates.take()
    }

    pub fn len(&self) -> usize {
        self.decisions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.decisions.is_empty()
    }
}
