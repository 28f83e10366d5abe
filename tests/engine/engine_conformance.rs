//! Conformance of step generation and execution with Pulumi's engine, scenario by scenario.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::support;
use std::sync::Arc;
use std::time::Duration;

use stepdeck::engine::provider::DiffRequest;
use stepdeck::engine::{EngineEvent, PropertyValue, ProviderRef, Snapshot, StepOp};
use support::*;

fn fake(diff: Option<Box<DiffFn>>) -> Arc<FakeProvider> {
    Arc::new(FakeProvider {
        diff,
        ..FakeProvider::default()
    })
}

fn seeds(k: &'static str) -> Vec<Spec> {
    let mut b = res("b", vec![]);
    b.depends_on = vec!["a"];
    vec![
        res("a", vec![("k", In::Lit(k))]),
        b,
        res("c", vec![("x", In::Out("a", "k"))]),
        res("d", vec![("y", In::Out("b", "id"))]),
    ]
}

#[tokio::test]
async fn dbr_of_a_replaces_only_its_property_dependents() {
    let p = fake(Some(replace_on(&["k", "x"], true)));
    let first = run(
        &p,
        &Snapshot::default(),
        options(),
        Some(program(seeds("1"))),
    )
    .await;
    assert!(
        first.result.outcome.is_success(),
        "{:?}",
        first.result.outcome
    );
    assert_eq!(first.steps_of(StepOp::Create), vec!["a", "b", "c", "d"]);

    p.calls.lock().unwrap().clear();
    let second = run(
        &p,
        &first.result.snapshot,
        options(),
        Some(program(seeds("2"))),
    )
    .await;
    assert!(
        second.result.outcome.is_success(),
        "{:?}",
        second.result.outcome
    );
    let steps = second.steps();
    let pos = |op, n: &str| {
        steps
            .iter()
            .position(|(o, m)| *o == op && m == n)
            .unwrap_or_else(|| panic!("no {op} {n} in {steps:?}"))
    };
    assert!(
        pos(StepOp::DeleteReplaced, "c") < pos(StepOp::DeleteReplaced, "a"),
        "deletes c before a"
    );
    assert!(
        pos(StepOp::CreateReplacement, "a") < pos(StepOp::CreateReplacement, "c"),
        "creates a before c"
    );
    let mut replaced = second.steps_of(StepOp::Replace);
    replaced.sort();
    assert_eq!(replaced, vec!["a", "c"]);
    assert_eq!(second.steps_of(StepOp::Same), vec!["b", "d"]);
    // c's Diff ran during the cascade with its input from a unknown.
    let c_diff = p
        .calls()
        .into_iter()
        .find(|c| c.op == "diff" && c.urn.name() == "c")
        .expect("c was diffed");
    assert_eq!(c_diff.inputs["x"], PropertyValue::Unknown);
    assert_eq!(p.names("delete"), vec!["c", "a"]);
    assert_eq!(second.names(), vec!["a", "b", "c", "d"]);
}

#[tokio::test]
async fn twelve_resource_graph_replaces_exactly_a_b_c_e_f_k() {
    use stepdeck::engine::model::property::props;
    use stepdeck::engine::{ResourceState, Urn};
    // Pulumi's complex DBR graph: A, C, D are providers; B, E, H use them; the second dependent
    // of each depends on input "A" (replace-requiring), the third on input "B" (not).
    let urn = |ty: &str, n: &str| Urn::new("test", "proj", None, ty, n);
    let prov = "pulumi:providers:pkgA";
    let dflt = urn(prov, "default");
    let [a, c, d] = ["A", "C", "D"].map(|n| urn(prov, n));
    let [b, e, f, g, h, i, j, k, l] =
        ["B", "E", "F", "G", "H", "I", "J", "K", "L"].map(|n| urn(TYPE, n));
    let by = |u: &Urn, id: &str| Some(ProviderRef::new(u.clone(), id));
    let dp = || Some(ProviderRef::new(dflt.clone(), "d0"));
    // (resource, ID, provider reference, property dependencies, output "A")
    type Row<'a> = (
        &'a Urn,
        &'a str,
        Option<ProviderRef>,
        Vec<(&'a str, Vec<&'a Urn>)>,
        Option<&'a str>,
    );
    let rows: Vec<Row> = vec![
        (&dflt, "d0", None, vec![], None),
        (&a, "0", None, vec![], Some("foo")),
        (&b, "1", by(&a, "0"), vec![], None),
        (&c, "2", None, vec![("A", vec![&a])], Some("bar")),
        (&d, "3", None, vec![("B", vec![&a])], None),
        (&e, "4", by(&c, "2"), vec![], None),
        (&f, "5", dp(), vec![("A", vec![&c])], None),
        (&g, "6", dp(), vec![("B", vec![&c])], None),
        (&h, "7", by(&d, "3"), vec![], None),
        (&i, "8", dp(), vec![("A", vec![&d])], None),
        (&j, "9", dp(), vec![("B", vec![&d])], None),
        (&k, "10", dp(), vec![("A", vec![&f, &g])], None),
        (&l, "11", dp(), vec![("B", vec![&f, &g])], None),
    ];
    let resources = rows
        .into_iter()
        .map(|(u, id, provider, deps, out)| ResourceState {
            type_: u.type_().to_string(),
            urn: u.clone(),
            custom: true,
            id: Some(id.into()),
            provider,
            dependencies: deps
                .iter()
                .flat_map(|(_, us)| us.iter().map(|u| (*u).clone()))
                .collect(),
            property_dependencies: deps
                .iter()
                .map(|(key, us)| (key.to_string(), us.iter().map(|u| (*u).clone()).collect()))
                .collect(),
            outputs: out.map(|v| props([("A", v)])).unwrap_or_default(),
            ..Default::default()
        })
        .collect();
    let base = Snapshot {
        resources,
        ..Snapshot::default()
    };
    base.verify_integrity().unwrap();
    let changed_a = |req: &DiffRequest| {
        let mut r = stepdeck::engine::provider::DiffResult::none();
        if req.old_outputs.get("A") != req.new_inputs.get("A") {
            r.changes = stepdeck::engine::provider::DiffChanges::Some;
            r.replace_keys = vec!["A".into()];
            r.delete_before_replace = true;
        }
        r
    };
    let p = Arc::new(FakeProvider {
        diff: Some(Box::new(changed_a)),
        diff_config: Some(Box::new(changed_a)),
        ..FakeProvider::default()
    });
    let program = Box::new(stepdeck::engine::ProgramFn(
        move |m: stepdeck::engine::ResourceMonitor| async move {
            use stepdeck::engine::Goal;
            let reg =
                |ty: &'static str, name: &'static str, provider: Option<ProviderRef>, inputs| {
                    let m = m.clone();
                    async move {
                        let mut goal = Goal::custom(ty, name, inputs);
                        goal.provider = provider;
                        m.register(goal)
                            .await
                            .map_err(|e| stepdeck::engine::ProgramError(e.to_string()))
                    }
                };
            let none = stepdeck::engine::PropertyMap::new;
            let ra = reg("pulumi:providers:pkgA", "A", None, props([("A", "bar")])).await?;
            reg(
                TYPE,
                "B",
                Some(ProviderRef::new(ra.urn, ra.id.unwrap())),
                none(),
            )
            .await?;
            let rc = reg("pulumi:providers:pkgA", "C", None, none()).await?;
            let rd = reg("pulumi:providers:pkgA", "D", None, none()).await?;
            reg(
                TYPE,
                "E",
                Some(ProviderRef::new(rc.urn, rc.id.unwrap())),
                none(),
            )
            .await?;
            reg(TYPE, "F", None, none()).await?;
            reg(TYPE, "G", None, none()).await?;
            reg(
                TYPE,
                "H",
                Some(ProviderRef::new(rd.urn, rd.id.unwrap())),
                none(),
            )
            .await?;
            for n in ["I", "J", "K", "L"] {
                reg(TYPE, n, None, none()).await?;
            }
            Ok(())
        },
    ));
    let run = run(&p, &base, options(), Some(program)).await;
    assert!(run.result.outcome.is_success(), "{:?}", run.result.outcome);
    let mut replaced = run.steps_of(StepOp::Replace);
    replaced.sort();
    assert_eq!(replaced, vec!["A", "B", "C", "E", "F", "K"]);
}

fn dbr_pair(dbr_option: Option<bool>, a: &'static str, b: &'static str) -> Vec<Spec> {
    let mut ra = res("a", vec![("k", In::Lit(a))]);
    ra.delete_before_replace = dbr_option;
    vec![
        ra,
        res("b", vec![("k", In::Lit(b)), ("x", In::Out("a", "id"))]),
    ]
}

/// Creates the pair, then changes `a` under a provider that asks (or not) for
/// delete-before-replace and the resource option; returns the steps other than sames.
async fn replacing_a(provider_dbr: bool, option: Option<bool>) -> Vec<(StepOp, String)> {
    let p = fake(Some(replace_on(&["k"], provider_dbr)));
    let first = Some(program(dbr_pair(None, "1", "1")));
    let s0 = run(&p, &Snapshot::default(), options(), first)
        .await
        .result
        .snapshot;
    let second = Some(program(dbr_pair(option, "2", "1")));
    let r = run(&p, &s0, options(), second).await;
    r.steps()
        .into_iter()
        .filter(|(o, _)| *o != StepOp::Same)
        .collect()
}

#[tokio::test]
async fn delete_before_replace_option_overrides_the_provider_both_ways() {
    let step = |op, name: &str| (op, name.to_string());
    // The provider says create-before-delete; the option forces delete-before-replace.
    assert_eq!(
        replacing_a(false, Some(true)).await,
        vec![
            step(StepOp::DeleteReplaced, "a"),
            step(StepOp::Replace, "a"),
            step(StepOp::CreateReplacement, "a"),
        ]
    );
    // The provider says delete-before-replace; the option turns it off.
    assert_eq!(
        replacing_a(true, Some(false)).await,
        vec![
            step(StepOp::CreateReplacement, "a"),
            step(StepOp::Replace, "a"),
            step(StepOp::DeleteReplaced, "a"),
        ]
    );
}

#[tokio::test]
async fn create_before_delete_deletes_the_old_copy_after_the_program() {
    let p = fake(Some(replace_on(&["k"], false)));
    let s0 = run(
        &p,
        &Snapshot::default(),
        options(),
        Some(program(dbr_pair(None, "1", "1"))),
    )
    .await
    .result
    .snapshot;
    p.calls.lock().unwrap().clear();
    let r = run(&p, &s0, options(), Some(program(dbr_pair(None, "2", "1")))).await;
    let ops: Vec<StepOp> = r
        .steps()
        .into_iter()
        .filter(|(_, n)| n == "a")
        .map(|(o, _)| o)
        .collect();
    assert_eq!(
        ops,
        vec![
            StepOp::CreateReplacement,
            StepOp::Replace,
            StepOp::DeleteReplaced
        ]
    );
    // b (registered after a) finished before a's old copy was deleted.
    let steps = r.steps();
    let b = steps.iter().position(|(_, n)| n == "b").unwrap();
    let del = steps
        .iter()
        .position(|(o, _)| *o == StepOp::DeleteReplaced)
        .unwrap();
    assert!(b < del);
    assert_eq!(p.names("create"), vec!["a"]);
    assert_eq!(p.names("delete"), vec!["a"]);
    assert_eq!(
        r.result
            .snapshot
            .resources
            .iter()
            .filter(|r| r.delete)
            .count(),
        0
    );
}

#[tokio::test]
async fn deletes_run_as_antichains_in_parallel() {
    let specs = || {
        vec![
            res("root", vec![]),
            res("l1", vec![("p", In::Out("root", "id"))]),
            res("l2", vec![("p", In::Out("root", "id"))]),
            res(
                "leaf",
                vec![("p", In::Out("l1", "id")), ("q", In::Out("l2", "id"))],
            ),
        ]
    };
    let p = Arc::new(FakeProvider {
        delay: Duration::from_millis(100),
        ..FakeProvider::default()
    });
    let s0 = run(&p, &Snapshot::default(), options(), Some(program(specs())))
        .await
        .result
        .snapshot;
    let empty = Box::new(stepdeck::engine::ProgramFn(|_m| async { Ok(()) }));
    let r = run(&p, &s0, options(), Some(empty)).await;
    assert_eq!(r.names(), Vec::<String>::new());
    let deletes: Vec<_> = p.calls().into_iter().filter(|c| c.op == "delete").collect();
    let order: Vec<&str> = deletes.iter().map(|c| c.urn.name()).collect();
    assert_eq!(order[0], "leaf");
    assert_eq!(order[3], "root");
    let (l1, l2) = (&deletes[1], &deletes[2]);
    assert!(
        l1.started < l2.ended && l2.started < l1.ended,
        "l1 and l2 are deleted concurrently"
    );
    assert!(
        deletes[0].ended <= l1.started.max(l2.started),
        "the leaf goes first"
    );
}

#[tokio::test]
async fn a_failure_cancels_the_rest() {
    let p = Arc::new(FakeProvider {
        fail: ["b".to_string()].into(),
        ..FakeProvider::default()
    });
    let r = run(
        &p,
        &Snapshot::default(),
        options(),
        Some(program(vec![
            res("a", vec![]),
            res("b", vec![]),
            res("c", vec![]),
        ])),
    )
    .await;
    assert!(matches!(
        r.result.outcome,
        stepdeck::engine::Outcome::Failed(_)
    ));
    assert_eq!(p.names("create"), vec!["a", "b"]);
    assert_eq!(r.names(), vec!["a"]);
}

#[tokio::test]
async fn continue_on_error_skips_exactly_the_dependents() {
    let p = Arc::new(FakeProvider {
        fail: ["b".to_string()].into(),
        ..FakeProvider::default()
    });
    let specs = vec![
        res("a", vec![]),
        res("b", vec![]),
        res("c", vec![("x", In::Out("b", "id"))]),
        res("d", vec![("x", In::Out("c", "id"))]),
        res("e", vec![("x", In::Out("a", "id"))]),
    ];
    let mut opts = options();
    opts.continue_on_error = true;
    let r = run(&p, &Snapshot::default(), opts, Some(program(specs))).await;
    assert!(matches!(
        r.result.outcome,
        stepdeck::engine::Outcome::Failed(_)
    ));
    assert_eq!(p.names("create"), vec!["a", "b", "e"]);
    let skipped: Vec<String> = r
        .events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::StepSkipped { urn, .. } => Some(urn.name().to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(skipped, vec!["c", "d"]);
    assert_eq!(r.names(), vec!["a", "e"]);
}

use stepdeck::engine::model::property::props;

fn partial_fake(partial: &[&str]) -> Arc<FakeProvider> {
    Arc::new(FakeProvider {
        partial: partial.iter().map(|n| n.to_string()).collect(),
        ..FakeProvider::default()
    })
}

fn one(k: &'static str) -> Option<Box<dyn stepdeck::engine::Program>> {
    Some(program(vec![res("a", vec![("k", In::Lit(k))])]))
}

/// A run whose create of `a` partially fails.
async fn partially_created_a() -> Run {
    let p = partial_fake(&["a"]);
    run(&p, &Snapshot::default(), options(), one("1")).await
}

#[tokio::test]
async fn a_partially_failed_create_stays_with_its_init_errors_and_is_retried_as_an_update() {
    // Pulumi's CreateStep keeps the ID and outputs of a create that returned
    // ErrorResourceInitFailed; the next update is an (empty) update that clears initErrors.
    let first = partially_created_a().await;
    assert!(!first.result.outcome.is_success());
    let a = state(&first.result.snapshot, "a");
    assert_eq!(a.id.as_deref(), Some("id-a"));
    assert_eq!(a.inputs["k"], PropertyValue::String("1".into()));
    assert_eq!(a.outputs["health"], PropertyValue::String("failing".into()));
    assert_eq!(a.init_errors, vec!["a did not become healthy".to_string()]);

    let p = fake(None);
    let second = run(&p, &first.result.snapshot, options(), one("1")).await;
    assert!(
        second.result.outcome.is_success(),
        "{:?}",
        second.result.outcome
    );
    assert_eq!(second.steps(), vec![(StepOp::Update, "a".to_string())]);
    assert_eq!(p.names("update"), vec!["a"]);
    let a = state(&second.result.snapshot, "a");
    assert!(a.init_errors.is_empty());
    assert_eq!(a.id.as_deref(), Some("id-a"));
}

#[tokio::test]
async fn a_partially_failed_update_keeps_old_inputs_and_new_outputs() {
    // Pulumi's TestUpdatePartialFailure: old inputs, the provider's new outputs.
    let s0 = run(&fake(None), &Snapshot::default(), options(), one("1"))
        .await
        .result
        .snapshot;
    let failed = run(&partial_fake(&["a"]), &s0, options(), one("2")).await;
    assert!(!failed.result.outcome.is_success());
    let a = state(&failed.result.snapshot, "a");
    assert_eq!(a.inputs["k"], PropertyValue::String("1".into()));
    assert_eq!(a.outputs["k"], PropertyValue::String("2".into()));
    assert_eq!(a.outputs["health"], PropertyValue::String("failing".into()));
    assert_eq!(a.init_errors, vec!["a did not become healthy".to_string()]);

    let retried = run(&fake(None), &failed.result.snapshot, options(), one("2")).await;
    assert!(
        retried.result.outcome.is_success(),
        "{:?}",
        retried.result.outcome
    );
    assert_eq!(retried.steps(), vec![(StepOp::Update, "a".to_string())]);
    let a = state(&retried.result.snapshot, "a");
    assert_eq!(a.inputs["k"], PropertyValue::String("2".into()));
    assert!(a.init_errors.is_empty());
    assert!(!a.outputs.contains_key("health"));
}

/// a; d; c reads a's `k` (a replace-requiring input) and depends on d.
fn cascade_specs(k: &'static str) -> Vec<Spec> {
    let mut c = res("c", vec![("x", In::Out("a", "k"))]);
    c.depends_on = vec!["d"];
    vec![
        res("a", vec![("k", In::Lit(k))]),
        res("d", vec![("n", In::Lit("d"))]),
        c,
    ]
}

/// The stack `cascade_specs("1")` creates.
async fn cascade_base(p: &Arc<FakeProvider>) -> Snapshot {
    let first = Some(program(cascade_specs("1")));
    run(p, &Snapshot::default(), options(), first)
        .await
        .result
        .snapshot
}

#[tokio::test]
async fn dbr_dependents_the_program_dropped_leave_the_state_in_the_same_deployment() {
    // c is deleted by a's delete-before-replace cascade and the program no longer declares it:
    // Pulumi removes it (remove-pending-replace) before deleting d, which c depends on.
    let p = fake(Some(replace_on(&["k", "x"], true)));
    let s0 = cascade_base(&p).await;
    let second = Some(program(vec![res("a", vec![("k", In::Lit("2"))])]));
    let r = run(&p, &s0, options(), second).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    let steps = r.steps();
    let pos = |op, n: &str| {
        steps
            .iter()
            .position(|(o, m)| *o == op && m == n)
            .unwrap_or_else(|| panic!("no {op} {n} in {steps:?}"))
    };
    assert!(pos(StepOp::DeleteReplaced, "c") < pos(StepOp::DeleteReplaced, "a"));
    assert!(pos(StepOp::RemovePendingReplace, "c") < pos(StepOp::Delete, "d"));
    assert_eq!(r.names(), vec!["a"]);
    assert!(
        r.result
            .snapshot
            .resources
            .iter()
            .all(|s| !s.pending_replacement)
    );
    // The stack stays usable: a destroy removes what is left.
    let mut destroy = options();
    destroy.operation = stepdeck::engine::Operation::Destroy;
    let destroyed = run(&p, &r.result.snapshot, destroy, None).await;
    assert!(destroyed.result.outcome.is_success());
    assert!(destroyed.names().is_empty());
}

#[tokio::test]
async fn check_of_a_dependent_recreated_after_a_dbr_gets_no_old_inputs() {
    // Pulumi's recreate_resource_check: c was deleted by a's cascade, so its old inputs
    // describe nothing that exists; Check of its recreation is given none.
    let p = fake(Some(replace_on(&["k", "x"], true)));
    let s0 = cascade_base(&p).await;
    p.checks.lock().unwrap().clear();
    let r = run(&p, &s0, options(), Some(program(cascade_specs("2")))).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    assert_eq!(r.steps_of(StepOp::CreateReplacement), vec!["a", "c"]);
    let olds = p.check_olds("c");
    assert_eq!(olds.len(), 1, "{olds:?}");
    assert!(olds[0].is_empty(), "c was checked against {:?}", olds[0]);
    // d is unchanged and still checked against its old inputs.
    assert_eq!(p.check_olds("d"), vec![props([("n", "d")])]);
}

#[tokio::test]
async fn replace_on_changes_initerror_replaces_a_resource_that_did_not_initialise() {
    let first = partially_created_a().await;
    let with_trigger: GoalFn = Box::new(|_| {
        let mut g = custom("a", &[("k", "1")]);
        g.replace_on_changes = vec!["#initerror".into()];
        g
    });
    let r = run(
        &fake(None),
        &first.result.snapshot,
        options(),
        Some(goals(vec![with_trigger])),
    )
    .await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    assert_eq!(r.steps_of(StepOp::CreateReplacement), vec!["a"]);
    assert!(state(&r.result.snapshot, "a").init_errors.is_empty());
}

/// A small deterministic generator for the sequence test (xorshift).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

const NAMES: [&str; 6] = ["r0", "r1", "r2", "r3", "r4", "r5"];
const VALUES: [&str; 2] = ["1", "2"];

/// A random program over `NAMES`: some of them, each with a random `k`, some reading an
/// earlier one's `k` (a replace-requiring property dependency) or depending on it, some
/// forcing create-before-delete.
fn random_program(rng: &mut Rng) -> Vec<Spec> {
    let mut specs: Vec<Spec> = Vec::new();
    for name in NAMES {
        if rng.below(4) == 0 {
            continue;
        }
        let mut s = res(name, vec![("k", In::Lit(VALUES[rng.below(2) as usize]))]);
        if !specs.is_empty() {
            let on = specs[rng.below(specs.len() as u64) as usize].name;
            match rng.below(3) {
                0 => s.inputs.push(("x", In::Out(on, "k"))),
                1 => s.depends_on.push(on),
                _ => {}
            }
        }
        if rng.below(4) == 0 {
            s.delete_before_replace = Some(false);
        }
        specs.push(s);
    }
    specs
}

#[tokio::test]
async fn random_program_sequences_never_produce_an_invalid_snapshot() {
    // In the spirit of Pulumi's lifecycle fuzzing: sequences of random programs (now and then a
    // destroy), replacements delete-before-replace by default, occasional failures with and
    // without continue-on-error, targets with and without dependents, refreshes. The harness
    // checks integrity after every journal entry; a successful untargeted run leaves exactly
    // what the program declared.
    for seed in 1..=200u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let mut snap = Snapshot::default();
        for step in 0..6 {
            let specs = random_program(&mut rng);
            let mut declared: Vec<String> = specs.iter().map(|s| s.name.to_string()).collect();
            let fail: std::collections::HashSet<String> = if rng.below(4) == 0 {
                [NAMES[rng.below(6) as usize].to_string()].into()
            } else {
                Default::default()
            };
            let p = Arc::new(FakeProvider {
                diff: Some(replace_on(&["k", "x"], true)),
                fail,
                ..FakeProvider::default()
            });
            let mut opts = options();
            opts.continue_on_error = rng.below(3) == 0;
            opts.refresh = rng.below(6) == 0;
            let targeted = rng.below(5) == 0;
            if targeted {
                let name = NAMES[rng.below(6) as usize];
                opts.targets = vec![format!("urn:pulumi:test::proj::{TYPE}::{name}")];
                opts.target_dependents = rng.below(2) == 0;
                if rng.below(2) == 0 {
                    opts.replace = opts.targets.clone();
                }
            }
            // A refresh reads from a fresh fake whose world is empty: everything vanished.
            let exact = !targeted && !opts.refresh;
            let program = if rng.below(8) == 0 {
                opts.operation = stepdeck::engine::Operation::Destroy;
                declared.clear();
                None
            } else {
                Some(program(specs))
            };
            let r = run(&p, &snap, opts, program).await;
            if exact && r.result.outcome.is_success() {
                let mut names = r.names();
                names.sort();
                declared.sort();
                assert_eq!(
                    names,
                    declared,
                    "seed {seed} step {step}: {:#?}\nbase: {:#?}",
                    r.steps(),
                    snap.resources
                        .iter()
                        .map(|s| (
                            s.urn.name().to_string(),
                            s.pending_replacement,
                            s.delete,
                            s.dependencies
                                .iter()
                                .map(|d| d.name().to_string())
                                .collect::<Vec<_>>(),
                            s.property_dependencies.clone()
                        ))
                        .collect::<Vec<_>>()
                );
                assert!(
                    r.result
                        .snapshot
                        .resources
                        .iter()
                        .all(|s| !s.pending_replacement && !s.delete),
                    "seed {seed} step {step}: {:?}",
                    r.result.snapshot.resources
                );
            }
            snap = r.result.snapshot;
        }
    }
}

#[tokio::test]
async fn a_pending_replacement_registered_again_is_created_even_without_a_diff() {
    // Pulumi's pending_replace_test: a DBR whose create failed left `a` deleted and pending
    // replacement. Registered again, it is replaced (created, never deleted twice) whatever its
    // diff says, and the pending flag goes.
    let p = fake(Some(replace_on(&["k"], true)));
    let s0 = run(&p, &Snapshot::default(), options(), one("1"))
        .await
        .result
        .snapshot;
    let failing = Arc::new(FakeProvider {
        diff: Some(replace_on(&["k"], true)),
        fail_create: ["a".to_string()].into(),
        ..FakeProvider::default()
    });
    let interrupted = run(&failing, &s0, options(), one("2")).await;
    assert!(!interrupted.result.outcome.is_success());
    assert!(state(&interrupted.result.snapshot, "a").pending_replacement);

    for k in ["2", "1"] {
        let p = fake(Some(replace_on(&["k"], true)));
        let r = run(&p, &interrupted.result.snapshot, options(), one(k)).await;
        assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
        assert_eq!(
            r.steps(),
            vec![
                (StepOp::Replace, "a".to_string()),
                (StepOp::CreateReplacement, "a".to_string())
            ],
            "k = {k}"
        );
        assert!(p.names("delete").is_empty());
        let a = state(&r.result.snapshot, "a");
        assert!(!a.pending_replacement);
        assert_eq!(a.inputs["k"], PropertyValue::String(k.into()));
    }
}

#[tokio::test]
async fn check_of_a_resource_replaced_on_request_gets_no_old_inputs() {
    // Pulumi's generateSteps ignores the old state of a `--replace` target when checking.
    let p = fake(None);
    let s0 = run(&p, &Snapshot::default(), options(), one("1"))
        .await
        .result
        .snapshot;
    p.checks.lock().unwrap().clear();
    let mut opts = options();
    opts.replace = vec![state(&s0, "a").urn.to_string()];
    let r = run(&p, &s0, opts, one("1")).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    assert_eq!(r.steps_of(StepOp::CreateReplacement), vec!["a"]);
    assert_eq!(
        p.check_olds("a"),
        vec![stepdeck::engine::PropertyMap::new()]
    );
}

/// The replace keys planned for `name`'s `replace` step.
fn planned_replace_keys(run: &Run, name: &str) -> Option<Vec<String>> {
    run.events.iter().find_map(|e| match e {
        EngineEvent::StepPlanned(i) if i.op == StepOp::Replace && i.urn.name() == name => {
            Some(i.replace_keys.clone())
        }
        _ => None,
    })
}

/// Runs `program` on `base` as a fresh update, after forgetting the provider's earlier calls.
async fn again(
    p: &Arc<FakeProvider>,
    base: &Snapshot,
    program: Box<dyn stepdeck::engine::Program>,
) -> Run {
    p.calls.lock().unwrap().clear();
    run(p, base, options(), Some(program)).await
}

/// `t` (its input `k`), `u` (never changing) and `d`, replaced with both.
fn replaced_with(k: &'static str, dbr: bool) -> Box<dyn stepdeck::engine::Program> {
    goals(vec![
        Box::new(move |_| {
            let mut g = custom("t", &[("k", k)]);
            g.delete_before_replace = Some(dbr);
            g
        }),
        Box::new(|_| custom("u", &[("k", "same")])),
        Box::new(|r| {
            let mut g = custom("d", &[("fixed", "x")]);
            g.replace_with = vec![r.urn("u"), r.urn("t")];
            g
        }),
    ])
}

#[tokio::test]
async fn replace_with_replaces_the_resource_whenever_a_named_one_is_replaced() {
    for dbr in [false, true] {
        let p = fake(Some(replace_on(&["k"], dbr)));
        let s0 = run(
            &p,
            &Snapshot::default(),
            options(),
            Some(replaced_with("1", dbr)),
        )
        .await;
        assert!(s0.result.outcome.is_success(), "{:?}", s0.result.outcome);
        let d = state(&s0.result.snapshot, "d");
        assert_eq!(
            d.replace_with.iter().map(|u| u.name()).collect::<Vec<_>>(),
            ["u", "t"],
            "the state records replaceWith"
        );

        // Nothing named is replaced: d is diffed as usual and stays.
        let same = again(&p, &s0.result.snapshot, replaced_with("1", dbr)).await;
        assert!(same.steps_of(StepOp::Replace).is_empty(), "dbr={dbr}");
        assert!(p.names("diff").contains(&"d".to_string()));

        // t is replaced: d is replaced with it, blaming replaceWith, without asking its provider.
        let r = again(&p, &same.result.snapshot, replaced_with("2", dbr)).await;
        assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
        let mut replaced = r.steps_of(StepOp::Replace);
        replaced.sort();
        assert_eq!(replaced, ["d", "t"], "dbr={dbr}");
        assert_eq!(
            planned_replace_keys(&r, "d"),
            Some(vec!["replaceWith".to_string()]),
            "dbr={dbr}"
        );
        assert!(!p.names("diff").contains(&"d".to_string()), "dbr={dbr}");
        let mut deleted = p.names("delete");
        deleted.sort();
        assert_eq!(
            deleted,
            ["d", "t"],
            "dbr={dbr}: both old copies are deleted"
        );
        assert_eq!(r.steps_of(StepOp::Same), ["u"], "dbr={dbr}");
    }
}

fn triggered(trigger: PropertyValue) -> Box<dyn stepdeck::engine::Program> {
    goals(vec![Box::new(move |_| {
        let mut g = custom("a", &[("k", "fixed")]);
        g.replacement_trigger = trigger.clone();
        g
    })])
}

#[tokio::test]
async fn a_changed_replacement_trigger_replaces_without_calling_diff() {
    let p = fake(Some(replace_on(&["k"], false)));
    let v = |s: &str| PropertyValue::String(s.to_string());
    let r = again(&p, &Snapshot::default(), triggered(v("v1"))).await;
    assert_eq!(state(&r.result.snapshot, "a").replacement_trigger, v("v1"));
    let mut snap = r.result.snapshot;
    // (trigger, replaced?): equal, a secret of the same value, changed, removed, added back.
    let cases = [
        (v("v1"), false),
        (PropertyValue::Secret(Box::new(v("v1"))), false),
        (v("v2"), true),
        (PropertyValue::Null, false),
        (v("v3"), false),
        (
            PropertyValue::Array(vec![v("v3"), PropertyValue::Number(1.0)]),
            true,
        ),
    ];
    for (trigger, replaced) in cases {
        let r = again(&p, &snap, triggered(trigger.clone())).await;
        assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
        assert_eq!(
            r.steps_of(StepOp::Replace).len(),
            usize::from(replaced),
            "{trigger:?}"
        );
        if replaced {
            assert_eq!(
                planned_replace_keys(&r, "a"),
                Some(vec![]),
                "no keys blamed"
            );
            assert!(p.names("diff").is_empty(), "Diff is not called");
            assert_eq!(p.names("create"), ["a"]);
            assert_eq!(p.names("delete"), ["a"]);
        } else {
            assert_eq!(p.names("diff"), ["a"], "{trigger:?}");
        }
        snap = r.result.snapshot;
        assert_eq!(state(&snap, "a").replacement_trigger, trigger);
    }
}

#[tokio::test]
async fn an_unknown_replacement_trigger_replaces_in_a_preview_and_fails_an_update() {
    let p = fake(None);
    let v1 = PropertyValue::String("v1".into());
    let first = again(&p, &Snapshot::default(), triggered(v1.clone())).await;
    let base = first.result.snapshot;
    let mut preview = options();
    preview.operation = stepdeck::engine::Operation::Preview;
    let r = run(&p, &base, preview, Some(triggered(PropertyValue::Unknown))).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    assert_eq!(r.steps_of(StepOp::Replace), ["a"]);

    let r = again(&p, &base, triggered(PropertyValue::Unknown)).await;
    let message = format!("{:?}", r.result.outcome);
    assert!(
        message.contains(
            "replacement trigger contains unknowns for urn:pulumi:test::proj::pkgA:index:Res::a"
        ),
        "{message}"
    );
    assert!(p.names("create").is_empty() && p.names("delete").is_empty());
    assert_eq!(state(&r.result.snapshot, "a").replacement_trigger, v1);
}

#[tokio::test]
async fn a_read_replacement_replaces_the_resources_replaced_with_it() {
    use stepdeck::engine::{ProgramFn, ReadGoal, ResourceMonitor};
    let p = fake(None);
    let managed = goals(vec![
        Box::new(|_| custom("x", &[("k", "1")])),
        Box::new(|r| {
            let mut g = custom("d", &[("fixed", "y")]);
            g.replace_with = vec![r.urn("x")];
            g
        }),
    ]);
    let s0 = run(&p, &Snapshot::default(), options(), Some(managed)).await;
    p.world
        .lock()
        .unwrap()
        .insert("other".into(), Default::default());
    let read_then_d = Box::new(ProgramFn(|m: ResourceMonitor| async move {
        let fail =
            |e: stepdeck::engine::RegisterError| stepdeck::engine::ProgramError(e.to_string());
        let x = m
            .read(ReadGoal {
                type_: TYPE.into(),
                name: "x".into(),
                id: "other".into(),
                ..ReadGoal::default()
            })
            .await
            .map_err(fail)?;
        let mut d = custom("d", &[("fixed", "y")]);
        d.replace_with = vec![x.urn];
        m.register(d).await.map_err(fail)?;
        Ok(())
    }));
    let r = run(&p, &s0.result.snapshot, options(), Some(read_then_d)).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    assert_eq!(r.steps_of(StepOp::ReadReplacement), ["x"]);
    assert_eq!(
        planned_replace_keys(&r, "d"),
        Some(vec!["replaceWith".to_string()])
    );
}
