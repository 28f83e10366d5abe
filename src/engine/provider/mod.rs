//! The provider interface: what the engine asks of whoever manages a kind of resource, whether
//! built in or a plugin over gRPC.

pub mod download_url;
pub mod input_types;
pub mod parameterization;
pub mod registry;
pub mod stack_outputs;

use std::collections::BTreeMap;

use async_trait::async_trait;

use self::parameterization::{InternalInputsError, Parameterization};
use super::model::hook_binding::HookBindings;
use super::model::property::PropertyMap;
use super::model::provider_ref::ProviderRef;
use super::model::resource::PropertyDependencies;
use super::model::urn::Urn;

/// A provider's refusal or failure, carried to the step that called it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProviderError {
    /// The operation failed; the message is the provider's.
    #[error("{0}")]
    Failed(String),
    /// The resource was created but did not initialise; its outputs are known.
    #[error("resource partially initialised: {}", reasons.join("; "))]
    PartialFailure {
        id: String,
        outputs: PropertyMap,
        reasons: Vec<String>,
    },
    /// The resource the call names does not exist (gRPC `NOT_FOUND`). A Delete that gets it
    /// succeeded already: the resource is gone, as Pulumi's providers treat it.
    #[error("{0}")]
    NotFound(String),
    /// The provider does not implement the call.
    #[error("the provider does not support {0}")]
    Unsupported(&'static str),
    /// Preview cannot diff because the provider's own configuration is not known yet.
    #[error("diff unavailable: {0}")]
    DiffUnavailable(String),
    /// No provider goes by the reference: the program did not register it and the stack does
    /// not hold it (an engine error, not a provider's).
    #[error("unknown provider reference {0}")]
    UnknownReference(String),
    /// The call was abandoned because the deployment was cancelled.
    #[error("cancelled")]
    Cancelled,
    /// A provider resource's `__internal` inputs (which plugin serves it) cannot be read.
    #[error(transparent)]
    InternalInputs(#[from] InternalInputsError),
    /// A parameterized package's base provider did not become that package.
    #[error("provider {provider:?} cannot serve the parameterized package {package:?}: {reason}")]
    Parameterize {
        provider: String,
        package: String,
        reason: String,
    },
}

/// One input the provider rejected in Check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckFailure {
    pub property: String,
    pub reason: String,
}

/// Check's answer: the inputs to use, or why they are invalid.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CheckResult {
    pub inputs: PropertyMap,
    pub failures: Vec<CheckFailure>,
}

/// Whether a diff found changes; `Unknown` asks the engine to compare inputs itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DiffChanges {
    #[default]
    Unknown,
    None,
    Some,
}

/// How one property changed, as providers report it in a detailed diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DiffKind {
    Add,
    AddReplace,
    Delete,
    DeleteReplace,
    Update,
    UpdateReplace,
}

impl DiffKind {
    pub fn is_replace(self) -> bool {
        matches!(
            self,
            DiffKind::AddReplace | DiffKind::DeleteReplace | DiffKind::UpdateReplace
        )
    }

    pub fn to_replace(self) -> DiffKind {
        match self {
            DiffKind::Add | DiffKind::AddReplace => DiffKind::AddReplace,
            DiffKind::Delete | DiffKind::DeleteReplace => DiffKind::DeleteReplace,
            DiffKind::Update | DiffKind::UpdateReplace => DiffKind::UpdateReplace,
        }
    }
}

/// One entry of a detailed diff, keyed by property path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PropertyDiff {
    pub kind: DiffKind,
    pub input_diff: bool,
}

/// Diff's answer.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DiffResult {
    pub changes: DiffChanges,
    /// Keys whose change forces a replacement.
    pub replace_keys: Vec<String>,
    /// Keys that will not change even in an update.
    pub stables: Vec<String>,
    pub changed_keys: Vec<String>,
    pub detailed_diff: BTreeMap<String, PropertyDiff>,
    /// The provider wants the old resource deleted before the replacement is created.
    pub delete_before_replace: bool,
}

impl DiffResult {
    pub fn none() -> DiffResult {
        DiffResult {
            changes: DiffChanges::None,
            ..DiffResult::default()
        }
    }

    pub fn replaces(&self) -> bool {
        !self.replace_keys.is_empty()
    }
}

/// Inputs to Check.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckRequest {
    pub urn: Urn,
    pub olds: PropertyMap,
    pub news: PropertyMap,
    pub random_seed: Vec<u8>,
}

/// Inputs to Diff.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffRequest {
    pub urn: Urn,
    pub id: String,
    pub old_inputs: PropertyMap,
    pub old_outputs: PropertyMap,
    pub new_inputs: PropertyMap,
    pub ignore_changes: Vec<String>,
}

/// Inputs to Create; with `preview` the provider only predicts outputs.
#[derive(Debug, Clone, PartialEq)]
pub struct CreateRequest {
    pub urn: Urn,
    pub inputs: PropertyMap,
    pub timeout: f64,
    pub preview: bool,
}

/// Create's answer.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CreateResult {
    pub id: String,
    pub outputs: PropertyMap,
}

/// Inputs to Read.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadRequest {
    pub urn: Urn,
    pub id: String,
    pub inputs: PropertyMap,
    pub state: PropertyMap,
}

/// Inputs to Construct: the component's registration and what the provider needs to register
/// it and its children through the program's resource monitor.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ConstructRequest {
    pub type_: String,
    pub name: String,
    pub parent: Option<Urn>,
    pub inputs: PropertyMap,
    pub input_dependencies: PropertyDependencies,
    pub dependencies: Vec<Urn>,
    pub protect: Option<bool>,
    /// Explicit providers for the children, by package.
    pub providers: BTreeMap<String, ProviderRef>,
    pub additional_secret_outputs: Vec<String>,
    pub deleted_with: Option<Urn>,
    pub ignore_changes: Vec<String>,
    pub replace_on_changes: Vec<String>,
    pub retain_on_delete: Option<bool>,
    /// The hooks the program bound to the component, which its provider's own registration of
    /// the component carries (so a transform re-run there sees them, as in Pulumi).
    pub hooks: HookBindings,
    pub info: ProgramInfo,
}

/// The deployment a component provider's code runs in (Construct and Call): it registers
/// resources through the monitor at `monitor_endpoint`, as a program would.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ProgramInfo {
    pub monitor_endpoint: String,
    pub project: String,
    pub stack: String,
    pub organization: String,
    pub config: BTreeMap<String, String>,
    pub config_secret_keys: Vec<String>,
    pub dry_run: bool,
    pub parallel: usize,
}

/// Inputs to Call: a method of a component (`<type>/<method>`), `__self__` among the args.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CallRequest {
    pub tok: String,
    pub args: PropertyMap,
    pub arg_dependencies: BTreeMap<String, Vec<Urn>>,
    pub info: ProgramInfo,
}

/// Construct's answer: the component's URN and outputs.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ConstructResult {
    pub urn: Urn,
    pub state: PropertyMap,
    pub state_dependencies: BTreeMap<String, Vec<Urn>>,
}

/// Call's answer: the method's return, or the check failures the provider refused its
/// arguments with (handed to the program, whose SDK words the error, as Pulumi's monitor does).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CallResult {
    pub outputs: PropertyMap,
    pub failures: Vec<CheckFailure>,
}

/// Read's answer; an empty `id` means the resource no longer exists.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ReadResult {
    pub id: String,
    pub inputs: PropertyMap,
    pub outputs: PropertyMap,
}

/// Inputs to Update.
#[derive(Debug, Clone, PartialEq)]
pub struct UpdateRequest {
    pub urn: Urn,
    pub id: String,
    pub old_inputs: PropertyMap,
    pub old_outputs: PropertyMap,
    pub new_inputs: PropertyMap,
    pub timeout: f64,
    pub ignore_changes: Vec<String>,
    pub preview: bool,
}

/// Inputs to Delete.
#[derive(Debug, Clone, PartialEq)]
pub struct DeleteRequest {
    pub urn: Urn,
    pub id: String,
    pub inputs: PropertyMap,
    pub outputs: PropertyMap,
    pub timeout: f64,
}

/// Configure's answer: capabilities the engine must respect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConfigureResult {
    pub accept_secrets: bool,
    pub accept_resources: bool,
}

impl Default for ConfigureResult {
    fn default() -> Self {
        ConfigureResult {
            accept_secrets: true,
            accept_resources: true,
        }
    }
}

/// A provider of resources. Every call may run concurrently with others on the same provider.
#[async_trait]
pub trait Provider: Send + Sync {
    /// Validates the provider's own configuration.
    async fn check_config(
        &self,
        _urn: &Urn,
        _olds: &PropertyMap,
        news: &PropertyMap,
    ) -> Result<CheckResult, ProviderError> {
        Ok(CheckResult {
            inputs: news.clone(),
            failures: Vec::new(),
        })
    }

    /// Decides whether a change to the provider's configuration replaces what it manages.
    async fn diff_config(&self, _req: DiffRequest) -> Result<DiffResult, ProviderError> {
        Ok(DiffResult::default())
    }

    async fn configure(&self, _inputs: &PropertyMap) -> Result<ConfigureResult, ProviderError> {
        Ok(ConfigureResult::default())
    }

    async fn check(&self, req: CheckRequest) -> Result<CheckResult, ProviderError> {
        Ok(CheckResult {
            inputs: req.news,
            failures: Vec::new(),
        })
    }

    /// Compares old and new inputs; `Unknown` (the default) lets the engine compare them.
    async fn diff(&self, _req: DiffRequest) -> Result<DiffResult, ProviderError> {
        Ok(DiffResult::default())
    }

    async fn create(&self, req: CreateRequest) -> Result<CreateResult, ProviderError>;

    async fn read(&self, _req: ReadRequest) -> Result<ReadResult, ProviderError> {
        Err(ProviderError::Unsupported("Read"))
    }

    /// Finds, by URN alone, what a create interrupted before its ID was recorded may have
    /// made (refresh resolves pending creates with it). An empty list: nothing exists;
    /// `Unsupported` (the default): the provider cannot tell, and the pending create stays.
    async fn lookup(&self, _urn: &Urn) -> Result<Vec<ReadResult>, ProviderError> {
        Err(ProviderError::Unsupported("Lookup"))
    }

    async fn update(&self, req: UpdateRequest) -> Result<PropertyMap, ProviderError>;

    async fn delete(&self, req: DeleteRequest) -> Result<(), ProviderError>;

    async fn invoke(
        &self,
        _token: &str,
        _args: &PropertyMap,
    ) -> Result<PropertyMap, ProviderError> {
        Err(ProviderError::Unsupported("Invoke"))
    }

    /// Constructs a remote (multi-language) component: the provider registers the component
    /// and its children through the monitor named in the request and answers its URN and state.
    async fn construct(&self, _req: ConstructRequest) -> Result<ConstructResult, ProviderError> {
        Err(ProviderError::Unsupported("Construct"))
    }

    /// Calls a method of a component this provider constructed; returns what it returned.
    async fn call(&self, _req: CallRequest) -> Result<CallResult, ProviderError> {
        Err(ProviderError::Unsupported("Call"))
    }

    /// Makes the provider serve a parameterized package before it is configured; answers the
    /// package name it now serves. Built-in providers serve only their own package.
    async fn parameterize(&self, _req: &Parameterization) -> Result<String, ProviderError> {
        Err(ProviderError::Unsupported("Parameterize"))
    }

    /// The resource type tokens the provider implements, as its schema names them, so that
    /// programs may use short forms (`random:RandomPet`); empty when it does not say.
    fn resource_types(&self) -> Vec<String> {
        Vec::new()
    }

    /// The types the provider's schema gives a resource type's inputs, for checking a program's
    /// values before it runs; `None` when it does not say (anything is then accepted).
    async fn input_types(
        &self,
        _token: &str,
    ) -> Result<Option<input_types::ObjectType>, ProviderError> {
        Ok(None)
    }

    /// The resource types the provider's schema marks as components (`isComponent`), which a
    /// program that cannot tell by itself (YAML) constructs remotely; empty when it does not say.
    async fn component_types(&self) -> Result<Vec<String>, ProviderError> {
        Ok(Vec::new())
    }

    /// Asks the provider to stop gracefully; operations in flight should finish or fail soon.
    async fn cancel(&self) -> Result<(), ProviderError> {
        Ok(())
    }
}
