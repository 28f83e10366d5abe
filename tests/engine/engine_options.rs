//! Resource options as Pulumi's lifecycle tests exercise them: aliases, ignoreChanges,
//! replaceOnChanges, protect, retainOnDelete, deletedWith, customTimeouts,
//! additionalSecretOutputs, import, components and their outputs.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::support;
use std::sync::Arc;

use stepdeck::engine::model::property::props;
use stepdeck::engine::model::resource::CustomTimeouts;
use stepdeck::engine::{
    Alias, EngineEvent, Goal, Outcome, ProgramFn, PropertyMap, PropertyValue, Snapshot, StepOp,
};
use support::*;

fn changes(run: &Run) -> Vec<(StepOp, String)> {
    run.steps()
        .into_iter()
        .filter(|(o, _)| *o != StepOp::Same)
        .collect()
}

fn s(op: StepOp, n: &str) -> (StepOp, String) {
    (op, n.to_string())
}

async fn first(p: &Arc<FakeProvider>, program: Box<dyn stepdeck::engine::Program>) -> Snapshot {
    let r = run(p, &Snapshot::default(), options(), Some(program)).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    p.calls.lock().unwrap().clear();
    r.result.snapshot
}

fn failed(run: &Run) -> String {
    match &run.result.outcome {
        Outcome::Failed(m) => m.to_string(),
        o => panic!("expected a failure, got {o:?}"),
    }
}

fn alias_named(name: &str) -> Alias {
    Alias::Spec {
        name: Some(name.into()),
        type_: None,
        parent: None,
        no_parent: false,
        project: None,
        stack: None,
    }
}

#[tokio::test]
async fn a_rename_with_an_alias_is_a_same_and_references_follow_it() {
    let p = Arc::new(FakeProvider::default());
    let s0 = first(
        &p,
        goals(vec![
            Box::new(|_| custom("a", &[("k", "1")])),
            Box::new(|r| {
                let mut g = custom("b", &[]);
                g.dependencies = vec![r.urn("a")];
                g.deleted_with = Some(r.urn("a"));
                g.replace_with = vec![r.urn("a")];
                g
            }),
        ]),
    )
    .await;
    // `a2` claims `a` through a name alias; `b` still depends on the old URN in its state.
    let r = run(
        &p,
        &s0,
        options(),
        Some(goals(vec![
            Box::new(|_| {
                let mut g = custom("a2", &[("k", "1")]);
                g.aliases = vec![alias_named("a")];
                g
            }),
            Box::new(|r| {
                let mut g = custom("b", &[]);
                g.dependencies = vec![r.urn("a2")];
                g.deleted_with = Some(r.urn("a2"));
                g.replace_with = vec![r.urn("a2")];
                g
            }),
        ])),
    )
    .await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    assert_eq!(changes(&r), vec![]);
    assert_eq!(r.steps_of(StepOp::Same), vec!["a2", "b"]);
    assert!(p.names("create").is_empty() && p.names("delete").is_empty());
    assert_eq!(r.names(), vec!["a2", "b"]);
    let a2 = state(&r.result.snapshot, "a2");
    assert!(a2.aliases.is_empty(), "aliases are not kept in the state");
    assert_eq!(a2.id.as_deref(), Some("id-a"));
    // A rename plus a change is an update of the same resource.
    let r = run(
        &p,
        &s0,
        options(),
        Some(goals(vec![Box::new(|_| {
            let mut g = custom("a3", &[("k", "2")]);
            g.aliases = vec![Alias::Urn(stepdeck::engine::Urn::new(
                "test", "proj", None, TYPE, "a",
            ))];
            g
        })])),
    )
    .await;
    assert_eq!(
        changes(&r),
        vec![s(StepOp::Update, "a3"), s(StepOp::Delete, "b")]
    );
}

#[tokio::test]
async fn references_to_an_aliased_resource_are_normalised_while_the_run_goes_on() {
    let p = Arc::new(FakeProvider::default());
    let s0 = first(
        &p,
        goals(vec![
            Box::new(|_| custom("a", &[])),
            Box::new(|r| {
                let mut g = custom("b", &[]);
                g.dependencies = vec![r.urn("a")];
                g
            }),
        ]),
    )
    .await;
    // Only `a` is renamed; `b` is no longer registered and is deleted at the end, so until then
    // the snapshot holds b's old state pointing at `a`'s old URN: it must read as `a2`.
    let (d, rx, violations, entries) = deployment(&p, &s0, options());
    let result = d
        .run(Some(goals(vec![Box::new(|_| {
            let mut g = custom("a2", &[]);
            g.aliases = vec![alias_named("a")];
            g
        })])))
        .await;
    let r = finish(result, rx, &violations, &entries);
    assert_eq!(changes(&r), vec![s(StepOp::Delete, "b")]);
    let mid = (1..=r.entries.len())
        .map(|k| stepdeck::engine::journal::replay(&s0, &r.entries[..k]).unwrap())
        .find(|m| m.resources.iter().any(|x| x.urn.name() == "a2"))
        .expect("a2 is written");
    let b = state(&mid, "b");
    assert_eq!(b.dependencies, vec![state(&mid, "a2").urn.clone()]);
}

#[tokio::test]
async fn children_inherit_their_parents_alias() {
    let p = Arc::new(FakeProvider::default());
    let tree = |parent: &'static str, alias: bool| {
        goals(vec![
            Box::new(move |_| {
                let mut g = Goal::component("my:comp:Comp", parent);
                if alias {
                    g.aliases = vec![alias_named("app")];
                }
                g
            }),
            Box::new(move |r| {
                let mut g = custom(&format!("{parent}-bucket"), &[]);
                g.parent = Some(r.urn(parent));
                g
            }),
        ])
    };
    let s0 = first(&p, tree("app", false)).await;
    let r = run(&p, &s0, options(), Some(tree("newapp", true))).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    assert_eq!(changes(&r), vec![]);
    assert_eq!(r.steps_of(StepOp::Same), vec!["newapp", "newapp-bucket"]);
    let child = state(&r.result.snapshot, "newapp-bucket");
    assert_eq!(
        child.parent.as_ref(),
        Some(&state(&r.result.snapshot, "newapp").urn)
    );
    assert_eq!(child.id.as_deref(), Some("id-app-bucket"));
}

#[tokio::test]
async fn the_own_urn_is_looked_up_before_aliases() {
    let p = Arc::new(FakeProvider::default());
    let s0 = first(
        &p,
        goals(vec![
            Box::new(|_| custom("a", &[])),
            Box::new(|_| custom("b", &[])),
        ]),
    )
    .await;
    let r = run(
        &p,
        &s0,
        options(),
        Some(goals(vec![Box::new(|_| {
            let mut g = custom("b", &[]);
            g.aliases = vec![alias_named("a")];
            g
        })])),
    )
    .await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    assert_eq!(changes(&r), vec![s(StepOp::Delete, "a")]);
    assert_eq!(state(&r.result.snapshot, "b").id.as_deref(), Some("id-b"));
}

#[tokio::test]
async fn two_claims_on_one_old_resource_are_an_error_in_either_order() {
    let p = Arc::new(FakeProvider::default());
    let s0 = first(&p, goals(vec![Box::new(|_| custom("a", &[]))])).await;
    let claimant = |name: &'static str| -> GoalFn {
        Box::new(move |_| {
            let mut g = custom(name, &[]);
            g.aliases = vec![alias_named("a")];
            g
        })
    };
    // The alias is registered first, then the resource it names.
    let r = run(
        &p,
        &s0,
        options(),
        Some(goals(vec![claimant("b"), Box::new(|_| custom("a", &[]))])),
    )
    .await;
    assert!(
        failed(&r).contains("already claimed it as an alias"),
        "{}",
        failed(&r)
    );
    // The resource first, then an alias naming it.
    let r = run(
        &p,
        &s0,
        options(),
        Some(goals(vec![Box::new(|_| custom("a", &[])), claimant("b")])),
    )
    .await;
    assert!(
        failed(&r).contains("registered in this deployment"),
        "{}",
        failed(&r)
    );
    // Two aliases naming the same old resource.
    let r = run(
        &p,
        &s0,
        options(),
        Some(goals(vec![claimant("b"), claimant("c")])),
    )
    .await;
    assert!(failed(&r).contains("both claim"), "{}", failed(&r));
    assert!(p.names("delete").is_empty());
}

#[tokio::test]
async fn ignore_changes_paths_keep_old_values() {
    let p = Arc::new(FakeProvider::default());
    let nested = |tag: &str, first: &str, port: f64| {
        let mut m = PropertyMap::new();
        m.insert("tags".into(), PropertyValue::Object(props([("env", tag)])));
        m.insert(
            "list".into(),
            PropertyValue::Array(vec![first.into(), "fixed".into()]),
        );
        m.insert(
            "ports".into(),
            PropertyValue::Object(props([("http", PropertyValue::Number(port))])),
        );
        m
    };
    let prog =
        move |tag: &'static str, first: &'static str, port: f64, ignore: Vec<&'static str>| {
            goals(vec![Box::new(move |_| {
                let mut g = Goal::custom(TYPE, "a", nested(tag, first, port));
                g.ignore_changes = ignore.iter().map(|s| s.to_string()).collect();
                g
            })])
        };
    let s0 = first(&p, prog("dev", "x", 80.0, vec![])).await;
    let r = run(
        &p,
        &s0,
        options(),
        Some(prog(
            "prod",
            "y",
            81.0,
            vec!["tags.env", "list[0]", "ports.*"],
        )),
    )
    .await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    assert_eq!(r.steps_of(StepOp::Same), vec!["a"]);
    assert_eq!(
        state(&r.result.snapshot, "a").inputs,
        nested("dev", "x", 80.0)
    );
    // Without the index path, the list change is an update; the other paths stay ignored.
    let r = run(
        &p,
        &s0,
        options(),
        Some(prog("prod", "y", 81.0, vec!["tags.env", "ports.*"])),
    )
    .await;
    assert_eq!(r.steps_of(StepOp::Update), vec!["a"]);
    assert_eq!(
        state(&r.result.snapshot, "a").inputs,
        nested("dev", "y", 80.0)
    );
}

#[tokio::test]
async fn replace_on_changes_replaces_for_listed_paths_and_star() {
    let p = Arc::new(FakeProvider::default());
    let prog = |v: &'static str, w: &'static str, roc: Vec<&'static str>| {
        goals(vec![Box::new(move |_| {
            let mut g = custom("a", &[("k", v), ("w", w)]);
            g.replace_on_changes = roc.iter().map(|s| s.to_string()).collect();
            g
        })])
    };
    let s0 = first(&p, prog("1", "1", vec![])).await;
    let r = run(&p, &s0, options(), Some(prog("1", "2", vec!["k"]))).await;
    assert_eq!(changes(&r), vec![s(StepOp::Update, "a")]);
    let r = run(&p, &s0, options(), Some(prog("2", "1", vec!["k"]))).await;
    assert_eq!(
        changes(&r),
        vec![
            s(StepOp::CreateReplacement, "a"),
            s(StepOp::Replace, "a"),
            s(StepOp::DeleteReplaced, "a"),
        ]
    );
    let r = run(&p, &s0, options(), Some(prog("1", "2", vec!["*"]))).await;
    assert_eq!(r.steps_of(StepOp::Replace), vec!["a"]);
}

#[tokio::test]
async fn every_protected_delete_is_reported_and_the_run_fails_at_the_end() {
    let p = Arc::new(FakeProvider::default());
    let s0 = first(
        &p,
        goals(vec![
            Box::new(|_| {
                let mut g = Goal::component("my:comp:Comp", "parent");
                g.protect = Some(true);
                g
            }),
            Box::new(|r| {
                let mut g = custom("child", &[]);
                g.parent = Some(r.urn("parent"));
                g
            }),
            Box::new(|_| {
                let mut g = custom("p2", &[]);
                g.protect = Some(true);
                g
            }),
            Box::new(|_| custom("free", &[])),
            Box::new(|r| {
                let mut g = custom("needed", &[]);
                g.dependencies = vec![r.urn("free")];
                g.protect = Some(true);
                g
            }),
        ]),
    )
    .await;
    assert!(
        state(&s0, "child").protect,
        "protect is inherited from the parent"
    );
    let empty = Box::new(ProgramFn(|_m| async { Ok(()) }));
    let r = run(&p, &s0, options(), Some(empty)).await;
    let errs = errors(&r);
    let protected: Vec<&String> = errs
        .iter()
        .filter(|m| m.contains("cannot be deleted because it is protected"))
        .collect();
    assert_eq!(protected.len(), 3, "{errs:#?}");
    assert!(matches!(r.result.outcome, Outcome::Failed(_)));
    // `free` and `parent` are needed by protected resources that stay, so they stay too.
    assert!(p.names("delete").is_empty(), "{:?}", p.names("delete"));
    assert_eq!(r.names(), vec!["parent", "child", "p2", "free", "needed"]);
}

#[tokio::test]
async fn retain_on_delete_never_calls_delete() {
    let p = Arc::new(FakeProvider {
        diff: Some(replace_on(&["k"], false)),
        ..FakeProvider::default()
    });
    let prog = |k: &'static str| {
        goals(vec![Box::new(move |_| {
            let mut g = custom("a", &[("k", k)]);
            g.retain_on_delete = Some(true);
            g
        })])
    };
    let s0 = first(&p, prog("1")).await;
    let r = run(&p, &s0, options(), Some(prog("2"))).await;
    assert_eq!(r.steps_of(StepOp::Replace), vec!["a"]);
    assert_eq!(p.names("create"), vec!["a"]);
    let empty = Box::new(ProgramFn(|_m| async { Ok(()) }));
    let r = run(&p, &r.result.snapshot, options(), Some(empty)).await;
    assert_eq!(r.steps_of(StepOp::Delete), vec!["a"]);
    assert!(p.names("delete").is_empty());
    assert!(r.names().is_empty());
}

fn with_target(k: &'static str, dbr: bool) -> Box<dyn stepdeck::engine::Program> {
    goals(vec![
        Box::new(move |_| {
            let mut g = custom("t", &[("k", k)]);
            g.delete_before_replace = Some(dbr);
            g
        }),
        Box::new(|r| {
            let mut g = custom("d", &[("fixed", "x")]);
            g.deleted_with = Some(r.urn("t"));
            g
        }),
    ])
}

#[tokio::test]
async fn deleted_with_skips_the_dependents_delete_and_follows_replacements() {
    for dbr in [false, true] {
        let p = Arc::new(FakeProvider {
            diff: Some(replace_on(&["k"], dbr)),
            ..FakeProvider::default()
        });
        let s0 = first(&p, with_target("1", dbr)).await;
        let r = run(&p, &s0, options(), Some(with_target("2", dbr))).await;
        assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
        let mut replaced = r.steps_of(StepOp::Replace);
        replaced.sort();
        assert_eq!(replaced, vec!["d", "t"], "dbr={dbr}");
        assert_eq!(p.names("create"), vec!["t", "d"], "dbr={dbr}");
        assert_eq!(
            p.names("delete"),
            vec!["t"],
            "dbr={dbr}: only t's Delete runs"
        );
        let keys = r
            .events
            .iter()
            .find_map(|e| match e {
                EngineEvent::StepPlanned(i) if i.op == StepOp::Replace && i.urn.name() == "d" => {
                    Some(i.replace_keys.clone())
                }
                _ => None,
            })
            .unwrap();
        assert_eq!(keys, vec!["deletedWith"], "dbr={dbr}");
        // Removing both deletes only the target.
        p.calls.lock().unwrap().clear();
        let empty = Box::new(ProgramFn(|_m| async { Ok(()) }));
        let r = run(&p, &r.result.snapshot, options(), Some(empty)).await;
        assert_eq!(r.steps_of(StepOp::Delete), vec!["d", "t"]);
        assert_eq!(p.names("delete"), vec!["t"]);
    }
}

#[tokio::test]
async fn custom_timeouts_reach_the_provider() {
    let p = Arc::new(FakeProvider::default());
    let prog = |k: &'static str| {
        goals(vec![Box::new(move |_| {
            let mut g = custom("a", &[("k", k)]);
            g.custom_timeouts = Some(CustomTimeouts {
                create: 300.0,
                update: 120.0,
                delete: 60.0,
                read: 0.0,
            });
            g
        })])
    };
    let s0 = first(&p, prog("1")).await;
    assert_eq!(
        state(&s0, "a").custom_timeouts.as_ref().unwrap().create,
        300.0
    );
    let r = run(&p, &s0, options(), Some(prog("2"))).await;
    let empty = Box::new(ProgramFn(|_m| async { Ok(()) }));
    run(&p, &r.result.snapshot, options(), Some(empty)).await;
    let timeouts: Vec<(&str, f64)> = p
        .calls()
        .iter()
        .filter(|c| c.op != "diff")
        .map(|c| (c.op, c.timeout))
        .collect();
    assert_eq!(timeouts, vec![("update", 120.0), ("delete", 60.0)]);
}

#[tokio::test]
async fn additional_secret_outputs_are_secret_in_state() {
    let p = Arc::new(FakeProvider::default());
    let s0 = first(
        &p,
        goals(vec![Box::new(|_| {
            let mut g = custom("a", &[("password", "hunter2"), ("user", "me")]);
            g.additional_secret_outputs = vec!["password".into()];
            g
        })]),
    )
    .await;
    let a = state(&s0, "a");
    assert!(a.outputs["password"].is_secret());
    assert!(!a.outputs["user"].is_secret());
}

#[tokio::test]
async fn components_are_diffed_by_the_engine_and_outputs_are_recorded() {
    let p = Arc::new(FakeProvider::default());
    let prog = |v: &'static str| {
        Box::new(ProgramFn(
            move |m: stepdeck::engine::ResourceMonitor| async move {
                let err = |e: stepdeck::engine::RegisterError| {
                    stepdeck::engine::ProgramError(e.to_string())
                };
                let stack = m
                    .register(Goal::component("pulumi:pulumi:Stack", "proj-test"))
                    .await
                    .map_err(err)?;
                let mut comp = Goal::component("my:comp:Comp", "c");
                comp.properties = props([("v", v)]);
                let c = m.register(comp).await.map_err(err)?;
                m.register_outputs(&c.urn, props([("out", v)]))
                    .await
                    .map_err(err)?;
                m.register_outputs(&stack.urn, props([("url", "http://x")]))
                    .await
                    .map_err(err)?;
                Ok(())
            },
        )) as Box<dyn stepdeck::engine::Program>
    };
    let r = run(&p, &Snapshot::default(), options(), Some(prog("1"))).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    assert_eq!(r.result.outputs, props([("url", "http://x")]));
    assert_eq!(
        state(&r.result.snapshot, "c").outputs,
        props([("out", "1")])
    );
    let s0 = r.result.snapshot;
    let r = run(&p, &s0, options(), Some(prog("1"))).await;
    assert_eq!(r.steps_of(StepOp::Same), vec!["proj-test", "c"]);
    let r = run(&p, &s0, options(), Some(prog("2"))).await;
    assert_eq!(r.steps_of(StepOp::Update), vec!["c"]);
    assert_eq!(
        state(&r.result.snapshot, "c").outputs,
        props([("out", "2")])
    );
    assert!(p.calls().is_empty(), "components never reach a provider");
}

#[tokio::test]
async fn import_adopts_and_then_updates_when_inputs_differ() {
    let p = Arc::new(FakeProvider::default());
    p.world
        .lock()
        .unwrap()
        .insert("ext-1".into(), props([("k", "old")]));
    let prog = |k: &'static str| {
        goals(vec![Box::new(move |_| {
            let mut g = custom("a", &[("k", k)]);
            g.import_id = Some("ext-1".into());
            g
        })])
    };
    // Equal inputs: a plain import.
    let r = run(&p, &Snapshot::default(), options(), Some(prog("old"))).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    assert_eq!(changes(&r), vec![s(StepOp::Import, "a")]);
    // Differing inputs: the import, then an update against the imported state.
    let r = run(&p, &Snapshot::default(), options(), Some(prog("new"))).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    assert_eq!(
        changes(&r),
        vec![s(StepOp::Import, "a"), s(StepOp::Update, "a")]
    );
    let a = state(&r.result.snapshot, "a");
    assert_eq!(a.id.as_deref(), Some("ext-1"));
    assert_eq!(a.outputs, props([("k", "new")]));
    assert_eq!(
        r.result
            .snapshot
            .resources
            .iter()
            .filter(|x| x.urn.name() == "a")
            .count(),
        1
    );
    // Next run: the resource is managed; same inputs are a same.
    let r = run(&p, &r.result.snapshot, options(), Some(prog("new"))).await;
    assert_eq!(changes(&r), vec![]);
}

fn protected(name: &'static str, k: &'static str) -> GoalFn {
    Box::new(move |_| {
        let mut g = custom(name, &[("k", k)]);
        g.protect = Some(true);
        g
    })
}

#[tokio::test]
async fn ignore_protect_allows_deletes_and_replacements_of_protected_resources() {
    let p = Arc::new(FakeProvider {
        diff: Some(replace_on(&["k"], false)),
        ..FakeProvider::default()
    });
    let s0 = first(
        &p,
        goals(vec![protected("gone", "1"), protected("swapped", "1")]),
    )
    .await;
    let next = || goals(vec![protected("swapped", "2")]);
    // Without the option both are refused.
    let r = run(&p, &s0, options(), Some(next())).await;
    assert!(
        failed(&r).contains("marked for protection"),
        "{}",
        failed(&r)
    );
    assert!(p.names("delete").is_empty());
    let mut opts = options();
    opts.ignore_protect = true;
    let r = run(&p, &s0, opts, Some(next())).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    assert_eq!(
        changes(&r),
        vec![
            s(StepOp::CreateReplacement, "swapped"),
            s(StepOp::Replace, "swapped"),
            s(StepOp::Delete, "gone"),
            s(StepOp::DeleteReplaced, "swapped"),
        ]
    );
    let mut deleted = p.names("delete");
    deleted.sort();
    assert_eq!(deleted, vec!["gone", "swapped"]);
    assert!(
        state(&r.result.snapshot, "swapped").protect,
        "the stored flag is unchanged"
    );
}

#[tokio::test]
async fn an_import_adopting_the_read_keeps_what_it_found_without_inputs_of_its_own() {
    let p = Arc::new(FakeProvider::default());
    p.world
        .lock()
        .unwrap()
        .insert("ext-1".into(), props([("k", "old"), ("j", "x")]));
    // `pulumi import`: no program inputs to check or diff; `only` narrows what is kept.
    let adopt = |only: &'static [&'static str]| {
        goals(vec![Box::new(move |_| {
            let mut g = custom("a", &[]);
            g.import_id = Some("ext-1".into());
            g.adopt_read = Some(only.iter().map(|k| k.to_string()).collect());
            g
        })])
    };
    let r = run(&p, &Snapshot::default(), options(), Some(adopt(&[]))).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    assert_eq!(changes(&r), vec![s(StepOp::Import, "a")]);
    assert_eq!(
        state(&r.result.snapshot, "a").inputs,
        props([("k", "old"), ("j", "x")])
    );
    let r = run(&p, &Snapshot::default(), options(), Some(adopt(&["k"]))).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    assert_eq!(changes(&r), vec![s(StepOp::Import, "a")]);
    let a = state(&r.result.snapshot, "a");
    assert_eq!(a.inputs, props([("k", "old")]));
    assert_eq!(a.outputs, props([("k", "old"), ("j", "x")]));
}

fn importing(k: &'static str, id: &'static str) -> Box<dyn stepdeck::engine::Program> {
    goals(vec![Box::new(move |_| {
        let mut g = custom("a", &[("k", k)]);
        g.import_id = Some(id.into());
        g
    })])
}

#[tokio::test]
async fn importing_another_id_over_a_managed_resource_is_an_import_replacement() {
    let p = Arc::new(FakeProvider::default());
    let s0 = first(&p, goals(vec![Box::new(|_| custom("a", &[("k", "1")]))])).await;
    p.world
        .lock()
        .unwrap()
        .insert("ext-2".into(), props([("k", "1")]));
    let r = run(&p, &s0, options(), Some(importing("1", "ext-2"))).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    assert_eq!(
        changes(&r),
        vec![
            s(StepOp::ImportReplacement, "a"),
            s(StepOp::Replace, "a"),
            s(StepOp::DeleteReplaced, "a"),
        ]
    );
    assert_eq!(p.names("delete"), vec!["a"], "the old copy is deleted");
    assert!(!p.world.lock().unwrap().contains_key("id-a"));
    let a = state(&r.result.snapshot, "a");
    assert_eq!(
        (a.id.as_deref(), a.import_id.as_deref()),
        (Some("ext-2"), Some("ext-2"))
    );
    assert_eq!(r.names(), vec!["a"]);
    // The same import ID again: already managed, nothing to do.
    let r = run(
        &p,
        &r.result.snapshot,
        options(),
        Some(importing("1", "ext-2")),
    )
    .await;
    assert_eq!(changes(&r), vec![]);
}

#[tokio::test]
async fn an_import_that_needs_a_replacement_fails_an_update_but_only_warns_in_a_preview() {
    let p = Arc::new(FakeProvider {
        diff: Some(replace_on(&["k"], false)),
        ..FakeProvider::default()
    });
    p.world
        .lock()
        .unwrap()
        .insert("ext-1".into(), props([("k", "1")]));
    let mut opts = options();
    opts.operation = stepdeck::engine::Operation::Preview;
    let r = run(
        &p,
        &Snapshot::default(),
        opts,
        Some(importing("2", "ext-1")),
    )
    .await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    let w = warnings(&r);
    assert!(
        w.iter().any(|m| m.contains(
            "previously-imported resources that still specify an ID may not be replaced; please remove the `import` declaration from your program;\nk: 1 => 2"
        )),
        "{w:?}"
    );
    let r = run(
        &p,
        &Snapshot::default(),
        options(),
        Some(importing("2", "ext-1")),
    )
    .await;
    assert!(
        failed(&r).contains("please remove the `import` declaration from your program;\nk: 1 => 2"),
        "{}",
        failed(&r)
    );
    assert!(p.names("create").is_empty());
    // A managed resource whose program still names its import ID may not be replaced either.
    let s0 = run(
        &p,
        &Snapshot::default(),
        options(),
        Some(importing("1", "ext-1")),
    )
    .await
    .result
    .snapshot;
    let r = run(&p, &s0, options(), Some(importing("2", "ext-1"))).await;
    assert!(
        failed(&r)
            .contains("previously-imported resources that still specify an ID may not be replaced; please remove the `import` declaration from your program;\nk: 1 => 2"),
        "{}",
        failed(&r)
    );
    assert!(p.names("delete").is_empty());
}

#[tokio::test]
async fn events_name_each_dependency_once_however_often_the_program_names_it() {
    let p = Arc::new(FakeProvider::default());
    let program = goals(vec![
        Box::new(|_| custom("a", &[("k", "1")])),
        Box::new(|r| {
            let mut g = custom("b", &[("k", "1")]);
            g.dependencies = vec![r.urn("a"), r.urn("a")];
            g.property_dependencies.insert("k".into(), vec![r.urn("a")]);
            g.deleted_with = Some(r.urn("a"));
            g
        }),
    ]);
    let r = run(&p, &Snapshot::default(), options(), Some(program)).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    let lists: Vec<Vec<String>> = r
        .events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::RegistrationReceived {
                urn, dependencies, ..
            } if urn.name() == "b" => Some(dependencies),
            EngineEvent::StepPlanned(i) if i.urn.name() == "b" => Some(&i.dependencies),
            _ => None,
        })
        .map(|d| d.iter().map(|u| u.name().to_string()).collect())
        .collect();
    assert_eq!(lists.len(), 2, "a registration and a planned step");
    for names in lists {
        assert_eq!(names.iter().filter(|n| *n == "a").count(), 1, "{names:?}");
    }
}
