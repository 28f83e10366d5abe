//! Update plans in the engine, as Pulumi's `update_plan_test.go` exercises them: a preview
//! records a plan with each resource's seed, an update under it gives Check the same seeds,
//! and a registration the plan does not allow fails before any provider changes anything.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::support;
use std::sync::Arc;

use stepdeck::engine::{FailureCause, Operation, Outcome, Snapshot, StepOp};
use support::*;

fn program(a: &'static str) -> Box<dyn stepdeck::engine::Program> {
    goals(vec![
        Box::new(move |_| custom("a", &[("k", a)])),
        Box::new(|_| custom("b", &[("k", "2")])),
    ])
}

fn seeds(p: &FakeProvider, name: &str) -> Vec<Vec<u8>> {
    p.seeds
        .lock()
        .unwrap()
        .iter()
        .filter(|(n, _)| n == name)
        .map(|(_, s)| s.clone())
        .collect()
}

#[tokio::test]
async fn an_update_under_a_plan_reuses_its_seeds_and_refuses_a_changed_input_first() {
    let p = Arc::new(FakeProvider::default());
    let preview = options();
    let preview = stepdeck::engine::Options {
        operation: Operation::Preview,
        record_plan: true,
        ..preview
    };
    let r = run(&p, &Snapshot::default(), preview, Some(program("1"))).await;
    let plan = r
        .result
        .plan
        .expect("a preview recording a plan returns it");
    let planned_a = plan
        .resources
        .iter()
        .find(|(u, _)| u.name() == "a")
        .map(|(_, rp)| rp.clone())
        .unwrap();
    assert_eq!(planned_a.ops, vec![StepOp::Create]);
    assert_eq!(planned_a.seed.len(), 32);
    assert_eq!(seeds(&p, "a"), vec![planned_a.seed.clone()]);
    p.calls.lock().unwrap().clear();

    let plan = Arc::new(plan);
    let edited = stepdeck::engine::Options {
        plan: Some(plan.clone()),
        ..options()
    };
    let r = run(&p, &Snapshot::default(), edited, Some(program("changed"))).await;
    match &r.result.outcome {
        Outcome::Failed(m) => {
            assert!(
                m.message().contains(
                    "::a violates the plan: input `k` was planned as \"1\" but is \"changed\""
                ),
                "{m}"
            );
            // The refusal answers the registration; the program fails with it.
            assert_eq!(m.cause(), FailureCause::Program);
        }
        o => panic!("expected the plan to refuse, got {o:?}"),
    }
    assert!(p.names("create").is_empty(), "{:?}", p.names("create"));

    let under_plan = stepdeck::engine::Options {
        plan: Some(plan.clone()),
        ..options()
    };
    let r = run(&p, &Snapshot::default(), under_plan, Some(program("1"))).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    assert_eq!(p.names("create"), vec!["a", "b"]);
    let a = seeds(&p, "a");
    assert_eq!(a.last(), Some(&planned_a.seed), "Check got the plan's seed");
    assert!(r.result.plan.is_none(), "an update records no plan");
}
