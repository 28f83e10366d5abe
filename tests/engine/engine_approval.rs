//! Approval policies at the engine: steps under `ask` wait at their gate while independent work
//! runs on, decisions (operator, kind-wide, decision file) release or decline them, a declined
//! step skips exactly what depends on it, and step mode and breakpoints hold steps back.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::support;
use std::sync::Arc;
use std::time::Duration;

use stepdeck::engine::run::approval::{ApprovalKind, ApprovalRule, Approvals};
use stepdeck::engine::run::events::Decider;
use stepdeck::engine::run::gate_decisions::GateDecisions;
use stepdeck::engine::{
    ApprovalPolicy, EngineEvent, Goal, Options, ProgramError, ProgramFn, ResourceMonitor, Snapshot,
    StepOp,
};
use support::*;

fn policy(rules: &[&str]) -> Options {
    let mut opts = options();
    let rules = rules
        .iter()
        .flat_map(|r| ApprovalRule::parse_flag(r).unwrap())
        .collect();
    opts.approvals = Approvals::new(rules, ApprovalPolicy::Auto);
    opts
}

/// A program registering every goal at once, as a program with independent resources does.
fn concurrent(goals: Vec<Goal>) -> Box<dyn stepdeck::engine::Program> {
    Box::new(ProgramFn(move |monitor: ResourceMonitor| async move {
        let registrations = goals.into_iter().map(|g| {
            let m = monitor.clone();
            async move { m.register(g).await }
        });
        for r in futures::future::join_all(registrations).await {
            r.map_err(|e| ProgramError(e.to_string()))?;
        }
        Ok(())
    }))
}

async fn next(
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<EngineEvent>,
    seen: &mut Vec<EngineEvent>,
    f: impl Fn(&EngineEvent) -> bool,
) -> EngineEvent {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let e = tokio::time::timeout_at(deadline, rx.recv())
            .await
            .expect("event in time")
            .expect("stream open");
        seen.push(e.clone());
        if f(&e) {
            return e;
        }
    }
}

/// Whether an event is the end of a step of `op`.
fn finished(op: StepOp) -> impl Fn(&EngineEvent) -> bool {
    move |e| matches!(e, EngineEvent::StepFinished { op: o, .. } if *o == op)
}

fn gate_of(e: &EngineEvent) -> u64 {
    match e {
        EngineEvent::GateOpened { gate, .. } => *gate,
        other => panic!("not a gate: {other:?}"),
    }
}

fn decisions(run_events: &[EngineEvent]) -> Vec<(String, bool, Decider)> {
    run_events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::Decision {
                urn, approved, by, ..
            } => Some((urn.name().to_string(), *approved, by.clone())),
            _ => None,
        })
        .collect()
}

fn skipped(events: &[EngineEvent]) -> Vec<String> {
    let mut names: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::StepSkipped { urn, .. } => Some(urn.name().to_string()),
            _ => None,
        })
        .collect();
    names.sort();
    names
}

async fn stack_of(p: &Arc<FakeProvider>, specs: Vec<Spec>) -> Snapshot {
    let s = run(p, &Snapshot::default(), options(), Some(program(specs)))
        .await
        .result
        .snapshot;
    p.calls.lock().unwrap().clear();
    s
}

#[tokio::test(start_paused = true)]
async fn a_create_under_ask_waits_at_its_gate_while_independent_creates_finish() {
    let p = Arc::new(FakeProvider::default());
    let opts = policy(&["creates[**::gated]=ask"]);
    let (d, mut rx, violations, entries) = deployment(&p, &Snapshot::default(), opts);
    let control = d.control();
    let goals = vec![
        custom("gated", &[]),
        custom("free1", &[]),
        custom("free2", &[]),
    ];
    let handle = tokio::spawn(d.run(Some(concurrent(goals))));
    let mut seen = Vec::new();
    let gate = next(&mut rx, &mut seen, |e| {
        matches!(e, EngineEvent::GateOpened { .. })
    })
    .await;
    assert!(matches!(
        &gate,
        EngineEvent::GateOpened { op: StepOp::Create, urn, kind: ApprovalKind::Creates, .. }
            if urn.name() == "gated"
    ));
    for _ in 0..2 {
        next(&mut rx, &mut seen, finished(StepOp::Create)).await;
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut created = p.names("create");
    created.sort();
    assert_eq!(created, vec!["free1", "free2"], "the gated create waits");
    control.approve(gate_of(&gate));
    let mut run = finish(handle.await.unwrap(), rx, &violations, &entries);
    seen.append(&mut run.events);
    assert!(run.result.outcome.is_success(), "{:?}", run.result.outcome);
    assert_eq!(p.names("create").last().unwrap(), "gated");
    let d = decisions(&seen);
    assert_eq!(d.len(), 1);
    assert!(d[0].1 && matches!(&d[0].2, Decider::Operator(who) if !who.is_empty()));
}

#[tokio::test(start_paused = true)]
async fn a_delete_under_ask_waits_while_the_creates_finish_then_runs_when_approved() {
    let p = Arc::new(FakeProvider::default());
    let s0 = stack_of(&p, vec![res("old", vec![])]).await;
    let (d, mut rx, violations, entries) = deployment(&p, &s0, policy(&["deletes=ask"]));
    let control = d.control();
    let handle = tokio::spawn(d.run(Some(program(vec![
        res("new1", vec![]),
        res("new2", vec![]),
    ]))));
    let mut seen = Vec::new();
    let gate = next(&mut rx, &mut seen, |e| {
        matches!(e, EngineEvent::GateOpened { .. })
    })
    .await;
    assert!(
        matches!(&gate, EngineEvent::GateOpened { op: StepOp::Delete, urn, .. } if urn.name() == "old")
    );
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(p.names("create"), vec!["new1", "new2"]);
    assert!(
        p.names("delete").is_empty(),
        "nothing deleted before the decision"
    );
    control.approve(gate_of(&gate));
    let run = finish(handle.await.unwrap(), rx, &violations, &entries);
    assert!(run.result.outcome.is_success(), "{:?}", run.result.outcome);
    assert_eq!(p.names("delete"), vec!["old"]);
    assert_eq!(run.names(), vec!["new1", "new2"]);
}

#[tokio::test(start_paused = true)]
async fn a_declined_create_skips_exactly_what_depends_on_it() {
    let p = Arc::new(FakeProvider::default());
    let mut opts = policy(&["creates=ask"]);
    let mut file = GateDecisions::new("decisions.yaml");
    file.push("**::a", "decline").unwrap();
    file.push("**", "approve").unwrap();
    opts.decisions = Some(file);
    opts.unattended = true;
    let specs = vec![
        res("a", vec![]),
        res("b", vec![("x", In::Out("a", "id"))]),
        res("c", vec![]),
        res("d", vec![("y", In::Out("b", "id"))]),
        Spec {
            depends_on: vec!["c"],
            ..res("e", vec![])
        },
    ];
    let run = run(&p, &Snapshot::default(), opts, Some(program(specs))).await;
    assert!(run.result.outcome.is_success(), "{:?}", run.result.outcome);
    assert_eq!(p.names("create"), vec!["c", "e"]);
    assert_eq!(skipped(&run.events), vec!["a", "b", "d"]);
    assert_eq!(run.names(), vec!["c", "e"]);
    assert_eq!(run.result.declined, 0, "the count is of declined cascades");
    let d = decisions(&run.events);
    assert!(d.contains(&("a".into(), false, Decider::File("decisions.yaml".into()))));
    assert!(d.contains(&("c".into(), true, Decider::File("decisions.yaml".into()))));
}

#[tokio::test(start_paused = true)]
async fn a_declined_delete_keeps_the_resource_and_what_it_needs() {
    let p = Arc::new(FakeProvider::default());
    let s0 = stack_of(
        &p,
        vec![
            res("base", vec![]),
            res("top", vec![("x", In::Out("base", "id"))]),
            res("lone", vec![]),
        ],
    )
    .await;
    let mut opts = policy(&["deletes[**::top]=decline"]);
    opts.unattended = true;
    let run = run(&p, &s0, opts, Some(program(vec![]))).await;
    assert!(run.result.outcome.is_success(), "{:?}", run.result.outcome);
    assert_eq!(p.names("delete"), vec!["lone"]);
    assert_eq!(run.names(), vec!["base", "top"]);
    assert_eq!(
        decisions(&run.events),
        vec![("top".into(), false, Decider::Policy)]
    );
}

#[tokio::test(start_paused = true)]
async fn an_unattended_gate_without_a_decision_is_declined_with_a_warning() {
    let p = Arc::new(FakeProvider::default());
    let mut opts = policy(&["creates[**::a]=ask"]);
    opts.unattended = true;
    let run = run(
        &p,
        &Snapshot::default(),
        opts,
        Some(program(vec![res("a", vec![]), res("b", vec![])])),
    )
    .await;
    assert_eq!(p.names("create"), vec!["b"]);
    let w = warnings(&run);
    assert!(
        w.iter()
            .any(|m| m.contains("creates=ask") && m.contains("no one can be asked")),
        "{w:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn approving_a_kind_releases_only_the_gates_of_that_kind() {
    let p = Arc::new(FakeProvider::default());
    let s0 = stack_of(&p, vec![res("u", vec![("v", In::Lit("1"))])]).await;
    let (d, mut rx, violations, entries) = deployment(&p, &s0, policy(&["creates,updates=ask"]));
    let control = d.control();
    let goals = vec![custom("u", &[("v", "2")]), custom("n", &[])];
    let handle = tokio::spawn(d.run(Some(concurrent(goals))));
    let mut seen = Vec::new();
    for _ in 0..2 {
        next(&mut rx, &mut seen, |e| {
            matches!(e, EngineEvent::GateOpened { .. })
        })
        .await;
    }
    control.decide_kind(ApprovalKind::Creates, true);
    next(&mut rx, &mut seen, finished(StepOp::Create)).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(p.names("create"), vec!["n"]);
    assert!(p.names("update").is_empty(), "the update still waits");
    control.approve_all();
    let run = finish(handle.await.unwrap(), rx, &violations, &entries);
    assert!(run.result.outcome.is_success(), "{:?}", run.result.outcome);
    assert_eq!(p.names("update"), vec!["u"]);
}

#[tokio::test(start_paused = true)]
async fn step_mode_lets_exactly_one_step_start_per_step() {
    let p = Arc::new(FakeProvider::default());
    let (d, mut rx, violations, entries) = deployment(&p, &Snapshot::default(), options());
    let control = d.control();
    control.pause();
    let goals = vec![custom("r1", &[]), custom("r2", &[]), custom("r3", &[])];
    let handle = tokio::spawn(d.run(Some(concurrent(goals))));
    let mut seen = Vec::new();
    // The default provider's registration comes first; it is a step like any other.
    next(&mut rx, &mut seen, |e| {
        matches!(e, EngineEvent::ChainQueued { .. })
    })
    .await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        !seen
            .iter()
            .any(|e| matches!(e, EngineEvent::StepStarted { .. }))
    );
    control.step_once();
    next(&mut rx, &mut seen, |e| {
        matches!(e, EngineEvent::StepFinished { .. })
    })
    .await;
    for _ in 0..3 {
        next(&mut rx, &mut seen, |e| {
            matches!(e, EngineEvent::ChainQueued { .. })
        })
        .await;
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(p.names("create").is_empty(), "paused again after one step");
    for n in 1..=2 {
        control.step_once();
        next(&mut rx, &mut seen, |e| {
            matches!(e, EngineEvent::StepFinished { .. })
        })
        .await;
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(p.names("create").len(), n, "one step per step");
        assert!(control.is_paused());
    }
    control.resume();
    let run = finish(handle.await.unwrap(), rx, &violations, &entries);
    assert!(run.result.outcome.is_success());
    assert_eq!(p.names("create").len(), 3);
}

#[tokio::test(start_paused = true)]
async fn pause_before_stops_at_the_matching_step_and_says_why() {
    let p = Arc::new(FakeProvider::default());
    let mut opts = options();
    opts.pause_before = vec!["**::b".into()];
    let (d, mut rx, violations, entries) = deployment(&p, &Snapshot::default(), opts);
    let control = d.control();
    let specs = vec![res("a", vec![]), res("b", vec![]), res("c", vec![])];
    let handle = tokio::spawn(d.run(Some(program(specs))));
    let mut seen = Vec::new();
    let hit = next(&mut rx, &mut seen, |e| {
        matches!(e, EngineEvent::Breakpoint { .. })
    })
    .await;
    assert!(
        matches!(&hit, EngineEvent::Breakpoint { op: StepOp::Create, urn } if urn.name() == "b")
    );
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(p.names("create"), vec!["a"]);
    assert!(control.is_paused());
    while let Ok(e) = rx.try_recv() {
        seen.push(e);
    }
    assert!(seen.iter().any(|e| matches!(e, EngineEvent::Paused)));
    control.resume();
    let run = finish(handle.await.unwrap(), rx, &violations, &entries);
    assert!(run.result.outcome.is_success());
    assert_eq!(p.names("create"), vec!["a", "b", "c"]);
}

#[tokio::test(start_paused = true)]
async fn a_preview_runs_through_the_breakpoints_of_its_apply() {
    let p = Arc::new(FakeProvider::default());
    let mut opts = options();
    opts.dry_run = true;
    opts.pause_before = vec!["**".into()];
    let (d, rx, violations, entries) = deployment(&p, &Snapshot::default(), opts);
    let control = d.control();
    let specs = vec![res("a", vec![]), res("b", vec![])];
    let done = tokio::time::timeout(Duration::from_secs(3600), d.run(Some(program(specs))))
        .await
        .expect("a preview never stops at a breakpoint");
    assert!(!control.is_paused());
    let run = finish(done, rx, &violations, &entries);
    assert!(run.result.outcome.is_success());
    assert!(
        !run.events
            .iter()
            .any(|e| matches!(e, EngineEvent::Breakpoint { .. } | EngineEvent::Paused)),
        "{:?}",
        run.events
    );
}

#[tokio::test(start_paused = true)]
async fn a_step_lets_the_diff_before_it_run_too() {
    let p = Arc::new(FakeProvider::default());
    let s0 = stack_of(&p, vec![res("r", vec![("v", In::Lit("1"))])]).await;
    let mut opts = options();
    opts.parallel_diff = true;
    let (d, mut rx, violations, entries) = deployment(&p, &s0, opts);
    let control = d.control();
    control.pause();
    let handle = tokio::spawn(d.run(Some(program(vec![res("r", vec![("v", In::Lit("2"))])]))));
    let mut seen = Vec::new();
    // The default provider's diff and step come first: one step lets both through.
    next(&mut rx, &mut seen, |e| {
        matches!(e, EngineEvent::DiffQueued { .. })
    })
    .await;
    control.step_once();
    next(
        &mut rx,
        &mut seen,
        |e| matches!(e, EngineEvent::DiffQueued { urn } if urn.name() == "r"),
    )
    .await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        !seen
            .iter()
            .any(|e| matches!(e, EngineEvent::DiffStarted { urn, .. } if urn.name() == "r")),
        "paused: no diff of r runs"
    );
    control.step_once();
    next(&mut rx, &mut seen, finished(StepOp::Update)).await;
    assert!(control.is_paused());
    control.resume();
    let run = finish(handle.await.unwrap(), rx, &violations, &entries);
    assert!(run.result.outcome.is_success(), "{:?}", run.result.outcome);
    assert_eq!(p.names("update"), vec!["r"]);
}
