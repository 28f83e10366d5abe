//! The `sim` provider: a simulated cloud whose resources live in a JSON world file, with knobs
//! (`replaceOn`, `deleteBeforeReplace`, `latencyMs`, `failOn`, `failTimes`, `initFailOn`) to stage any
//! deployment scenario.
//! Create, update and delete take the full latency; a diff, which asks the cloud about one
//! resource, takes a quarter of it (previews included), so parallel diffs can be watched.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;
use std::time::Duration;

use async_trait::async_trait;

use super::input_diff::{changed_inputs, diff_result};
use super::input_fields::{FieldError, check_known, opt_bool, opt_count, opt_str_list};
use super::sim_types::{NAMED, SIM_TYPES, SimType, known_tokens, sim_type};
use super::sim_world::{SimWorld, SimWorldError, WorldResource};
use crate::engine::provider::{
    AutonamingMode, AutonamingOptions, CheckFailure, CheckRequest, CheckResult, ConfigureResult,
    CreateRequest, CreateResult, DeleteRequest, DiffRequest, DiffResult, ProviderError,
    ReadRequest, ReadResult, UpdateRequest,
};
use crate::engine::{PropertyMap, PropertyValue, Provider, Urn};

/// Reserved inputs of every sim resource.
const REPLACE_ON: &str = "replaceOn";
const DELETE_BEFORE_REPLACE: &str = "deleteBeforeReplace";
const LATENCY_MS: &str = "latencyMs";
const FAIL_ON: &str = "failOn";
/// How many times each `failOn` operation fails before it succeeds (absent: always fails),
/// counted per resource and operation by the provider instance (one deployment).
const FAIL_TIMES: &str = "failTimes";
/// Operations that make the resource but report that it did not initialise (a partial
/// failure with its ID and outputs, as Pulumi's `ErrorResourceInitFailed`).
const INIT_FAIL_ON: &str = "initFailOn";
const OPERATIONS: [&str; 3] = ["create", "update", "delete"];
/// The name a `sim:index:Named` gets when neither the program nor autonaming names it.
const NAMED_DEFAULT: &str = "default-name";

impl From<SimWorldError> for ProviderError {
    fn from(e: SimWorldError) -> ProviderError {
        ProviderError::Failed(e.to_string())
    }
}

/// One configured `sim` provider; all instances of a factory share one world.
pub struct SimProvider {
    world: Arc<SimWorld>,
    /// Default latency per operation from the provider config `sim:latencyMs`.
    default_latency_ms: AtomicU64,
    /// Failed attempts so far per (URN, operation), for `failTimes`.
    failed: Mutex<HashMap<(Urn, &'static str), u64>>,
}

fn type_of(urn: &Urn) -> Result<&'static SimType, ProviderError> {
    sim_type(urn.type_()).ok_or_else(|| {
        ProviderError::Failed(format!(
            "unknown sim resource type `{}` (for {}); the sim provider has {}",
            urn.type_(),
            urn.name(),
            known_tokens()
        ))
    })
}

/// `replaceOn` as given: `None` when unknown (then every change replaces).
fn replace_on(inputs: &PropertyMap) -> Option<Vec<String>> {
    if inputs
        .get(REPLACE_ON)
        .is_some_and(PropertyValue::contains_unknowns)
    {
        return None;
    }
    Some(
        opt_str_list(inputs, REPLACE_ON)
            .ok()
            .flatten()
            .unwrap_or_default(),
    )
}

/// Whether a changed top-level key is covered by a `replaceOn` entry (`*`, the key, or a path
/// under it).
fn covers(entry: &str, key: &str) -> bool {
    entry == "*"
        || entry == key
        || entry
            .strip_prefix(key)
            .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
}

fn fails_on(inputs: &PropertyMap, op: &str) -> bool {
    lists(inputs, FAIL_ON, op)
}

fn lists(inputs: &PropertyMap, key: &str, op: &str) -> bool {
    opt_str_list(inputs, key)
        .ok()
        .flatten()
        .is_some_and(|ops| ops.iter().any(|o| o == op))
}

/// Inputs echoed as outputs, with the computed outputs added.
fn outputs_with(
    inputs: &PropertyMap,
    computed: impl Iterator<Item = (String, PropertyValue)>,
) -> PropertyMap {
    let mut out = inputs.clone();
    out.extend(computed);
    out
}

impl SimProvider {
    /// A provider over `world`, with no default latency until `configure` sets one.
    pub fn new(world: Arc<SimWorld>) -> SimProvider {
        SimProvider {
            world,
            default_latency_ms: AtomicU64::new(0),
            failed: Mutex::default(),
        }
    }

    fn latency_config(inputs: &PropertyMap) -> Result<u64, FieldError> {
        Ok(opt_count(inputs, LATENCY_MS)?.unwrap_or(0) as u64)
    }

    /// Waits the resource's `latencyMs`, or the provider's default.
    async fn simulate_latency(&self, inputs: &PropertyMap) {
        self.wait(self.latency_ms(inputs)).await;
    }

    fn latency_ms(&self, inputs: &PropertyMap) -> u64 {
        opt_count(inputs, LATENCY_MS)
            .ok()
            .flatten()
            .map(|n| n as u64)
            .unwrap_or_else(|| self.default_latency_ms.load(Ordering::Relaxed))
    }

    async fn wait(&self, ms: u64) {
        if ms > 0 {
            tokio::time::sleep(Duration::from_millis(ms)).await;
        }
    }

    fn injected_failure(
        &self,
        urn: &Urn,
        inputs: &PropertyMap,
        op: &'static str,
    ) -> Result<(), ProviderError> {
        if fails_on(inputs, op) {
            if let Some(times) = opt_count(inputs, FAIL_TIMES).ok().flatten() {
                let mut failed = self.failed.lock();
                let count = failed.entry((urn.clone(), op)).or_insert(0);
                if *count >= times as u64 {
                    return Ok(());
                }
                *count += 1;
            }
            return Err(ProviderError::Failed(format!(
                "sim: {op} of {} ({}) failed because its `failOn` input lists \"{op}\"",
                urn.name(),
                urn.type_()
            )));
        }
        Ok(())
    }

    /// The partial failure `initFailOn` asks for, once the operation has made the resource.
    fn injected_init_failure(
        urn: &Urn,
        inputs: &PropertyMap,
        op: &str,
        id: &str,
        outputs: &PropertyMap,
    ) -> Result<(), ProviderError> {
        if lists(inputs, INIT_FAIL_ON, op) {
            return Err(ProviderError::PartialFailure {
                id: id.to_string(),
                outputs: outputs.clone(),
                reasons: vec![format!(
                    "sim: {} ({}) did not initialise after {op} because its `initFailOn` input lists \"{op}\"",
                    urn.name(),
                    urn.type_()
                )],
            });
        }
        Ok(())
    }

    fn missing(id: &str) -> ProviderError {
        ProviderError::NotFound(format!("resource {id} does not exist"))
    }
}

/// A live resource's inputs: its properties but the computed ones.
fn inputs_of(ty: &SimType, properties: &PropertyMap) -> PropertyMap {
    properties
        .iter()
        .filter(|(k, _)| !ty.is_computed(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// The name a `sim:index:Named` without a `name` input gets: the one it already has (a
/// cloud provider keeps an auto-name; each run's random seed is new), else, as Pulumi's
/// testprovider's `Named` gives it, its own default or what the stack's autonaming config
/// asks for (a proposal lower-cased, the provider's own rule; none when it is disabled).
fn auto_name(olds: &PropertyMap, autonaming: Option<&AutonamingOptions>) -> Option<String> {
    if let Some(PropertyValue::String(kept)) = olds.get("name") {
        return Some(kept.clone());
    }
    match autonaming {
        None => Some(NAMED_DEFAULT.to_string()),
        Some(a) => match a.mode {
            AutonamingMode::Disable => None,
            AutonamingMode::Enforce => Some(a.proposed_name.clone()),
            AutonamingMode::Propose => Some(a.proposed_name.to_lowercase()),
        },
    }
}

fn new_id(name: &str) -> String {
    let mut bytes = [0u8; 4];
    rand::Rng::fill(&mut rand::rng(), &mut bytes[..]);
    format!("{name}-{}", hex::encode(bytes))
}

#[async_trait]
impl Provider for SimProvider {
    fn resource_types(&self) -> Vec<String> {
        SIM_TYPES.iter().map(|t| t.token.to_string()).collect()
    }

    async fn check_config(
        &self,
        _urn: &Urn,
        _olds: &PropertyMap,
        news: &PropertyMap,
    ) -> Result<CheckResult, ProviderError> {
        let mut failures = Vec::new();
        check_known(news, LATENCY_MS, &mut failures, opt_count);
        Ok(CheckResult {
            inputs: news.clone(),
            failures,
        })
    }

    async fn configure(&self, inputs: &PropertyMap) -> Result<ConfigureResult, ProviderError> {
        let ms = Self::latency_config(inputs).map_err(|e| {
            ProviderError::Failed(format!(
                "invalid provider config `sim:{}`: {}",
                e.field, e.reason
            ))
        })?;
        self.default_latency_ms.store(ms, Ordering::Relaxed);
        Ok(ConfigureResult {
            supports_autonaming_configuration: true,
            ..ConfigureResult::default()
        })
    }

    async fn check(&self, req: CheckRequest) -> Result<CheckResult, ProviderError> {
        let ty = type_of(&req.urn)?;
        let news = &req.news;
        let mut failures = Vec::new();
        check_known(news, REPLACE_ON, &mut failures, opt_str_list);
        check_known(news, DELETE_BEFORE_REPLACE, &mut failures, |m, f| {
            opt_bool(m, f)
        });
        check_known(news, LATENCY_MS, &mut failures, opt_count);
        check_known(news, FAIL_TIMES, &mut failures, opt_count);
        if let Some(Some(ops)) = check_known(news, FAIL_ON, &mut failures, opt_str_list) {
            for (i, op) in ops.iter().enumerate() {
                if !OPERATIONS.contains(&op.as_str()) {
                    failures.push(CheckFailure {
                        property: format!("{FAIL_ON}[{i}]"),
                        reason: format!(
                            "unknown operation {op:?}; expected create, update or delete"
                        ),
                    });
                }
            }
        }
        if let Some(Some(ops)) = check_known(news, INIT_FAIL_ON, &mut failures, opt_str_list) {
            for (i, op) in ops.iter().enumerate() {
                if op != "create" && op != "update" {
                    failures.push(CheckFailure {
                        property: format!("{INIT_FAIL_ON}[{i}]"),
                        reason: format!("unknown operation {op:?}; expected create or update"),
                    });
                }
            }
        }
        for field in ty.required {
            if matches!(news.get(*field), None | Some(PropertyValue::Null)) {
                failures.push(CheckFailure {
                    property: field.to_string(),
                    reason: format!("missing required input `{field}` of {}", ty.token),
                });
            }
        }
        let mut inputs = req.news;
        if ty.token == NAMED
            && !inputs.contains_key("name")
            && let Some(name) = auto_name(&req.olds, req.autonaming.as_ref())
        {
            inputs.insert("name".into(), PropertyValue::String(name));
        }
        Ok(CheckResult { inputs, failures })
    }

    async fn diff(&self, req: DiffRequest) -> Result<DiffResult, ProviderError> {
        let ty = type_of(&req.urn)?;
        self.wait(self.latency_ms(&req.new_inputs) / 4).await;
        let changes = changed_inputs(&req.old_inputs, &req.new_inputs, &req.ignore_changes);
        let extra = replace_on(&req.new_inputs);
        let replaces = |key: &str| {
            ty.replace_on.contains(&key)
                || match &extra {
                    None => true,
                    Some(list) => list.iter().any(|e| covers(e, key)),
                }
        };
        let dbr = ty.delete_before_replace
            || opt_bool(&req.new_inputs, DELETE_BEFORE_REPLACE)
                .ok()
                .flatten()
                .unwrap_or(false);
        Ok(diff_result(changes, replaces, dbr, ty.computed_keys()))
    }

    async fn create(&self, req: CreateRequest) -> Result<CreateResult, ProviderError> {
        let ty = type_of(&req.urn)?;
        let name = req.urn.name();
        if req.preview {
            let computed = ty
                .computed
                .iter()
                .map(|(k, c)| (k.to_string(), c.preview()));
            return Ok(CreateResult {
                id: String::new(),
                outputs: outputs_with(&req.inputs, computed),
            });
        }
        self.simulate_latency(&req.inputs).await;
        self.injected_failure(&req.urn, &req.inputs, "create")?;
        let computed = ty
            .computed
            .iter()
            .map(|(k, c)| (k.to_string(), c.generate(name, &req.inputs)));
        let outputs = outputs_with(&req.inputs, computed);
        let resource = WorldResource {
            type_: ty.token.to_string(),
            name: name.to_string(),
            urn: Some(req.urn.to_string()),
            properties: outputs.clone(),
        };
        let id = self.world.insert_new(|| new_id(name), resource).await?;
        Self::injected_init_failure(&req.urn, &req.inputs, "create", &id, &outputs)?;
        Ok(CreateResult { id, outputs })
    }

    async fn read(&self, req: ReadRequest) -> Result<ReadResult, ProviderError> {
        let ty = type_of(&req.urn)?;
        let latency_from = if req.inputs.is_empty() {
            &req.state
        } else {
            &req.inputs
        };
        self.simulate_latency(latency_from).await;
        let Some(found) = self.world.get(&req.id).await? else {
            return Ok(ReadResult::default());
        };
        // The cloud knows what it made: a resource whose type changed through an alias keeps
        // its original type's computed outputs, which are never inputs.
        let made_as = sim_type(&found.type_).unwrap_or(ty);
        Ok(ReadResult {
            id: req.id,
            inputs: inputs_of(made_as, &found.properties),
            outputs: found.properties,
        })
    }

    /// Every live resource the URN created: the world records it with each resource.
    async fn lookup(&self, urn: &Urn) -> Result<Vec<ReadResult>, ProviderError> {
        let ty = type_of(urn)?;
        let wanted = urn.to_string();
        Ok(self
            .world
            .resources()
            .await?
            .into_iter()
            .filter(|(_, r)| r.urn.as_deref() == Some(wanted.as_str()))
            .map(|(id, r)| ReadResult {
                id,
                inputs: inputs_of(ty, &r.properties),
                outputs: r.properties,
            })
            .collect())
    }

    async fn update(&self, req: UpdateRequest) -> Result<PropertyMap, ProviderError> {
        let ty = type_of(&req.urn)?;
        let kept_from = |current: &PropertyMap| {
            ty.computed
                .iter()
                .map(|(k, c)| {
                    let v = current.get(*k).cloned().unwrap_or_else(|| c.preview());
                    (k.to_string(), v)
                })
                .collect::<Vec<_>>()
        };
        if req.preview {
            return Ok(outputs_with(
                &req.new_inputs,
                kept_from(&req.old_outputs).into_iter(),
            ));
        }
        self.simulate_latency(&req.new_inputs).await;
        self.injected_failure(&req.urn, &req.new_inputs, "update")?;
        let current = self
            .world
            .get(&req.id)
            .await?
            .ok_or_else(|| Self::missing(&req.id))?;
        let computed = ty.computed.iter().map(|(k, c)| {
            let v = current
                .properties
                .get(*k)
                .or_else(|| req.old_outputs.get(*k))
                .cloned()
                .unwrap_or_else(|| c.generate(req.urn.name(), &req.new_inputs));
            (k.to_string(), v)
        });
        let outputs = outputs_with(&req.new_inputs, computed);
        if !self.world.set_properties(&req.id, outputs.clone()).await? {
            return Err(Self::missing(&req.id));
        }
        Self::injected_init_failure(&req.urn, &req.new_inputs, "update", &req.id, &outputs)?;
        Ok(outputs)
    }

    async fn delete(&self, req: DeleteRequest) -> Result<(), ProviderError> {
        type_of(&req.urn)?;
        let inputs = if req.inputs.is_empty() {
            &req.outputs
        } else {
            &req.inputs
        };
        self.simulate_latency(inputs).await;
        self.injected_failure(&req.urn, inputs, "delete")?;
        // Already gone (deleted by a run killed before it recorded the delete, or by hand):
        // the goal of a delete holds, so it succeeds, as Pulumi's providers treat NotFound.
        self.world.remove(&req.id).await?;
        Ok(())
    }
}
