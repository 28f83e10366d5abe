//! The nodejs SDK of a package schema (being written: each function answers `Unsupported`
//! until its generator lands).

use std::path::Path;

use serde_json::Value;

use super::{GeneratedSdk, SdkGenError, SdkOptions};
use crate::project::runtime::Runtime;

/// Writes the SDK.
pub fn generate(
    _schema: &Value,
    out: &Path,
    _options: &SdkOptions,
) -> Result<GeneratedSdk, SdkGenError> {
    Err(SdkGenError::Link {
        project: out.to_path_buf(),
        message: "not written yet".into(),
    })
}

/// Links the SDK into the project.
pub fn link(root: &Path, _runtime: &Runtime, _sdk: &GeneratedSdk) -> Result<(), SdkGenError> {
    Err(SdkGenError::Link {
        project: root.to_path_buf(),
        message: "not written yet".into(),
    })
}

/// How a program imports the SDK.
pub fn usage(sdk: &GeneratedSdk, _schema_name: &str) -> String {
    sdk.import.clone()
}
