//! Decisions the operator makes on the cascades a preview plans, carried into the apply: the
//! apply approves or declines the same cascade (same root, same dependents) without asking
//! again, and asks as usual when the apply's cascade differs from the one explored.

use std::collections::BTreeMap;

use crate::engine::urn::Urn;

use super::model::Cascade;

/// One decision made in a preview.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Preset {
    pub approve: bool,
    /// The cascade's root and dependents as the preview planned them.
    pub members: Vec<Urn>,
}

/// Preview decisions by cascade root.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Presets(BTreeMap<Urn, Preset>);

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
        self.0.insert(
            c.root.clone(),
            Preset {
                approve,
                members: members(c),
            },
        );
    }

    /// The decision made on `c` in the preview, if any.
    pub fn get(&self, c: &Cascade) -> Option<bool> {
        self.0.get(&c.root).map(|p| p.approve)
    }

    /// The decision for the apply's cascade `c`, taken out so it is used once; None when the
    /// preview decided nothing about it or planned a different cascade.
    pub fn take_matching(&mut self, c: &Cascade) -> Option<bool> {
        let p = self.0.get(&c.root)?;
        if p.members != members(c) {
            return None;
        }
        self.0.remove(&c.root).map(|p| p.approve)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}
