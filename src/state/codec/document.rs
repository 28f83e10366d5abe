//! The checkpoint document as both backends store it (a file's bytes, a row's or a key's
//! value): its version checked, its deployment decoded resource by resource, its journal
//! replayed onto it, and the errors that name the document at fault.

use std::io::BufRead;
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::engine::Snapshot;
use crate::state::backend::StackState;
use crate::state::error::StateError;
use crate::state::passphrase::{Crypter, SecretsError};
use crate::state::secrets::has_ciphertext;

use super::checkpoint::{
    CHECKPOINT_VERSION, SecretsProviderState, StepdeckMeta, parse_deployment_text,
};
use super::journal_reader::{JournalReader, JournalSummary};

/// A checkpoint file as loaded: `latest` stays text until it is decoded resource by resource.
#[derive(Deserialize)]
pub(crate) struct RawCheckpointFile<'a> {
    pub(crate) version: u64,
    #[serde(default)]
    pub(crate) features: Vec<String>,
    #[serde(borrow)]
    pub(crate) checkpoint: RawCheckpointBody<'a>,
    #[serde(default = "StepdeckMeta::foreign")]
    pub(crate) stepdeck: StepdeckMeta,
}

#[derive(Deserialize)]
pub(crate) struct RawCheckpointBody<'a> {
    #[serde(borrow, default)]
    pub(crate) latest: Option<&'a RawValue>,
}

/// The checkpoint's deployment as a snapshot, with its secrets provider.
fn decode_base(
    path: &Path,
    latest: Option<&RawValue>,
    crypter: Option<&Crypter>,
) -> Result<(Snapshot, Option<SecretsProviderState>), StateError> {
    let Some(latest) = latest else {
        return Ok((Snapshot::default(), None));
    };
    let text = latest.get();
    if crypter.is_none()
        && text.contains("ciphertext")
        && serde_json::from_str::<Value>(text).is_ok_and(|v| has_ciphertext(&v))
    {
        return Err(StateError::Secrets {
            path: path.to_path_buf(),
            source: SecretsError::NoPassphrase,
        });
    }
    let d = parse_deployment_text(text, "checkpoint.latest", crypter)
        .map_err(|e| corrupt(path, format!("{}: {}", e.field, e.message)))?;
    Ok((d.snapshot, d.secrets_providers))
}

/// Parses a checkpoint document (the file's bytes, or a database row) and checks its version;
/// `latest` stays text until it is decoded resource by resource, since a JSON tree of a large
/// stack costs several times the document in memory and time.
pub(crate) fn parse_checkpoint<'a>(
    path: &Path,
    bytes: &'a [u8],
) -> Result<RawCheckpointFile<'a>, StateError> {
    let file: RawCheckpointFile<'_> =
        serde_json::from_slice(bytes).map_err(|e| corrupt(path, e.to_string()))?;
    check_version(path, file.version, &file.features)?;
    Ok(file)
}

/// A stack's state from its checkpoint (`path`) and its journal (opened by `journal` once
/// the checkpoint decoded), replayed line by line and, with `verify`, integrity checked, an
/// integrity fault blamed on the checkpoint when the checkpoint alone has it. Returns what the
/// journal held too.
pub(crate) fn decode_state<'a, R: BufRead>(
    path: &Path,
    file: &RawCheckpointFile<'_>,
    journal: impl FnOnce(Option<&Crypter>) -> Result<JournalReader<'a, R>, StateError>,
    crypter: Option<&Crypter>,
    verify: bool,
) -> Result<(StackState, JournalSummary), StateError> {
    let epoch = file.stepdeck.journal_epoch;
    let (base, secrets_providers) = decode_base(path, file.checkpoint.latest, crypter)?;
    // The journal continues the checkpoint, under the salt the checkpoint records.
    let reader =
        SecretsProviderState::reader(secrets_providers.as_ref(), crypter).map_err(|source| {
            StateError::Secrets {
                path: path.to_path_buf(),
                source,
            }
        })?;
    let journal = journal(reader.as_ref())?;
    let journal_path = journal.path().to_path_buf();
    let (snapshot, summary) = journal.replay_onto(base)?;
    let checked = if summary.entries == 0 {
        path.to_path_buf()
    } else {
        journal_path
    };
    if verify && let Err(source) = snapshot.verify_integrity() {
        let base = decode_base(path, file.checkpoint.latest, crypter)?.0;
        return Err(match base.verify_integrity() {
            Err(source) => StateError::Integrity {
                path: path.to_path_buf(),
                source,
            },
            Ok(()) => StateError::Integrity {
                path: checked,
                source,
            },
        });
    }
    Ok((
        StackState {
            snapshot,
            epoch,
            secrets_providers,
        },
        summary,
    ))
}

/// The refusal of a checkpoint (at `path`) whose epoch `epoch` is the last there is, with the
/// way out: the state moved to a fresh stack, whose epochs start again.
pub(crate) fn last_epoch(path: &Path, epoch: u64) -> StateError {
    corrupt(
        path,
        format!(
            "stepdeck.journalEpoch is {epoch}, the last epoch there is: the state cannot be \
             compacted; move it to a fresh stack with `stepdeck stack export --file state.json`, \
             `stepdeck stack rm --force --yes`, `stepdeck stack init` and \
             `stepdeck stack import --file state.json`"
        ),
    )
}

pub(crate) fn corrupt(path: &Path, message: String) -> StateError {
    StateError::Corrupt {
        path: path.to_path_buf(),
        line: None,
        message,
    }
}

pub(crate) fn check_version(
    path: &Path,
    version: u64,
    features: &[String],
) -> Result<(), StateError> {
    if version != CHECKPOINT_VERSION || !features.is_empty() {
        return Err(corrupt(
            path,
            format!(
                "checkpoint version {version} with features {features:?} is not supported (expected version {CHECKPOINT_VERSION})"
            ),
        ));
    }
    Ok(())
}
