//! `stack export` and `stack import`: Pulumi's `{version: 3, deployment: DeploymentV3}` with
//! secrets encrypted as in state. Imports are validated field by field before anything is
//! written, so a bad file never replaces a good state.

use serde_json::Value;

use crate::engine::Snapshot;

use super::checkpoint::{CHECKPOINT_VERSION, SecretsProviderState, parse_deployment};
use super::error::StateError;
use super::json_depth::{DEPLOYMENT_WRAP_DEPTH, MAX_JSON_DEPTH, deepest_path, nesting};
use super::passphrase::Crypter;
use super::secrets::has_ciphertext;
use super::stack_ref::StackRef;

/// The passphrase salt an export's secrets were encrypted with, if it names one; when it
/// differs from the stack's, build the decrypting crypter from it.
pub fn export_salt(document: &Value) -> Option<String> {
    let sp: SecretsProviderState =
        serde_json::from_value(document.pointer("/deployment/secrets_providers")?.clone()).ok()?;
    sp.salt().map(str::to_string)
}

fn import_error(field: impl Into<String>, message: impl Into<String>) -> StateError {
    StateError::Import {
        field: field.into(),
        message: message.into(),
    }
}

/// Checks an export document and decodes its snapshot.
pub fn validate_export(
    stack: &StackRef,
    document: &Value,
    decrypt: Option<&Crypter>,
) -> Result<Snapshot, StateError> {
    let root = document
        .as_object()
        .ok_or_else(|| import_error("(top)", "expected a JSON object"))?;
    match root.get("version").and_then(Value::as_u64) {
        Some(CHECKPOINT_VERSION) => {}
        Some(4) => {
            return Err(import_error(
                "features",
                format!(
                    "version 4 documents need features {} that stepdeck does not support",
                    root.get("features").unwrap_or(&Value::Null)
                ),
            ));
        }
        Some(v) => return Err(import_error("version", format!("expected 3, found {v}"))),
        None => return Err(import_error("version", "missing or not a number")),
    }
    let deployment = root
        .get("deployment")
        .ok_or_else(|| import_error("deployment", "missing"))?;
    let depth = DEPLOYMENT_WRAP_DEPTH + nesting(deployment);
    if depth > MAX_JSON_DEPTH {
        return Err(import_error(
            format!("deployment{}", deepest_path(deployment)),
            format!(
                "nests {depth} levels deep in the stack's state file, more than the \
                 {MAX_JSON_DEPTH} stepdeck reads back"
            ),
        ));
    }
    if has_ciphertext(deployment) {
        let sp = deployment.get("secrets_providers");
        let kind = sp.and_then(|s| s.get("type")).and_then(Value::as_str);
        if kind != Some(super::passphrase::PASSPHRASE_PROVIDER) {
            return Err(import_error(
                "deployment.secrets_providers.type",
                format!(
                    "secrets are encrypted by {}, but only the passphrase provider is supported",
                    kind.map_or("an unnamed provider".to_string(), |k| format!("{k:?}"))
                ),
            ));
        }
        let Some(decrypt) = decrypt else {
            return Err(import_error(
                "deployment",
                "the document has encrypted secrets: set PULUMI_CONFIG_PASSPHRASE or PULUMI_CONFIG_PASSPHRASE_FILE",
            ));
        };
        if export_salt(document).as_deref() != Some(decrypt.salt_state()) {
            return Err(import_error(
                "deployment.secrets_providers.state.salt",
                "the secrets were encrypted with another salt than the one given to decrypt them",
            ));
        }
    }
    let parsed = parse_deployment(deployment, "deployment", decrypt)
        .map_err(|e| import_error(e.field, e.message))?;
    let snapshot = parsed.snapshot;
    for (i, r) in snapshot.resources.iter().enumerate() {
        if r.urn.stack() != stack.stack() || r.urn.project() != stack.project() {
            return Err(import_error(
                format!("deployment.resources[{i}].urn"),
                format!(
                    "{} belongs to stack {:?} of project {:?}, not {stack}",
                    r.urn,
                    r.urn.stack(),
                    r.urn.project()
                ),
            ));
        }
    }
    snapshot
        .verify_integrity()
        .map_err(|e| import_error("deployment.resources", e.to_string()))?;
    Ok(snapshot)
}
