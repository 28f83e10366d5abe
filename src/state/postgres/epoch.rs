//! Journal epochs in the database: a checkpoint names the epoch of the journal rows that
//! continue it, and every compaction moves to the next; the epoch column is a `bigint`.

use std::path::Path;

use super::super::codec::document::last_epoch;
use super::super::error::StateError;

/// The epoch of a checkpoint `pulumi` wrote: the one after the last journal row's (`last`).
pub(super) fn after_journals(last: Option<i64>, location: &Path) -> Result<u64, StateError> {
    match last {
        None => Ok(0),
        Some(e) => next_epoch(u64::try_from(e).unwrap_or(0), location),
    }
}

pub(super) fn epoch_sql(epoch: u64) -> Result<i64, StateError> {
    i64::try_from(epoch).map_err(|_| StateError::Database {
        url: String::new(),
        message: format!("epoch {epoch} does not fit the epoch column"),
    })
}

/// The epoch after `epoch`; it must fit the epoch column.
pub(super) fn next_epoch(epoch: u64, location: &Path) -> Result<u64, StateError> {
    epoch
        .checked_add(1)
        .filter(|e| i64::try_from(*e).is_ok())
        .ok_or_else(|| last_epoch(location, epoch))
}
