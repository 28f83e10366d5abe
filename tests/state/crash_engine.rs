//! The engine's side of crash recovery, on the conformance harness (integrity checked after
//! every journal entry): deletes of what is gone, and pending creates a provider cannot find.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::support;
use std::sync::Arc;

use stepdeck::engine::model::resource::{OperationType, PendingOperation};
use stepdeck::engine::run::events::PendingCreate;
use stepdeck::engine::{EngineEvent, Operation, Program, Snapshot, Urn};
use support::*;

fn two() -> Box<dyn Program> {
    goals(vec![
        Box::new(|_| custom("a", &[("k", "1")])),
        Box::new(|_| custom("b", &[])),
    ])
}

async fn deployed(p: &Arc<FakeProvider>) -> Snapshot {
    run(p, &Snapshot::default(), options(), Some(two()))
        .await
        .result
        .snapshot
}

#[tokio::test]
async fn a_delete_the_provider_answers_not_found_succeeds() {
    let p = Arc::new(FakeProvider::default());
    let s0 = deployed(&p).await;
    // Gone behind the state's back (a run killed after its delete, before recording it).
    let a = state(&s0, "a").id.clone().unwrap();
    p.world.lock().unwrap().remove(&a);
    let mut opts = options();
    opts.operation = Operation::Destroy;
    let r = run(&p, &s0, opts, None).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    assert!(p.names("delete").contains(&"a".to_string()));
    assert!(r.result.snapshot.resources.is_empty());
}

/// A snapshot with an interrupted create of `c`, which was never recorded.
async fn with_pending_create(p: &Arc<FakeProvider>) -> Snapshot {
    let mut s0 = deployed(p).await;
    let mut c = state(&s0, "b").clone();
    c.urn = Urn::parse(&c.urn.to_string().replace("::b", "::c")).unwrap();
    c.id = None;
    c.outputs.clear();
    s0.pending_operations.push(PendingOperation {
        resource: c,
        kind: OperationType::Creating,
    });
    s0
}

#[tokio::test]
async fn refresh_keeps_a_pending_create_its_provider_cannot_look_up_and_says_how_to_clear_it() {
    let p = Arc::new(FakeProvider::default());
    let s0 = with_pending_create(&p).await;
    let mut opts = options();
    opts.operation = Operation::Refresh;
    let r = run(&p, &s0, opts.clone(), None).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    assert_eq!(r.result.snapshot.pending_operations.len(), 1);
    let warned = warnings(&r);
    assert!(
        warned.iter().any(
            |w| w.contains("cannot look resources up") && w.contains("--clear-pending-creates")
        ),
        "{warned:?}"
    );

    opts.clear_pending_creates = true;
    let r = run(&p, &r.result.snapshot, opts, None).await;
    assert!(r.result.snapshot.pending_operations.is_empty());
    assert_eq!(r.result.snapshot.resources.len(), s0.resources.len());
    assert!(
        r.events
            .contains(&EngineEvent::PendingCreatesCleared { count: 1 }),
        "the clear is told as an event: {:?}",
        r.events
    );
}

#[tokio::test]
async fn a_pending_create_whose_provider_is_gone_stays_and_the_warning_says_why() {
    let p = Arc::new(FakeProvider::default());
    let mut s0 = with_pending_create(&p).await;
    let c = &mut s0.pending_operations[0].resource;
    let reference = c.provider.clone().unwrap();
    let gone = format!("{}-gone::0", reference.urn);
    c.provider = Some(stepdeck::engine::ProviderRef::parse(&gone).unwrap());
    let mut opts = options();
    opts.operation = Operation::Refresh;
    let r = run(&p, &s0, opts, None).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    assert_eq!(r.result.snapshot.pending_operations.len(), 1);
    let warned = warnings(&r);
    assert!(
        warned.iter().any(|w| w.starts_with(
            "the pending create of this resource stays: looking it up failed: loading the provider of "
        ) && w.ends_with(&format!(": unknown provider reference {gone}"))),
        "{warned:?}"
    );
}

#[tokio::test]
async fn a_preview_announces_the_pending_creates_and_clears_nothing() {
    let p = Arc::new(FakeProvider::default());
    let s0 = with_pending_create(&p).await;
    let mut opts = options();
    opts.operation = Operation::Preview;
    opts.dry_run = true;
    opts.clear_pending_creates = true;
    let r = run(&p, &s0, opts, Some(two())).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    let announced: Vec<&EngineEvent> = r
        .events
        .iter()
        .filter(|e| matches!(e, EngineEvent::PendingCreates { .. }))
        .collect();
    let c = &s0.pending_operations[0].resource;
    assert_eq!(
        announced,
        [&EngineEvent::PendingCreates {
            creates: vec![PendingCreate {
                urn: c.urn.clone(),
                type_: c.type_.clone(),
            }],
        }]
    );
    assert!(
        !r.events
            .iter()
            .any(|e| matches!(e, EngineEvent::PendingCreatesCleared { .. }))
    );
    assert_eq!(r.result.snapshot.pending_operations.len(), 1);

    let r = run(&p, &Snapshot::default(), options(), Some(two())).await;
    assert!(
        !r.events
            .iter()
            .any(|e| matches!(e, EngineEvent::PendingCreates { .. })),
        "nothing announced without pending creates"
    );
}

#[tokio::test]
async fn a_resolve_entry_drops_its_pending_create_and_records_what_was_found_last() {
    use stepdeck::engine::JournalEntry;
    use stepdeck::engine::journal::replay;

    let p = Arc::new(FakeProvider::default());
    let base = with_pending_create(&p).await;
    let mut found = base.pending_operations[0].resource.clone();
    found.id = Some("c-1".into());
    let resolved = replay(
        &base,
        &[JournalEntry::Resolve {
            pending: 0,
            state: Some(found.clone()),
        }],
    )
    .unwrap();
    assert!(resolved.pending_operations.is_empty());
    assert_eq!(resolved.resources.last(), Some(&found));
    resolved
        .verify_integrity()
        .expect("found after what it depends on");

    let cleared = replay(
        &base,
        &[JournalEntry::Resolve {
            pending: 0,
            state: None,
        }],
    )
    .unwrap();
    assert!(cleared.pending_operations.is_empty());
    assert_eq!(cleared.resources, base.resources);

    let bad = replay(
        &base,
        &[JournalEntry::Resolve {
            pending: 1,
            state: None,
        }],
    );
    assert!(
        bad.unwrap_err()
            .to_string()
            .contains("pending operation 1 out of range")
    );
}
