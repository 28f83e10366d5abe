//! Exit codes: 0 success, 1 a failed deployment, 2 bad usage or bad input, 7 changes where
//! `--expect-no-changes` expected none.

use std::fmt;

/// An error caused by the command line or the input files (exit code 2).
#[derive(Debug)]
pub(super) struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

pub(super) fn usage(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(UsageError(message.into()))
}

/// A deployment that ran and failed (exit code 1); its output already said why.
#[derive(Debug)]
pub(super) struct DeploymentFailed(pub String);

impl fmt::Display for DeploymentFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DeploymentFailed {}

/// `--expect-no-changes` saw changes (exit code 7, Pulumi's `ExitNoChanges`).
#[derive(Debug)]
pub(super) struct ChangesNotExpected(pub &'static str);

impl fmt::Display for ChangesNotExpected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "no changes were expected for {} but changes were proposed",
            self.0
        )
    }
}

impl std::error::Error for ChangesNotExpected {}

/// The exit code for an error: usage and input errors are 2, unexpected changes 7, everything
/// else 1.
pub(super) fn exit_code(e: &anyhow::Error) -> u8 {
    if e.downcast_ref::<ChangesNotExpected>().is_some() {
        return 7;
    }
    if e.downcast_ref::<UsageError>().is_some()
        || e.downcast_ref::<clap::Error>().is_some()
        || e.chain().any(|c| {
            c.downcast_ref::<stepdeck::state::StateError>()
                .is_some_and(is_input_error)
        })
    {
        2
    } else {
        1
    }
}

fn is_input_error(e: &stepdeck::state::StateError) -> bool {
    use stepdeck::state::StateError as E;
    matches!(
        e,
        E::NoSuchStack { .. }
            | E::StackExists { .. }
            | E::HasResources { .. }
            | E::OrphanJournal { .. }
            | E::StrayJournal { .. }
            | E::UnfinishedJournal { .. }
            | E::Corrupt { .. }
            | E::Database { .. }
            | E::Integrity { .. }
            | E::Secrets { .. }
            | E::Import { .. }
            | E::BadUrl { .. }
            | E::BadLease(_)
            | E::BadName(_)
    )
}
