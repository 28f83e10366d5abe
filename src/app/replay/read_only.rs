//! The steering of a replayed run: the run is over and was someone else's, so nothing acts.

use crate::engine::run::approval::ApprovalKind;
use crate::engine::run::events::CascadeId;

use super::super::steering::Steering;

/// Steering that takes no action: a replay is read-only.
pub struct ReadOnly;

impl Steering for ReadOnly {
    fn pause(&self) {}
    fn resume(&self) {}
    fn is_paused(&self) -> bool {
        false
    }
    fn approve(&self, _: CascadeId) {}
    fn decline(&self, _: CascadeId) {}
    fn approve_all(&self) {}
    fn approve_kind(&self, _: ApprovalKind) {}
    fn step_once(&self) {}
    fn cancel(&self) {}
    fn terminate(&self) {}
    fn owns_deployment(&self) -> bool {
        false
    }
    fn may_act(&self) -> bool {
        false
    }
}
