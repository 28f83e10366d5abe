//! Why a deployment failed: the first error the run met, kept typed until the outcome turns
//! it into the masked message consumers see.

use std::sync::Arc;

use crate::engine::hooks::DeleteHooksNeedProgram;
use crate::engine::journal::JournalError;
use crate::engine::model::urn::Urn;
use crate::engine::program::register_error::UntargetedCreate;
use crate::engine::program::source::{ProgramError, RegisterError};
use crate::engine::run::policy::PolicyError;
use crate::engine::run::run_failure::{FailureCause, RunFailure};
use crate::engine::run::secret_mask::SecretMask;
use crate::engine::step_error::StepError;

/// An error that fails the run.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RunError {
    /// The program returned an error.
    #[error("the program failed: {0}")]
    Program(#[from] ProgramError),
    /// The program's task panicked.
    #[error("the program panicked: {0}")]
    ProgramPanicked(#[from] tokio::task::JoinError),
    /// The root stack's outputs could not be journaled once the run's result was known.
    #[error("recording the stack outputs: {0}")]
    StackOutputs(JournalError),
    /// A step failed (or refused to delete a protected resource); the chain's registration
    /// shares the error.
    #[error(transparent)]
    Step(#[from] Arc<StepError>),
    /// A registration was refused (a check, a policy, a replacement not allowed).
    #[error(transparent)]
    Register(#[from] RegisterError),
    /// Resolving or clearing pending creates could not be journaled.
    #[error(transparent)]
    Journal(#[from] JournalError),
    /// A destroy without the program, of resources whose delete hooks live in it.
    #[error(transparent)]
    DeleteHooks(#[from] DeleteHooksNeedProgram),
    /// A mandatory policy violation in a preview, or of a stack policy: the run went on to its
    /// end and fails there (Pulumi's "preview failed" / "update failed").
    #[error("{0} failed")]
    PolicyViolations(&'static str),
    /// A pack's analysis of the whole stack failed.
    #[error(transparent)]
    Policy(PolicyError),
    /// Literal targets that name nothing in the stack (Pulumi's `checkTargets`).
    #[error("one or more targets could not be found in the stack: {}", .0.join(", "))]
    UnknownTargets(Vec<String>),
    /// A targeted resource depends on a create the targets skip.
    #[error(transparent)]
    UntargetedCreate(UntargetedCreate),
    /// A targeted delete would leave an untargeted dependent without what it needs.
    #[error(
        "resource '{0}' will be destroyed but was not specified in --target list; add it to the targets or pass --target-dependents"
    )]
    UntargetedDelete(Urn),
}

impl From<StepError> for RunError {
    fn from(e: StepError) -> RunError {
        RunError::Step(Arc::new(e))
    }
}

impl RunError {
    /// What the outcome carries: the cause and the message with `secrets` masked.
    pub(crate) fn failure(&self, secrets: &SecretMask) -> RunFailure {
        let cause = match self {
            RunError::Program(_) | RunError::ProgramPanicked(_) => FailureCause::Program,
            RunError::Step(_) => FailureCause::Step,
            RunError::Register(RegisterError::UntargetedCreate(_)) => FailureCause::Targets,
            RunError::Register(RegisterError::Policy { .. } | RegisterError::PolicyViolated(_))
            | RunError::PolicyViolations(_)
            | RunError::Policy(_) => FailureCause::Policy,
            RunError::Register(_) => FailureCause::Registration,
            RunError::Journal(_) | RunError::StackOutputs(_) => FailureCause::Journal,
            RunError::DeleteHooks(_) => FailureCause::DeleteHooks,
            RunError::UnknownTargets(_)
            | RunError::UntargetedCreate(_)
            | RunError::UntargetedDelete(_) => FailureCause::Targets,
        };
        RunFailure::new(cause, secrets.mask(&self.to_string()))
    }
}
