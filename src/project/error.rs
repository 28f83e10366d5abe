//! What can go wrong reading or changing a project, its stack settings or its configuration.

use std::path::PathBuf;

use crate::file_limits::{ReadLimitError, WriteLimitError};
use crate::located_yaml::SourceError;

/// A project, stack settings or configuration problem, naming the file (and line) involved.
#[derive(Debug, thiserror::Error)]
pub enum ProjectError {
    #[error("no Pulumi.yaml in {0} (is this a project directory?)")]
    NotAProject(PathBuf),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Source(#[from] SourceError),
    #[error(transparent)]
    Read(#[from] ReadLimitError),
    #[error("invalid configuration key {key:?}: {why}")]
    BadKey { key: String, why: String },
    #[error("could not set configuration value {key}: {why}")]
    BadValue { key: String, why: String },
    #[error("configuration value for {key} is encrypted, but no secrets provider is available")]
    NoCrypter { key: String },
    #[error("could not {action} configuration value {key}: {source}")]
    Crypt {
        key: String,
        action: &'static str,
        source: CryptError,
    },
    #[error("missing required configuration value {key} (set it with `config set {short}`)")]
    MissingRequired { key: String, short: String },
    #[error(
        "{file}: config value {key} would nest {depth} levels deep in the file, more than the \
         {limit} stepdeck reads; nothing was written"
    )]
    TooDeep {
        file: String,
        key: String,
        depth: usize,
        limit: usize,
    },
    #[error("{file} would not read back ({why}); nothing was written")]
    WouldNotRead { file: String, why: String },
    #[error(transparent)]
    TooLarge(#[from] WriteLimitError),
}

/// Why encrypting or decrypting a secret failed (a wrong passphrase, corrupt ciphertext).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct CryptError(pub String);
