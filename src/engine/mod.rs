//! The deployment engine: turns a program's registrations into steps, runs them on a worker
//! pool against providers, journals every mutation and streams events. Its surface is small:
//! [`Deployment`], [`EngineEvent`], [`Control`] and [`Provider`].

pub mod control;
pub mod deployment;
pub mod events;
pub mod goal;
pub mod journal;
pub mod property;
pub mod provider;
pub mod provider_registry;
pub mod resource;
pub mod snapshot;
pub mod source;
pub mod step;
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
pub use snapshot::Snapshot;
pub use source::{
    Program, ProgramError, ProgramFn, RegisterError, RegisterStatus, Registered, ResourceMonitor,
};
pub use step::StepOp;
pub use urn::Urn;
