//! What is drawn over the views: the help and the details overlays, a question before acting,
//! and the footer's one-line notice.

use crate::engine::run::approval::ApprovalKind;

/// The footer's notice after a first Ctrl-C, while the run winds down.
pub const CANCELLING_NOTICE: &str = "cancelling; Ctrl-C again terminates";

/// A question the console asks before acting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Confirm {
    /// `c`: cancel the deployment?
    Cancel,
    /// `q` while running: cancel and quit?
    Quit,
    /// `A`: approve every waiting cascade (each deletes before it creates)?
    ApproveAll,
    /// `K`: approve every waiting step gate of this kind?
    ApproveKind(ApprovalKind),
}

/// The overlays, the dialog and the notice.
#[derive(Clone, Debug, Default)]
pub struct Overlays {
    pub help: bool,
    /// The selected resource's details.
    pub details: bool,
    /// The policy packs and what they found (`P`).
    pub policies: bool,
    pub confirm: Option<Confirm>,
    /// What the operator typed so far where a whole-stack destroy asks for the stack's name.
    pub typed_name: Option<String>,
    /// A one-line notice (bad filter, "preview still running", …).
    pub notice: Option<String>,
}
