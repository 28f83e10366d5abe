//! An unchanged resource's step and events share its old state's property maps instead of
//! copying them: a no-op up of a large stack costs what a preview does.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::support;
use std::sync::Arc;

use stepdeck::engine::{EngineEvent, Snapshot, StepOp};
use support::*;

#[tokio::test]
async fn a_same_steps_events_carry_the_old_states_maps_without_copying_them() {
    let p = Arc::new(FakeProvider::default());
    let program = || goals(vec![Box::new(|_| custom("a", &[("k", "1")]))]);
    let first = run(&p, &Snapshot::default(), options(), Some(program())).await;
    assert!(first.result.outcome.is_success());
    let base = first.result.snapshot;
    let old = state(&base, "a");
    assert!(!old.outputs.is_empty(), "the fake provider gives outputs");

    let second = run(&p, &base, options(), Some(program())).await;
    assert!(second.result.outcome.is_success());
    let planned = second
        .events
        .iter()
        .find_map(|e| match e {
            EngineEvent::StepPlanned(i) if i.urn == old.urn => Some(i),
            _ => None,
        })
        .unwrap();
    assert_eq!(planned.op, StepOp::Same);
    assert!(std::ptr::eq(
        &**planned.old_inputs.as_ref().unwrap(),
        &*old.inputs
    ));
    assert!(std::ptr::eq(
        &**planned.old_outputs.as_ref().unwrap(),
        &*old.outputs
    ));
    let finished = second
        .events
        .iter()
        .find_map(|e| match e {
            EngineEvent::StepFinished { urn, outputs, .. } if *urn == old.urn => Some(outputs),
            _ => None,
        })
        .unwrap();
    assert!(std::ptr::eq(&**finished, &*old.outputs));
    assert!(std::ptr::eq(
        &*state(&second.result.snapshot, "a").outputs,
        &*old.outputs
    ));
}
