//! The error of a holder that lost its stack's lock, and why and to whom it lost it: what
//! every journal and fenced write reports once the lock has moved past its writer.

use std::fmt;

use super::lock_info::LockInfo;

/// Who took a lock after the generation that lost it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Successor {
    pub holder: LockInfo,
    /// It has released the lock since (its run is over).
    pub released: bool,
}

/// How a holder lost its lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LostReason {
    /// Its lease ran out, by its own clock, before it was renewed.
    LeaseRanOut,
    /// Another process took it over once its lease had run out.
    TakenOver,
    /// It was removed: `stack unlock --force`, or the stack was removed.
    Removed,
}

impl fmt::Display for LostReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LostReason::LeaseRanOut => {
                "its lease ran out before it was renewed (the process was paused or starved)"
            }
            LostReason::TakenOver => "another process took it over after its lease ran out",
            LostReason::Removed => {
                "it was removed (`stepdeck stack unlock --force`, or the stack was removed)"
            }
        })
    }
}

/// The error of a holder that lost its lock: nothing it writes after that is accepted.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error(
    "this process lost the lock of stack {stack} (lock generation {generation}): {reason}; {}. \
     It records nothing more: what it began and did not finish is left to the stack's next run \
     as pending operations",
    taken_by(.successor.as_deref())
)]
pub struct LockLost {
    pub stack: String,
    pub generation: u64,
    pub reason: LostReason,
    /// Who took the lock since, if anyone did.
    pub successor: Option<Box<Successor>>,
}

fn taken_by(successor: Option<&Successor>) -> String {
    match successor {
        Some(s) if s.released => format!(
            "it was taken by {}, which has released it since",
            s.holder.describe()
        ),
        Some(s) => format!("it is now held by {}", s.holder.describe()),
        None => "nobody has taken it since".into(),
    }
}
