//! Resources a preview planned behind a delete-before-replace cascade (they depend on its root
//! and are not its members): in the apply the program registers them only once the root is
//! replaced, so while the cascade waits for a decision the run has not heard of them. The
//! console shows them from the preview's plan, waiting for the root, instead of letting them
//! vanish from the tree and the graph until the decision.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::engine::{StepOp, Urn};

use super::Model;

/// A resource a preview planned behind a cascade's root, as the apply shows it until it
/// registers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Planned {
    pub urn: Urn,
    pub parent: Option<Urn>,
    pub dependencies: Arc<[Urn]>,
    pub custom: bool,
    pub op: Option<StepOp>,
}

/// What a preview planned behind each cascade's root, by root.
pub type PlannedBehind = BTreeMap<Urn, Vec<Planned>>;

/// From a finished preview: for each cascade it planned, the resources that depend on the root
/// (directly or through one another) and are not in the cascade.
pub fn planned_behind(m: &Model) -> PlannedBehind {
    let mut out = PlannedBehind::new();
    for c in m.approvals.all() {
        let Some(root) = m.index_of(&c.root) else {
            continue;
        };
        let mut seen: HashSet<usize> = std::iter::once(&c.root)
            .chain(c.members.iter().map(|x| &x.urn))
            .filter_map(|u| m.index_of(u))
            .collect();
        let mut next = vec![root];
        let mut behind = Vec::new();
        while let Some(i) = next.pop() {
            for d in m.graph().dependents(i) {
                if seen.insert(d) {
                    next.push(d);
                    let r = m.resource(d);
                    behind.push(Planned {
                        urn: r.urn.clone(),
                        parent: r.parent.map(|p| m.resource(p).urn.clone()),
                        dependencies: Arc::clone(&r.dependencies),
                        custom: r.custom,
                        op: r.op,
                    });
                }
            }
        }
        if !behind.is_empty() {
            out.insert(c.root.clone(), behind);
        }
    }
    out
}

/// The live run's side: what the preview planned behind each root, and the rows shown from it
/// that have not registered yet (with the root they wait for).
#[derive(Clone, Debug, Default)]
pub struct Behind {
    planned: PlannedBehind,
    waiting: HashMap<Urn, Urn>,
}

impl Behind {
    pub(super) fn expect(&mut self, planned: PlannedBehind) {
        self.planned = planned;
    }

    /// The cascade of `root` waits: what the preview planned behind it, once.
    pub(super) fn take(&mut self, root: &Urn) -> Vec<Planned> {
        self.planned.remove(root).unwrap_or_default()
    }

    /// Row `urn` is shown from the preview, waiting for `root`.
    pub(super) fn wait(&mut self, urn: Urn, root: Urn) {
        self.waiting.insert(urn, root);
    }

    /// `urn` registered (or the run ended): true when its row was shown from the preview.
    pub(super) fn arrived(&mut self, urn: &Urn) -> bool {
        !self.waiting.is_empty() && self.waiting.remove(urn).is_some()
    }

    /// The root a row shown from the preview waits for.
    pub fn root_of(&self, urn: &Urn) -> Option<&Urn> {
        if self.waiting.is_empty() {
            return None;
        }
        self.waiting.get(urn)
    }

    /// Every row still shown from the preview, taken out.
    pub(super) fn take_waiting(&mut self) -> Vec<Urn> {
        self.waiting.drain().map(|(u, _)| u).collect()
    }
}
