//! One update as the history records it (Pulumi's `apitype.UpdateInfo`): what every backend
//! writes and reads, kept apart from where each keeps it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One recorded update (Pulumi's `apitype.UpdateInfo`); times are Unix seconds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateRecord {
    /// `update`, `refresh` or `destroy`.
    pub kind: String,
    pub start_time: i64,
    #[serde(default)]
    pub message: String,
    #[serde(default)]
    pub environment: BTreeMap<String, String>,
    /// The stack's configuration when the update ran, by `<namespace>:<name>`.
    #[serde(default)]
    pub config: BTreeMap<String, RecordedConfig>,
    /// `succeeded` or `failed`.
    pub result: String,
    pub end_time: i64,
    /// 1 for the stack's first update, counting up.
    #[serde(default)]
    pub version: u64,
    /// Completed steps by Pulumi's op name (`create`, `same`, …).
    #[serde(default)]
    pub resource_changes: BTreeMap<String, usize>,
}

/// A config value as the history keeps it (Pulumi's `apitype.ConfigValue`): text, or JSON text
/// for an object; secrets stay encrypted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordedConfig {
    pub string: String,
    pub secret: bool,
    pub object: bool,
}
