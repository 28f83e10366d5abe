//! The user's stack tags as Pulumi's DIY backend keeps them: `{"version": 1, "tags": {...}}`
//! (Pulumi's `stackTagsFile`), absent when the stack has none.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::state::error::StateError;

/// The version of the tags file Pulumi writes and reads.
const TAGS_VERSION: u64 = 1;

#[derive(Serialize, Deserialize)]
struct TagsFile {
    version: u64,
    #[serde(default)]
    tags: Option<BTreeMap<String, String>>,
}

/// The tags file of `tags`.
pub fn encode(tags: &BTreeMap<String, String>) -> Vec<u8> {
    let file = TagsFile {
        version: TAGS_VERSION,
        tags: Some(tags.clone()),
    };
    serde_json::to_vec(&file).expect("tags serialize")
}

/// The tags a tags file (read from `path`) holds; another version is refused.
pub fn decode(path: &Path, bytes: &[u8]) -> Result<BTreeMap<String, String>, StateError> {
    let corrupt = |line, message| StateError::Corrupt {
        path: path.to_path_buf(),
        line,
        message,
    };
    let file: TagsFile =
        serde_json::from_slice(bytes).map_err(|e| corrupt(Some(e.line()), e.to_string()))?;
    if file.version != TAGS_VERSION {
        return Err(corrupt(
            None,
            format!(
                "unsupported stack tags version: {} (expected {TAGS_VERSION})",
                file.version
            ),
        ));
    }
    Ok(file.tags.unwrap_or_default())
}
