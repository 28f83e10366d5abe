//! What a replay needs beyond Pulumi's engine-event stream, kept in the history's record of a
//! run (never in `--json` or `--event-log`, which stay Pulumi's, as the Automation API reads
//! them): every registration with its parent and dependencies, every planned step, the
//! engine's chains and workers, each step's own start, end and measured duration, skipped
//! steps, and the provider diffs as they ran. With these lines a replay reduces the events the
//! live console reduced, rather than guessing them from Pulumi's lines.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::engine::provider::DiffChanges;
use crate::engine::run::events::ChainId;
use crate::engine::{EngineEvent, StepOp, Urn};

use super::event_fields::{op, properties, step_info, text, urn};
use super::json::{display, step_metadata};

/// The kinds this file writes: a stream holding any of them replays exactly.
pub(super) const KINDS: [&str; 5] = [
    "stepdeckRegistrationEvent",
    "stepdeckPlanEvent",
    "stepdeckChainEvent",
    "stepdeckStepEvent",
    "stepdeckDiffEvent",
];

/// A diff's outcome as the detail line spells it.
fn changes_name(c: DiffChanges) -> &'static str {
    match c {
        DiffChanges::Unknown => "unknown",
        DiffChanges::None => "none",
        DiffChanges::Some => "some",
    }
}

fn urns(list: &[Urn]) -> Value {
    Value::Array(list.iter().map(|u| u.as_str().into()).collect())
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

/// The detail line an engine event adds, if any; `outputs_follow` says whether a finished
/// step's `resOutputsEvent` (carrying its ID and outputs) comes right after.
pub(super) fn line(e: &EngineEvent, outputs_follow: bool) -> Option<(&'static str, Value)> {
    let (kind, body) = match e {
        EngineEvent::RegistrationReceived {
            urn,
            type_,
            parent,
            custom,
            dependencies,
        } => (
            "stepdeckRegistrationEvent",
            json!({
                "urn": urn.as_str(),
                "type": type_,
                "parent": parent.as_ref().map_or("", |p| p.as_str()),
                "custom": custom,
                "dependencies": urns(dependencies),
            }),
        ),
        EngineEvent::StepPlanned(info) => (
            "stepdeckPlanEvent",
            json!({
                "metadata": step_metadata(info, info.op, None),
                "chain": info.chain,
                "dependencies": urns(&info.dependencies),
                "deleteBeforeReplace": info.delete_before_replace,
            }),
        ),
        EngineEvent::ChainQueued { chain, steps } => {
            let steps: Vec<Value> = steps
                .iter()
                .map(|(op, urn)| json!({"op": op.as_str(), "urn": urn.as_str()}))
                .collect();
            (
                "stepdeckChainEvent",
                json!({"chain": chain, "steps": steps}),
            )
        }
        EngineEvent::ChainStarted { chain, worker } => (
            "stepdeckChainEvent",
            json!({"chain": chain, "worker": worker}),
        ),
        EngineEvent::ChainFinished { chain, ok } => {
            ("stepdeckChainEvent", json!({"chain": chain, "ok": ok}))
        }
        EngineEvent::StepStarted {
            chain,
            op,
            urn,
            worker,
        } => (
            "stepdeckStepEvent",
            json!({"state": "started", "chain": chain, "op": op.as_str(), "urn": urn.as_str(), "worker": worker}),
        ),
        EngineEvent::StepFinished {
            chain,
            op,
            urn,
            id,
            outputs,
            duration,
        } => {
            let mut body = json!({
                "state": "finished",
                "chain": chain,
                "op": op.as_str(),
                "urn": urn.as_str(),
                "durationUs": micros(*duration),
                "outputsFollow": outputs_follow,
            });
            if !outputs_follow {
                body["id"] = id.as_deref().unwrap_or_default().into();
                body["outputs"] = display(outputs);
            }
            ("stepdeckStepEvent", body)
        }
        EngineEvent::StepFailed {
            chain,
            op,
            urn,
            error,
            duration,
        } => (
            "stepdeckStepEvent",
            json!({
                "state": "failed",
                "chain": chain,
                "op": op.as_str(),
                "urn": urn.as_str(),
                "durationUs": micros(*duration),
                "error": error,
            }),
        ),
        EngineEvent::StepSkipped { op, urn, reason } => (
            "stepdeckStepEvent",
            json!({"state": "skipped", "op": op.as_str(), "urn": urn.as_str(), "reason": reason}),
        ),
        EngineEvent::DiffQueued { urn } => (
            "stepdeckDiffEvent",
            json!({"state": "queued", "urn": urn.as_str()}),
        ),
        EngineEvent::DiffStarted { urn, worker } => (
            "stepdeckDiffEvent",
            json!({"state": "started", "urn": urn.as_str(), "worker": worker}),
        ),
        EngineEvent::DiffFinished {
            urn,
            changes,
            replace,
        } => (
            "stepdeckDiffEvent",
            json!({"state": "finished", "urn": urn.as_str(), "changes": changes_name(*changes), "replace": replace}),
        ),
        _ => return None,
    };
    Some((kind, body))
}

/// A finished step whose ID and outputs are on the `resOutputsEvent` that follows.
pub(super) struct AwaitingOutputs {
    pub chain: ChainId,
    pub op: StepOp,
    pub urn: Urn,
    pub duration: Duration,
}

/// What a detail line reads back as: events to reduce at once, or a finished step waiting for
/// its outputs on the next line.
pub(super) enum Read {
    Events(Vec<EngineEvent>),
    Finished(AwaitingOutputs),
}

fn number(o: &Map<String, Value>, key: &str) -> Result<u64, String> {
    o.get(key)
        .and_then(Value::as_u64)
        .ok_or_else(|| format!("`{key}` is not a number"))
}

fn urn_list(o: &Map<String, Value>, key: &str) -> Result<Arc<[Urn]>, String> {
    let Some(list) = o.get(key).and_then(Value::as_array) else {
        return Ok(Arc::from(Vec::new()));
    };
    list.iter()
        .map(|u| {
            let s = u.as_str().ok_or_else(|| format!("`{key}`: not a string"))?;
            Urn::parse(s).map_err(|e| format!("`{key}`: {e}"))
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Arc::from)
}

fn worker(o: &Map<String, Value>) -> Result<usize, String> {
    usize::try_from(number(o, "worker")?).map_err(|_| "`worker` is too large".to_string())
}

/// Reads the body of a detail line of kind `kind` (one of [`KINDS`]).
pub(super) fn read(kind: &str, o: &Map<String, Value>) -> Result<Read, String> {
    let one = |e: EngineEvent| Ok(Read::Events(vec![e]));
    match kind {
        "stepdeckRegistrationEvent" => one(EngineEvent::RegistrationReceived {
            urn: urn(o, "urn")?,
            type_: text(o, "type")?.to_string(),
            parent: Some(text(o, "parent")?)
                .filter(|p| !p.is_empty())
                .map(|p| Urn::parse(p).map_err(|e| format!("`parent`: {e}")))
                .transpose()?,
            custom: o.get("custom") == Some(&Value::Bool(true)),
            dependencies: urn_list(o, "dependencies")?,
        }),
        "stepdeckPlanEvent" => {
            let metadata = o
                .get("metadata")
                .and_then(Value::as_object)
                .ok_or("`metadata` is not an object")?;
            let chain = o.get("chain").and_then(Value::as_u64);
            let mut info = step_info(metadata, chain.unwrap_or_default())?;
            info.chain = chain;
            info.dependencies = urn_list(o, "dependencies")?;
            info.delete_before_replace = o.get("deleteBeforeReplace") == Some(&Value::Bool(true));
            one(EngineEvent::StepPlanned(Box::new(info)))
        }
        "stepdeckChainEvent" => {
            let chain = number(o, "chain")?;
            if let Some(steps) = o.get("steps").and_then(Value::as_array) {
                let steps = steps
                    .iter()
                    .map(|s| {
                        let s = s.as_object().ok_or("a step is not an object")?;
                        Ok((op(s)?, urn(s, "urn")?))
                    })
                    .collect::<Result<Vec<_>, String>>()?;
                one(EngineEvent::ChainQueued {
                    chain,
                    steps: Arc::from(steps),
                })
            } else if o.contains_key("worker") {
                one(EngineEvent::ChainStarted {
                    chain,
                    worker: worker(o)?,
                })
            } else {
                one(EngineEvent::ChainFinished {
                    chain,
                    ok: o.get("ok") == Some(&Value::Bool(true)),
                })
            }
        }
        "stepdeckStepEvent" => {
            let (op, urn) = (op(o)?, urn(o, "urn")?);
            let chain = || number(o, "chain");
            let duration = || number(o, "durationUs").map(Duration::from_micros);
            match text(o, "state")? {
                "started" => one(EngineEvent::StepStarted {
                    chain: chain()?,
                    op,
                    urn,
                    worker: worker(o)?,
                }),
                "finished" if o.get("outputsFollow") == Some(&Value::Bool(true)) => {
                    Ok(Read::Finished(AwaitingOutputs {
                        chain: chain()?,
                        op,
                        urn,
                        duration: duration()?,
                    }))
                }
                "finished" => one(EngineEvent::StepFinished {
                    chain: chain()?,
                    op,
                    urn,
                    id: Some(text(o, "id")?)
                        .filter(|s| !s.is_empty())
                        .map(str::to_string),
                    outputs: properties(o.get("outputs"))?.unwrap_or_default(),
                    duration: duration()?,
                }),
                "failed" => one(EngineEvent::StepFailed {
                    chain: chain()?,
                    op,
                    urn,
                    error: text(o, "error")?.to_string(),
                    duration: duration()?,
                }),
                "skipped" => one(EngineEvent::StepSkipped {
                    op,
                    urn,
                    reason: text(o, "reason")?.to_string(),
                }),
                other => Err(format!("`state`: unknown `{other}`")),
            }
        }
        "stepdeckDiffEvent" => {
            let urn = urn(o, "urn")?;
            match text(o, "state")? {
                "queued" => one(EngineEvent::DiffQueued { urn }),
                "started" => one(EngineEvent::DiffStarted {
                    urn,
                    worker: worker(o)?,
                }),
                "finished" => {
                    let changes = text(o, "changes")?;
                    let changes = [DiffChanges::Unknown, DiffChanges::None, DiffChanges::Some]
                        .into_iter()
                        .find(|c| changes_name(*c) == changes)
                        .ok_or_else(|| format!("`changes`: unknown `{changes}`"))?;
                    one(EngineEvent::DiffFinished {
                        urn,
                        changes,
                        replace: o.get("replace") == Some(&Value::Bool(true)),
                    })
                }
                other => Err(format!("`state`: unknown `{other}`")),
            }
        }
        other => Err(format!("`{other}` is not a detail kind")),
    }
}
