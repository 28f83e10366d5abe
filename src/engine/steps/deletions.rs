//! What a run deletes, in one place: the old copies delete-before-replace chains delete (and
//! those a refresh found gone), the copies left for the delete phase, and which deletes took
//! effect. The generator plans with it, the loop records step effects in it, and the delete
//! phase reads it.

use std::collections::HashSet;

use crate::engine::model::urn::{Urn, UrnSet};
use crate::engine::step::Step;

/// The run's deletions so far.
#[derive(Default)]
pub(in crate::engine) struct Deletions {
    /// URNs whose old copy a DBR chain deletes in this run.
    by_chains: UrnSet,
    /// Base positions deleted before the delete phase: by DBR chains, or found gone by a refresh
    /// (the delete phase skips them).
    positions: HashSet<usize>,
    /// Base positions whose DBR delete succeeded (now pending replacement).
    pending_replaced: HashSet<usize>,
    /// Base positions of old copies a create-before-delete replacement left behind.
    left_behind: HashSet<usize>,
    /// URNs whose old copies the run deletes: a delete whose `deletedWith` target is among
    /// them skips its provider call.
    condemned: UrnSet,
}

impl Deletions {
    /// A DBR chain deletes the old copy of `urn` at `index`; false when an earlier chain of
    /// the run already deletes that copy.
    pub(in crate::engine) fn by_chain(&mut self, urn: &Urn, index: usize) -> bool {
        self.by_chains.insert(urn.clone());
        self.positions.insert(index)
    }

    /// A refresh found the copy at `index` gone: nothing is left to delete.
    pub(in crate::engine) fn found_gone(&mut self, index: usize) {
        self.positions.insert(index);
    }

    /// A declined cascade deletes nothing: its members and old copies are kept.
    pub(in crate::engine) fn decline<'a>(
        &mut self,
        indexes: impl IntoIterator<Item = usize>,
        urns: impl IntoIterator<Item = &'a Urn>,
    ) {
        for i in indexes {
            self.positions.remove(&i);
        }
        for u in urns {
            self.by_chains.remove(u);
        }
    }

    /// Whether a DBR chain of this run deletes the old copy of `urn`.
    pub(in crate::engine) fn deleted_by_chain(&self, urn: &Urn) -> bool {
        self.by_chains.contains(urn)
    }

    /// Base positions deleted before the delete phase.
    pub(in crate::engine) fn positions(&self) -> &HashSet<usize> {
        &self.positions
    }

    /// Records an old copy whose delete-before-replace delete succeeded: if the program does
    /// not declare it again, it leaves the state at the end of the run.
    pub(in crate::engine) fn mark_pending_replacement(&mut self, index: usize) {
        self.pending_replaced.insert(index);
    }

    pub(in crate::engine) fn pending_replaced(&self) -> &HashSet<usize> {
        &self.pending_replaced
    }

    /// Records an old copy a create-before-delete replacement left for the delete phase.
    pub(in crate::engine) fn leave_for_delete(&mut self, index: usize) {
        self.left_behind.insert(index);
    }

    pub(in crate::engine) fn left_behind(&self) -> &HashSet<usize> {
        &self.left_behind
    }

    /// The run deletes these URNs' old copies.
    pub(in crate::engine) fn condemn(&mut self, urns: impl IntoIterator<Item = Urn>) {
        self.condemned.extend(urns);
    }

    /// The deletes among `steps` whose `deletedWith` target the run deletes too.
    pub(in crate::engine) fn target_deleted(&self, steps: &[Step]) -> HashSet<Urn> {
        steps
            .iter()
            .filter_map(|s| match s {
                Step::Delete { old }
                | Step::DeleteRewritten { old }
                | Step::DeleteReplaced { old }
                | Step::DeleteBeforeReplace { old, .. } => old
                    .state
                    .deleted_with
                    .as_ref()
                    .filter(|d| self.condemned.contains(*d))
                    .map(|_| old.state.urn.clone()),
                _ => None,
            })
            .collect()
    }
}
