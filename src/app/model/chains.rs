//! The chains of steps, each run serially on one worker, found by id in O(1) and listed in the
//! order the chains view shows them: awaiting approval, running, queued, then finished.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::time::Duration;

use foldhash::fast::RandomState as FastHash;

use crate::engine::run::events::{CascadeId, ChainId, WorkerId};
use crate::engine::{StepOp, Urn};

/// Where a chain of steps is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChainState {
    Queued,
    Running,
    Done,
    Failed,
    AwaitingApproval,
    Declined,
    /// Never ran (or stopped before its next step): cancelled, or a failure elsewhere.
    Skipped,
}

/// A chain of steps run serially on one worker.
#[derive(Clone, Debug)]
pub struct Chain {
    pub id: ChainId,
    /// The engine's list, shared with its event rather than copied.
    pub steps: Arc<[(StepOp, Urn)]>,
    pub state: ChainState,
    pub worker: Option<WorkerId>,
    /// Index into `steps` of the step running now.
    pub current: Option<usize>,
    pub finished_steps: usize,
    pub started: Option<Duration>,
    pub ended: Option<Duration>,
    /// Wall time of its finished steps, as the engine measured them.
    pub busy: Duration,
    /// When its running step started (console clock).
    pub step_started: Option<Duration>,
    pub cascade: Option<CascadeId>,
    /// One of its own steps failed (as opposed to being stopped from outside).
    pub failed: bool,
}

impl Chain {
    /// The wall time of its steps, as the tree counts a resource's: a pause while a step
    /// runs is in it, the wait between steps is not. `None` before it started.
    pub fn elapsed(&self, now: Duration) -> Option<Duration> {
        self.started?;
        let running = self
            .step_started
            .map_or(Duration::ZERO, |s| now.saturating_sub(s));
        Some(self.busy + running)
    }
}

/// How a chain ended, for what follows from it elsewhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Ended {
    /// One of its own steps failed.
    pub failed: bool,
}

/// Indexes by id with a fast hasher: every event looks one up.
type FastMap<K, V> = HashMap<K, V, FastHash>;

/// Every chain, and the chains by state.
#[derive(Clone, Debug, Default)]
pub struct Chains {
    #[expect(
        clippy::vec_box,
        reason = "a preview has a chain per resource: growing a million of them would copy them all"
    )]
    chains: Vec<Box<Chain>>,
    /// Chains not at `id - 1` in `chains` (see [`Chains::position`]).
    index: FastMap<ChainId, usize>,
    awaiting: BTreeSet<usize>,
    running: BTreeSet<usize>,
    queued: BTreeSet<usize>,
    finished: Vec<usize>,
}

/// The position chain `id` gets when its events come in the engine's order: the engine
/// numbers chains from 1 as it queues them.
fn numbered_position(id: ChainId) -> Option<usize> {
    usize::try_from(id).ok()?.checked_sub(1)
}

impl Chains {
    /// Every chain, in the order first seen.
    pub fn all(&self) -> &[Box<Chain>] {
        &self.chains
    }

    /// The chain `id`, in O(1).
    pub fn get(&self, id: ChainId) -> Option<&Chain> {
        self.position(id).map(|i| &*self.chains[i])
    }

    /// Chains in display order: awaiting approval, running, queued, then finished (newest
    /// first).
    pub fn in_order(&self) -> impl Iterator<Item = &Chain> + '_ {
        self.awaiting
            .iter()
            .chain(self.running.iter())
            .chain(self.queued.iter())
            .chain(self.finished.iter().rev())
            .map(|&i| &*self.chains[i])
    }

    /// Chains running now.
    pub fn running(&self) -> usize {
        self.running.len()
    }

    /// The chain was queued with `steps`.
    pub(super) fn queue(&mut self, id: ChainId, steps: &Arc<[(StepOp, Urn)]>) {
        let c = self.ensure(id);
        self.chains[c].steps = Arc::clone(steps);
    }

    /// The chain started on `worker`.
    pub(super) fn start(&mut self, id: ChainId, worker: WorkerId, now: Duration) {
        let c = self.ensure(id);
        let ch = &mut self.chains[c];
        ch.worker = Some(worker);
        ch.started.get_or_insert(now);
        self.set_state(c, ChainState::Running);
    }

    /// Its step `op` of `urn` started on `worker`.
    pub(super) fn start_step(
        &mut self,
        id: ChainId,
        (op, urn): (StepOp, &Urn),
        worker: WorkerId,
        now: Duration,
    ) {
        let c = self.ensure(id);
        let ch = &mut self.chains[c];
        ch.worker = Some(worker);
        ch.started.get_or_insert(now);
        ch.step_started = Some(now);
        ch.current = ch
            .steps
            .iter()
            .enumerate()
            .skip(ch.finished_steps)
            .find(|(_, (o, u))| *o == op && u == urn)
            .map(|(k, _)| k);
        if self.chains[c].state == ChainState::Queued {
            self.set_state(c, ChainState::Running);
        }
    }

    /// Its running step finished (or failed, `failed`).
    /// Its running step ended after `duration` (the engine's wall time of it).
    pub(super) fn finish_step(&mut self, id: ChainId, failed: bool, duration: Duration) {
        let c = self.ensure(id);
        let ch = &mut self.chains[c];
        ch.current = None;
        ch.busy += duration;
        ch.step_started = None;
        ch.finished_steps += 1;
        ch.failed |= failed;
    }

    /// The chain ended (`ok` when every step ran); `None` for a declined chain, which never
    /// ran and whose steps were settled when it was declined.
    pub(super) fn finish(&mut self, id: ChainId, ok: bool, now: Duration) -> Option<Ended> {
        let c = self.ensure(id);
        if self.chains[c].state == ChainState::Declined {
            return None;
        }
        let ch = &mut self.chains[c];
        ch.ended = Some(now);
        ch.current = None;
        ch.step_started = None;
        let failed = ch.failed;
        let state = if ok {
            ChainState::Done
        } else if failed {
            ChainState::Failed
        } else {
            ChainState::Skipped
        };
        self.set_state(c, state);
        Some(Ended { failed })
    }

    /// The resources of the steps it has not finished.
    pub(super) fn unfinished(&self, id: ChainId) -> Vec<Urn> {
        self.get(id).map_or_else(Vec::new, |ch| {
            ch.steps
                .iter()
                .skip(ch.finished_steps)
                .map(|(_, u)| u.clone())
                .collect()
        })
    }

    /// The chain holds `cascade`; in a live run it waits for its decision.
    pub(super) fn hold(&mut self, id: ChainId, cascade: CascadeId, preview: bool) {
        let c = self.ensure(id);
        self.chains[c].cascade = Some(cascade);
        // A preview plans the cascade and runs on: nothing waits there.
        if !preview {
            self.set_state(c, ChainState::AwaitingApproval);
        }
    }

    /// The chain waiting for a decision goes to `state` (queued once approved, declined, or
    /// skipped when the run stopped first).
    pub(super) fn release(&mut self, id: ChainId, state: ChainState) {
        let c = self.ensure(id);
        if self.chains[c].state == ChainState::AwaitingApproval {
            self.set_state(c, state);
        }
    }

    /// Where chain `id` is in `chains`: at its numbered position unless its events came out of
    /// the engine's order, and only those chains are in the map.
    fn position(&self, id: ChainId) -> Option<usize> {
        if let Some(at) = numbered_position(id)
            && self.chains.get(at).is_some_and(|c| c.id == id)
        {
            return Some(at);
        }
        self.index.get(&id).copied()
    }

    fn ensure(&mut self, id: ChainId) -> usize {
        if let Some(c) = self.position(id) {
            return c;
        }
        let c = self.chains.len();
        self.chains.push(Box::new(Chain {
            id,
            steps: Arc::default(),
            state: ChainState::Queued,
            worker: None,
            current: None,
            finished_steps: 0,
            started: None,
            ended: None,
            busy: Duration::ZERO,
            step_started: None,
            cascade: None,
            failed: false,
        }));
        if numbered_position(id) != Some(c) {
            self.index.insert(id, c);
        }
        self.queued.insert(c);
        c
    }

    fn set_state(&mut self, c: usize, state: ChainState) {
        let old = self.chains[c].state;
        if old == state {
            return;
        }
        match old {
            ChainState::Queued => {
                self.queued.remove(&c);
            }
            ChainState::Running => {
                self.running.remove(&c);
            }
            ChainState::AwaitingApproval => {
                self.awaiting.remove(&c);
            }
            ChainState::Done | ChainState::Failed | ChainState::Declined | ChainState::Skipped => {
                if let Some(pos) = self.finished.iter().rposition(|&x| x == c) {
                    self.finished.remove(pos);
                }
            }
        }
        match state {
            ChainState::Queued => {
                self.queued.insert(c);
            }
            ChainState::Running => {
                self.running.insert(c);
            }
            ChainState::AwaitingApproval => {
                self.awaiting.insert(c);
            }
            ChainState::Done | ChainState::Failed | ChainState::Declined | ChainState::Skipped => {
                self.finished.push(c);
            }
        }
        self.chains[c].state = state;
    }
}
