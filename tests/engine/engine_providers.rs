//! Providers as resources (Pulumi's provider_test.go): default providers configured from stack
//! config, explicit providers, provider replacement cascading to what they manage, moves between
//! providers, unknown configuration in previews, malformed references.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::support;
use std::sync::Arc;

use stepdeck::engine::model::property::props;
use stepdeck::engine::provider::{DiffChanges, DiffRequest, DiffResult};
use stepdeck::engine::{EngineEvent, Goal, Operation, Outcome, PropertyValue, Snapshot, StepOp};
use support::*;

const PROV: &str = "pulumi:providers:pkgA";

/// DiffConfig that replaces when `region` changed, delete-before-replace when `dbr`.
fn region_replaces(dbr: bool) -> Box<DiffFn> {
    Box::new(move |req: &DiffRequest| {
        let mut d = DiffResult::none();
        if req.old_inputs.get("region") != req.new_inputs.get("region") {
            d.changes = DiffChanges::Some;
            d.changed_keys = vec!["region".into()];
            d.replace_keys = vec!["region".into()];
            d.delete_before_replace = dbr;
        }
        d
    })
}

fn fake_with_config(dbr: bool) -> Arc<FakeProvider> {
    Arc::new(FakeProvider {
        diff_config: Some(region_replaces(dbr)),
        ..FakeProvider::default()
    })
}

/// An explicit provider `prov` with a region, `a` managed by it, `b` by the default provider.
fn explicit(region: &'static str) -> Box<dyn stepdeck::engine::Program> {
    goals(vec![
        Box::new(move |_| Goal::custom(PROV, "prov", props([("region", region)]))),
        Box::new(|r| {
            let mut g = custom("a", &[("k", "1")]);
            g.provider = Some(r.reference("prov"));
            g
        }),
        Box::new(|_| custom("b", &[("k", "1")])),
    ])
}

fn replace_keys(run: &Run, name: &str) -> Vec<String> {
    run.events
        .iter()
        .find_map(|e| match e {
            EngineEvent::StepPlanned(i) if i.op == StepOp::Replace && i.urn.name() == name => {
                Some(i.replace_keys.clone())
            }
            _ => None,
        })
        .unwrap_or_else(|| panic!("no replace of {name}"))
}

fn changes(run: &Run) -> Vec<(StepOp, String)> {
    run.steps()
        .into_iter()
        .filter(|(o, _)| *o != StepOp::Same)
        .collect()
}

fn s(op: StepOp, n: &str) -> (StepOp, String) {
    (op, n.to_string())
}

#[tokio::test]
async fn default_provider_is_configured_from_the_stack_config() {
    let p = Arc::new(FakeProvider::default());
    let mut opts = options();
    opts.config = [
        ("pkgA:region".to_string(), "us-west-2".to_string()),
        ("pkgA:retries".to_string(), "3".to_string()),
        ("other:key".to_string(), "x".to_string()),
    ]
    .into();
    let r = run(
        &p,
        &Snapshot::default(),
        opts,
        Some(goals(vec![Box::new(|_| custom("a", &[]))])),
    )
    .await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    let dflt = state(&r.result.snapshot, "default");
    assert_eq!(dflt.urn.type_(), PROV);
    let want = props([
        ("region", PropertyValue::from("us-west-2")),
        ("retries", PropertyValue::Number(3.0)),
    ]);
    assert_eq!(dflt.inputs, want);
    assert_eq!(*p.configures.lock().unwrap(), vec![want]);
    let a = state(&r.result.snapshot, "a");
    assert_eq!(
        a.provider.as_ref().map(ToString::to_string).as_deref(),
        Some(format!("{}::{}", dflt.urn, dflt.id.as_deref().unwrap()).as_str())
    );
}

/// A program may name the default provider the engine made (its reference comes back from
/// `getResource`) as the explicit provider of a later resource: it is a registered resource,
/// though the monitor records default providers apart from the program's registrations.
#[tokio::test]
async fn the_default_provider_may_be_named_as_an_explicit_provider() {
    use stepdeck::engine::{ProgramError, ProgramFn};
    let p = Arc::new(FakeProvider::default());
    let program = ProgramFn(|monitor: stepdeck::engine::ResourceMonitor| async move {
        let failed = |e: stepdeck::engine::RegisterError| ProgramError(e.to_string());
        let a = monitor.register(custom("a", &[])).await.map_err(failed)?;
        let args = props([("urn", PropertyValue::from(a.urn.as_str()))]);
        let found = monitor
            .invoke_with_version("pulumi:pulumi:getResource", &args, None, None)
            .await
            .map_err(failed)?;
        let mut b = custom("b", &[]);
        b.provider = found["provider"]
            .as_str()
            .map(|p| stepdeck::engine::ProviderRef::parse(p).unwrap());
        monitor.register(b).await.map_err(failed)?;
        Ok(())
    });
    let r = run(&p, &Snapshot::default(), options(), Some(Box::new(program))).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    let dflt = state(&r.result.snapshot, "default");
    let reference = format!("{}::{}", dflt.urn, dflt.id.as_deref().unwrap());
    assert_eq!(
        state(&r.result.snapshot, "b")
            .provider
            .as_ref()
            .map(ToString::to_string)
            .as_deref(),
        Some(reference.as_str())
    );
}

#[tokio::test]
async fn a_provider_replaced_by_diff_config_replaces_what_it_manages() {
    let p = fake_with_config(false);
    let s0 = run(&p, &Snapshot::default(), options(), Some(explicit("1")))
        .await
        .result
        .snapshot;
    let old_prov_id = state(&s0, "prov").id.clone().unwrap();
    p.calls.lock().unwrap().clear();
    let r = run(&p, &s0, options(), Some(explicit("2"))).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    assert_eq!(
        changes(&r),
        vec![
            s(StepOp::CreateReplacement, "prov"),
            s(StepOp::Replace, "prov"),
            s(StepOp::CreateReplacement, "a"),
            s(StepOp::Replace, "a"),
            s(StepOp::DeleteReplaced, "a"),
            s(StepOp::DeleteReplaced, "prov"),
        ]
    );
    assert_eq!(replace_keys(&r, "a"), vec!["provider"]);
    assert_eq!(r.steps_of(StepOp::Same), vec!["b"]);
    assert_eq!(p.names("create"), vec!["a"]);
    assert_eq!(p.names("delete"), vec!["a"]);
    let prov = state(&r.result.snapshot, "prov");
    assert_ne!(prov.id.as_deref(), Some(old_prov_id.as_str()));
    let a = state(&r.result.snapshot, "a");
    assert_eq!(
        a.provider.as_ref().map(ToString::to_string).as_deref(),
        Some(format!("{}::{}", prov.urn, prov.id.as_deref().unwrap()).as_str())
    );
    assert_eq!(r.names(), vec!["a", "b"]);
}

#[tokio::test]
async fn a_delete_before_replace_provider_cascades_to_its_resources() {
    let p = fake_with_config(true);
    let s0 = run(&p, &Snapshot::default(), options(), Some(explicit("1")))
        .await
        .result
        .snapshot;
    p.calls.lock().unwrap().clear();
    let r = run(&p, &s0, options(), Some(explicit("2"))).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    assert_eq!(
        changes(&r),
        vec![
            s(StepOp::DeleteReplaced, "a"),
            s(StepOp::DeleteReplaced, "prov"),
            s(StepOp::Replace, "prov"),
            s(StepOp::CreateReplacement, "prov"),
            s(StepOp::Replace, "a"),
            s(StepOp::CreateReplacement, "a"),
        ]
    );
    let calls: Vec<(&str, String)> = p
        .calls()
        .iter()
        .filter(|c| c.op != "diff")
        .map(|c| (c.op, c.urn.name().to_string()))
        .collect();
    assert_eq!(
        calls,
        vec![("delete", "a".to_string()), ("create", "a".to_string())]
    );
    assert_eq!(r.names(), vec!["a", "b"]);
}

fn two_providers(a_on: &'static str, r2: &'static str) -> Box<dyn stepdeck::engine::Program> {
    goals(vec![
        Box::new(|_| Goal::custom(PROV, "p1", props([("region", "1")]))),
        Box::new(move |_| Goal::custom(PROV, "p2", props([("region", r2)]))),
        Box::new(move |r| {
            let mut g = custom("a", &[("k", "1")]);
            g.provider = Some(r.reference(a_on));
            g
        }),
    ])
}

#[tokio::test]
async fn moving_to_another_provider_asks_the_new_providers_diff_config() {
    // Same configuration: the resource just moves.
    let p = fake_with_config(false);
    let s0 = run(
        &p,
        &Snapshot::default(),
        options(),
        Some(two_providers("p1", "1")),
    )
    .await
    .result
    .snapshot;
    let r = run(&p, &s0, options(), Some(two_providers("p2", "1"))).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    assert_eq!(changes(&r), vec![]);
    let p2 = state(&r.result.snapshot, "p2");
    assert_eq!(
        state(&r.result.snapshot, "a")
            .provider
            .as_ref()
            .map(ToString::to_string)
            .as_deref(),
        Some(format!("{}::{}", p2.urn, p2.id.as_deref().unwrap()).as_str())
    );
    // Different configuration: the new provider's DiffConfig replaces the resource.
    let p = fake_with_config(false);
    let s0 = run(
        &p,
        &Snapshot::default(),
        options(),
        Some(two_providers("p1", "2")),
    )
    .await
    .result
    .snapshot;
    let r = run(&p, &s0, options(), Some(two_providers("p2", "2"))).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    assert_eq!(
        changes(&r),
        vec![
            s(StepOp::CreateReplacement, "a"),
            s(StepOp::Replace, "a"),
            s(StepOp::DeleteReplaced, "a"),
        ]
    );
    assert_eq!(replace_keys(&r, "a"), vec!["provider"]);
}

#[tokio::test]
async fn unknown_provider_config_in_preview_is_a_diff_unavailable_update() {
    let p = Arc::new(FakeProvider::default());
    let s0 = run(&p, &Snapshot::default(), options(), Some(explicit("1")))
        .await
        .result
        .snapshot;
    p.calls.lock().unwrap().clear();
    let mut opts = options();
    opts.operation = Operation::Preview;
    let program = goals(vec![
        Box::new(|_| Goal::custom(PROV, "prov", props([("region", PropertyValue::Unknown)]))),
        Box::new(|r| {
            let mut g = custom("a", &[("k", "1")]);
            g.provider = Some(r.reference("prov"));
            g
        }),
    ]);
    let r = run(&p, &s0, opts, Some(program)).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    assert_eq!(r.steps_of(StepOp::Update), vec!["prov", "a"]);
    let w = warnings(&r);
    assert!(
        w.iter().any(|m| m.contains("not known during preview")),
        "{w:?}"
    );
    assert!(
        p.names("diff").is_empty(),
        "no Diff with an unconfigured provider"
    );
    assert!(
        p.names("update").is_empty(),
        "no Update with an unconfigured provider"
    );
    assert_eq!(r.result.snapshot, s0, "a preview writes nothing");
}

/// A factory that hands out the fake and records every load as (package, version).
struct CountingFactory {
    fake: Arc<FakeProvider>,
    loads: std::sync::Mutex<Vec<(String, Option<String>)>>,
}

impl stepdeck::engine::ProviderFactory for CountingFactory {
    fn load(
        &self,
        package: &str,
        version: Option<&str>,
    ) -> Result<Arc<dyn stepdeck::engine::Provider>, stepdeck::engine::provider::ProviderError>
    {
        self.loads
            .lock()
            .unwrap()
            .push((package.to_string(), version.map(str::to_string)));
        Ok(self.fake.clone())
    }
}

async fn run_counting(
    factory: &Arc<CountingFactory>,
    base: &Snapshot,
    opts: stepdeck::engine::Options,
    program: Box<dyn stepdeck::engine::Program>,
) -> Run {
    let journal = CheckingJournal::new(base);
    let violations = journal.violations.clone();
    let entries = journal.entries.clone();
    let (sink, rx) = stepdeck::engine::EventSink::channel();
    let d = stepdeck::engine::Deployment::new(
        opts,
        base.clone(),
        factory.clone(),
        Box::new(journal),
        sink,
    );
    let result = d.run(Some(program)).await;
    finish(result, rx, &violations, &entries)
}

#[tokio::test]
async fn a_provider_plugin_is_loaded_once_for_check_diff_and_configure() {
    let factory = Arc::new(CountingFactory {
        fake: fake_with_config(false),
        loads: Default::default(),
    });
    let r = run_counting(&factory, &Snapshot::default(), options(), explicit("1")).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    // One instance per provider resource: CheckConfig's instance is the one configured.
    assert_eq!(factory.loads.lock().unwrap().len(), 2);
    factory.loads.lock().unwrap().clear();
    // An unchanged run: CheckConfig and DiffConfig share one instance, which Configure takes.
    let r = run_counting(&factory, &r.result.snapshot, options(), explicit("1")).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    assert_eq!(factory.loads.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn a_requested_version_gets_its_own_default_provider() {
    let factory = Arc::new(CountingFactory {
        fake: Arc::new(FakeProvider::default()),
        loads: Default::default(),
    });
    let program = goals(vec![
        Box::new(|_| custom("plain", &[])),
        Box::new(|_| {
            let mut g = custom("pinned", &[]);
            g.version = Some("1.2.3-beta.1".into());
            g
        }),
    ]);
    let r = run_counting(&factory, &Snapshot::default(), options(), program).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    let snap = &r.result.snapshot;
    let pinned = state(snap, "default_1_2_3_beta_1");
    assert_eq!(pinned.urn.type_(), PROV);
    assert_eq!(pinned.inputs, props([("version", "1.2.3-beta.1")]));
    assert!(
        state(snap, "pinned")
            .provider
            .as_ref()
            .is_some_and(|p| p.urn == pinned.urn)
    );
    assert!(
        state(snap, "plain")
            .provider
            .as_ref()
            .is_some_and(|p| p.urn.name() == "default")
    );
    let loads = factory.loads.lock().unwrap().clone();
    assert!(
        loads.contains(&("pkgA".to_string(), Some("1.2.3-beta.1".to_string())))
            && loads.contains(&("pkgA".to_string(), None)),
        "{loads:?}"
    );
}

#[tokio::test]
async fn disabled_default_providers_refuse_resources_without_an_explicit_provider() {
    for denied in [r#"["pkgA"]"#, r#"["*"]"#] {
        let p = Arc::new(FakeProvider::default());
        let mut opts = options();
        opts.config = [(
            "pulumi:disable-default-providers".to_string(),
            denied.to_string(),
        )]
        .into();
        // The explicit provider is fine; `b` asks for the default one.
        let r = run(&p, &Snapshot::default(), opts, Some(explicit("1"))).await;
        let Outcome::Failed(msg) = &r.result.outcome else {
            panic!("{:?}", r.result.outcome)
        };
        let msg = msg.message();
        assert!(
            msg.contains(&format!(
                "Default provider for 'pkgA' disabled. 'urn:pulumi:test::proj::{}::b' must use an explicit provider.",
                TYPE
            )),
            "{msg}"
        );
        assert_eq!(p.names("create"), vec!["a"]);
        assert!(
            !r.result
                .snapshot
                .resources
                .iter()
                .any(|x| x.urn.name() == "default")
        );
    }
}

#[tokio::test]
async fn the_summary_leaves_default_providers_out() {
    let p = Arc::new(FakeProvider::default());
    let program = goals(vec![
        Box::new(|_| Goal::component(stepdeck::engine::model::urn::ROOT_STACK_TYPE, "proj-test")),
        Box::new(|_| custom("a", &[])),
        Box::new(|_| custom("b", &[])),
        Box::new(|_| custom("c", &[])),
    ]);
    let r = run(&p, &Snapshot::default(), options(), Some(program)).await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    assert_eq!(r.result.counts, [(StepOp::Create, 4)].into());
    assert!(state(&r.result.snapshot, "default").is_provider());
}
