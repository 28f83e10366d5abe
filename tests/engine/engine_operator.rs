//! The operator's gates: pause, DBR approval, cancel and terminate, and parallel diff agreeing
//! with serial diff.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::support;
use std::sync::Arc;
use std::time::Duration;

use proptest::prelude::*;
use stepdeck::engine::run::approval::Approvals;
use stepdeck::engine::{ApprovalPolicy, EngineEvent, Outcome, Snapshot, StepOp};
use support::*;

fn chain_specs(k: &'static str) -> Vec<Spec> {
    vec![
        res("db", vec![("engine", In::Lit(k))]),
        res("app", vec![("host", In::Out("db", "engine"))]),
        res("other", vec![("v", In::Lit(k))]),
    ]
}

async fn wait_for(
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<EngineEvent>,
    seen: &mut Vec<EngineEvent>,
    f: impl Fn(&EngineEvent) -> bool,
) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let e = tokio::time::timeout_at(deadline, rx.recv())
            .await
            .expect("event in time")
            .expect("stream open");
        let hit = f(&e);
        seen.push(e);
        if hit {
            return;
        }
    }
}

#[tokio::test(start_paused = true)]
async fn pause_holds_every_new_step_and_resume_releases_them() {
    let p = Arc::new(FakeProvider {
        delay: Duration::from_millis(30),
        ..FakeProvider::default()
    });
    let specs: Vec<Spec> = ["r1", "r2", "r3", "r4"]
        .into_iter()
        .map(|n| res(n, vec![]))
        .collect();
    let (d, mut rx, violations, entries) = deployment(&p, &Snapshot::default(), options());
    let control = d.control();
    control.pause();
    let handle = tokio::spawn(d.run(Some(program(specs))));
    let mut seen = Vec::new();
    wait_for(&mut rx, &mut seen, |e| {
        matches!(e, EngineEvent::ChainQueued { .. })
    })
    .await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    while let Ok(e) = rx.try_recv() {
        seen.push(e);
    }
    assert!(p.calls().is_empty(), "no provider call while paused");
    // A paused chain does not even take a worker: the pool shows only what really runs.
    assert!(!seen.iter().any(|e| matches!(
        e,
        EngineEvent::StepStarted { .. } | EngineEvent::ChainStarted { .. }
    )));
    control.resume();
    let result = handle.await.unwrap();
    let run = finish(result, rx, &violations, &entries);
    assert!(run.result.outcome.is_success());
    assert_eq!(p.names("create"), vec!["r1", "r2", "r3", "r4"]);
    assert!(seen.iter().any(|e| matches!(e, EngineEvent::Paused)));
    assert!(run.events.iter().any(|e| matches!(e, EngineEvent::Resumed)));
}

async fn cascade_run(
    decide: impl FnOnce(&stepdeck::engine::Control, u64),
) -> (Run, Arc<FakeProvider>, Snapshot) {
    let p = Arc::new(FakeProvider {
        diff: Some(replace_on(&["engine", "host"], true)),
        ..FakeProvider::default()
    });
    let s0 = run(
        &p,
        &Snapshot::default(),
        options(),
        Some(program(chain_specs("pg15"))),
    )
    .await
    .result
    .snapshot;
    p.calls.lock().unwrap().clear();
    let mut opts = options();
    opts.approvals = Approvals::new(Vec::new(), ApprovalPolicy::Ask);
    let (d, mut rx, violations, entries) = deployment(&p, &s0, opts);
    let control = d.control();
    let handle = tokio::spawn(d.run(Some(program(chain_specs("pg16")))));
    let mut seen = Vec::new();
    wait_for(&mut rx, &mut seen, |e| {
        matches!(e, EngineEvent::PendingReplacement { .. })
    })
    .await;
    let Some(EngineEvent::PendingReplacement {
        cascade,
        root,
        members,
        ..
    }) = seen.last().cloned()
    else {
        unreachable!()
    };
    assert_eq!(root.name(), "db");
    assert_eq!(
        members.iter().map(|m| m.urn.name()).collect::<Vec<_>>(),
        vec!["db", "app"]
    );
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        p.names("delete").is_empty(),
        "nothing is deleted before the decision"
    );
    decide(&control, cascade);
    let result = handle.await.unwrap();
    let mut run = finish(result, rx, &violations, &entries);
    seen.append(&mut run.events);
    run.events = seen;
    (run, p, s0)
}

#[tokio::test(start_paused = true)]
async fn approving_a_cascade_runs_it() {
    let (run, p, _) = cascade_run(|c, id| c.approve(id)).await;
    assert!(run.result.outcome.is_success(), "{:?}", run.result.outcome);
    assert_eq!(p.names("delete"), vec!["app", "db"]);
    let mut replaced = run.steps_of(StepOp::Replace);
    replaced.sort();
    assert_eq!(replaced, vec!["app", "db"]);
    assert!(
        run.events
            .iter()
            .any(|e| matches!(e, EngineEvent::Decision { approved: true, .. }))
    );
}

#[tokio::test(start_paused = true)]
async fn declining_a_cascade_keeps_old_states_and_other_work_finishes() {
    let (run, p, s0) = cascade_run(|c, id| c.decline(id)).await;
    assert!(run.result.outcome.is_success(), "{:?}", run.result.outcome);
    assert!(p.names("delete").is_empty());
    assert_eq!(p.names("update"), vec!["other"]);
    assert_eq!(run.result.declined, 1);
    for name in ["db", "app"] {
        let old = s0.resources.iter().find(|r| r.urn.name() == name).unwrap();
        let new = run
            .result
            .snapshot
            .resources
            .iter()
            .find(|r| r.urn.name() == name)
            .unwrap();
        assert_eq!(old, new, "{name} keeps its old state");
    }
}

#[tokio::test(start_paused = true)]
async fn cancel_lets_running_steps_finish_and_records_them() {
    let p = Arc::new(FakeProvider {
        delay: Duration::from_millis(300),
        ..FakeProvider::default()
    });
    let specs: Vec<Spec> = ["a", "b", "c"]
        .into_iter()
        .map(|n| res(n, vec![]))
        .collect();
    let (d, mut rx, violations, entries) = deployment(&p, &Snapshot::default(), options());
    let control = d.control();
    let handle = tokio::spawn(d.run(Some(program(specs))));
    let mut seen = Vec::new();
    wait_for(
        &mut rx,
        &mut seen,
        |e| matches!(e, EngineEvent::StepStarted { urn, .. } if urn.name() == "a"),
    )
    .await;
    control.cancel();
    let run = finish(handle.await.unwrap(), rx, &violations, &entries);
    assert_eq!(run.result.outcome, Outcome::Cancelled);
    assert_eq!(
        p.names("create"),
        vec!["a"],
        "a finished; nothing new started"
    );
    assert_eq!(run.names(), vec!["a"]);
    assert!(run.result.snapshot.pending_operations.is_empty());
}

#[tokio::test(start_paused = true)]
async fn terminate_leaves_in_flight_operations_pending() {
    let p = Arc::new(FakeProvider {
        delay: Duration::from_millis(500),
        ..FakeProvider::default()
    });
    let (d, mut rx, violations, entries) = deployment(&p, &Snapshot::default(), options());
    let control = d.control();
    let handle = tokio::spawn(d.run(Some(program(vec![res("a", vec![])]))));
    let mut seen = Vec::new();
    wait_for(
        &mut rx,
        &mut seen,
        |e| matches!(e, EngineEvent::StepStarted { urn, .. } if urn.name() == "a"),
    )
    .await;
    control.cancel();
    control.cancel();
    let run = finish(handle.await.unwrap(), rx, &violations, &entries);
    assert_eq!(run.result.outcome, Outcome::Terminated);
    let pending: Vec<_> = run
        .result
        .snapshot
        .pending_operations
        .iter()
        .map(|p| p.resource.urn.name().to_string())
        .collect();
    assert_eq!(pending, vec!["a"]);
    assert!(run.names().is_empty());
}

#[tokio::test(start_paused = true)]
async fn dropping_a_run_stops_it_and_its_steps() {
    let p = Arc::new(FakeProvider {
        delay: Duration::from_secs(600),
        ..FakeProvider::default()
    });
    let (d, mut rx, _, _) = deployment(&p, &Snapshot::default(), options());
    let run = d.run(Some(program(vec![res("a", vec![])])));
    let mut seen = Vec::new();
    tokio::select! {
        _ = run => panic!("the run ended while its create was still waiting"),
        () = wait_for(
            &mut rx,
            &mut seen,
            |e| matches!(e, EngineEvent::StepStarted { urn, .. } if urn.name() == "a"),
        ) => {}
    }
    // The run (a task of its own) and its step's provider call are gone, and with them every
    // handle on the provider but ours: nothing goes on running detached.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while Arc::strong_count(&p) > 1 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the dropped run still holds the provider"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// A layered random graph: resource i references up to two earlier resources.
fn graph_specs(edges: &[(usize, usize)], n: usize, version: &'static str) -> Vec<Spec> {
    const NAMES: [&str; 12] = [
        "n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9", "n10", "n11",
    ];
    (0..n)
        .map(|i| {
            let mut inputs = vec![("v", In::Lit(if i % 3 == 0 { version } else { "same" }))];
            for (k, &(from, to)) in edges.iter().enumerate() {
                if from == i && to < i {
                    inputs.push((["d0", "d1", "d2", "d3"][k % 4], In::Out(NAMES[to], "v")));
                }
            }
            res(NAMES[i], inputs)
        })
        .collect()
}

fn plan(parallel_diff: bool, edges: Vec<(usize, usize)>, n: usize) -> Vec<(StepOp, String)> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let p = Arc::new(FakeProvider {
            diff: Some(replace_on(&["d0", "d2"], false)),
            ..FakeProvider::default()
        });
        let s0 = run(
            &p,
            &Snapshot::default(),
            options(),
            Some(program(graph_specs(&edges, n, "1"))),
        )
        .await
        .result
        .snapshot;
        let mut opts = options();
        opts.parallel_diff = parallel_diff;
        let r = run(&p, &s0, opts, Some(program(graph_specs(&edges, n, "2")))).await;
        let mut steps = r.steps();
        steps.sort();
        steps
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]
    #[test]
    fn parallel_diff_plans_what_serial_diff_plans(n in 2usize..12, edges in proptest::collection::vec((0usize..12, 0usize..12), 0..16)) {
        prop_assert_eq!(plan(true, edges.clone(), n), plan(false, edges, n));
    }
}
