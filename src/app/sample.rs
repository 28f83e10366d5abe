//! A realistic, deterministic event timeline (a small stack mid-update, with a network, subnets,
//! servers, a pending delete-before-replace cascade, a failed step and diagnostics), so that
//! reducer tests, view snapshots and documentation all show the same believable deployment.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use crate::engine::model::property::props;
use crate::engine::model::urn::ROOT_STACK_TYPE;
use crate::engine::provider::{DiffChanges, DiffKind, PropertyDiff};
use crate::engine::run::events::{CascadeMember, CascadeReason, StepInfo};
use crate::engine::{EngineEvent, Operation, PropertyMap, PropertyValue, Severity, StepOp, Urn};

/// URN of a top-level resource of the sample stack (`dev`, project `myproj`).
pub fn sample_urn(type_: &str, name: &str) -> Urn {
    let stack = Urn::new("dev", "myproj", None, ROOT_STACK_TYPE, "myproj-dev");
    if type_ == ROOT_STACK_TYPE {
        return stack;
    }
    Urn::new("dev", "myproj", Some(&stack), type_, name)
}

/// A planned step with the fields a display uses; the rest left empty.
pub fn step_info(op: StepOp, urn: &Urn, parent: Option<&Urn>, chain: u64) -> StepInfo {
    StepInfo {
        op,
        urn: urn.clone(),
        type_: urn.type_().to_string(),
        parent: parent.cloned(),
        custom: urn.type_() != ROOT_STACK_TYPE,
        chain: Some(chain),
        diffs: Vec::new(),
        replace_keys: Vec::new(),
        detailed_diff: BTreeMap::new(),
        old_inputs: None,
        old_outputs: None,
        old_id: None,
        new_inputs: None,
        provider: None,
        delete_before_replace: false,
        dependencies: Arc::default(),
        protect: false,
        retain_on_delete: false,
        hide_diffs: Vec::new(),
    }
}

fn reg(urn: &Urn, parent: Option<&Urn>, deps: &[&Urn]) -> EngineEvent {
    EngineEvent::RegistrationReceived {
        urn: urn.clone(),
        type_: urn.type_().to_string(),
        parent: parent.cloned(),
        custom: urn.type_() != ROOT_STACK_TYPE,
        dependencies: deps.iter().map(|u| (*u).clone()).collect(),
    }
}

fn planned(mut info: StepInfo, deps: &[&Urn]) -> EngineEvent {
    info.dependencies = deps.iter().map(|u| (*u).clone()).collect();
    EngineEvent::StepPlanned(Box::new(info))
}

fn secs(s: f64) -> Duration {
    Duration::from_secs_f64(s)
}

/// The sample timeline: `(console clock, event)` pairs for an `up` of stack `dev`, cut off while
/// the database's delete-before-replace cascade waits for approval.
pub fn sample_timeline() -> Vec<(Duration, EngineEvent)> {
    let stack = sample_urn(ROOT_STACK_TYPE, "");
    let net = sample_urn("sim:index:Network", "net");
    let sub_a = sample_urn("sim:index:Subnet", "subnet-a");
    let sub_b = sample_urn("sim:index:Subnet", "subnet-b");
    let srv1 = sample_urn("sim:index:Server", "server-1");
    let srv2 = sample_urn("sim:index:Server", "server-2");
    let db = sample_urn("sim:index:Database", "db");
    let app = sample_urn("sim:index:Service", "app");
    let old_bucket = sample_urn("sim:index:Bucket", "old-logs");
    let p = Some(&stack);

    let mut t = Vec::new();
    let mut at = |s: f64, e: EngineEvent| t.push((secs(s), e));
    at(
        0.0,
        EngineEvent::Prelude {
            operation: Operation::Update,
            preview: false,
            stack: "dev".into(),
            project: "myproj".into(),
            parallel: 8,
            parallel_diff: true,
        },
    );
    at(0.0, reg(&stack, None, &[]));
    at(0.0, planned(step_info(StepOp::Same, &stack, None, 1), &[]));
    at(0.1, reg(&net, p, &[]));
    at(0.1, EngineEvent::DiffQueued { urn: net.clone() });
    at(
        0.1,
        EngineEvent::DiffStarted {
            urn: net.clone(),
            worker: 0,
        },
    );
    at(
        0.2,
        EngineEvent::DiffFinished {
            urn: net.clone(),
            changes: DiffChanges::Some,
            replace: false,
        },
    );
    let mut net_info = step_info(StepOp::Create, &net, p, 2);
    net_info.new_inputs = Some(props([("cidr", "10.0.0.0/16")]));
    at(0.2, planned(net_info, &[]));
    at(
        0.2,
        EngineEvent::ChainQueued {
            chain: 2,
            steps: [(StepOp::Create, net.clone())].into(),
        },
    );
    at(
        0.2,
        EngineEvent::ChainStarted {
            chain: 2,
            worker: 0,
        },
    );
    at(
        0.2,
        EngineEvent::StepStarted {
            chain: 2,
            op: StepOp::Create,
            urn: net.clone(),
            worker: 0,
        },
    );
    at(
        1.4,
        EngineEvent::StepFinished {
            chain: 2,
            op: StepOp::Create,
            urn: net.clone(),
            id: Some("net-4c1e".into()),
            outputs: props([("cidr", "10.0.0.0/16"), ("id", "net-4c1e")]),
            duration: secs(1.2),
        },
    );
    at(1.4, EngineEvent::ChainFinished { chain: 2, ok: true });

    at(1.5, reg(&sub_a, Some(&net), &[&net]));
    at(1.5, reg(&sub_b, Some(&net), &[&net]));
    let mut a = step_info(StepOp::Create, &sub_a, Some(&net), 3);
    a.new_inputs = Some(props([("cidr", "10.0.1.0/24"), ("zone", "a")]));
    at(1.5, planned(a, &[&net]));
    let mut b = step_info(StepOp::Update, &sub_b, Some(&net), 4);
    b.diffs = vec!["zone".into()];
    b.old_inputs = Some(props([("cidr", "10.0.2.0/24"), ("zone", "a")]));
    b.new_inputs = Some(props([("cidr", "10.0.2.0/24"), ("zone", "b")]));
    b.detailed_diff = BTreeMap::from([(
        "zone".to_string(),
        PropertyDiff {
            kind: DiffKind::Update,
            input_diff: true,
        },
    )]);
    at(1.5, planned(b, &[&net]));
    for (chain, op, urn, w) in [
        (3, StepOp::Create, &sub_a, 1),
        (4, StepOp::Update, &sub_b, 2),
    ] {
        at(
            1.5,
            EngineEvent::ChainQueued {
                chain,
                steps: [(op, urn.clone())].into(),
            },
        );
        at(1.5, EngineEvent::ChainStarted { chain, worker: w });
        at(
            1.5,
            EngineEvent::StepStarted {
                chain,
                op,
                urn: urn.clone(),
                worker: w,
            },
        );
    }
    at(
        2.3,
        EngineEvent::StepFinished {
            chain: 3,
            op: StepOp::Create,
            urn: sub_a.clone(),
            id: Some("subnet-91aa".into()),
            outputs: props([("cidr", "10.0.1.0/24"), ("id", "subnet-91aa")]),
            duration: secs(0.8),
        },
    );
    at(2.3, EngineEvent::ChainFinished { chain: 3, ok: true });
    at(
        2.4,
        EngineEvent::Diagnostic {
            urn: Some(sub_b.clone()),
            severity: Severity::Warning,
            message: "zone change is slow on this provider".into(),
            ephemeral: false,
        },
    );

    at(2.4, reg(&srv1, Some(&sub_a), &[&sub_a]));
    at(2.4, reg(&srv2, Some(&sub_a), &[&sub_a]));
    for (chain, urn, w) in [(5, &srv1, 3), (6, &srv2, 4)] {
        let mut s = step_info(StepOp::Create, urn, Some(&sub_a), chain);
        s.new_inputs = Some(props([
            ("image", PropertyValue::string("debian-12")),
            ("subnetId", PropertyValue::Unknown),
            (
                "adminPassword",
                PropertyValue::Secret(Box::new("hunter2".into())),
            ),
        ]));
        at(2.4, planned(s, &[&sub_a]));
        at(
            2.4,
            EngineEvent::ChainQueued {
                chain,
                steps: [(StepOp::Create, urn.clone())].into(),
            },
        );
        at(2.4, EngineEvent::ChainStarted { chain, worker: w });
        at(
            2.4,
            EngineEvent::StepStarted {
                chain,
                op: StepOp::Create,
                urn: urn.clone(),
                worker: w,
            },
        );
    }
    at(
        3.1,
        EngineEvent::StepFailed {
            chain: 6,
            op: StepOp::Create,
            urn: srv2.clone(),
            error: "quota exceeded for instance type large".into(),
            duration: secs(0.7),
        },
    );
    at(
        3.1,
        EngineEvent::ChainFinished {
            chain: 6,
            ok: false,
        },
    );

    at(3.2, reg(&db, p, &[]));
    at(3.2, reg(&app, p, &[&db, &srv1]));
    let mut d = step_info(StepOp::Replace, &db, p, 7);
    d.delete_before_replace = true;
    d.replace_keys = vec!["engine".into()];
    d.diffs = vec!["engine".into(), "endpoint".into()];
    d.old_inputs = Some(props([
        ("engine", PropertyValue::string("postgres15")),
        ("password", PropertyValue::Secret(Box::new("s3cret".into()))),
        (
            "settings",
            PropertyValue::Object(props([("maxConnections", 100.0), ("ssl", 1.0)])),
        ),
    ]));
    d.new_inputs = Some(props([
        ("engine", PropertyValue::string("postgres16")),
        ("password", PropertyValue::Secret(Box::new("s3cret".into()))),
        (
            "settings",
            PropertyValue::Object(props([("maxConnections", 200.0), ("ssl", 1.0)])),
        ),
    ]));
    d.old_outputs = Some(props([("endpoint", "db-7f2a.sim")]));
    d.detailed_diff = BTreeMap::from([
        (
            "engine".to_string(),
            PropertyDiff {
                kind: DiffKind::UpdateReplace,
                input_diff: true,
            },
        ),
        (
            "settings.maxConnections".to_string(),
            PropertyDiff {
                kind: DiffKind::Update,
                input_diff: true,
            },
        ),
    ]);
    let mut a2 = step_info(StepOp::Replace, &app, p, 7);
    a2.replace_keys = vec!["dbHost".into()];
    a2.diffs = vec!["dbHost".into()];
    a2.old_inputs = Some(props([("dbHost", "db-7f2a.sim")]));
    a2.new_inputs = Some(props([("dbHost", PropertyValue::Unknown)]));
    at(3.2, planned(d, &[]));
    at(3.2, planned(a2, &[&db, &srv1]));
    let chain7 = vec![
        (StepOp::DeleteReplaced, app.clone()),
        (StepOp::DeleteReplaced, db.clone()),
        (StepOp::CreateReplacement, db.clone()),
        (StepOp::CreateReplacement, app.clone()),
    ];
    at(
        3.2,
        EngineEvent::ChainQueued {
            chain: 7,
            steps: chain7.into(),
        },
    );
    at(
        3.2,
        EngineEvent::PendingReplacement {
            cascade: 1,
            chain: 7,
            root: db.clone(),
            members: vec![
                CascadeMember {
                    urn: db.clone(),
                    type_: db.type_().into(),
                    reason: CascadeReason::Root {
                        keys: vec!["engine".into()],
                    },
                },
                CascadeMember {
                    urn: app.clone(),
                    type_: app.type_().into(),
                    reason: CascadeReason::Input {
                        inputs: vec!["dbHost".into()],
                        on: db.clone(),
                        keys: vec!["dbHost".into()],
                    },
                },
            ],
        },
    );
    let mut del = step_info(StepOp::Delete, &old_bucket, p, 8);
    del.old_inputs = Some(PropertyMap::new());
    at(3.3, planned(del, &[]));
    at(
        3.3,
        EngineEvent::ChainQueued {
            chain: 8,
            steps: [(StepOp::Delete, old_bucket.clone())].into(),
        },
    );
    at(3.3, EngineEvent::DiffQueued { urn: srv1.clone() });
    at(3.3, EngineEvent::DiffQueued { urn: sub_b.clone() });
    at(
        3.3,
        EngineEvent::DiffStarted {
            urn: sub_b.clone(),
            worker: 5,
        },
    );
    at(
        3.4,
        EngineEvent::Diagnostic {
            urn: None,
            severity: Severity::Info,
            message: "delete-before-replace cascade for db waits for approval".into(),
            ephemeral: false,
        },
    );
    at(
        3.5,
        EngineEvent::Diagnostic {
            urn: Some(srv1.clone()),
            severity: Severity::Debug,
            message: "waiting for instance to boot".into(),
            ephemeral: true,
        },
    );
    t
}

/// `e` as a preview session would send it: the prelude says preview.
pub fn as_preview(e: EngineEvent) -> EngineEvent {
    match e {
        EngineEvent::Prelude {
            operation,
            stack,
            project,
            parallel,
            parallel_diff,
            ..
        } => EngineEvent::Prelude {
            operation,
            preview: true,
            stack,
            project,
            parallel,
            parallel_diff,
        },
        other => other,
    }
}
