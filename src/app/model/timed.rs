//! An event as a console receives it: the local engine's happens now; a served run's carries
//! when that run saw it, so that a watcher attached late counts a step's time, a pause or a
//! gate's countdown from when it began, not from when the watcher caught up.

use std::time::Instant;

use crate::engine::EngineEvent;

/// An engine event and, when it did not happen just now, when it did (on this machine's
/// clock).
pub trait Timed {
    fn into_parts(self) -> (EngineEvent, Option<Instant>);
}

impl Timed for EngineEvent {
    fn into_parts(self) -> (EngineEvent, Option<Instant>) {
        (self, None)
    }
}

impl Timed for (EngineEvent, Option<Instant>) {
    fn into_parts(self) -> (EngineEvent, Option<Instant>) {
        self
    }
}
