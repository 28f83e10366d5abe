//! Why a deployment failed, as its outcome carries it to every consumer (the console, JSON
//! output, attach watchers): what kind of error ended the run, and its message with the run's
//! secrets masked. The typed error itself (`run_error::RunError`) stays in the engine; a
//! failure is its masked form, which can be cloned, compared and sent over the wire.

/// What kind of error ended a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureCause {
    /// The program failed or panicked.
    Program,
    /// A step failed, or refused to delete a protected resource.
    Step,
    /// A registration was refused (a check, a plan, a replacement not allowed).
    Registration,
    /// The journal could not record the run (pending creates, the stack's outputs).
    Journal,
    /// The targets name nothing, or leave a create or a delete out.
    Targets,
    /// A destroy without the program, of resources whose delete hooks live in it.
    DeleteHooks,
    /// A policy pack reported a mandatory violation, or one of its calls failed.
    Policy,
    /// Reported by a deployment elsewhere: the attach protocol carries only the message.
    Reported,
}

/// A failed run's cause and masked message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct RunFailure {
    cause: FailureCause,
    message: String,
}

impl RunFailure {
    /// A failure with its message as consumers see it (already masked).
    pub fn new(cause: FailureCause, message: impl Into<String>) -> RunFailure {
        RunFailure {
            cause,
            message: message.into(),
        }
    }

    pub fn cause(&self) -> FailureCause {
        self.cause
    }

    pub fn message(&self) -> &str {
        &self.message
    }
}
