//! Progress of provider diffs run in parallel with generation: queued, running (on which
//! worker), done, and how many found a replacement.

use indexmap::IndexMap;

use crate::engine::Urn;
use crate::engine::run::events::WorkerId;

/// Progress of provider diffs run in parallel with generation.
#[derive(Clone, Debug, Default)]
pub struct DiffProgress {
    pub queued: usize,
    /// Resources being diffed now, with their worker.
    pub running: IndexMap<Urn, WorkerId>,
    pub done: usize,
    /// Diffs that found a replacement.
    pub replaces: usize,
}

impl DiffProgress {
    /// Diffs seen so far, in any state (the gauge's 100%).
    pub fn total(&self) -> usize {
        self.queued + self.running.len() + self.done
    }

    pub(super) fn queue(&mut self) {
        self.queued += 1;
    }

    pub(super) fn start(&mut self, urn: &Urn, worker: WorkerId) {
        self.queued = self.queued.saturating_sub(1);
        self.running.insert(urn.clone(), worker);
    }

    pub(super) fn finish(&mut self, urn: &Urn, replace: bool) {
        self.running.swap_remove(urn);
        self.done += 1;
        if replace {
            self.replaces += 1;
        }
    }
}
