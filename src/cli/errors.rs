//! Exit codes and the wording of errors. The codes are Pulumi's where it has one: 1 a failure
//! (and a flag cobra would refuse), 2 bad usage or bad input, 6 no such stack, 7 changes where
//! `--expect-no-changes` expected none, 8 a cancelled deployment. Messages a client of
//! `pulumi` matches on (the Automation API's error classes) are Pulumi's words.

use std::fmt;

use stepdeck::state::{StackLocked, StateError};

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

/// A stack that does not exist, named as the user named it (exit code 6): the words the
/// Automation API's `StackNotFoundError` matches, on which `create_or_select_stack` creates it.
#[derive(Debug, thiserror::Error)]
#[error("no stack named '{0}' found")]
pub(super) struct StackNotFound(pub String);

/// A stack `stack init` finds already there, by its fully qualified name (exit code 2): the
/// words of the Automation API's `StackAlreadyExistsError`.
#[derive(Debug, thiserror::Error)]
#[error("stack '{0}' already exists")]
pub(super) struct StackAlreadyExists(pub String);

/// A deployment the operator cancelled (exit code 8, Pulumi's `ExitCancelled`).
#[derive(Debug, thiserror::Error)]
#[error("{0} canceled")]
pub(super) struct Cancelled(pub &'static str);

/// The exit code for an error.
pub(super) fn exit_code(e: &anyhow::Error) -> u8 {
    if e.downcast_ref::<ChangesNotExpected>().is_some() {
        return 7;
    }
    if e.downcast_ref::<Cancelled>().is_some() {
        return 8;
    }
    if e.downcast_ref::<StackNotFound>().is_some()
        || e.chain().any(|c| {
            matches!(
                c.downcast_ref::<StateError>(),
                Some(StateError::NoSuchStack { .. })
            )
        })
    {
        return 6;
    }
    if e.downcast_ref::<UsageError>().is_some()
        || e.downcast_ref::<StackAlreadyExists>().is_some()
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

/// The message `error: ` prefixes on standard error. A locked stack opens with Pulumi's
/// sentence (the Automation API's `ConcurrentUpdateError` matches it), then who holds it.
pub(super) fn render(e: &anyhow::Error) -> String {
    match e.chain().find_map(|c| c.downcast_ref::<StackLocked>()) {
        Some(locked) => format!(
            "the stack is currently locked by 1 lock(s). Either wait for the other process(es) \
             to end or, if it is gone, remove the lock with `stack unlock`.\n  {locked}"
        ),
        None => chain_text(e),
    }
}

/// An error and its causes joined with `: `, as anyhow's `{:#}` joins them, but without a
/// cause its parent's message already ends with (a client library's error often repeats its
/// source: `transport error: transport error: tcp connect error: tcp connect error`).
fn chain_text(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let part = cause.to_string();
        if text.ends_with(&part) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&part);
    }
    text
}

fn is_input_error(e: &StateError) -> bool {
    use stepdeck::state::StateError as E;
    matches!(
        e,
        E::StackExists { .. }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("{0}")]
    struct Layer(String, #[source] Option<Box<Layer>>);

    fn layers(parts: &[&str]) -> anyhow::Error {
        let mut inner: Option<Box<Layer>> = None;
        for p in parts.iter().rev() {
            inner = Some(Box::new(Layer(p.to_string(), inner)));
        }
        anyhow::Error::new(*inner.unwrap())
    }

    #[test]
    fn a_cause_its_parent_already_says_is_said_once() {
        let e = layers(&[
            "cannot connect to 127.0.0.1:1: transport error",
            "transport error",
            "tcp connect error",
            "tcp connect error",
            "Connection refused (os error 111)",
        ]);
        assert_eq!(
            render(&e),
            "cannot connect to 127.0.0.1:1: transport error: tcp connect error: Connection refused (os error 111)"
        );
        let e = layers(&["reading Pulumi.yaml", "line 3: bad"]);
        assert_eq!(render(&e), "reading Pulumi.yaml: line 3: bad");
    }
}
