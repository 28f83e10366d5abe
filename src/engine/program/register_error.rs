//! Why a registration (or a read, invoke, call or outputs request) was refused or failed,
//! typed so that the resource monitor answers each kind with its gRPC code without reading
//! messages, and the run records a plan violation or a journal failure as what it is.

use std::fmt;
use std::sync::Arc;

use super::registration_check::InvalidField;
use crate::engine::journal::JournalError;
use crate::engine::model::property_path::InvalidPath;
use crate::engine::model::urn::Urn;
use crate::engine::provider::ProviderError;
use crate::engine::run::plan::PlanViolation;
use crate::engine::run::policy::PolicyError;
use crate::engine::step_error::StepError;

/// Why a registration was refused or failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RegisterError {
    /// A request field is malformed or names a resource not registered in this deployment;
    /// nothing was recorded and the deployment goes on.
    #[error(transparent)]
    Rejected(#[from] InvalidField),
    /// A resource option names a property path that does not parse.
    #[error("{urn}: {option}: {source}")]
    OptionPath {
        urn: Urn,
        option: &'static str,
        source: InvalidPath,
    },
    /// The URN is taken, by another resource or through an alias.
    #[error(transparent)]
    Urn(#[from] UrnConflict),
    /// The provider reference or default provider the request needs is not usable.
    #[error(transparent)]
    ProviderReference(#[from] ProviderRefError),
    /// A targeted update may not depend on a create the targets skip.
    #[error(transparent)]
    UntargetedCreate(#[from] UntargetedCreate),
    /// An engine-answered function (`getResource`) without a string argument it needs.
    #[error("{function} needs the string argument '{argument}'")]
    MissingArgument {
        function: &'static str,
        argument: &'static str,
    },
    /// `getResource` of a URN this stack does not hold.
    #[error("unknown resource {0}")]
    UnknownResource(String),
    /// The provider's Check failed (its message, secrets masked).
    #[error("checking {urn}: {message}")]
    Check { urn: Urn, message: String },
    /// The provider's Check refused inputs (its reasons, secrets masked).
    #[error("{urn} has invalid inputs: {}", reasons.join("; "))]
    InvalidInputs { urn: Urn, reasons: Vec<String> },
    /// A provider call made for the request failed.
    #[error("{call} failed: {source}")]
    Provider {
        call: Box<FunctionCall>,
        source: ProviderError,
    },
    /// The provider's Diff failed.
    #[error("diffing {urn}: {source}")]
    Diff { urn: Urn, source: ProviderError },
    /// The old provider's DiffConfig failed while deciding whether a provider change replaces.
    #[error("diffing the provider of {urn}: {source}")]
    ProviderDiff { urn: Urn, source: ProviderError },
    /// The resource's provider could not be loaded to diff a member of a replacement.
    #[error("loading the provider of {urn}: {source}")]
    LoadProvider { urn: Urn, source: ProviderError },
    /// The old provider of a resource whose provider changed is gone.
    #[error("failed to resolve provider reference '{reference}' of resource '{urn}'")]
    UnresolvedProvider { reference: String, urn: Urn },
    /// A replacement trigger still unknown outside a preview.
    #[error("replacement trigger contains unknowns for {0}")]
    UnknownReplacementTrigger(Urn),
    /// A protected resource would be replaced.
    #[error(
        "unable to replace resource \"{0}\" as it is currently marked for protection. To unprotect the resource, remove the `protect` flag from the resource in your program and run `stepdeck up`, or use the command: `stepdeck state unprotect '{0}'`"
    )]
    ProtectedReplace(Urn),
    /// A protected resource would be replaced as a member of another's replacement.
    #[error(
        "unable to replace resource \"{urn}\" as part of replacing {on}: it is protected. To unprotect the resource, remove the `protect` flag from the resource in your program and run `stepdeck up`, or use the command: `stepdeck state unprotect '{urn}'`"
    )]
    ProtectedCascade { urn: Urn, on: Urn },
    /// A resource that still asks to be imported would be replaced.
    #[error("{urn}: {refusal}")]
    ImportReplace {
        urn: Urn,
        refusal: ImportReplaceRefusal,
    },
    /// A policy pack's call about the registration failed.
    #[error("{urn}: {source}")]
    Policy { urn: Urn, source: PolicyError },
    /// A mandatory policy violation: in an update the resource's step does not run (Pulumi's
    /// bail, in its words).
    #[error("resource {0} is invalid")]
    PolicyViolated(Urn),
    /// The update plan does not allow the registration, its steps or its outputs.
    #[error(transparent)]
    Plan(#[from] PlanViolation),
    /// A step of the registration's chain failed.
    #[error(transparent)]
    Step(Arc<StepError>),
    /// The journal could not record what the request did.
    #[error(transparent)]
    Journal(Arc<JournalError>),
    /// An earlier step of the deployment failed, so this registration's steps did not run.
    #[error("not run: an earlier step of the deployment failed")]
    NotRun,
    #[error("the deployment was cancelled")]
    Cancelled,
}

impl From<JournalError> for RegisterError {
    fn from(e: JournalError) -> RegisterError {
        RegisterError::Journal(Arc::new(e))
    }
}

impl RegisterError {
    /// The request itself is wrong (a malformed or conflicting field, an unusable provider
    /// reference): the SDKs get INVALID_ARGUMENT rather than an internal failure.
    pub fn is_invalid_request(&self) -> bool {
        match self {
            RegisterError::Rejected(_)
            | RegisterError::OptionPath { .. }
            | RegisterError::Urn(_)
            | RegisterError::ProviderReference(_)
            | RegisterError::UntargetedCreate(_)
            | RegisterError::MissingArgument { .. } => true,
            RegisterError::UnknownResource(_)
            | RegisterError::Check { .. }
            | RegisterError::InvalidInputs { .. }
            | RegisterError::Provider { .. }
            | RegisterError::Diff { .. }
            | RegisterError::ProviderDiff { .. }
            | RegisterError::LoadProvider { .. }
            | RegisterError::UnresolvedProvider { .. }
            | RegisterError::UnknownReplacementTrigger(_)
            | RegisterError::ProtectedReplace(_)
            | RegisterError::ProtectedCascade { .. }
            | RegisterError::ImportReplace { .. }
            | RegisterError::Plan(_)
            | RegisterError::Policy { .. }
            | RegisterError::PolicyViolated(_)
            | RegisterError::Step(_)
            | RegisterError::Journal(_)
            | RegisterError::NotRun
            | RegisterError::Cancelled => false,
        }
    }
}

/// A provider function a request called, named as the message shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FunctionCall {
    /// An invoke of the token.
    Invoke(String),
    /// A remote component's Construct, by type and name.
    Construct { type_: String, name: String },
    /// A method call of the token.
    Call(String),
}

impl fmt::Display for FunctionCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FunctionCall::Invoke(token) => write!(f, "invoke of {token}"),
            FunctionCall::Construct { type_, name } => write!(f, "constructing {type_} {name:?}"),
            FunctionCall::Call(token) => write!(f, "call of {token}"),
        }
    }
}

/// A URN two registrations claim.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrnConflict {
    #[error("duplicate resource URN '{0}'; try giving it a unique name")]
    Duplicate(Urn),
    #[error("duplicate resource URN '{urn}': resource '{by}' already claimed it as an alias")]
    ClaimedAsAlias { urn: Urn, by: Urn },
    #[error(
        "resource '{urn}' has an alias '{alias}' that is registered in this deployment as another resource"
    )]
    AliasRegistered { urn: Urn, alias: Urn },
    #[error("resources '{urn}' and '{by}' both claim the old resource '{alias}' through aliases")]
    AliasClaimedTwice { urn: Urn, by: Urn, alias: Urn },
}

/// A provider reference, or a default provider, a request cannot use.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ProviderRefError {
    #[error("{0} is a custom resource without a provider")]
    Missing(Urn),
    #[error(
        "unknown provider '{reference}' for resource '{urn}': it is not registered in this deployment"
    )]
    NotRegistered { reference: String, urn: Urn },
    /// A function's explicit provider that is not registered.
    #[error("unknown provider {0}")]
    Unknown(String),
    #[error("Default provider for '{package}' disabled. '{user}' must use an explicit provider.")]
    DefaultDisabled { package: String, user: String },
    #[error("config '{key}' must be a list of package names: {source}")]
    DisabledListMalformed {
        key: &'static str,
        source: Arc<serde_json::Error>,
    },
}

/// A targeted resource that depends on a create the targets skip.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "resource '{urn}' depends on '{dependency}', which will be created but was not specified in --target list; add it to the targets or pass --target-dependents"
)]
pub struct UntargetedCreate {
    pub urn: Urn,
    pub dependency: Urn,
}

/// Why a resource that still specifies an import ID may not be replaced: the replacing keys
/// with their old and new values (secrets hidden).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportReplaceRefusal {
    /// `(key, old, new)` as shown.
    pub changes: Vec<(String, String, String)>,
}

impl fmt::Display for ImportReplaceRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("previously-imported resources that still specify an ID may not be replaced; please remove the `import` declaration from your program;")?;
        for (key, old, new) in &self.changes {
            write!(f, "\n{key}: {old} => {new}")?;
        }
        Ok(())
    }
}
