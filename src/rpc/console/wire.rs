//! Engine events as the console protocol carries them (`stepdeck.console.v1.Event`) and back.
//! Secret values leave the process as `[secret]`: a watcher sees what a display shows, never
//! a plaintext.

use std::collections::BTreeMap;
use std::time::Duration;

use prost::bytes::Bytes;
use prost_types::Struct;

use crate::engine::provider::{DiffChanges, DiffKind, PropertyDiff};
use crate::engine::run::events::{
    CascadeMember, CascadeReason, Decider, PendingCreate, PolicyCall, PolicyRemediation,
    PolicySummary, PolicyViolation, StepInfo,
};
use crate::engine::run::policy::{EnforcementLevel, PolicySeverity};
use crate::engine::{
    EngineEvent, FailureCause, Operation, Outcome, PropertyMap, PropertyValue, ProviderRef,
    RunFailure, Severity, StepOp, Urn,
};

use super::names::{KnownNames, NameTable};
use crate::rpc::console_proto as pb;
use crate::rpc::console_proto::event::Kind;
use crate::rpc::marshal::{MarshalOptions, map_to_struct, struct_to_map};

/// An event the protocol carried that does not decode: a field is missing or malformed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("malformed console event: {field}: {reason}")]
pub struct WireError {
    pub field: &'static str,
    pub reason: String,
}

fn bad(field: &'static str, reason: impl Into<String>) -> WireError {
    WireError {
        field,
        reason: reason.into(),
    }
}

/// The encoded events in a batch's runs, in order: in a run each event is preceded by its
/// length (a varint). A run that does not split into whole events ends with the error.
pub fn frames(runs: &[Bytes]) -> impl Iterator<Item = Result<Bytes, WireError>> + '_ {
    runs.iter().flat_map(|run| {
        let mut rest = run.clone();
        std::iter::from_fn(move || {
            if rest.is_empty() {
                return None;
            }
            let frame = match prost::decode_length_delimiter(&mut rest) {
                Ok(len) if len <= rest.len() => Ok(rest.split_to(len)),
                Ok(len) => Err(bad(
                    "Events.runs",
                    format!("an event of {len} bytes where {} are left", rest.len()),
                )),
                Err(e) => Err(bad("Events.runs", e.to_string())),
            };
            if frame.is_err() {
                rest.clear();
            }
            Some(frame)
        })
    })
}

/// The stand-in every secret value travels as.
const SECRET_TEXT: &str = "[secret]";

fn redact(v: &PropertyValue) -> PropertyValue {
    match v {
        PropertyValue::Secret(_) => {
            PropertyValue::Secret(Box::new(PropertyValue::string(SECRET_TEXT)))
        }
        PropertyValue::Array(a) => PropertyValue::Array(a.iter().map(redact).collect()),
        PropertyValue::Object(m) => PropertyValue::Object(redact_map(m)),
        other => other.clone(),
    }
}

fn redact_map(m: &PropertyMap) -> PropertyMap {
    m.iter().map(|(k, v)| (k.clone(), redact(v))).collect()
}

fn props(m: &PropertyMap) -> Struct {
    map_to_struct(&redact_map(m), MarshalOptions::ALL)
}

fn props_back(s: Option<&Struct>, field: &'static str) -> Result<PropertyMap, WireError> {
    struct_to_map(s, MarshalOptions::ALL).map_err(|e| bad(field, e.to_string()))
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

fn urn(k: &KnownNames, s: &str, field: &'static str) -> Result<Urn, WireError> {
    k.resolve(s).map_err(|e| bad(field, e.to_string()))
}

fn urns(k: &KnownNames, v: &[String], field: &'static str) -> Result<Vec<Urn>, WireError> {
    v.iter().map(|s| urn(k, s, field)).collect()
}

fn opt_urn(
    k: &KnownNames,
    s: Option<&String>,
    field: &'static str,
) -> Result<Option<Urn>, WireError> {
    s.map(|s| urn(k, s, field)).transpose()
}

fn refs(t: &mut NameTable, v: &[Urn]) -> Vec<String> {
    v.iter().map(|u| t.refer(u.as_str())).collect()
}

/// A type or a provider reference: text the stream may have named.
fn text(k: &KnownNames, s: &str, field: &'static str) -> Result<String, WireError> {
    k.resolve_text(s).map_err(|e| bad(field, e.to_string()))
}

fn op(s: &str) -> Result<StepOp, WireError> {
    StepOp::parse(s).ok_or_else(|| bad("op", format!("unknown step op {s:?}")))
}

fn operation(s: &str) -> Result<Operation, WireError> {
    [
        Operation::Preview,
        Operation::Update,
        Operation::Destroy,
        Operation::Refresh,
    ]
    .into_iter()
    .find(|o| o.as_str() == s)
    .ok_or_else(|| bad("operation", format!("unknown operation {s:?}")))
}

fn level(s: &str) -> Result<EnforcementLevel, WireError> {
    EnforcementLevel::parse(s).ok_or_else(|| bad("level", format!("unknown level {s:?}")))
}

fn policy_severity(s: &str) -> Result<PolicySeverity, WireError> {
    [
        PolicySeverity::Unspecified,
        PolicySeverity::Low,
        PolicySeverity::Medium,
        PolicySeverity::High,
        PolicySeverity::Critical,
    ]
    .into_iter()
    .find(|v| v.as_str() == s)
    .ok_or_else(|| bad("severity", format!("unknown severity {s:?}")))
}

fn call_name(c: PolicyCall) -> &'static str {
    match c {
        PolicyCall::Analyze => "analyze",
        PolicyCall::Remediate => "remediate",
        PolicyCall::AnalyzeStack => "analyze-stack",
    }
}

fn call_back(s: &str) -> Result<PolicyCall, WireError> {
    [
        PolicyCall::Analyze,
        PolicyCall::Remediate,
        PolicyCall::AnalyzeStack,
    ]
    .into_iter()
    .find(|c| call_name(*c) == s)
    .ok_or_else(|| bad("call", format!("unknown policy call {s:?}")))
}

fn count(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

fn diff_kind(k: DiffKind) -> pb::DiffKind {
    match k {
        DiffKind::Add => pb::DiffKind::Add,
        DiffKind::AddReplace => pb::DiffKind::AddReplace,
        DiffKind::Delete => pb::DiffKind::Delete,
        DiffKind::DeleteReplace => pb::DiffKind::DeleteReplace,
        DiffKind::Update => pb::DiffKind::Update,
        DiffKind::UpdateReplace => pb::DiffKind::UpdateReplace,
    }
}

fn diff_kind_back(k: pb::DiffKind) -> DiffKind {
    match k {
        pb::DiffKind::Add => DiffKind::Add,
        pb::DiffKind::AddReplace => DiffKind::AddReplace,
        pb::DiffKind::Delete => DiffKind::Delete,
        pb::DiffKind::DeleteReplace => DiffKind::DeleteReplace,
        pb::DiffKind::Update => DiffKind::Update,
        pb::DiffKind::UpdateReplace => DiffKind::UpdateReplace,
    }
}

fn severity(s: Severity) -> pb::Severity {
    match s {
        Severity::Debug => pb::Severity::Debug,
        Severity::Info => pb::Severity::Info,
        Severity::Warning => pb::Severity::Warning,
        Severity::Error => pb::Severity::Error,
    }
}

fn severity_back(s: pb::Severity) -> Severity {
    match s {
        pb::Severity::Debug => Severity::Debug,
        pb::Severity::Info => Severity::Info,
        pb::Severity::Warning => Severity::Warning,
        pb::Severity::Error => Severity::Error,
    }
}

fn step(t: &mut NameTable, s: &StepInfo) -> pb::Step {
    pb::Step {
        op: s.op.as_str().to_string(),
        urn: t.refer(s.urn.as_str()),
        r#type: t.refer(&s.type_),
        parent: s.parent.as_ref().map(|u| t.refer(u.as_str())),
        custom: s.custom,
        chain: s.chain,
        diffs: s.diffs.clone(),
        replace_keys: s.replace_keys.clone(),
        detailed_diff: s
            .detailed_diff
            .iter()
            .map(|(k, d)| {
                let wire = pb::PropertyDiff {
                    kind: diff_kind(d.kind) as i32,
                    input_diff: d.input_diff,
                };
                (k.clone(), wire)
            })
            .collect(),
        old_inputs: s.old_inputs.as_ref().map(props),
        old_outputs: s.old_outputs.as_ref().map(props),
        old_id: s.old_id.clone(),
        new_inputs: s.new_inputs.as_ref().map(props),
        provider: s.provider.as_ref().map(|p| t.refer(&p.to_string())),
        delete_before_replace: s.delete_before_replace,
        dependencies: refs(t, &s.dependencies),
        protect: s.protect,
        retain_on_delete: s.retain_on_delete,
        hide_diffs: s.hide_diffs.clone(),
    }
}

fn step_back(k: &KnownNames, s: &pb::Step) -> Result<StepInfo, WireError> {
    let detailed_diff = s
        .detailed_diff
        .iter()
        .map(|(k, d)| {
            let kind = pb::DiffKind::try_from(d.kind)
                .map_err(|_| bad("detailed_diff", format!("unknown diff kind {}", d.kind)))?;
            let diff = PropertyDiff {
                kind: diff_kind_back(kind),
                input_diff: d.input_diff,
            };
            Ok((k.clone(), diff))
        })
        .collect::<Result<BTreeMap<_, _>, WireError>>()?;
    let map = |m: Option<&Struct>, field| m.map(|m| props_back(Some(m), field)).transpose();
    Ok(StepInfo {
        op: op(&s.op)?,
        urn: urn(k, &s.urn, "urn")?,
        type_: text(k, &s.r#type, "type")?,
        parent: opt_urn(k, s.parent.as_ref(), "parent")?,
        custom: s.custom,
        chain: s.chain,
        diffs: s.diffs.clone(),
        replace_keys: s.replace_keys.clone(),
        detailed_diff,
        old_inputs: map(s.old_inputs.as_ref(), "old_inputs")?,
        old_outputs: map(s.old_outputs.as_ref(), "old_outputs")?,
        old_id: s.old_id.clone(),
        new_inputs: map(s.new_inputs.as_ref(), "new_inputs")?,
        provider: s
            .provider
            .as_deref()
            .map(|p| {
                ProviderRef::parse(&text(k, p, "provider")?)
                    .map_err(|e| bad("provider", e.to_string()))
            })
            .transpose()?,
        delete_before_replace: s.delete_before_replace,
        dependencies: urns(k, &s.dependencies, "dependencies")?.into(),
        protect: s.protect,
        retain_on_delete: s.retain_on_delete,
        hide_diffs: s.hide_diffs.clone(),
    })
}

fn member(t: &mut NameTable, m: &CascadeMember) -> pb::CascadeMember {
    use pb::cascade_member::Reason;
    let reason = match &m.reason {
        CascadeReason::Root { keys } => Reason::Root(pb::Keys { keys: keys.clone() }),
        CascadeReason::Input { inputs, on, keys } => Reason::Input(pb::InputReason {
            inputs: inputs.clone(),
            on: t.refer(on.as_str()),
            keys: keys.clone(),
        }),
        CascadeReason::Provider { provider } => Reason::Provider(t.refer(provider.as_str())),
        CascadeReason::DeletedWith { target } => Reason::DeletedWith(t.refer(target.as_str())),
    };
    pb::CascadeMember {
        urn: t.refer(m.urn.as_str()),
        r#type: t.refer(&m.type_),
        reason: Some(reason),
    }
}

fn member_back(k: &KnownNames, m: &pb::CascadeMember) -> Result<CascadeMember, WireError> {
    use pb::cascade_member::Reason;
    let reason = match m.reason.as_ref().ok_or_else(|| bad("reason", "missing"))? {
        Reason::Root(k) => CascadeReason::Root {
            keys: k.keys.clone(),
        },
        Reason::Input(i) => CascadeReason::Input {
            inputs: i.inputs.clone(),
            on: urn(k, &i.on, "on")?,
            keys: i.keys.clone(),
        },
        Reason::Provider(p) => CascadeReason::Provider {
            provider: urn(k, p, "provider")?,
        },
        Reason::DeletedWith(t) => CascadeReason::DeletedWith {
            target: urn(k, t, "deleted_with")?,
        },
    };
    Ok(CascadeMember {
        urn: urn(k, &m.urn, "urn")?,
        type_: text(k, &m.r#type, "type")?,
        reason,
    })
}

fn summary_outcome(o: &Outcome) -> pb::summary::Outcome {
    use pb::summary::Outcome as W;
    match o {
        Outcome::Succeeded => W::Succeeded(pb::Empty {}),
        Outcome::Failed(e) => W::Failed(e.message().to_string()),
        Outcome::Cancelled => W::Cancelled(pb::Empty {}),
        Outcome::Terminated => W::Terminated(pb::Empty {}),
    }
}

fn summary_outcome_back(o: Option<&pb::summary::Outcome>) -> Result<Outcome, WireError> {
    use pb::summary::Outcome as W;
    Ok(match o.ok_or_else(|| bad("outcome", "missing"))? {
        W::Succeeded(_) => Outcome::Succeeded,
        W::Failed(e) => Outcome::Failed(RunFailure::new(FailureCause::Reported, e.clone())),
        W::Cancelled(_) => Outcome::Cancelled,
        W::Terminated(_) => Outcome::Terminated,
    })
}

/// An engine event as the protocol carries it.
pub fn to_wire(e: &EngineEvent, t: &mut NameTable) -> pb::Event {
    let kind = match e {
        EngineEvent::Prelude {
            operation,
            preview,
            stack,
            project,
            parallel,
            parallel_diff,
        } => Kind::Prelude(pb::Prelude {
            operation: operation.as_str().to_string(),
            preview: *preview,
            stack: stack.clone(),
            project: project.clone(),
            parallel: *parallel as u64,
            parallel_diff: *parallel_diff,
        }),
        EngineEvent::RegistrationReceived {
            urn,
            type_,
            parent,
            custom,
            dependencies,
        } => Kind::Registration(pb::Registration {
            urn: t.refer(urn.as_str()),
            r#type: t.refer(type_),
            parent: parent.as_ref().map(|u| t.refer(u.as_str())),
            custom: *custom,
            dependencies: refs(t, dependencies),
        }),
        EngineEvent::StepPlanned(s) => Kind::StepPlanned(step(t, s)),
        EngineEvent::ChainQueued { chain, steps } => Kind::ChainQueued(pb::ChainQueued {
            chain: *chain,
            steps: steps
                .iter()
                .map(|(op, urn)| pb::StepRef {
                    op: op.as_str().to_string(),
                    urn: t.refer(urn.as_str()),
                })
                .collect(),
        }),
        EngineEvent::ChainStarted { chain, worker } => Kind::ChainStarted(pb::ChainStarted {
            chain: *chain,
            worker: *worker as u64,
        }),
        EngineEvent::ChainFinished { chain, ok } => Kind::ChainFinished(pb::ChainFinished {
            chain: *chain,
            ok: *ok,
        }),
        EngineEvent::StepStarted {
            chain,
            op,
            urn,
            worker,
        } => Kind::StepStarted(pb::StepStarted {
            chain: *chain,
            op: op.as_str().to_string(),
            urn: t.refer(urn.as_str()),
            worker: *worker as u64,
        }),
        EngineEvent::StepFinished {
            chain,
            op,
            urn,
            id,
            outputs,
            duration,
        } => Kind::StepFinished(pb::StepFinished {
            chain: *chain,
            op: op.as_str().to_string(),
            urn: t.refer(urn.as_str()),
            id: id.clone(),
            outputs: Some(props(outputs)),
            duration_ns: nanos(*duration),
        }),
        EngineEvent::StepFailed {
            chain,
            op,
            urn,
            error,
            duration,
        } => Kind::StepFailed(pb::StepFailed {
            chain: *chain,
            op: op.as_str().to_string(),
            urn: t.refer(urn.as_str()),
            error: error.clone(),
            duration_ns: nanos(*duration),
        }),
        EngineEvent::StepSkipped { op, urn, reason } => Kind::StepSkipped(pb::StepSkipped {
            op: op.as_str().to_string(),
            urn: t.refer(urn.as_str()),
            reason: reason.clone(),
        }),
        EngineEvent::DiffQueued { urn } => Kind::DiffQueued(t.refer(urn.as_str())),
        EngineEvent::DiffStarted { urn, worker } => Kind::DiffStarted(pb::DiffStarted {
            urn: t.refer(urn.as_str()),
            worker: *worker as u64,
        }),
        EngineEvent::DiffFinished {
            urn,
            changes,
            replace,
        } => Kind::DiffFinished(pb::DiffFinished {
            urn: t.refer(urn.as_str()),
            changes: match changes {
                DiffChanges::Unknown => pb::DiffChanges::DiffUnknown,
                DiffChanges::None => pb::DiffChanges::DiffNone,
                DiffChanges::Some => pb::DiffChanges::DiffSome,
            } as i32,
            replace: *replace,
        }),
        EngineEvent::PendingReplacement {
            cascade,
            chain,
            root,
            members,
        } => Kind::PendingReplacement(pb::PendingReplacement {
            cascade: *cascade,
            chain: *chain,
            root: t.refer(root.as_str()),
            members: members.iter().map(|m| member(t, m)).collect(),
        }),
        EngineEvent::Decision {
            cascade,
            op,
            urn,
            approved,
            by,
        } => {
            let by_kind = match by {
                Decider::Policy => pb::DeciderKind::DeciderPolicy,
                Decider::Operator(_) => pb::DeciderKind::DeciderOperator,
                Decider::Remote(_) => pb::DeciderKind::DeciderRemote,
                Decider::File(_) => pb::DeciderKind::DeciderFile,
            };
            let name = by.parts().1;
            Kind::Decision(pb::Decision {
                cascade: *cascade,
                approved: *approved,
                by_policy: *by == Decider::Policy,
                urn: t.refer(urn.as_str()),
                op: op.as_str().to_string(),
                by_kind: by_kind as i32,
                by: name.to_string(),
            })
        }
        EngineEvent::GateOpened {
            gate,
            chain,
            op,
            urn,
            kind,
            asked,
        } => Kind::GateOpened(pb::GateOpened {
            gate: *gate,
            chain: *chain,
            op: op.as_str().to_string(),
            urn: t.refer(urn.as_str()),
            kind: kind.as_str().to_string(),
            asked: *asked,
        }),
        EngineEvent::Stepped => Kind::Stepped(pb::Empty {}),
        EngineEvent::Breakpoint { op, urn } => Kind::Breakpoint(pb::Breakpoint {
            op: op.as_str().to_string(),
            urn: t.refer(urn.as_str()),
        }),
        EngineEvent::Paused => Kind::Paused(pb::Empty {}),
        EngineEvent::Resumed => Kind::Resumed(pb::Empty {}),
        EngineEvent::CancelRequested { terminate } => Kind::CancelRequested(pb::CancelRequested {
            terminate: *terminate,
        }),
        EngineEvent::PendingCreates { creates } => Kind::PendingCreates(pb::PendingCreates {
            creates: creates
                .iter()
                .map(|c| pb::PendingCreate {
                    urn: t.refer(c.urn.as_str()),
                    r#type: t.refer(&c.type_),
                })
                .collect(),
        }),
        EngineEvent::PendingCreatesCleared { count } => Kind::PendingCreatesCleared(*count as u64),
        EngineEvent::Diagnostic {
            urn,
            severity: s,
            message,
            ephemeral,
        } => Kind::Diagnostic(pb::Diagnostic {
            urn: urn.as_ref().map(|u| t.refer(u.as_str())),
            severity: severity(*s) as i32,
            message: message.clone(),
            ephemeral: *ephemeral,
        }),
        EngineEvent::ResourceOutputs { urn, outputs } => {
            Kind::ResourceOutputs(pb::ResourceOutputs {
                urn: t.refer(urn.as_str()),
                outputs: Some(props(outputs)),
            })
        }
        EngineEvent::PolicyLoad { path } => Kind::PolicyLoad(pb::PolicyLoad { path: path.clone() }),
        EngineEvent::StartDebugging { config, message } => {
            Kind::StartDebugging(pb::StartDebugging {
                config_json: serde_json::Value::Object(config.clone()).to_string(),
                message: message.clone(),
            })
        }
        EngineEvent::PolicyViolation(v) => Kind::PolicyViolation(pb::PolicyViolation {
            urn: t.refer(v.urn.as_str()),
            policy: v.policy_name.clone(),
            pack: v.pack_name.clone(),
            version: v.pack_version.clone(),
            message: v.message.clone(),
            level: v.level.as_str().to_string(),
            severity: v.severity.as_str().to_string(),
        }),
        EngineEvent::PolicyRemediation(r) => Kind::PolicyRemediation(pb::PolicyRemediation {
            urn: t.refer(r.urn.as_str()),
            policy: r.policy_name.clone(),
            pack: r.pack_name.clone(),
            version: r.pack_version.clone(),
            before: Some(props(&r.before)),
            after: Some(props(&r.after)),
        }),
        EngineEvent::PolicySummary(s) => Kind::PolicySummary(pb::PolicySummary {
            call: call_name(s.call).to_string(),
            urn: s.urn.as_ref().map(|u| t.refer(u.as_str())),
            pack: s.pack_name.clone(),
            version: s.pack_version.clone(),
            passed: s.passed.clone(),
            failed: s.failed.clone(),
        }),
        EngineEvent::Summary {
            counts,
            declined,
            duration,
            outcome,
            preview,
            policy_packs,
        } => Kind::Summary(pb::Summary {
            counts: counts
                .iter()
                .map(|(op, n)| (op.as_str().to_string(), *n as u64))
                .collect(),
            declined: *declined as u64,
            duration_ns: nanos(*duration),
            outcome: Some(summary_outcome(outcome)),
            preview: *preview,
            policy_packs: policy_packs.clone().into_iter().collect(),
        }),
    };
    pb::Event {
        kind: Some(kind),
        at_ms: 0,
    }
}

/// The engine event a protocol message carries.
pub fn from_wire(e: &pb::Event, k: &KnownNames) -> Result<EngineEvent, WireError> {
    let kind = e.kind.as_ref().ok_or_else(|| bad("kind", "missing"))?;
    Ok(match kind {
        Kind::Prelude(p) => EngineEvent::Prelude {
            operation: operation(&p.operation)?,
            preview: p.preview,
            stack: p.stack.clone(),
            project: p.project.clone(),
            parallel: count(p.parallel),
            parallel_diff: p.parallel_diff,
        },
        Kind::Registration(r) => EngineEvent::RegistrationReceived {
            urn: urn(k, &r.urn, "urn")?,
            type_: text(k, &r.r#type, "type")?,
            parent: opt_urn(k, r.parent.as_ref(), "parent")?,
            custom: r.custom,
            dependencies: urns(k, &r.dependencies, "dependencies")?.into(),
        },
        Kind::StepPlanned(s) => EngineEvent::StepPlanned(Box::new(step_back(k, s)?)),
        Kind::ChainQueued(c) => EngineEvent::ChainQueued {
            chain: c.chain,
            steps: c
                .steps
                .iter()
                .map(|s| Ok((op(&s.op)?, urn(k, &s.urn, "steps")?)))
                .collect::<Result<_, WireError>>()?,
        },
        Kind::ChainStarted(c) => EngineEvent::ChainStarted {
            chain: c.chain,
            worker: count(c.worker),
        },
        Kind::ChainFinished(c) => EngineEvent::ChainFinished {
            chain: c.chain,
            ok: c.ok,
        },
        Kind::StepStarted(s) => EngineEvent::StepStarted {
            chain: s.chain,
            op: op(&s.op)?,
            urn: urn(k, &s.urn, "urn")?,
            worker: count(s.worker),
        },
        Kind::StepFinished(s) => EngineEvent::StepFinished {
            chain: s.chain,
            op: op(&s.op)?,
            urn: urn(k, &s.urn, "urn")?,
            id: s.id.clone(),
            outputs: props_back(s.outputs.as_ref(), "outputs")?,
            duration: Duration::from_nanos(s.duration_ns),
        },
        Kind::StepFailed(s) => EngineEvent::StepFailed {
            chain: s.chain,
            op: op(&s.op)?,
            urn: urn(k, &s.urn, "urn")?,
            error: s.error.clone(),
            duration: Duration::from_nanos(s.duration_ns),
        },
        Kind::StepSkipped(s) => EngineEvent::StepSkipped {
            op: op(&s.op)?,
            urn: urn(k, &s.urn, "urn")?,
            reason: s.reason.clone(),
        },
        Kind::DiffQueued(u) => EngineEvent::DiffQueued {
            urn: urn(k, u, "diff_queued")?,
        },
        Kind::DiffStarted(d) => EngineEvent::DiffStarted {
            urn: urn(k, &d.urn, "urn")?,
            worker: count(d.worker),
        },
        Kind::DiffFinished(d) => EngineEvent::DiffFinished {
            urn: urn(k, &d.urn, "urn")?,
            changes: match pb::DiffChanges::try_from(d.changes) {
                Ok(pb::DiffChanges::DiffUnknown) => DiffChanges::Unknown,
                Ok(pb::DiffChanges::DiffNone) => DiffChanges::None,
                Ok(pb::DiffChanges::DiffSome) => DiffChanges::Some,
                Err(_) => return Err(bad("changes", format!("unknown value {}", d.changes))),
            },
            replace: d.replace,
        },
        Kind::PendingReplacement(p) => EngineEvent::PendingReplacement {
            cascade: p.cascade,
            chain: p.chain,
            root: urn(k, &p.root, "root")?,
            members: p
                .members
                .iter()
                .map(|m| member_back(k, m))
                .collect::<Result<_, _>>()?,
        },
        Kind::Decision(d) => EngineEvent::Decision {
            cascade: d.cascade,
            op: op(&d.op)?,
            urn: urn(k, &d.urn, "urn")?,
            approved: d.approved,
            by: match pb::DeciderKind::try_from(d.by_kind) {
                Ok(pb::DeciderKind::DeciderPolicy) if d.by_policy => Decider::Policy,
                Ok(pb::DeciderKind::DeciderPolicy) => Decider::Operator(d.by.clone()),
                Ok(pb::DeciderKind::DeciderOperator) => Decider::Operator(d.by.clone()),
                Ok(pb::DeciderKind::DeciderRemote) => Decider::Remote(d.by.clone()),
                Ok(pb::DeciderKind::DeciderFile) => Decider::File(d.by.clone()),
                Err(_) => return Err(bad("by_kind", format!("unknown value {}", d.by_kind))),
            },
        },
        Kind::GateOpened(g) => EngineEvent::GateOpened {
            gate: g.gate,
            chain: g.chain,
            op: op(&g.op)?,
            urn: urn(k, &g.urn, "urn")?,
            kind: g
                .kind
                .parse()
                .map_err(|e: crate::engine::run::approval::RuleError| bad("kind", e.to_string()))?,
            asked: g.asked,
        },
        Kind::Stepped(_) => EngineEvent::Stepped,
        Kind::Breakpoint(b) => EngineEvent::Breakpoint {
            op: op(&b.op)?,
            urn: urn(k, &b.urn, "urn")?,
        },
        Kind::Paused(_) => EngineEvent::Paused,
        Kind::Resumed(_) => EngineEvent::Resumed,
        Kind::CancelRequested(c) => EngineEvent::CancelRequested {
            terminate: c.terminate,
        },
        Kind::PendingCreates(p) => EngineEvent::PendingCreates {
            creates: p
                .creates
                .iter()
                .map(|c| {
                    Ok(PendingCreate {
                        urn: urn(k, &c.urn, "creates")?,
                        type_: text(k, &c.r#type, "type")?,
                    })
                })
                .collect::<Result<_, WireError>>()?,
        },
        Kind::PendingCreatesCleared(n) => EngineEvent::PendingCreatesCleared { count: count(*n) },
        Kind::Diagnostic(d) => EngineEvent::Diagnostic {
            urn: opt_urn(k, d.urn.as_ref(), "urn")?,
            severity: severity_back(
                pb::Severity::try_from(d.severity)
                    .map_err(|_| bad("severity", format!("unknown value {}", d.severity)))?,
            ),
            message: d.message.clone(),
            ephemeral: d.ephemeral,
        },
        Kind::ResourceOutputs(r) => EngineEvent::ResourceOutputs {
            urn: urn(k, &r.urn, "urn")?,
            outputs: props_back(r.outputs.as_ref(), "outputs")?,
        },
        Kind::Summary(s) => EngineEvent::Summary {
            counts: s
                .counts
                .iter()
                .map(|(k, n)| Ok((op(k)?, count(*n))))
                .collect::<Result<_, WireError>>()?,
            declined: count(s.declined),
            duration: Duration::from_nanos(s.duration_ns),
            outcome: summary_outcome_back(s.outcome.as_ref())?,
            preview: s.preview,
            policy_packs: s.policy_packs.clone().into_iter().collect(),
        },
        Kind::PolicyLoad(p) => EngineEvent::PolicyLoad {
            path: p.path.clone(),
        },
        Kind::StartDebugging(d) => EngineEvent::StartDebugging {
            config: serde_json::from_str(&d.config_json)
                .map_err(|e| bad("config_json", format!("not a JSON object: {e}")))?,
            message: d.message.clone(),
        },
        Kind::PolicyViolation(v) => EngineEvent::PolicyViolation(Box::new(PolicyViolation {
            urn: urn(k, &v.urn, "urn")?,
            policy_name: v.policy.clone(),
            pack_name: v.pack.clone(),
            pack_version: v.version.clone(),
            message: v.message.clone(),
            level: level(&v.level)?,
            severity: policy_severity(&v.severity)?,
        })),
        Kind::PolicyRemediation(r) => EngineEvent::PolicyRemediation(Box::new(PolicyRemediation {
            urn: urn(k, &r.urn, "urn")?,
            policy_name: r.policy.clone(),
            pack_name: r.pack.clone(),
            pack_version: r.version.clone(),
            before: props_back(r.before.as_ref(), "before")?,
            after: props_back(r.after.as_ref(), "after")?,
        })),
        Kind::PolicySummary(s) => EngineEvent::PolicySummary(Box::new(PolicySummary {
            call: call_back(&s.call)?,
            urn: opt_urn(k, s.urn.as_ref(), "urn")?,
            pack_name: s.pack.clone(),
            pack_version: s.version.clone(),
            passed: s.passed.clone(),
            failed: s.failed.clone(),
        })),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::sample::sample_timeline;

    /// The URNs `table` numbered, as a watcher learns them.
    fn known(table: &NameTable) -> KnownNames {
        let names: Vec<String> = table.since(0).iter().map(|u| u.to_string()).collect();
        let mut known = KnownNames::default();
        known.learn(0, &names).unwrap();
        known
    }

    fn round_trip(e: &EngineEvent) -> EngineEvent {
        let mut table = NameTable::default();
        let wire = to_wire(e, &mut table);
        from_wire(&wire, &known(&table)).unwrap()
    }

    #[test]
    fn every_event_of_a_sample_run_survives_the_round_trip_but_its_secrets() {
        let events: Vec<EngineEvent> = sample_timeline().into_iter().map(|(_, e)| e).collect();
        let mut exact = 0;
        for e in &events {
            let back = round_trip(e);
            if format!("{e:?}").contains("Secret(") {
                assert!(!format!("{back:?}").contains("hunter2"), "{back:?}");
                assert_eq!(round_trip(&back), back);
            } else {
                assert_eq!(&back, e);
                exact += 1;
            }
        }
        assert!(exact > 20, "{exact} events compared");
    }

    #[test]
    fn a_run_spells_no_urn_type_or_provider_in_full_and_decodes_through_its_table() {
        use prost::Message;
        let mut events: Vec<EngineEvent> = sample_timeline().into_iter().map(|(_, e)| e).collect();
        let mut planned = events
            .iter()
            .find_map(|e| match e {
                EngineEvent::StepPlanned(s) => Some(s.clone()),
                _ => None,
            })
            .unwrap();
        planned.provider = Some(
            ProviderRef::parse("urn:pulumi:dev::p::pulumi:providers:sim::default::0a1b-2c3d")
                .unwrap(),
        );
        events.push(EngineEvent::StepPlanned(planned));
        let mut table = NameTable::default();
        let wire: Vec<pb::Event> = events.iter().map(|e| to_wire(e, &mut table)).collect();
        let bytes: Vec<u8> = wire.iter().flat_map(|w| w.encode_to_vec()).collect();
        let text = String::from_utf8_lossy(&bytes);
        for spelled in [
            "urn:pulumi:",
            "sim:index:",
            "pulumi:pulumi:Stack",
            "0a1b-2c3d",
        ] {
            assert!(!text.contains(spelled), "{spelled} in full");
        }
        let named: Vec<&str> = table.since(0).iter().map(|n| &**n).collect();
        assert!(named.contains(&"sim:index:Database"), "{named:?}");
        assert!(
            named
                .iter()
                .any(|n| n.contains("pulumi:providers:") && n.contains("::default")),
            "{named:?}"
        );
        assert!(table.len() > 5, "{} names numbered", table.len());
        let known = known(&table);
        for (e, w) in events.iter().zip(&wire) {
            let back = from_wire(w, &known).unwrap();
            if !format!("{e:?}").contains("Secret(") {
                assert_eq!(&back, e);
            }
        }
    }

    #[test]
    fn a_failed_run_crosses_the_wire_with_its_message_and_arrives_as_reported() {
        let message = "first: app not run\nsecond: bad failed";
        let summary = EngineEvent::Summary {
            counts: Default::default(),
            declined: 0,
            duration: Duration::from_secs(2),
            outcome: Outcome::Failed(RunFailure::new(FailureCause::Step, message)),
            preview: false,
            policy_packs: Default::default(),
        };
        let wire = to_wire(&summary, &mut NameTable::default());
        let Some(Kind::Summary(s)) = &wire.kind else {
            panic!("{wire:?}")
        };
        assert_eq!(
            s.outcome,
            Some(pb::summary::Outcome::Failed(message.to_string()))
        );
        let EngineEvent::Summary {
            outcome: Outcome::Failed(back),
            ..
        } = from_wire(&wire, &KnownNames::default()).unwrap()
        else {
            panic!("a failed summary comes back failed")
        };
        assert_eq!(back.message(), message);
        assert_eq!(back.cause(), FailureCause::Reported);
    }

    #[test]
    fn gates_decisions_and_breakpoints_survive_the_round_trip_with_who_decided() {
        use crate::engine::StepOp;
        use crate::engine::run::approval::ApprovalKind;
        let u = Urn::parse("urn:pulumi:dev::p::sim:index:Database::db").unwrap();
        let decision = |by: Decider| EngineEvent::Decision {
            cascade: 4,
            op: StepOp::Delete,
            urn: u.clone(),
            approved: false,
            by,
        };
        let events = [
            EngineEvent::GateOpened {
                gate: 4,
                chain: 9,
                op: StepOp::Delete,
                urn: u.clone(),
                kind: ApprovalKind::Deletes,
                asked: true,
            },
            decision(Decider::Policy),
            decision(Decider::Operator("alice@host".into())),
            decision(Decider::Remote("bob".into())),
            decision(Decider::File("decisions.yaml".into())),
            EngineEvent::Stepped,
            EngineEvent::Breakpoint {
                op: StepOp::Create,
                urn: u.clone(),
            },
        ];
        for e in events {
            assert_eq!(round_trip(&e), e);
        }
    }

    #[test]
    fn policy_events_survive_the_round_trip_and_a_remediation_leaves_no_secret() {
        use crate::engine::run::policy::{EnforcementLevel, PolicySeverity};
        let u = Urn::parse("urn:pulumi:dev::p::sim:index:Database::db").unwrap();
        let violation = EngineEvent::PolicyViolation(Box::new(PolicyViolation {
            urn: u.clone(),
            policy_name: "encrypted".into(),
            pack_name: "pack".into(),
            pack_version: "1.0.0".into(),
            message: "Needs encryption\nnot encrypted".into(),
            level: EnforcementLevel::Mandatory,
            severity: PolicySeverity::High,
        }));
        let summary = EngineEvent::PolicySummary(Box::new(PolicySummary {
            call: PolicyCall::AnalyzeStack,
            urn: None,
            pack_name: "pack".into(),
            pack_version: "1.0.0".into(),
            passed: vec!["a".into()],
            failed: vec!["b".into()],
        }));
        let packs = EngineEvent::Summary {
            counts: Default::default(),
            declined: 0,
            duration: Duration::from_secs(1),
            outcome: Outcome::Succeeded,
            preview: true,
            policy_packs: [("pack|local|policy".to_string(), "1.0.0".to_string())].into(),
        };
        for e in [
            EngineEvent::PolicyLoad {
                path: "./policy".into(),
            },
            EngineEvent::StartDebugging {
                config: serde_json::json!({"type": "python", "connect": {"port": 58791}})
                    .as_object()
                    .cloned()
                    .unwrap(),
                message: "debugpy on 127.0.0.1:58791".into(),
            },
            violation,
            summary,
            packs,
        ] {
            assert_eq!(round_trip(&e), e);
        }
        let mut after = PropertyMap::new();
        after.insert(
            "key".into(),
            PropertyValue::Secret(Box::new(PropertyValue::string("hunter2"))),
        );
        let remediation = EngineEvent::PolicyRemediation(Box::new(PolicyRemediation {
            urn: u,
            policy_name: "fix".into(),
            pack_name: "pack".into(),
            pack_version: "1.0.0".into(),
            before: PropertyMap::new(),
            after,
        }));
        let EngineEvent::PolicyRemediation(back) = round_trip(&remediation) else {
            panic!("a remediation comes back as one");
        };
        assert_eq!(
            back.after["key"],
            PropertyValue::Secret(Box::new(PropertyValue::string(SECRET_TEXT)))
        );
    }

    #[test]
    fn a_secret_leaves_as_its_stand_in_never_its_plaintext() {
        let u = Urn::parse("urn:pulumi:dev::p::sim:index:Database::db").unwrap();
        let mut outputs = PropertyMap::new();
        let hidden = PropertyValue::Secret(Box::new(PropertyValue::string("hunter2")));
        outputs.insert("password".into(), hidden);
        let e = EngineEvent::ResourceOutputs { urn: u, outputs };
        let mut table = NameTable::default();
        let wire = to_wire(&e, &mut table);
        assert!(!format!("{wire:?}").contains("hunter2"));
        let EngineEvent::ResourceOutputs { outputs, .. } =
            from_wire(&wire, &known(&table)).unwrap()
        else {
            panic!("decoded as another event");
        };
        assert_eq!(
            outputs["password"],
            PropertyValue::Secret(Box::new(PropertyValue::string(SECRET_TEXT)))
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config {
            cases: 256,
            failure_persistence: None,
            ..Default::default()
        })]

        /// A watcher decodes whatever arrives (a sample event with one byte changed) into an
        /// event or an error, never a panic.
        #[test]
        fn a_damaged_event_decodes_or_is_refused(pick in 0usize..1000, at in 0usize..4096, xor in 1u8..) {
            use prost::Message;
            let events = sample_timeline();
            let mut table = NameTable::default();
            let mut bytes = to_wire(&events[pick % events.len()].1, &mut table).encode_to_vec();
            let i = at % bytes.len();
            bytes[i] ^= xor;
            if let Ok(e) = pb::Event::decode(bytes.as_slice()) {
                let _ = from_wire(&e, &known(&table));
            }
        }
    }

    #[test]
    fn a_malformed_urn_names_its_field() {
        let wire = pb::Event {
            kind: Some(Kind::DiffQueued("not-a-urn".into())),
            at_ms: 0,
        };
        assert_eq!(
            from_wire(&wire, &KnownNames::default()).unwrap_err().field,
            "diff_queued"
        );
        let unnamed = pb::Event {
            kind: Some(Kind::DiffQueued("#0".into())),
            at_ms: 0,
        };
        assert_eq!(
            from_wire(&unnamed, &KnownNames::default())
                .unwrap_err()
                .field,
            "diff_queued"
        );
    }

    #[test]
    fn a_run_cut_short_ends_with_an_error_naming_the_field_and_the_next_run_still_reads() {
        let event = prost::Message::encode_length_delimited_to_vec(&pb::Event::default());
        let cut = Bytes::from(vec![9, 1, 2]);
        let got: Vec<_> = frames(&[cut, Bytes::from([event.clone(), event].concat())]).collect();
        assert_eq!(got.len(), 3, "{got:?}");
        let err = got[0].clone().unwrap_err();
        assert_eq!(err.field, "Events.runs");
        assert!(err.reason.contains("9 bytes where 2 are left"), "{err}");
        assert!(
            got[1..]
                .iter()
                .all(|f| f.as_ref().is_ok_and(|b| b.is_empty()))
        );
    }
}
