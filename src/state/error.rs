//! The errors of the state module: each names the URL, stack, file, line or field at fault so
//! that the person reading it knows what to look at.

use std::io;
use std::path::PathBuf;

use crate::engine::model::snapshot::IntegrityError;

use super::lock_info::{BadLease, StackLocked};
use super::lock_lost::LockLost;
use super::passphrase::SecretsError;
use super::stack_ref::BadName;

/// Anything that went wrong reading or writing a stack's state.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    #[error("unsupported backend URL {url:?}: {reason}")]
    BadUrl { url: String, reason: String },
    /// The database of a `postgres://` backend refused or failed: unreachable, credentials,
    /// schema version, permissions, a connection lost.
    #[error("{url}: {message}")]
    Database { url: String, message: String },
    /// Pulumi's environment switches contradict each other.
    #[error("{message}")]
    BadEnvironment { message: String },
    #[error(transparent)]
    BadName(#[from] BadName),
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("stack {stack} already exists")]
    StackExists { stack: String },
    #[error("no stack named {stack} (create it with `stepdeck stack init`)")]
    NoSuchStack { stack: String },
    /// A state file that does not parse; `line` is 1-based for journals.
    #[error("{}{}: {message}", path.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
    Corrupt {
        path: PathBuf,
        line: Option<usize>,
        message: String,
    },
    #[error("{}: the stack's state fails the integrity check: {source}", path.display())]
    Integrity {
        path: PathBuf,
        #[source]
        source: IntegrityError,
    },
    #[error("{}: {source}", path.display())]
    Secrets {
        path: PathBuf,
        #[source]
        source: SecretsError,
    },
    #[error(transparent)]
    Locked(#[from] Box<StackLocked>),
    /// Pulumi holds the stack: a lock file of its own is in the backend's `.pulumi/locks`.
    /// The message is Pulumi's, naming every lock file.
    #[error("{message}")]
    PulumiLocked { message: String },
    /// This process held the stack's lock and lost it: it writes nothing more.
    #[error(transparent)]
    LockLost(Box<LockLost>),
    /// `STEPDECK_LOCK_LEASE_SECS` asks for a lease no lock can take.
    #[error(transparent)]
    BadLease(#[from] BadLease),
    #[error(
        "stack {stack} is locked by pid {pid} on host {host}, which may still be running; \
         use `stepdeck stack unlock --force` if you are sure it is gone"
    )]
    LockHeldByLiveProcess {
        stack: String,
        pid: u32,
        host: String,
    },
    #[error(
        "stack {stack} still has {count} resources; destroy them first, or remove the stack with --force"
    )]
    HasResources { stack: String, count: usize },
    /// A journal whose checkpoint is gone: the stack's resources are recorded only there.
    #[error(
        "stack {stack} has no {} but its journal {} records a deployment: starting the stack \
         afresh would create its resources twice. Restore the checkpoint from a backup; or, if \
         you are sure nothing it recorded exists any more, move the journal aside: `mv {} {}.orphaned`",
        checkpoint.display(), journal.display(), journal.display(), journal.display()
    )]
    OrphanJournal {
        stack: String,
        checkpoint: PathBuf,
        journal: PathBuf,
    },
    /// A journal of an epoch the checkpoint has not reached: not written by this stack's runs.
    #[error(
        "{}: a journal for epoch {epoch} exists before the checkpoint reached that epoch; it was \
         not written by this stack's deployments and is not adopted. Inspect it, then move it aside \
         (`mv {} {}.stray`) and run the command again",
        journal.display(), journal.display(), journal.display()
    )]
    StrayJournal { journal: PathBuf, epoch: u64 },
    /// A deployment that did not finish recorded resources that only its journal holds.
    #[error(
        "stack {stack} has an unfinished deployment recorded in {}: its resources may exist; run \
         `stepdeck destroy` on it first, or remove the stack with --force",
        journal.display()
    )]
    UnfinishedJournal { stack: String, journal: PathBuf },
    /// A `stack import` document that is not a valid export; `field` is a JSON path.
    #[error("invalid stack export at {field}: {message}")]
    Import { field: String, message: String },
}

impl From<LockLost> for StateError {
    fn from(lost: LockLost) -> StateError {
        StateError::LockLost(Box::new(lost))
    }
}

impl StateError {
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(io::Error) -> StateError {
        let path = path.into();
        move |source| StateError::Io { path, source }
    }
}
