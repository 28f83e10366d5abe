//! The held lock and the one protocol both backends follow with it, around a fencing token
//! (the lock's generation, as etcd's lease revisions and Chubby's sequencers):
//!
//! - **Acquisition is one atomic operation** that gives the lock a generation greater than
//!   any before it: an exclusive file creation (`file_lock`), one `INSERT … ON CONFLICT`
//!   statement (`postgres::lease`). Nothing is read and then overwritten.
//! - **Every write of state carries the generation** and is refused when the lock has moved on
//!   since: journal rows in the same statement, checkpoints and compactions in the same
//!   transaction (PostgreSQL) or under the stack's write guard (files).
//! - **The holder renews its lease** every third of it ([`StackLock`]'s heartbeat) only while
//!   the record still names its generation, and judges its own lease by its monotonic clock:
//!   once a lease has run out without a renewal, or a renewal or write finds another
//!   generation, the lock is lost for good ([`Fence`]). A journal checks this before every
//!   entry and, after writing a step's `Begin`, before its provider is called, so a holder
//!   that was paused past its lease stops before its next provider call.
//!
//! A backend supplies its [`LockRecord`]: renew, verify, release and read its record.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use super::error::StateError;
use super::lock_info::LockInfo;
use super::lock_lost::{LockLost, LostReason, Successor};
use super::stack_ref::StackRef;

/// What a backend does with its lock record (a file, a row) for one held generation.
pub(crate) trait LockRecord: Send + Sync + fmt::Debug {
    /// Extends the lease by `lease` if the record still names this generation.
    fn renew(&self, lease: Duration) -> Result<(), Renewal>;
    /// Whether the record still names this generation, read afresh.
    fn verify(&self) -> Result<(), Superseded>;
    /// Who took the lock after this generation, if anyone did, for messages.
    fn successor(&self) -> Option<Box<Successor>>;
    /// Gives the lock up if the record still names this generation.
    fn release(&self);
}

/// The record names another generation, or none: the lock was lost.
#[derive(Debug)]
pub(crate) struct Superseded {
    pub reason: LostReason,
    pub successor: Option<Box<Successor>>,
}

/// Why a renewal did not extend the lease.
#[derive(Debug)]
pub(crate) enum Renewal {
    /// The lock is someone else's, or nobody's.
    Superseded(Superseded),
    /// The record could not be written (a disk or connection error): tried again at the next
    /// beat, while the lease lasts.
    Failed,
}

/// Whether a held lock still holds: shared by the lock's heartbeat, its journals and the
/// backend's fenced writes. Once lost, it stays lost.
pub struct Fence {
    stack: String,
    generation: u64,
    lease: Duration,
    since: Instant,
    /// From `since`, the start of the last renewal that succeeded (or of the acquisition).
    renewed_nanos: AtomicU64,
    lost: OnceLock<LockLost>,
    record: Box<dyn LockRecord>,
}

impl fmt::Debug for Fence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fence({} generation {})", self.stack, self.generation)
    }
}

impl Fence {
    /// The lease in force, judged from `taken` (an instant before the record was written).
    fn new(
        stack: &StackRef,
        generation: u64,
        lease: Duration,
        taken: Instant,
        record: Box<dyn LockRecord>,
    ) -> Fence {
        Fence {
            stack: stack.to_string(),
            generation,
            lease,
            since: taken,
            renewed_nanos: AtomicU64::new(0),
            lost: OnceLock::new(),
            record,
        }
    }

    /// The cheap check: lost already, or the lease ran out by this process's clock (no I/O
    /// but once, to name the holder when the lock is found lost).
    pub fn check(&self) -> Result<(), LockLost> {
        if let Some(lost) = self.lost.get() {
            return Err(lost.clone());
        }
        let renewed = Duration::from_nanos(self.renewed_nanos.load(Ordering::Acquire));
        if self.since.elapsed().saturating_sub(renewed) >= self.lease {
            return Err(self.lose(LostReason::LeaseRanOut, self.record.successor()));
        }
        Ok(())
    }

    /// The thorough check: [`Fence::check`], then the record read afresh.
    pub fn verify(&self) -> Result<(), LockLost> {
        self.check()?;
        self.record
            .verify()
            .map_err(|s| self.lose(s.reason, s.successor))
    }

    /// Records the lock lost (the first reason found stays) and returns the error.
    pub(crate) fn lose(&self, reason: LostReason, successor: Option<Box<Successor>>) -> LockLost {
        self.lost
            .get_or_init(|| LockLost {
                stack: self.stack.clone(),
                generation: self.generation,
                reason,
                successor,
            })
            .clone()
    }

    /// Who took the lock after this generation, read from the record (for messages).
    pub(crate) fn successor(&self) -> Option<Box<Successor>> {
        self.record.successor()
    }

    /// A renewal that began at `started` succeeded: the lease runs from then. It never
    /// revives a lease that ran out before it began, nor a lost lock.
    fn renewed(&self, started: Instant) {
        let at = started.saturating_duration_since(self.since);
        let last = Duration::from_nanos(self.renewed_nanos.load(Ordering::Acquire));
        if self.lost.get().is_none() && at.saturating_sub(last) < self.lease {
            let nanos = u64::try_from(at.as_nanos()).unwrap_or(u64::MAX);
            self.renewed_nanos.fetch_max(nanos, Ordering::AcqRel);
        }
    }

    fn lost(&self) -> bool {
        self.lost.get().is_some()
    }
}

/// The held lock; dropping it stops the heartbeat and releases the lock (if it is still ours).
#[derive(Debug)]
pub struct StackLock {
    stack: StackRef,
    info: LockInfo,
    broke_stale: Option<LockInfo>,
    fence: Arc<Fence>,
    heartbeat: Option<(mpsc::Sender<()>, JoinHandle<()>)>,
    /// Warnings the backend gave while writing under this lock, for the command to show.
    notices: Mutex<Vec<String>>,
}

impl StackLock {
    /// Holds a lock a backend took at `taken` (an instant before its record was written):
    /// `info` carries its generation, `broke_stale` the expired lock it replaced, if any.
    /// Starts the heartbeat that renews it every third of `lease`.
    pub(crate) fn hold(
        stack: StackRef,
        info: LockInfo,
        broke_stale: Option<LockInfo>,
        lease: Duration,
        taken: Instant,
        record: Box<dyn LockRecord>,
    ) -> Result<StackLock, StateError> {
        let fence = Arc::new(Fence::new(&stack, info.generation, lease, taken, record));
        let (stop, stopped) = mpsc::channel();
        let beating = fence.clone();
        let thread = std::thread::Builder::new()
            .name("stack-lock-lease".into())
            .spawn(move || heartbeat(&beating, &stopped))
            .map_err(|e| StateError::Io {
                path: stack.to_string().into(),
                source: e,
            })?;
        Ok(StackLock {
            stack,
            info,
            broke_stale,
            fence,
            heartbeat: Some((stop, thread)),
            notices: Mutex::new(Vec::new()),
        })
    }

    /// The stack this lock protects; writes take it from here.
    pub fn stack(&self) -> &StackRef {
        &self.stack
    }

    /// What this process recorded as the lock's holder, with its generation.
    pub fn info(&self) -> &LockInfo {
        &self.info
    }

    /// The stale lock of a dead process that was broken to take this one (tell the user).
    pub fn broke_stale(&self) -> Option<&LockInfo> {
        self.broke_stale.as_ref()
    }

    /// Whether this lock still holds; shared with the journals written under it.
    pub fn fence(&self) -> &Arc<Fence> {
        &self.fence
    }

    /// Keeps a warning for the command to show (a stale journal removed, …).
    pub(crate) fn notify(&self, message: String) {
        self.notices.lock().push(message);
    }

    /// The warnings given since the last call.
    pub fn take_notices(&self) -> Vec<String> {
        std::mem::take(&mut *self.notices.lock())
    }
}

impl Drop for StackLock {
    fn drop(&mut self) {
        if let Some((stop, thread)) = self.heartbeat.take() {
            drop(stop);
            let _ = thread.join();
        }
        if !self.fence.lost() {
            self.fence.record.release();
        }
    }
}

/// Renews the lease every third of it until `stop` is dropped; stops once the lock is lost
/// (its lease ran out by this process's clock, or the record names another generation).
fn heartbeat(fence: &Fence, stop: &mpsc::Receiver<()>) {
    while let Err(mpsc::RecvTimeoutError::Timeout) = stop.recv_timeout(fence.lease / 3) {
        if fence.check().is_err() {
            return;
        }
        let started = Instant::now();
        match fence.record.renew(fence.lease) {
            Ok(()) => fence.renewed(started),
            Err(Renewal::Superseded(s)) => {
                fence.lose(s.reason, s.successor);
                return;
            }
            Err(Renewal::Failed) => {}
        }
    }
}

impl From<LockLost> for crate::engine::JournalError {
    fn from(lost: LockLost) -> Self {
        crate::engine::JournalError::LockLost(Arc::new(lost))
    }
}

/// A record that always renews and verifies, as a lock nobody takes over.
#[cfg(test)]
#[derive(Debug)]
struct Kept;

#[cfg(test)]
impl LockRecord for Kept {
    fn renew(&self, _: Duration) -> Result<(), Renewal> {
        Ok(())
    }
    fn verify(&self) -> Result<(), Superseded> {
        Ok(())
    }
    fn successor(&self) -> Option<Box<Successor>> {
        None
    }
    fn release(&self) {}
}

/// A fence that holds for an hour, for the unit tests of what writes under one.
#[cfg(test)]
pub(crate) fn held_for_tests() -> Arc<Fence> {
    let stack = StackRef::new("p", "s").expect("a valid name");
    Arc::new(Fence::new(
        &stack,
        1,
        Duration::from_secs(3600),
        Instant::now(),
        Box::new(Kept),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lease_that_ran_out_is_lost_for_good_even_if_a_renewal_lands_late() {
        let stack = StackRef::new("p", "s").unwrap();
        let taken = Instant::now() - Duration::from_secs(5);
        let fence = Fence::new(&stack, 7, Duration::from_secs(3), taken, Box::new(Kept));
        let e = fence.check().unwrap_err();
        assert_eq!(e.reason, LostReason::LeaseRanOut);
        assert!(e.to_string().contains("lock generation 7"), "{e}");
        fence.renewed(Instant::now());
        assert!(fence.check().is_err() && fence.verify().is_err());

        let fresh = Fence::new(
            &stack,
            8,
            Duration::from_secs(3),
            Instant::now(),
            Box::new(Kept),
        );
        fresh.check().unwrap();
        fresh.renewed(Instant::now());
        fresh.verify().unwrap();
    }
}
