//! The analyzer hook: policy checks that see every resource after Check and may veto it.

use super::resource::ResourceState;

/// A policy finding about one resource.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyViolation {
    pub policy: String,
    pub message: String,
    /// A mandatory violation stops the resource (and fails the deployment).
    pub mandatory: bool,
}

/// A policy pack. None is installed by default.
pub trait Analyzer: Send + Sync {
    fn name(&self) -> &str;
    fn analyze(&self, resource: &ResourceState) -> Vec<PolicyViolation>;
}
