//! Stack state behind one [`Backend`] trait, on files (`file://`, see [`file`]) or PostgreSQL
//! (`postgres://`, see [`postgres`]): crash-safe checkpoints and journals, the passphrase
//! secrets provider, export/import and the per-stack lock. The two backends are siblings:
//! neither imports the other; what both store (the checkpoint document, journal lines) is
//! encoded and decoded by [`codec`], and the lock protocol both follow is [`stack_lock`].
//!
//! # Crash safety
//!
//! A stack's state is its checkpoint plus the journal whose epoch the checkpoint names; a
//! journal of an earlier epoch is stale (already folded in), ignored by loading, and removed
//! by the next deployment or compaction, with a warning naming it. Anything else is
//! refused, never cleaned up: a journal without a checkpoint, a journal of a later epoch (at
//! compaction), an epoch that cannot advance, an operation that ends without having begun. Every journal entry is one `write` of one line, so a
//! kill leaves at most a torn last line, which loading skips. Compaction (at the start and
//! end of each deployment) replays the journal, writes the checkpoint of the next epoch
//! (temporary file, fsync, rename, fsync of the directory) and only then removes the old
//! journal: at every instant the files load to the same state, which must pass the
//! integrity check.
//!
//! # Secrets
//!
//! Secret values are encrypted ([`passphrase::Crypter`]) before they reach a checkpoint,
//! a journal line or an export; with no crypter, writing a secret is an error.
//!
//! # Locks
//!
//! Writes need a [`StackLock`]. Its holder renews a lease on it while it runs; a lock whose
//! lease expired (on any host), or whose holder pid no longer runs on this host, is taken
//! over by the next locker ([`StackLock::broke_stale`] tells); a lock with a live lease needs
//! `stack unlock --force`. Every acquisition gives the lock a new generation, and every write
//! is refused once the lock has moved past the writer's (see [`stack_lock`]): a holder paused
//! past its lease stops before its next provider call. A stack is created under its lock
//! ([`FileBackend::lock_or_create`]), so its creator sets up its secrets before anyone else runs.

pub mod backend;
pub mod backend_url;
pub mod codec;
pub mod diy;
pub mod error;
pub mod export;
pub mod file;
pub mod json_depth;
pub mod lock_info;
pub mod lock_lost;
mod open;
pub mod passphrase;
pub mod plan_file;
pub mod postgres;
pub mod secrets;
pub mod stack_lock;
pub mod stack_outputs;
pub mod stack_ref;
pub mod stack_rename;
pub mod stack_tags;
pub mod update_record;

pub use backend::{Backend, StackState, StackSummary};
pub use backend_url::{
    BACKEND_URL_ENV, BackendUrl, DEFAULT_BACKEND_URL, PULUMI_BACKEND_URL_ENV, Scheme,
};
pub use codec::checkpoint::SecretsProviderState;
pub use error::StateError;
pub use export::{export_salt, validate_export};
pub use file::{FileBackend, FileJournal};
pub use lock_info::{
    BadLease, HOST_ENV, Holder, LEASE_ENV, LockInfo, MAX_LEASE, StackLocked, os_user,
};
pub use lock_lost::{LockLost, LostReason, Successor};
pub use open::open as open_backend;
pub use passphrase::{Crypter, SecretsError, passphrase_from_env};
pub use postgres::{PgBackend, PgUrl};
pub use stack_lock::{Fence, StackLock};
pub use stack_outputs::BackendStacks;
pub use stack_ref::StackRef;
pub use stack_tags::BUILTIN_TAG_PREFIX;
pub use update_record::{RecordedConfig, UpdateRecord};
