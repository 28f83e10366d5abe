//! What the console acts through: the deployment's own `Control` in this process, or a
//! remote one over the console protocol (`stepdeck attach`).

use crate::engine::Control;
use crate::engine::run::approval::ApprovalKind;
use crate::engine::run::events::CascadeId;

/// The operator's actions on a deployment; every method returns at once.
pub trait Steering: Send + Sync {
    fn pause(&self);
    fn resume(&self);
    fn is_paused(&self) -> bool;
    fn approve(&self, cascade: CascadeId);
    fn decline(&self, cascade: CascadeId);
    fn approve_all(&self);
    /// Approves every waiting gate of `kind`.
    fn approve_kind(&self, kind: ApprovalKind);
    /// While paused, lets exactly one waiting step start.
    fn step_once(&self);
    /// First call cancels gracefully; a second terminates.
    fn cancel(&self);
    fn terminate(&self);
    /// Whether the deployment lives and dies with this console: leaving a console attached
    /// from elsewhere only detaches it, and must never cancel what others run.
    fn owns_deployment(&self) -> bool {
        true
    }
    /// Whether the actions are taken: a console attached with a watch-only token only watches.
    fn may_act(&self) -> bool {
        true
    }
}

impl Steering for Control {
    fn pause(&self) {
        Control::pause(self);
    }

    fn resume(&self) {
        Control::resume(self);
    }

    fn is_paused(&self) -> bool {
        Control::is_paused(self)
    }

    fn approve(&self, cascade: CascadeId) {
        Control::approve(self, cascade);
    }

    fn decline(&self, cascade: CascadeId) {
        Control::decline(self, cascade);
    }

    fn approve_all(&self) {
        Control::approve_all(self);
    }

    fn approve_kind(&self, kind: ApprovalKind) {
        Control::decide_kind(self, kind, true);
    }

    fn step_once(&self) {
        Control::step_once(self);
    }

    fn cancel(&self) {
        Control::cancel(self);
    }

    fn terminate(&self) {
        Control::terminate(self);
    }
}
