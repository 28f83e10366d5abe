//! Planning and applying steps: the generator (check, diff, chains, delete-before-replace
//! cascades), the gate a chain waits at, the executor's workers and the application of one
//! step, the deletes after the program, targeting, and the run's state and first error, which
//! the generator and the loop share.

pub(super) mod apply;
pub(super) mod component_hooks;
pub(super) mod deletes;
pub(super) mod deletions;
pub(super) mod diff;
pub(super) mod diff_job;
pub(super) mod drift;
pub(super) mod executor;
pub(super) mod gate;
pub(super) mod generator;
pub(super) mod pending_creates;
pub(super) mod policy;
pub(super) mod run_error;
pub(super) mod run_state;
pub(super) mod stack_resources;
pub(super) mod targeting;
