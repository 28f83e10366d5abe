//! Injected crash points for the kill-point sweep (`tests/crash_sweep.rs`): with
//! `STEPDECK_FAULT=<point>:<n>` the process kills itself with SIGKILL at the `n`th time it
//! reaches `<point>`, so that every narrow window between a cloud change and the journal can be
//! hit on purpose. Unset (always, outside the sweep), every check is one relaxed atomic load.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// The environment variable that arms one fault point.
pub const FAULT_ENV: &str = "STEPDECK_FAULT";

/// Where a process can be killed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultPoint {
    /// Right after a provider changed the (simulated) cloud, before anything else happens.
    AfterProviderWrite,
    /// Right before a journal entry is written.
    BeforeJournal,
    /// Right after a journal entry was appended: written (and synced, when it is synced), or,
    /// for a line that only keeps a resource, held to be written with the next line.
    AfterJournal,
    /// Inside a checkpoint write that folds the journal in (a compaction), after its rows
    /// changed and before its transaction commits.
    InCheckpointWrite,
}

impl FaultPoint {
    fn parse(name: &str) -> Option<FaultPoint> {
        match name {
            "after-provider-write" => Some(FaultPoint::AfterProviderWrite),
            "before-journal" => Some(FaultPoint::BeforeJournal),
            "after-journal" => Some(FaultPoint::AfterJournal),
            "in-checkpoint-write" => Some(FaultPoint::InCheckpointWrite),
            _ => None,
        }
    }
}

struct Armed {
    point: FaultPoint,
    at: u64,
    seen: AtomicU64,
}

fn armed() -> Option<&'static Armed> {
    static ARMED: OnceLock<Option<Armed>> = OnceLock::new();
    ARMED
        .get_or_init(|| {
            let spec = std::env::var(FAULT_ENV).ok()?;
            let (name, n) = spec.split_once(':')?;
            Some(Armed {
                point: FaultPoint::parse(name)?,
                at: n.parse().ok().filter(|n| *n > 0)?,
                seen: AtomicU64::new(0),
            })
        })
        .as_ref()
}

/// Marks that `point` was reached; kills the process if this is the armed occurrence.
pub fn reached(point: FaultPoint) {
    let Some(armed) = armed() else {
        return;
    };
    if armed.point != point || armed.seen.fetch_add(1, Ordering::Relaxed) + 1 != armed.at {
        return;
    }
    kill_self();
}

/// SIGKILL, as an operator's `kill -9` or a power cut would stop us: no destructor, no flush.
fn kill_self() -> ! {
    let pid = std::process::id().to_string();
    let _ = std::process::Command::new("kill")
        .args(["-KILL", &pid])
        .status();
    // Only reached if `kill` could not be run.
    std::process::abort()
}
