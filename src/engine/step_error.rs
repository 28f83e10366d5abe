//! Why a step failed, typed so that the executor tells a provider's failure from a journal
//! write that failed or a protected resource it refused to delete, without reading messages.

use std::fmt;

use super::hooks::{HookError, MAX_ERROR_HOOK_ATTEMPTS};
use super::journal::JournalError;
use super::model::resource::ResourceState;
use super::model::urn::Urn;
use super::provider::ProviderError;

/// The provider call a step failed in (it names the call in the message).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProviderCall {
    Create,
    Update,
    Delete,
    Read,
    Refresh,
}

impl fmt::Display for ProviderCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ProviderCall::Create => "creating",
            ProviderCall::Update => "updating",
            ProviderCall::Delete => "deleting",
            ProviderCall::Read => "reading",
            ProviderCall::Refresh => "refreshing",
        })
    }
}

/// A step's failure.
#[derive(Debug, thiserror::Error)]
pub enum StepError {
    /// The provider refused or failed the call; nothing new was recorded for the resource.
    #[error("{call} {urn} failed: {source}")]
    Provider {
        call: ProviderCall,
        urn: Urn,
        source: ProviderError,
    },
    /// The resource exists but did not initialise (Pulumi's `initErrors`): its state was
    /// recorded with these errors, so the next update retries it.
    #[error("{call} {urn} partially failed: {}", init_errors.join("; "))]
    PartialFailure {
        call: ProviderCall,
        urn: Urn,
        init_errors: Vec<String>,
    },
    /// A provider resource's configuration was refused.
    #[error("configuring provider {urn}: {source}")]
    Configure { urn: Urn, source: ProviderError },
    /// The resource's provider could not be loaded.
    #[error("loading the provider of {urn}: {source}")]
    LoadProvider { urn: Urn, source: ProviderError },
    /// A custom resource without a provider reference.
    #[error("{urn} has no provider")]
    NoProvider { urn: Urn },
    /// A read or an import found nothing under the ID.
    #[error("reading {urn}: resource '{id}' does not exist")]
    NotFound { urn: Urn, id: String },
    /// A protected resource is never deleted (unless protection is ignored); the run fails at
    /// the end but nothing else stops.
    #[error(
        "resource \"{urn}\" cannot be deleted because it is protected. To unprotect the resource, remove the `protect` flag from the resource in your program and run `stepdeck up`, or use the command: `stepdeck state unprotect '{urn}'`"
    )]
    Protected { urn: Urn },
    /// A before-hook failed: the provider was not called and nothing was journaled.
    #[error("{source}")]
    BeforeHook { urn: Urn, source: HookError },
    /// An after-hook failed once the step was recorded: the step is done (its state, if it has
    /// one, answers the registration) and the run fails at its end without stopping anything.
    #[error("{source}")]
    AfterHook {
        urn: Urn,
        source: HookError,
        state: Option<Box<ResourceState>>,
    },
    /// The resource's error hooks failed while deciding about a retry of the failed call.
    #[error("error hooks execution failed: {source}")]
    ErrorHook { urn: Urn, source: HookError },
    /// The error hooks kept asking for retries until the bound: the last attempt's failure.
    #[error("{source} (maximum number of error hook retries ({MAX_ERROR_HOOK_ATTEMPTS}) reached)")]
    RetriesExhausted { source: Box<StepError> },
    /// The journal could not record the step: the state on disk no longer follows the run.
    #[error(transparent)]
    Journal(#[from] JournalError),
}

impl StepError {
    /// The step recorded the resource's state despite the error (a partial failure, an
    /// after-hook's failure): what it does to the run's old copies holds.
    pub fn recorded(&self) -> bool {
        matches!(
            self,
            StepError::PartialFailure { .. } | StepError::AfterHook { .. }
        )
    }
}
