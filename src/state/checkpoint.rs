//! The checkpoint file, in the DIY backend's shape so that Pulumi's tools can read it:
//! `{"version": 3, "checkpoint": {"stack", "latest": DeploymentV3}, "stepdeck": {"journalEpoch"}}`.
//! Converting between a [`Snapshot`] and DeploymentV3 JSON encrypts and decrypts secrets and
//! checks shape with errors that name the JSON path.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::engine::resource::{PendingOperation, ResourceState};
use crate::engine::snapshot::{Manifest, Snapshot};
use crate::engine::urn::Urn;

use super::passphrase::{Crypter, PASSPHRASE_PROVIDER, SecretsError};
use super::secrets::{decrypt_secrets, encrypt_secrets, has_ciphertext};

/// The checkpoint format version we write (Pulumi's DeploymentV3).
pub const CHECKPOINT_VERSION: u64 = 3;

/// The whole checkpoint file. `stepdeck` is our own key; Pulumi ignores it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CheckpointFile {
    pub version: u64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub features: Vec<String>,
    pub checkpoint: CheckpointBody,
    #[serde(default)]
    pub stepdeck: StepdeckMeta,
}

/// Pulumi's `CheckpointV3` without the (unused) config.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CheckpointBody {
    pub stack: String,
    /// DeploymentV3 JSON, secrets encrypted; absent for a stack never deployed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latest: Option<Value>,
}

/// What only stepdeck needs: which journal file belongs to this checkpoint.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StepdeckMeta {
    /// The journal `journal.<epoch>.jsonl` continues this checkpoint; any other is stale.
    pub journal_epoch: u64,
}

/// The secrets provider recorded in a deployment (`secrets_providers`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SecretsProviderState {
    #[serde(rename = "type")]
    pub type_: String,
    #[serde(default)]
    pub state: Value,
}

impl SecretsProviderState {
    /// The passphrase provider's state for a crypter: `{"salt": "<salt state>"}`.
    pub fn passphrase(crypter: &Crypter) -> SecretsProviderState {
        SecretsProviderState {
            type_: PASSPHRASE_PROVIDER.to_string(),
            state: json!({ "salt": crypter.salt_state() }),
        }
    }

    /// The salt state if this is the passphrase provider.
    pub fn salt(&self) -> Option<&str> {
        if self.type_ == PASSPHRASE_PROVIDER {
            self.state.get("salt").and_then(Value::as_str)
        } else {
            None
        }
    }
}

/// A bad field in deployment JSON: a JSON path and what is wrong there.
#[derive(Debug)]
pub struct FieldError {
    pub field: String,
    pub message: String,
}

impl FieldError {
    fn new(field: impl Into<String>, message: impl Into<String>) -> FieldError {
        FieldError {
            field: field.into(),
            message: message.into(),
        }
    }
}

/// Encodes a snapshot as DeploymentV3 JSON with every secret encrypted.
pub fn deployment_json(
    snapshot: &Snapshot,
    secrets_providers: Option<&SecretsProviderState>,
    crypter: Option<&Crypter>,
) -> Result<Value, SecretsError> {
    let mut d = Map::new();
    d.insert("manifest".into(), to_json(&snapshot.manifest));
    if let Some(sp) = secrets_providers {
        d.insert("secrets_providers".into(), to_json(sp));
    }
    let mut resources = Value::Array(snapshot.resources.iter().map(to_json).collect());
    encrypt_secrets(&mut resources, crypter).map_err(|e| prefix("resources", e))?;
    d.insert("resources".into(), resources);
    if !snapshot.pending_operations.is_empty() {
        let mut pending = Value::Array(snapshot.pending_operations.iter().map(to_json).collect());
        encrypt_secrets(&mut pending, crypter).map_err(|e| prefix("pending_operations", e))?;
        d.insert("pending_operations".into(), pending);
    }
    Ok(Value::Object(d))
}

fn prefix(field: &str, e: SecretsError) -> SecretsError {
    match e {
        SecretsError::At { path, source } => SecretsError::At {
            path: format!(
                "{field}{}",
                if path.starts_with('[') {
                    path
                } else {
                    format!(".{path}")
                }
            ),
            source,
        },
        other => other,
    }
}

fn to_json<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).expect("state types serialize to JSON")
}

/// A decoded deployment: the snapshot and the secrets provider it names.
#[derive(Debug)]
pub struct Deployment {
    pub snapshot: Snapshot,
    pub secrets_providers: Option<SecretsProviderState>,
}

/// Decodes DeploymentV3 JSON found at JSON path `at`, checking its shape and every
/// resource's URN and type, and decrypting secrets.
pub fn parse_deployment(
    value: &Value,
    at: &str,
    crypter: Option<&Crypter>,
) -> Result<Deployment, FieldError> {
    let d = value
        .as_object()
        .ok_or_else(|| FieldError::new(at, "expected an object"))?;
    let manifest_at = format!("{at}.manifest");
    let manifest_json = d
        .get("manifest")
        .ok_or_else(|| FieldError::new(&manifest_at, "missing"))?;
    for key in ["time", "magic", "version"] {
        if !manifest_json.get(key).is_some_and(Value::is_string) {
            return Err(FieldError::new(
                format!("{manifest_at}.{key}"),
                "missing or not a string",
            ));
        }
    }
    let manifest: Manifest = serde_json::from_value(manifest_json.clone())
        .map_err(|e| FieldError::new(&manifest_at, e.to_string()))?;
    let secrets_providers = match d.get("secrets_providers") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            serde_json::from_value::<SecretsProviderState>(v.clone())
                .map_err(|e| FieldError::new(format!("{at}.secrets_providers"), e.to_string()))?,
        ),
    };
    let resources = array(d, at, "resources")?
        .iter()
        .enumerate()
        .map(|(i, r)| parse_resource(r, &format!("{at}.resources[{i}]"), crypter))
        .collect::<Result<Vec<_>, _>>()?;
    let pending_operations = array(d, at, "pending_operations")?
        .iter()
        .enumerate()
        .map(|(i, p)| parse_pending(p, &format!("{at}.pending_operations[{i}]"), crypter))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Deployment {
        snapshot: Snapshot {
            manifest,
            resources,
            pending_operations,
        },
        secrets_providers,
    })
}

fn array<'a>(d: &'a Map<String, Value>, at: &str, key: &str) -> Result<&'a [Value], FieldError> {
    match d.get(key) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(a)) => Ok(a),
        Some(_) => Err(FieldError::new(format!("{at}.{key}"), "expected an array")),
    }
}

fn parse_resource(
    value: &Value,
    at: &str,
    crypter: Option<&Crypter>,
) -> Result<ResourceState, FieldError> {
    let r = value
        .as_object()
        .ok_or_else(|| FieldError::new(at, "expected an object"))?;
    match r.get("urn").and_then(Value::as_str) {
        None | Some("") => return Err(FieldError::new(format!("{at}.urn"), "missing")),
        Some(urn) => {
            Urn::parse(urn).map_err(|e| FieldError::new(format!("{at}.urn"), e.to_string()))?;
        }
    }
    match r.get("type").and_then(Value::as_str) {
        None | Some("") => return Err(FieldError::new(format!("{at}.type"), "missing")),
        Some(_) => {}
    }
    if !has_ciphertext(value) {
        // Nothing to decrypt: decode from the borrowed JSON, without a copy of it.
        return ResourceState::deserialize(value).map_err(|e| FieldError::new(at, e.to_string()));
    }
    let mut value = value.clone();
    decrypt_secrets(&mut value, crypter).map_err(|e| match e {
        SecretsError::At { path, source } => {
            FieldError::new(format!("{at}.{path}"), source.to_string())
        }
        other => FieldError::new(at, other.to_string()),
    })?;
    serde_json::from_value(value).map_err(|e| FieldError::new(at, e.to_string()))
}

fn parse_pending(
    value: &Value,
    at: &str,
    crypter: Option<&Crypter>,
) -> Result<PendingOperation, FieldError> {
    let resource = value
        .get("resource")
        .ok_or_else(|| FieldError::new(format!("{at}.resource"), "missing"))?;
    let resource = parse_resource(resource, &format!("{at}.resource"), crypter)?;
    let kind = value
        .get("type")
        .ok_or_else(|| FieldError::new(format!("{at}.type"), "missing"))?;
    let kind = serde_json::from_value(kind.clone()).map_err(|_| {
        FieldError::new(
            format!("{at}.type"),
            format!(
                "{kind} is not one of \"creating\", \"updating\", \"deleting\", \"reading\", \"importing\""
            ),
        )
    })?;
    Ok(PendingOperation { resource, kind })
}
