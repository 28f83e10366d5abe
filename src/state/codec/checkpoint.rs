//! The checkpoint file, in the DIY backend's shape so that Pulumi's tools can read it:
//! `{"version": 3, "checkpoint": {"stack", "latest": DeploymentV3}, "stepdeck": {"journalEpoch"}}`.
//! Converting between a [`Snapshot`] and DeploymentV3 JSON encrypts and decrypts secrets and
//! checks shape with errors that name the JSON path.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use crate::engine::model::resource::PendingOperation;
use crate::engine::model::snapshot::Manifest;
use crate::engine::{ProviderRef, ResourceState, Snapshot, Urn};

use crate::state::passphrase::{Crypter, PASSPHRASE_PROVIDER, SecretsError};
use crate::state::secrets::{
    decrypt_secrets, encrypt_secrets, has_ciphertext, state_may_hold_secrets,
};

/// The checkpoint format version we write (Pulumi's DeploymentV3).
pub const CHECKPOINT_VERSION: u64 = 3;

/// The whole checkpoint file. `stepdeck` is our own key; Pulumi ignores it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CheckpointFile {
    pub version: u64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub features: Vec<String>,
    pub checkpoint: CheckpointBody,
    #[serde(default = "StepdeckMeta::foreign")]
    pub stepdeck: StepdeckMeta,
}

impl CheckpointFile {
    /// The secrets provider the checkpoint's deployment records, read without decrypting.
    pub fn secrets_providers(&self) -> Option<SecretsProviderState> {
        self.checkpoint
            .latest
            .as_ref()
            .and_then(|l| l.get("secrets_providers"))
            .and_then(|v| serde_json::from_value(v.clone()).ok())
    }

    /// The secrets provider a new checkpoint written with `crypter` records: the crypter's,
    /// else the one this checkpoint records.
    pub fn providers_for(&self, crypter: Option<&Crypter>) -> Option<SecretsProviderState> {
        crypter
            .map(SecretsProviderState::passphrase)
            .or_else(|| self.secrets_providers())
    }
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
    /// The checkpoint has no `stepdeck` key: another program (`pulumi`) wrote it, so no
    /// journal of ours continues it.
    #[serde(skip)]
    pub foreign: bool,
}

impl StepdeckMeta {
    /// The bookkeeping of a checkpoint written without it (by `pulumi`).
    pub fn foreign() -> StepdeckMeta {
        StepdeckMeta {
            journal_epoch: 0,
            foreign: true,
        }
    }
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

    /// Whether state recording `recorded` was written under `crypter` (without a crypter,
    /// anything was), so that a journal encrypted by `crypter` may continue it; a deployment
    /// re-encrypts the checkpoint first otherwise.
    pub fn written_under(
        recorded: Option<&SecretsProviderState>,
        crypter: Option<&Crypter>,
    ) -> bool {
        crypter
            .is_none_or(|c| recorded.and_then(SecretsProviderState::salt) == Some(c.salt_state()))
    }

    /// The crypter that opens what was encrypted under the provider a deployment records:
    /// `given`'s passphrase with the recorded salt (Pulumi reads a checkpoint with the secrets
    /// provider recorded in it, not with the stack settings' salt). Without a recorded salt or
    /// a crypter, `given` as it is.
    pub fn reader(
        recorded: Option<&SecretsProviderState>,
        given: Option<&Crypter>,
    ) -> Result<Option<Crypter>, SecretsError> {
        match (recorded.and_then(SecretsProviderState::salt), given) {
            (Some(salt), Some(c)) => c.for_salt(salt).map(Some),
            _ => Ok(given.cloned()),
        }
    }
}

/// The secrets provider a deployment's JSON text (at JSON path `at`) records, read without
/// decoding its resources: writing a new checkpoint keeps it, and the resources may be many.
pub fn recorded_secrets_providers(
    text: &str,
    at: &str,
) -> Result<Option<SecretsProviderState>, FieldError> {
    #[derive(Deserialize)]
    struct Head {
        #[serde(default)]
        secrets_providers: Option<SecretsProviderState>,
    }
    serde_json::from_str::<Head>(text)
        .map(|h| h.secrets_providers)
        .map_err(|e| FieldError::new(format!("{at}.secrets_providers"), e.to_string()))
}

/// [`SecretsProviderState::reader`] for the deployment at JSON path `at`.
fn reader_at(
    recorded: Option<&SecretsProviderState>,
    given: Option<&Crypter>,
    at: &str,
) -> Result<Option<Crypter>, FieldError> {
    SecretsProviderState::reader(recorded, given).map_err(|e| {
        FieldError::new(
            format!("{at}.secrets_providers.state.salt"),
            format!("the salt the secrets were encrypted with: {e}"),
        )
    })
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

/// Fails as [`deployment_json`] would when the snapshot holds a secret and there is no
/// crypter (plaintext never reaches disk); with a crypter, encryption cannot fail.
pub fn check_encryptable(
    snapshot: &Snapshot,
    crypter: Option<&Crypter>,
) -> Result<(), SecretsError> {
    if crypter.is_some() {
        return Ok(());
    }
    let first = |states: &mut dyn Iterator<Item = &ResourceState>| {
        states
            .enumerate()
            .find(|(_, r)| state_may_hold_secrets(r))
            .map(|(i, r)| (i, to_json(r)))
    };
    if let Some((i, mut v)) = first(&mut snapshot.resources.iter()) {
        return encrypt_secrets(&mut v, None).map_err(|e| prefix(&format!("resources[{i}]"), e));
    }
    if let Some((i, mut v)) = first(&mut snapshot.pending_operations.iter().map(|p| &p.resource)) {
        return encrypt_secrets(&mut v, None)
            .map_err(|e| prefix(&format!("pending_operations[{i}].resource"), e));
    }
    Ok(())
}

/// Writes the whole checkpoint file (the shape of [`CheckpointFile`], DeploymentV3 inside)
/// as compact JSON straight from the snapshot: no JSON tree of the stack is ever built, and
/// only a resource holding a secret goes through one, to encrypt it. Call
/// [`check_encryptable`] first: a secret without a crypter fails the write here.
pub fn write_checkpoint_file<W: std::io::Write>(
    out: W,
    stack: &str,
    snapshot: &Snapshot,
    epoch: u64,
    secrets_providers: Option<&SecretsProviderState>,
    crypter: Option<&Crypter>,
) -> std::io::Result<()> {
    let file = FileOut {
        version: CHECKPOINT_VERSION,
        checkpoint: BodyOut {
            stack,
            latest: LatestOut {
                manifest: &snapshot.manifest,
                secrets_providers,
                resources: Encrypted {
                    items: &snapshot.resources,
                    crypter,
                },
                pending_operations: Encrypted {
                    items: &snapshot.pending_operations,
                    crypter,
                },
            },
        },
        stepdeck: StepdeckMeta {
            journal_epoch: epoch,
            foreign: false,
        },
    };
    serde_json::to_writer(out, &file).map_err(std::io::Error::other)
}

#[derive(Serialize)]
struct FileOut<'a> {
    version: u64,
    checkpoint: BodyOut<'a>,
    stepdeck: StepdeckMeta,
}

#[derive(Serialize)]
struct BodyOut<'a> {
    stack: &'a str,
    latest: LatestOut<'a>,
}

#[derive(Serialize)]
struct LatestOut<'a> {
    manifest: &'a Manifest,
    #[serde(skip_serializing_if = "Option::is_none")]
    secrets_providers: Option<&'a SecretsProviderState>,
    resources: Encrypted<'a, ResourceState>,
    #[serde(skip_serializing_if = "Encrypted::is_empty")]
    pending_operations: Encrypted<'a, PendingOperation>,
}

/// State items serialized one by one, each with its secrets encrypted.
struct Encrypted<'a, T> {
    items: &'a [T],
    crypter: Option<&'a Crypter>,
}

impl<T> Encrypted<'_, T> {
    fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

/// A state item that may hold secrets.
trait HoldsSecrets: Serialize {
    fn state(&self) -> &ResourceState;
}

impl HoldsSecrets for ResourceState {
    fn state(&self) -> &ResourceState {
        self
    }
}

impl HoldsSecrets for PendingOperation {
    fn state(&self) -> &ResourceState {
        &self.resource
    }
}

impl<T: HoldsSecrets> Serialize for Encrypted<'_, T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeSeq};
        let mut seq = s.serialize_seq(Some(self.items.len()))?;
        for item in self.items {
            if state_may_hold_secrets(item.state()) {
                let mut v = to_json(item);
                encrypt_secrets(&mut v, self.crypter).map_err(S::Error::custom)?;
                seq.serialize_element(&v)?;
            } else {
                seq.serialize_element(item)?;
            }
        }
        seq.end()
    }
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
    let crypter = reader_at(secrets_providers.as_ref(), crypter, at)?;
    let crypter = crypter.as_ref();
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

/// [`parse_deployment`] on the deployment's JSON text, resource by resource: only the text
/// and one resource's JSON at a time are held, never a tree of the whole stack. A malformed
/// deployment is handed to [`parse_deployment`] so that errors name the same fields.
pub fn parse_deployment_text(
    text: &str,
    at: &str,
    crypter: Option<&Crypter>,
) -> Result<Deployment, FieldError> {
    #[derive(Deserialize)]
    struct Shape<'a> {
        manifest: Value,
        #[serde(default)]
        secrets_providers: Value,
        #[serde(borrow)]
        resources: Option<Vec<&'a RawValue>>,
        #[serde(borrow)]
        pending_operations: Option<Vec<&'a RawValue>>,
    }
    let shape = match serde_json::from_str::<Shape>(text) {
        Ok(shape) => shape,
        Err(_) => {
            let value: Value =
                serde_json::from_str(text).map_err(|e| FieldError::new(at, e.to_string()))?;
            return parse_deployment(&value, at, crypter);
        }
    };
    let mut head = Map::new();
    head.insert("manifest".into(), shape.manifest);
    head.insert("secrets_providers".into(), shape.secrets_providers);
    let mut d = parse_deployment(&Value::Object(head), at, crypter)?;
    let crypter = reader_at(d.secrets_providers.as_ref(), crypter, at)?;
    let crypter = crypter.as_ref();
    d.snapshot.resources = decode_resources(&shape.resources.unwrap_or_default(), at, crypter)?;
    d.snapshot.pending_operations = shape
        .pending_operations
        .unwrap_or_default()
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let at = format!("{at}.pending_operations[{i}]");
            let value: Value =
                serde_json::from_str(p.get()).map_err(|e| FieldError::new(&at, e.to_string()))?;
            parse_pending(&value, &at, crypter)
        })
        .collect::<Result<_, _>>()?;
    Ok(d)
}

/// Resources below this many per core are decoded on the caller's thread alone.
const RESOURCES_PER_DECODER: usize = 4096;

/// The resources' texts decoded on every core, in order: a large stack's decode is most of
/// loading it, and each resource's text decodes on its own. The first failure in order is
/// the one reported, as a sequential decode would.
fn decode_resources(
    texts: &[&RawValue],
    at: &str,
    crypter: Option<&Crypter>,
) -> Result<Vec<ResourceState>, FieldError> {
    let decode = |first: usize, part: &[&RawValue]| {
        let mut out = Vec::with_capacity(part.len());
        for (i, r) in part.iter().enumerate() {
            out.push(parse_resource_text(r.get(), at, first + i, crypter)?);
        }
        Ok::<_, FieldError>(out)
    };
    let decoders = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(texts.len() / RESOURCES_PER_DECODER);
    if decoders <= 1 {
        return decode(0, texts);
    }
    let per = texts.len().div_ceil(decoders);
    let parts = std::thread::scope(|scope| {
        let rest: Vec<_> = texts
            .chunks(per)
            .enumerate()
            .skip(1)
            .map(|(k, part)| scope.spawn(move || decode(k * per, part)))
            .collect();
        let mut parts = vec![decode(0, &texts[..per])];
        parts.extend(
            rest.into_iter()
                .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))),
        );
        parts
    });
    let mut resources = Vec::with_capacity(texts.len());
    for part in parts {
        resources.extend(part?);
    }
    Ok(resources)
}

/// Resource `i` from its JSON text: decoded directly when it holds no ciphertext and is well
/// formed, else through [`parse_resource`] (decryption, and errors naming the field).
fn parse_resource_text(
    text: &str,
    at: &str,
    i: usize,
    crypter: Option<&Crypter>,
) -> Result<ResourceState, FieldError> {
    if !text.contains("ciphertext")
        && let Ok(r) = serde_json::from_str::<ResourceState>(text)
        && !r.type_.is_empty()
        && !r.urn.as_str().is_empty()
    {
        return Ok(r);
    }
    let at = format!("{at}.resources[{i}]");
    let value: Value =
        serde_json::from_str(text).map_err(|e| FieldError::new(&at, e.to_string()))?;
    parse_resource(&value, &at, crypter)
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
    if let Some(p) = r.get("provider").and_then(Value::as_str) {
        ProviderRef::parse(p)
            .map_err(|e| FieldError::new(format!("{at}.provider"), e.to_string()))?;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn deployment_text(n: usize, broken: &[usize]) -> String {
        let resources: Vec<Value> = (0..n)
            .map(|i| {
                let mut r = serde_json::json!({
                    "urn": format!("urn:pulumi:s::p::sim:index:Resource::r{i}"),
                    "custom": true,
                    "type": "sim:index:Resource",
                });
                if broken.contains(&i) {
                    r.as_object_mut().unwrap().remove("type");
                }
                r
            })
            .collect();
        serde_json::json!({
            "manifest": {"time": "t", "magic": "m", "version": "v"},
            "resources": resources,
        })
        .to_string()
    }

    #[test]
    fn a_large_deployment_decodes_on_several_threads_in_order_and_names_its_first_fault() {
        let n = 4 * RESOURCES_PER_DECODER + 7;
        let d = parse_deployment_text(&deployment_text(n, &[]), "d", None).unwrap();
        assert_eq!(d.snapshot.resources.len(), n);
        for (i, r) in d.snapshot.resources.iter().enumerate() {
            assert_eq!(r.urn.name(), format!("r{i}"));
        }
        let late = n - 3;
        let early = RESOURCES_PER_DECODER + 1;
        let err =
            parse_deployment_text(&deployment_text(n, &[late, early]), "d", None).unwrap_err();
        assert_eq!(err.field, format!("d.resources[{early}].type"), "{err:?}");
        let err = parse_deployment_text(&deployment_text(n, &[late]), "d", None).unwrap_err();
        assert_eq!(err.field, format!("d.resources[{late}].type"), "{err:?}");
    }

    #[test]
    fn a_malformed_provider_reference_is_a_decode_error_naming_the_field() {
        let mut d: Value = serde_json::from_str(&deployment_text(2, &[])).unwrap();
        d["resources"][1]["provider"] = "sim-default".into();
        let err = parse_deployment_text(&d.to_string(), "d", None).unwrap_err();
        assert_eq!(err.field, "d.resources[1].provider", "{err:?}");
        assert_eq!(
            err.message,
            "bad provider reference 'sim-default': expected '<provider URN>::<provider ID>'"
        );
    }
}
