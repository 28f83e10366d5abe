//! What a program gets back for a registration: its result, or why it was refused or failed.
//! A leaf the resource monitor and the engine's answers (`resource_lookup`) share.

pub use super::register_error::RegisterError;
use crate::engine::model::property::PropertyMap;
use crate::engine::model::urn::Urn;

/// How a registration ended, as the SDKs' `supportsResultReporting` expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegisterStatus {
    Success,
    /// The step failed under continue-on-error; outputs are unknown.
    Failed,
    /// The step was skipped because something it depends on failed.
    Skipped,
}

/// What a program gets back for a registration.
#[derive(Clone, Debug, PartialEq)]
pub struct Registered {
    pub urn: Urn,
    pub id: Option<String>,
    pub outputs: PropertyMap,
    pub status: RegisterStatus,
    /// The resource will not exist after this run (a skipped create): every output is unknown.
    pub unknown: bool,
}
