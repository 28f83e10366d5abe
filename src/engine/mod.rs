//! The deployment engine: turns a program's registrations into steps, runs them on a worker
//! pool against providers, journals every mutation and streams events. Its surface is small:
//! [`Deployment`], [`EngineEvent`], [`Control`] and [`Provider`].

pub mod approval;
mod approval_kind;
pub mod asset;
pub mod clock;
mod component_hooks;
pub mod control;
mod deletes;
pub mod deployment;
mod deployment_executor;
pub mod diff;
mod diff_job;
pub mod events;
mod gate;
pub mod gate_decisions;
pub(crate) mod goal;
pub mod graph;
pub(crate) mod hidden_diffs;
mod hook_binding;
pub mod hooks;
pub mod journal;
mod pending_creates;
pub mod plan;
pub mod property;
pub(crate) mod property_path;
pub mod provider;
pub mod provider_parameterization;
pub mod provider_ref;
pub mod provider_registry;
pub(crate) mod register_error;
pub(crate) mod registration;
pub(crate) mod registration_check;
pub mod resource;
mod resource_lookup;
mod run_error;
pub(crate) mod run_failure;
mod run_state;
pub(crate) mod secret_mask;
pub mod shared_map;
pub mod snapshot;
pub(crate) mod snapshot_repair;
pub mod sorted_map;
pub(crate) mod source;
pub(crate) mod stack_outputs;
pub mod step;
mod step_apply;
mod step_error;
mod step_executor;
mod step_generator;
mod targeting;
pub mod targets;
pub mod urn;

pub use control::{ApprovalPolicy, CancelLevel, Control};
pub use deployment::{Deployment, DeploymentResult, Options};
pub use events::{EngineEvent, EventSink, Operation, Outcome, Severity};
pub use goal::{Alias, Goal, ReadGoal};
pub use journal::{Journal, JournalEntry, JournalError, NullJournal};
pub use property::{PropertyMap, PropertyValue};
pub use provider::Provider;
pub use provider_registry::{ProviderFactory, ProviderRegistry};
pub use resource::ResourceState;
pub use run_failure::{FailureCause, RunFailure};
pub use snapshot::Snapshot;
pub use source::{
    Program, ProgramError, ProgramFn, RegisterError, RegisterStatus, Registered, ResourceMonitor,
};
pub use stack_outputs::{StackOutputsSource, StackReadError};
pub use step::StepOp;
pub use step_error::{ProviderCall, StepError};
pub use urn::Urn;
