//! Reads, refresh, destroy and state left behind by interrupted runs, as in Pulumi's
//! step_generator_test.go, refresh_test.go, destroy_test.go, pending_replace_test.go and
//! pulumi_test.go.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::support;
use std::sync::Arc;

use stepdeck::engine::model::property::props;
use stepdeck::engine::model::resource::{OperationType, PendingOperation};
use stepdeck::engine::{Operation, ProgramFn, ReadGoal, ResourceMonitor, Snapshot, StepOp, Urn};
use support::*;

fn read_program(name: &'static str, id: &'static str) -> Box<dyn stepdeck::engine::Program> {
    Box::new(ProgramFn(move |m: ResourceMonitor| async move {
        m.read(ReadGoal {
            type_: TYPE.into(),
            name: name.into(),
            id: id.into(),
            ..ReadGoal::default()
        })
        .await
        .map_err(|e| stepdeck::engine::ProgramError(e.to_string()))?;
        Ok(())
    }))
}

fn empty() -> Box<dyn stepdeck::engine::Program> {
    Box::new(ProgramFn(|_m| async { Ok(()) }))
}

#[tokio::test]
async fn reads_record_external_resources_and_discard_them_when_no_longer_read() {
    let p = Arc::new(FakeProvider::default());
    p.world
        .lock()
        .unwrap()
        .insert("ext".into(), props([("size", "10")]));
    let r = run(
        &p,
        &Snapshot::default(),
        options(),
        Some(read_program("x", "ext")),
    )
    .await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    assert_eq!(r.steps_of(StepOp::Read), vec!["x"]);
    let x = state(&r.result.snapshot, "x");
    assert!(x.external);
    assert_eq!(x.outputs, props([("size", "10")]));
    let r = run(&p, &r.result.snapshot, options(), Some(empty())).await;
    assert_eq!(r.steps(), vec![(StepOp::Discard, "x".to_string())]);
    assert!(p.names("delete").is_empty(), "a discard calls no provider");
    assert!(r.names().is_empty());
}

#[tokio::test]
async fn reading_a_managed_resource_relinquishes_or_replaces_it() {
    let p = Arc::new(FakeProvider::default());
    let s0 = run(
        &p,
        &Snapshot::default(),
        options(),
        Some(goals(vec![Box::new(|_| custom("x", &[("k", "1")]))])),
    )
    .await
    .result
    .snapshot;
    // The same ID: relinquish, a plain read that stops managing it.
    let r = run(&p, &s0, options(), Some(read_program("x", "id-x"))).await;
    assert_eq!(r.steps(), vec![(StepOp::Read, "x".to_string())]);
    assert!(state(&r.result.snapshot, "x").external);
    assert!(p.names("delete").is_empty());
    // Another ID: read-replacement; the managed copy is deleted at the end.
    p.world
        .lock()
        .unwrap()
        .insert("other".into(), props([("k", "9")]));
    let r = run(&p, &s0, options(), Some(read_program("x", "other"))).await;
    assert_eq!(
        r.steps(),
        vec![
            (StepOp::ReadReplacement, "x".to_string()),
            (StepOp::Replace, "x".to_string()),
            (StepOp::DeleteReplaced, "x".to_string()),
        ]
    );
    assert_eq!(p.names("delete"), vec!["x"]);
    let x = state(&r.result.snapshot, "x");
    assert_eq!((x.external, x.id.as_deref()), (true, Some("other")));
    assert_eq!(r.result.snapshot.resources.len(), 2, "provider and x");
}

fn chain_program() -> Box<dyn stepdeck::engine::Program> {
    goals(vec![
        Box::new(|_| custom("a", &[("k", "1")])),
        Box::new(|r| {
            let mut g = custom("b", &[]);
            g.dependencies = vec![r.urn("a")];
            g.property_dependencies = [("x".to_string(), vec![r.urn("a")])].into();
            g.deleted_with = Some(r.urn("a"));
            g
        }),
        Box::new(|r| {
            let mut g = custom("c", &[]);
            g.parent = Some(r.urn("a"));
            g
        }),
    ])
}

/// A provider and the state `chain_program` left with it, its calls forgotten.
async fn chain_deployed() -> (Arc<FakeProvider>, Snapshot) {
    let p = Arc::new(FakeProvider::default());
    let s0 = run(&p, &Snapshot::default(), options(), Some(chain_program()))
        .await
        .result
        .snapshot;
    p.calls.lock().unwrap().clear();
    (p, s0)
}

#[tokio::test]
async fn refresh_reads_every_resource_and_removes_vanished_ones() {
    let (p, s0) = chain_deployed().await;
    p.world.lock().unwrap().remove("id-a");
    p.world
        .lock()
        .unwrap()
        .insert("id-b".into(), props([("drift", "yes")]));
    let mut opts = options();
    opts.operation = Operation::Refresh;
    let r = run(&p, &s0, opts, None).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    let mut refreshed = r.steps_of(StepOp::Refresh);
    refreshed.sort();
    assert_eq!(refreshed, vec!["a", "b", "c"]);
    assert_eq!(r.names(), vec!["b", "c"]);
    let b = state(&r.result.snapshot, "b");
    assert_eq!(b.outputs, props([("drift", "yes")]));
    assert!(b.dependencies.is_empty() && b.deleted_with.is_none());
    assert!(b.property_dependencies.values().all(Vec::is_empty));
    assert!(state(&r.result.snapshot, "c").parent.is_none());
    assert!(p.names("create").is_empty() && p.names("delete").is_empty());
}

#[tokio::test]
async fn destroy_deletes_dependents_first_and_providers_last() {
    let p = Arc::new(FakeProvider::default());
    let s0 = run(&p, &Snapshot::default(), options(), Some(chain_program()))
        .await
        .result
        .snapshot;
    let mut opts = options();
    opts.operation = Operation::Destroy;
    let r = run(&p, &s0, opts, None).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    let order: Vec<String> = r
        .events
        .iter()
        .filter_map(|e| match e {
            stepdeck::engine::EngineEvent::StepFinished { op, urn, .. }
                if *op == StepOp::Delete =>
            {
                Some(urn.name().to_string())
            }
            _ => None,
        })
        .collect();
    assert_eq!(order.last().map(String::as_str), Some("default"));
    assert_eq!(order[order.len() - 2], "a");
    assert!(r.result.snapshot.resources.is_empty());
    // b is deleted with a: only a and c reach the provider.
    let mut deleted = p.names("delete");
    deleted.sort();
    assert_eq!(deleted, vec!["a", "c"]);
}

/// `destroy --run-program` (Pulumi's destroy mode): the program runs, but nothing is diffed,
/// created or updated, even for a resource the stack does not hold, and everything is deleted.
#[tokio::test]
async fn destroy_with_the_program_creates_nothing_and_deletes_everything() {
    let (p, s0) = chain_deployed().await;
    let mut opts = options();
    opts.operation = Operation::Destroy;
    let program = goals(vec![
        Box::new(|_| custom("a", &[("k", "2")])),
        Box::new(|_| custom("new", &[])),
    ]);
    let r = run(&p, &s0, opts, Some(program)).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    assert!(r.result.snapshot.resources.is_empty());
    for op in ["diff", "create", "update"] {
        assert!(p.names(op).is_empty(), "{op}: {:?}", p.names(op));
    }
    let mut deleted = p.names("delete");
    deleted.sort();
    assert_eq!(deleted, vec!["a", "c"]);
}

#[tokio::test]
async fn pending_operations_are_reported_and_only_creates_carry_over() {
    let p = Arc::new(FakeProvider::default());
    let s0 = run(
        &p,
        &Snapshot::default(),
        options(),
        Some(goals(vec![Box::new(|_| custom("a", &[]))])),
    )
    .await
    .result
    .snapshot;
    let mut base = s0.clone();
    let mut lost = state(&s0, "a").clone();
    lost.urn = Urn::new("test", "proj", None, TYPE, "lost");
    base.pending_operations = vec![
        PendingOperation {
            resource: state(&s0, "a").clone(),
            kind: OperationType::Updating,
        },
        PendingOperation {
            resource: lost,
            kind: OperationType::Creating,
        },
    ];
    let r = run(
        &p,
        &base,
        options(),
        Some(goals(vec![Box::new(|_| custom("a", &[]))])),
    )
    .await;
    let w = warnings(&r);
    assert!(
        w.iter().any(|m| m.contains("2 pending operations")
            && m.contains("::a, interrupted while updating")
            && m.contains("::lost, interrupted while creating")
            && m.contains("refresh")),
        "{w:?}"
    );
    // The update's pending operation vanishes with the next write; the create's stays.
    let kinds: Vec<(String, OperationType)> = r
        .result
        .snapshot
        .pending_operations
        .iter()
        .map(|p| (p.resource.urn.name().to_string(), p.kind))
        .collect();
    assert_eq!(kinds, vec![("lost".to_string(), OperationType::Creating)]);
    // A preview says nothing.
    let mut opts = options();
    opts.operation = Operation::Preview;
    let r = run(
        &p,
        &base,
        opts,
        Some(goals(vec![Box::new(|_| custom("a", &[]))])),
    )
    .await;
    assert!(warnings(&r).is_empty(), "{:?}", warnings(&r));
}

fn pending_replacement_base(p: &Arc<FakeProvider>) -> impl std::future::Future<Output = Snapshot> {
    let p = p.clone();
    async move {
        let s0 = run(
            &p,
            &Snapshot::default(),
            options(),
            Some(goals(vec![
                Box::new(|_| custom("a", &[("k", "1")])),
                Box::new(|_| custom("b", &[])),
            ])),
        )
        .await
        .result
        .snapshot;
        // A delete-before-replace of `a` that was interrupted after its delete.
        let mut base = s0;
        for r in &mut base.resources {
            if r.urn.name() == "a" {
                r.pending_replacement = true;
            }
        }
        p.world.lock().unwrap().remove("id-a");
        p.calls.lock().unwrap().clear();
        base
    }
}

#[tokio::test]
async fn an_interrupted_delete_before_replace_resumes_without_deleting_again() {
    let p = Arc::new(FakeProvider {
        diff: Some(replace_on(&["k"], true)),
        ..FakeProvider::default()
    });
    let base = pending_replacement_base(&p).await;
    let r = run(
        &p,
        &base,
        options(),
        Some(goals(vec![
            Box::new(|_| custom("a", &[("k", "2")])),
            Box::new(|_| custom("b", &[])),
        ])),
    )
    .await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    assert_eq!(
        r.steps(),
        vec![
            (StepOp::Replace, "a".to_string()),
            (StepOp::CreateReplacement, "a".to_string()),
            (StepOp::Same, "b".to_string()),
        ]
    );
    assert!(p.names("delete").is_empty(), "no second delete");
    assert_eq!(p.names("create"), vec!["a"]);
    let a = state(&r.result.snapshot, "a");
    assert!(!a.pending_replacement);
    assert_eq!(r.names(), vec!["a", "b"]);
}

#[tokio::test]
async fn a_pending_replacement_no_longer_registered_is_removed_without_a_delete() {
    let p = Arc::new(FakeProvider::default());
    let base = pending_replacement_base(&p).await;
    let r = run(
        &p,
        &base,
        options(),
        Some(goals(vec![Box::new(|_| custom("b", &[]))])),
    )
    .await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    assert_eq!(r.steps_of(StepOp::RemovePendingReplace), vec!["a"]);
    assert!(p.names("delete").is_empty());
    assert_eq!(r.names(), vec!["b"]);
    assert!(
        !r.result
            .snapshot
            .resources
            .iter()
            .any(|x| x.urn == Urn::new("test", "proj", None, TYPE, "a"))
    );
}

/// Diff as Pulumi's fakes do after a refresh: an update wherever the recorded outputs differ
/// from the program's inputs.
fn outputs_vs_inputs() -> Box<DiffFn> {
    Box::new(|req: &stepdeck::engine::provider::DiffRequest| {
        let mut d = stepdeck::engine::diff_inputs(&req.old_outputs, &req.new_inputs);
        if !d.changed_keys.is_empty() {
            d.changes = stepdeck::engine::provider::DiffChanges::Some;
        }
        d
    })
}

#[tokio::test]
async fn up_with_refresh_corrects_drift_and_recreates_what_vanished() {
    let p = Arc::new(FakeProvider {
        diff: Some(outputs_vs_inputs()),
        ..FakeProvider::default()
    });
    let program = || {
        goals(vec![
            Box::new(|_| custom("a", &[("k", "1")])),
            Box::new(|r| {
                let mut g = custom("b", &[("k", "1")]);
                g.dependencies = vec![r.urn("a")];
                g
            }),
        ])
    };
    let s0 = run(&p, &Snapshot::default(), options(), Some(program()))
        .await
        .result
        .snapshot;
    p.world
        .lock()
        .unwrap()
        .insert("id-a".into(), props([("k", "drifted")]));
    p.world.lock().unwrap().remove("id-b");
    p.calls.lock().unwrap().clear();
    // Without a refresh the engine believes its state: nothing to do.
    let r = run(&p, &s0, options(), Some(program())).await;
    assert_eq!(r.steps_of(StepOp::Same), vec!["a", "b"]);
    p.calls.lock().unwrap().clear();
    let mut opts = options();
    opts.refresh = true;
    let r = run(&p, &s0, opts, Some(program())).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    let mut refreshed = r.steps_of(StepOp::Refresh);
    refreshed.sort();
    assert_eq!(refreshed, vec!["a", "b"]);
    assert_eq!(r.steps_of(StepOp::Update), vec!["a"]);
    assert_eq!(r.steps_of(StepOp::Create), vec!["b"]);
    assert!(
        p.names("delete").is_empty(),
        "a vanished resource is not deleted"
    );
    assert_eq!(p.names("update"), vec!["a"]);
    assert_eq!(p.names("create"), vec!["b"]);
    let snap = &r.result.snapshot;
    assert_eq!(state(snap, "a").outputs, props([("k", "1")]));
    assert_eq!(state(snap, "b").id.as_deref(), Some("id-b"));
    assert_eq!(
        state(snap, "b").dependencies,
        vec![state(snap, "a").urn.clone()]
    );
    assert_eq!(r.names(), vec!["a", "b"]);
    assert_eq!(
        p.world.lock().unwrap().get("id-a"),
        Some(&props([("k", "1")]))
    );
}

#[tokio::test]
async fn created_and_modified_times_come_from_the_injected_clock() {
    use chrono::TimeZone;
    use stepdeck::engine::model::clock::Clock;
    let p = Arc::new(FakeProvider::default());
    let at = |h| chrono::Utc.with_ymd_and_hms(2024, 5, 1, h, 0, 0).unwrap();
    let at_run = |base: &Snapshot, h, value: &'static str| {
        let (d, rx, violations, entries) = deployment(&p, base, options());
        let d = d.with_clock(Clock::fixed(at(h)));
        let program = program(vec![res("a", vec![("v", In::Lit(value))])]);
        async move { finish(d.run(Some(program)).await, rx, &violations, &entries) }
    };
    let created = at_run(&Snapshot::default(), 9, "1").await;
    let a = state(&created.result.snapshot, "a");
    assert_eq!(a.created.as_deref(), Some(at(9).to_rfc3339().as_str()));
    assert_eq!(a.modified, a.created);
    let updated = at_run(&created.result.snapshot, 11, "2").await;
    let a = state(&updated.result.snapshot, "a");
    assert_eq!(updated.steps_of(StepOp::Update), vec!["a"]);
    assert_eq!(a.created.as_deref(), Some(at(9).to_rfc3339().as_str()));
    assert_eq!(a.modified.as_deref(), Some(at(11).to_rfc3339().as_str()));
}
