//! The deployment engine: turns a program's registrations into steps, runs them on a worker
//! pool against providers, journals every mutation and streams events.
//!
//! Its folders and files are layers, each naming only those before it in this list
//! (`tests/module_graph.rs` checks it): `model` (URNs, properties, resource states and goals,
//! snapshots, the dependency graph), `provider` (the provider interface and the registry of
//! provider resources), `journal`, `step` (the step and its op), `run` (what a run is given and
//! what it reports: `Options`, events, `Control`, approvals, the update plan), `hooks`,
//! `step_error`, `program` (the resource monitor a program talks to), `steps` (generating,
//! gating and applying steps, with the run's state), and the loop, `deployment_executor`.
//!
//! The surface: outside the engine, an item re-exported here is named here (`engine::Urn`),
//! any other by the path of the file that defines it (`engine::model::urn::ROOT_STACK_TYPE`).
//! A module is `pub` when code outside the engine names it, and seen only inside the engine
//! otherwise; none is `pub(crate)`.

mod deployment_executor;
pub mod hooks;
pub mod journal;
pub mod model;
pub mod program;
pub mod provider;
pub mod run;
pub mod step;
mod step_error;
mod steps;

pub use journal::{Journal, JournalEntry, JournalError, NullJournal};
pub use model::goal::{Alias, Goal, ReadGoal};
pub use model::property::{PropertyMap, PropertyValue};
pub use model::provider_ref::ProviderRef;
pub use model::resource::ResourceState;
pub use model::snapshot::Snapshot;
pub use model::urn::Urn;
pub use program::source::{
    Program, ProgramError, ProgramFn, RegisterError, RegisterStatus, Registered, ResourceMonitor,
};
pub use provider::Provider;
pub use provider::registry::{ProviderFactory, ProviderRegistry};
pub use provider::stack_outputs::{StackOutputsSource, StackReadError};
pub use run::control::{ApprovalPolicy, CancelLevel, Control};
pub use run::deployment::{Deployment, DeploymentResult, Options};
pub use run::events::{EngineEvent, EventSink, Operation, Outcome, Severity, waiting_for_debugger};
pub use run::run_failure::{FailureCause, RunFailure};
pub use step::StepOp;
pub use step_error::{ProviderCall, StepError};
pub use steps::diff::diff_inputs;
pub use steps::drift::refresh_result;
