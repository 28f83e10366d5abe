//! A run's terms with its caller: what it is given (`Deployment`, `Options`, approval rules,
//! decisions written down, an update plan), what it reports (events, its failure), how the
//! operator steers it (`Control`), the policy packs it consults, and the secrets kept out of
//! all of it.

pub mod approval;
mod approval_kind;
pub mod autoname_random;
pub mod autonaming;
pub mod control;
pub mod deployment;
pub mod events;
pub mod gate_decisions;
pub mod plan;
pub mod policy;
pub(super) mod run_failure;
pub(super) mod secret_mask;
