//! Targeted operations (Pulumi's target_test.go): untargeted resources keep their state,
//! skipped creates, targeted deletes and their dependents, excludes.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::support;
use std::sync::Arc;

use stepdeck::engine::{FailureCause, Outcome, Snapshot, StepOp};
use support::*;

fn urn(name: &str) -> String {
    format!("urn:pulumi:test::proj::{TYPE}::{name}")
}

fn abc(k: &'static str) -> Box<dyn stepdeck::engine::Program> {
    goals(vec![
        Box::new(move |_| custom("a", &[("k", k)])),
        Box::new(|r| {
            let mut g = custom("b", &[("k", k)]);
            g.dependencies = vec![r.urn("a")];
            g
        }),
        Box::new(move |_| custom("c", &[("k", k)])),
    ])
}

async fn base(p: &Arc<FakeProvider>) -> Snapshot {
    let s = run(p, &Snapshot::default(), options(), Some(abc("1")))
        .await
        .result
        .snapshot;
    p.calls.lock().unwrap().clear();
    s
}

#[tokio::test]
async fn untargeted_resources_keep_their_state() {
    let p = Arc::new(FakeProvider::default());
    let s0 = base(&p).await;
    let mut opts = options();
    opts.targets = vec![urn("a")];
    let r = run(&p, &s0, opts, Some(abc("2"))).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    assert_eq!(r.steps_of(StepOp::Update), vec!["a"]);
    assert_eq!(p.names("update"), vec!["a"]);
    assert_eq!(state(&r.result.snapshot, "b"), state(&s0, "b"));
    assert_eq!(state(&r.result.snapshot, "c"), state(&s0, "c"));
}

#[tokio::test]
async fn target_dependents_reach_what_depends_on_a_target() {
    let p = Arc::new(FakeProvider::default());
    let s0 = base(&p).await;
    let mut opts = options();
    opts.targets = vec![urn("a")];
    opts.target_dependents = true;
    let r = run(&p, &s0, opts, Some(abc("2"))).await;
    assert_eq!(r.steps_of(StepOp::Update), vec!["a", "b"]);
    assert_eq!(state(&r.result.snapshot, "c"), state(&s0, "c"));
}

#[tokio::test]
async fn excluded_resources_are_left_alone() {
    let p = Arc::new(FakeProvider::default());
    let s0 = base(&p).await;
    let mut opts = options();
    opts.excludes = vec![format!("urn:pulumi:test::proj::{TYPE}::*b*")];
    let r = run(&p, &s0, opts, Some(abc("2"))).await;
    assert_eq!(r.steps_of(StepOp::Update), vec!["a", "c"]);
    assert_eq!(state(&r.result.snapshot, "b"), state(&s0, "b"));
}

#[tokio::test]
async fn a_target_depending_on_a_skipped_create_is_an_error() {
    let p = Arc::new(FakeProvider::default());
    let mut opts = options();
    opts.targets = vec![urn("b")];
    let r = run(&p, &Snapshot::default(), opts, Some(abc("1"))).await;
    let Outcome::Failed(msg) = &r.result.outcome else {
        panic!("{:?}", r.result.outcome)
    };
    let msg = msg.message();
    assert!(
        msg.contains(&urn("a"))
            && msg.contains("will be created but was not specified in --target list"),
        "{msg}"
    );
    assert!(p.names("create").is_empty());
    assert!(r.names().is_empty());
}

#[tokio::test]
async fn a_targeted_delete_needs_its_dependents_targeted() {
    let p = Arc::new(FakeProvider::default());
    let s0 = base(&p).await;
    let only_c = || goals(vec![Box::new(|_| custom("c", &[("k", "1")]))]);
    let mut opts = options();
    opts.targets = vec![urn("a")];
    let r = run(&p, &s0, opts.clone(), Some(only_c())).await;
    let errs = errors(&r);
    assert!(
        errs.iter().any(|m| m.contains(&urn("b"))
            && m.contains("will be destroyed but was not specified in --target list")),
        "{errs:?}"
    );
    assert!(matches!(r.result.outcome, Outcome::Failed(_)));
    assert!(p.names("delete").is_empty());
    let mut names = r.names();
    names.sort();
    assert_eq!(names, vec!["a", "b", "c"]);
    // With target_dependents the dependent goes too, first.
    opts.target_dependents = true;
    let r = run(&p, &s0, opts, Some(only_c())).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    assert_eq!(p.names("delete"), vec!["b", "a"]);
    assert_eq!(r.names(), vec!["c"]);
}

#[tokio::test]
async fn unknown_targets_are_listed_and_fail_the_run() {
    let p = Arc::new(FakeProvider::default());
    let s0 = base(&p).await;
    let mut opts = options();
    opts.targets = vec![urn("a"), urn("nope"), urn("gone")];
    let r = run(&p, &s0, opts, Some(abc("2"))).await;
    let Outcome::Failed(msg) = &r.result.outcome else {
        panic!("{:?}", r.result.outcome)
    };
    assert_eq!(msg.cause(), FailureCause::Targets);
    let msg = msg.message();
    assert!(
        msg.contains("could not be found")
            && msg.contains(&urn("nope"))
            && msg.contains(&urn("gone")),
        "{msg}"
    );
    assert_eq!(
        errors(&r)
            .iter()
            .filter(|m| m.contains("could not be found in the stack"))
            .count(),
        2
    );
    // The known target still ran.
    assert_eq!(p.names("update"), vec!["a"]);
    // An unknown replace target stops the run before the program.
    p.calls.lock().unwrap().clear();
    let mut opts = options();
    opts.replace = vec![urn("nope")];
    let r = run(&p, &s0, opts, Some(abc("2"))).await;
    assert!(matches!(r.result.outcome, Outcome::Failed(_)));
    assert!(p.calls().is_empty());
}

fn two_chains() -> Box<dyn stepdeck::engine::Program> {
    goals(vec![
        Box::new(|_| custom("a", &[])),
        Box::new(|r| {
            let mut g = custom("b", &[]);
            g.dependencies = vec![r.urn("a")];
            g
        }),
        Box::new(|_| custom("c", &[])),
        Box::new(|r| {
            let mut g = custom("d", &[]);
            g.dependencies = vec![r.urn("c")];
            g
        }),
    ])
}

#[tokio::test]
async fn a_preview_reports_every_skipped_create_dependency_an_update_stops_at_the_first() {
    let p = Arc::new(FakeProvider::default());
    let mut opts = options();
    opts.targets = vec![urn("b"), urn("d")];
    opts.operation = stepdeck::engine::Operation::Preview;
    let r = run(&p, &Snapshot::default(), opts.clone(), Some(two_chains())).await;
    assert!(matches!(r.result.outcome, Outcome::Failed(_)));
    let skipped: Vec<String> = errors(&r)
        .into_iter()
        .filter(|m| m.contains("will be created but was not specified in --target list"))
        .collect();
    assert_eq!(skipped.len(), 2, "{skipped:#?}");
    opts.operation = stepdeck::engine::Operation::Update;
    p.calls.lock().unwrap().clear();
    let r = run(&p, &Snapshot::default(), opts, Some(two_chains())).await;
    assert!(matches!(r.result.outcome, Outcome::Failed(_)));
    // One refusal (the program's own failure repeats it).
    let skipped = errors(&r)
        .into_iter()
        .filter(|m| m.contains("will be created but was not specified in --target list"))
        .filter(|m| !m.starts_with("the program failed"))
        .count();
    assert_eq!(skipped, 1);
    assert!(p.names("create").is_empty());
}

#[tokio::test]
async fn target_dependents_follow_an_explicit_provider() {
    let p = Arc::new(FakeProvider::default());
    let program = |k: &'static str| {
        goals(vec![
            Box::new(|_| {
                stepdeck::engine::Goal::custom("pulumi:providers:pkgA", "prov", Default::default())
            }),
            Box::new(move |r| {
                let mut g = custom("a", &[("k", k)]);
                g.provider = Some(r.reference("prov"));
                g
            }),
            Box::new(move |_| custom("c", &[("k", k)])),
        ])
    };
    let s0 = run(&p, &Snapshot::default(), options(), Some(program("1")))
        .await
        .result
        .snapshot;
    let mut opts = options();
    opts.targets = vec!["urn:pulumi:test::proj::pulumi:providers:pkgA::prov".into()];
    opts.target_dependents = true;
    let r = run(&p, &s0, opts, Some(program("2"))).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    assert_eq!(r.steps_of(StepOp::Update), vec!["a"]);
    assert_eq!(state(&r.result.snapshot, "c"), state(&s0, "c"));
}

#[tokio::test]
async fn excluded_resources_and_what_they_need_are_not_deleted() {
    let p = Arc::new(FakeProvider::default());
    let s0 = base(&p).await;
    let empty = || goals(vec![]);
    let mut opts = options();
    opts.excludes = vec![urn("b")];
    let r = run(&p, &s0, opts, Some(empty())).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    // b is excluded and needs a: only c goes.
    assert_eq!(p.names("delete"), vec!["c"]);
    assert_eq!(r.names(), vec!["a", "b"]);
}

#[tokio::test]
async fn exclude_dependents_leaves_what_depends_on_an_excluded_resource_alone() {
    let p = Arc::new(FakeProvider::default());
    let s0 = base(&p).await;
    let mut opts = options();
    opts.excludes = vec![urn("a")];
    opts.exclude_dependents = true;
    let r = run(&p, &s0, opts.clone(), Some(abc("2"))).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    assert_eq!(r.steps_of(StepOp::Update), vec!["c"]);
    assert_eq!(state(&r.result.snapshot, "b"), state(&s0, "b"));
    // Deletes: a dependent of an excluded resource is kept too.
    p.calls.lock().unwrap().clear();
    let r = run(&p, &s0, opts, Some(goals(vec![]))).await;
    assert_eq!(p.names("delete"), vec!["c"]);
    assert_eq!(r.names(), vec!["a", "b"]);
}

fn targeting(names: &[&str], dependents: bool) -> stepdeck::engine::Options {
    let mut opts = options();
    opts.targets = names.iter().map(|n| urn(n)).collect();
    opts.target_dependents = dependents;
    opts
}

#[tokio::test]
async fn an_untargeted_resource_keeps_the_old_dependencies_the_program_dropped_before_it() {
    // Pulumi's getDependencySteps: c keeps its old state, which needs b; the program dropped b
    // and the targets spare it, so b is kept too, before c.
    let p = Arc::new(FakeProvider::default());
    let mut b = res("b", vec![]);
    b.depends_on = vec!["a"];
    let mut c = res("c", vec![]);
    c.depends_on = vec!["b"];
    let s0 = run(
        &p,
        &Snapshot::default(),
        options(),
        Some(program(vec![res("a", vec![]), b, c])),
    )
    .await
    .result
    .snapshot;
    let next = Some(program(vec![res("a", vec![]), res("c", vec![])]));
    let r = run(&p, &s0, targeting(&["a"], false), next).await;
    assert_eq!(r.result.outcome, Outcome::Succeeded);
    assert_eq!(r.names(), vec!["a", "b", "c"]);
}

#[tokio::test]
async fn an_untargeted_recreation_may_not_need_a_skipped_create() {
    // a's delete-before-replace deletes c; c, untargeted, is recreated, but now depends on b,
    // whose create the targets skip: an error, as Pulumi's validateSteps makes it.
    let p = Arc::new(FakeProvider {
        diff: Some(replace_on(&["k", "x"], true)),
        ..FakeProvider::default()
    });
    let first = vec![
        res("a", vec![("k", In::Lit("1"))]),
        res("c", vec![("x", In::Out("a", "k"))]),
    ];
    let s0 = run(&p, &Snapshot::default(), options(), Some(program(first)))
        .await
        .result
        .snapshot;
    let mut c = res("c", vec![]);
    c.depends_on = vec!["b"];
    let next = vec![res("a", vec![("k", In::Lit("2"))]), res("b", vec![]), c];
    let r = run(&p, &s0, targeting(&["a"], false), Some(program(next))).await;
    assert!(!r.result.outcome.is_success());
    assert!(
        errors(&r)
            .iter()
            .any(|e| e.contains("not specified in --target list")),
        "{:?}",
        errors(&r)
    );
}

#[tokio::test]
async fn a_targeted_destroy_leaves_the_provider_of_what_it_spares() {
    let p = Arc::new(FakeProvider::default());
    let s0 = base(&p).await;
    let mut opts = targeting(&["c"], true);
    opts.operation = stepdeck::engine::Operation::Destroy;
    let r = run(&p, &s0, opts, None).await;
    assert_eq!(r.result.outcome, Outcome::Succeeded);
    assert_eq!(r.steps_of(StepOp::Delete), vec!["c"]);
    assert_eq!(r.names(), vec!["a", "b"]);
}

#[tokio::test]
async fn a_targeted_delete_of_every_copy_of_a_urn_needs_what_depends_on_the_old_copy() {
    // d depends on the URN of a, which resolves to the copy pending deletion: deleting both
    // copies would leave d dangling, so it must be targeted too.
    let p = Arc::new(FakeProvider::default());
    let s0 = base(&p).await;
    let a = s0
        .resources
        .iter()
        .position(|r| r.urn.name() == "a")
        .unwrap();
    let mut resources = s0.resources.clone();
    let mut old_a = resources[a].clone();
    old_a.delete = true;
    old_a.id = Some("id-a-old".into());
    let mut d = resources[a].clone();
    d.urn = stepdeck::engine::Urn::parse(&urn("d")).unwrap();
    d.id = Some("id-d".into());
    d.dependencies = vec![resources[a].urn.clone()];
    resources.push(old_a);
    resources.push(d);
    let s1 = Snapshot {
        resources,
        ..s0.clone()
    };
    s1.verify_integrity().unwrap();
    let mut opts = targeting(&["a"], false);
    opts.operation = stepdeck::engine::Operation::Destroy;
    let refused = run(&p, &s1, opts.clone(), None).await;
    assert!(!refused.result.outcome.is_success());
    assert!(
        errors(&refused)
            .iter()
            .any(|e| e.contains("::d' will be destroyed")),
        "{:?}",
        errors(&refused)
    );
    opts.target_dependents = true;
    let r = run(&p, &s1, opts, None).await;
    assert_eq!(r.result.outcome, Outcome::Succeeded);
    assert_eq!(r.names(), vec!["c"]);
}

#[tokio::test]
async fn a_targeted_create_before_delete_replacement_leaves_its_dependents_alone() {
    // The old copy goes once the new one exists: what depends on the URN still has it.
    let p = Arc::new(FakeProvider::default());
    let s0 = base(&p).await;
    let mut opts = targeting(&["a"], false);
    opts.replace = vec![urn("a")];
    let r = run(&p, &s0, opts, Some(abc("1"))).await;
    assert_eq!(r.result.outcome, Outcome::Succeeded);
    assert_eq!(r.steps_of(StepOp::DeleteReplaced), vec!["a"]);
    assert_eq!(r.names(), vec!["a", "b", "c"]);
}

#[tokio::test]
async fn an_untargeted_resource_needing_a_failed_one_is_skipped_under_continue_on_error() {
    // a's replacement fails; b, untargeted, would keep its old state, which needs a: as in
    // Pulumi, its step is skipped, so the state keeps b after a.
    let p = Arc::new(FakeProvider::default());
    let s0 = base(&p).await;
    let failing = Arc::new(FakeProvider {
        fail: ["a".to_string()].into(),
        ..FakeProvider::default()
    });
    let mut opts = targeting(&["a"], false);
    opts.replace = vec![urn("a")];
    opts.continue_on_error = true;
    let independent = goals(vec![
        Box::new(|_| custom("a", &[("k", "1")])),
        Box::new(|_| custom("b", &[("k", "1")])),
    ]);
    let r = run(&failing, &s0, opts, Some(independent)).await;
    assert!(!r.result.outcome.is_success());
    assert!(
        r.events.iter().any(|e| matches!(
            e,
            stepdeck::engine::EngineEvent::StepSkipped { urn, .. } if urn.name() == "b"
        )),
        "b is skipped"
    );
    assert_eq!(r.names(), vec!["a", "b", "c"]);
}
