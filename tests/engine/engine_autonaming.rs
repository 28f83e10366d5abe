//! The stack's `pulumi:autonaming` config: parsed into a strategy (each mode, the pattern's
//! parts, the package's and type's rules over the root's, bad config named), the names drawn
//! as Pulumi draws them, and what Check sends (or warns about) in a run.

use std::collections::BTreeMap;
use std::sync::Arc;

use stepdeck::engine::Urn;
use stepdeck::engine::provider::{AutonamingMode, AutonamingOptions};
use stepdeck::engine::run::autoname_random::generate_name;
use stepdeck::engine::run::autonaming::{Autonaming, AutonamingError, StackContext};
use stepdeck::engine::{Snapshot, StepOp};

use crate::support::{FakeProvider, In, TYPE, options, program, replace_on, res, run, warnings};

fn ctx() -> StackContext {
    StackContext {
        organization: "organization".into(),
        project: "proj".into(),
        stack: "dev".into(),
    }
}

fn config(autonaming: &str, extra: &[(&str, &str)]) -> BTreeMap<String, String> {
    let mut c: BTreeMap<String, String> = extra
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    c.insert("pulumi:autonaming".into(), autonaming.into());
    c
}

fn strategy(autonaming: &str, extra: &[(&str, &str)]) -> Autonaming {
    Autonaming::from_config(&config(autonaming, extra), &ctx())
        .unwrap()
        .unwrap()
}

fn refusal(autonaming: &str) -> String {
    Autonaming::from_config(&config(autonaming, &[]), &ctx())
        .unwrap_err()
        .to_string()
}

fn urn(ty: &str, name: &str) -> Urn {
    Urn::new("dev", "proj", None, ty, name)
}

fn named(s: &Autonaming, ty: &str) -> Option<(AutonamingOptions, bool)> {
    s.for_resource(&urn(ty, "myResource"), b"seed")
}

fn opts(name: &str, mode: AutonamingMode, warn: bool) -> AutonamingOptions {
    AutonamingOptions {
        proposed_name: name.into(),
        mode,
        warn_if_no_support: warn,
    }
}

#[test]
fn random_parts_are_pulumis_for_the_same_seed() {
    // Pulumi's own expectations (`autonaming/strategy_test.go`, seed "test seed").
    let cases = [
        ("${name}-${hex(4)}", "myresource-f93c"),
        ("${name}-${alphanum(5)}", "myresource-3ufv0"),
        ("${name}-${string(6)}", "myresource-xgtfme"),
        ("${num(7)}_${name}", "5657624_myresource"),
        ("${uuid}", "f93c359b-82a2-9def-ec84-776cd822c95a"),
    ];
    for (pattern, want) in cases {
        assert_eq!(
            generate_name(pattern, "myresource", b"test seed"),
            (want.to_string(), true),
            "{pattern}"
        );
    }
    assert_eq!(
        generate_name("${name}-x", "a", b"s"),
        ("a-x".to_string(), false)
    );
    // Without a seed the random parts differ from call to call.
    assert_ne!(
        generate_name("${hex(16)}", "a", b"").0,
        generate_name("${hex(16)}", "a", b"").0
    );
}

#[test]
fn each_mode_at_the_root() {
    assert_eq!(
        Autonaming::from_config(&BTreeMap::new(), &ctx()).unwrap(),
        None
    );
    assert_eq!(named(&strategy(r#"{"mode":"default"}"#, &[]), TYPE), None);
    assert_eq!(
        named(&strategy(r#"{"mode":"verbatim"}"#, &[]), TYPE),
        Some((opts("myResource", AutonamingMode::Enforce, false), true))
    );
    assert_eq!(
        named(&strategy(r#"{"mode":"disabled"}"#, &[]), TYPE),
        Some((opts("", AutonamingMode::Disable, false), true))
    );
}

#[test]
fn patterns_resolve_the_stack_and_config_and_enforce_warns() {
    let s = strategy(
        r#"{"pattern":"${organization}-${project}-${stack}-${config.env}-${name}"}"#,
        &[("proj:env", "prod")],
    );
    assert_eq!(
        named(&s, TYPE),
        Some((
            opts(
                "organization-proj-dev-prod-myResource",
                AutonamingMode::Propose,
                false
            ),
            true
        ))
    );
    let s = strategy(r#"{"pattern":"${name}-${hex(6)}","enforce":true}"#, &[]);
    let (o, delete_first) = named(&s, TYPE).unwrap();
    assert_eq!(o.mode, AutonamingMode::Enforce);
    assert!(o.warn_if_no_support);
    assert!(!delete_first, "a random part lets old and new coexist");
    assert_eq!(o.proposed_name.len(), "myResource-".len() + 6);
    assert_eq!(Some((o, false)), named(&s, TYPE), "same seed, same name");
}

#[test]
fn a_type_rule_beats_its_package_and_the_package_beats_the_root() {
    let s = strategy(
        r#"{"mode":"verbatim","providers":{
            "pkgA":{"pattern":"a-${name}","resources":{"pkgA:index:Special":{"mode":"disabled"}}},
            "pkgB":{"resources":{"pkgB:index:Other":{"mode":"default"}}}}}"#,
        &[],
    );
    assert_eq!(
        named(&s, "pkgA:index:Res"),
        Some((opts("a-myResource", AutonamingMode::Propose, true), true))
    );
    assert_eq!(
        named(&s, "pkgA:index:Special"),
        Some((opts("", AutonamingMode::Disable, true), true))
    );
    // A package section without its own rule keeps the root's, but it is specific: it warns.
    assert_eq!(
        named(&s, "pkgB:index:Res"),
        Some((opts("myResource", AutonamingMode::Enforce, true), true))
    );
    assert_eq!(named(&s, "pkgB:index:Other"), None);
    assert_eq!(
        named(&s, "pkgC:index:Res"),
        Some((opts("myResource", AutonamingMode::Enforce, false), true))
    );
}

#[test]
fn bad_config_is_refused_naming_what_is_wrong() {
    assert_eq!(
        refusal(r#"{"mode":"verbatim","pattern":"x"}"#),
        "failed to resolve root naming config: cannot specify both mode and pattern/enforce"
    );
    assert_eq!(
        refusal(r#"{"enforce":true}"#),
        "failed to resolve root naming config: pattern must be specified when enforce is true"
    );
    assert_eq!(
        refusal(r#"{"providers":{"aws":{"mode":"loud"}}}"#),
        r#"failed to resolve naming config for provider "aws": invalid naming mode: loud"#
    );
    assert_eq!(
        refusal(r#"{"providers":{"aws":{"resources":{"aws:s3:Bucket":{}}}}}"#),
        r#"mode or pattern must be specified for resource "aws:s3:Bucket""#
    );
    assert_eq!(
        refusal(r#"{"pattern":"${config.missing}"}"#),
        r#"failed to resolve root naming config: no value found for key "missing""#
    );
    assert_eq!(
        refusal(r#"{"providers":{"aws":{"modes":"verbatim"}}}"#),
        "failed to parse autonaming config: invalid autonaming config structure: \
         unknown field \"modes\" in pulumi:autonaming.providers.aws"
    );
    assert!(matches!(
        Autonaming::from_config(&config("verbatim", &[]), &ctx()),
        Err(AutonamingError::Structure(_))
    ));
}

fn autonamed(provider: &FakeProvider) -> Vec<(String, Option<AutonamingOptions>)> {
    provider.autonaming.lock().unwrap().clone()
}

#[tokio::test]
async fn check_carries_the_name_to_a_provider_that_supports_it() {
    let p = Arc::new(FakeProvider {
        supports_autonaming: true,
        ..FakeProvider::default()
    });
    let mut o = options();
    o.autonaming = Some(Arc::new(strategy(r#"{"pattern":"${stack}-${name}"}"#, &[])));
    let r = run(
        &p,
        &Snapshot::default(),
        o,
        Some(program(vec![res("a", vec![("k", In::Lit("v"))])])),
    )
    .await;
    assert!(r.result.outcome.is_success(), "{:?}", r.result.outcome);
    assert_eq!(
        autonamed(&p),
        vec![(
            "a".to_string(),
            Some(opts("dev-a", AutonamingMode::Propose, false))
        )]
    );
}

#[tokio::test]
async fn a_provider_without_support_gets_nothing_and_a_specific_rule_warns() {
    for (config, warned) in [
        (r#"{"mode":"verbatim"}"#, false),
        (r#"{"providers":{"pkgA":{"mode":"verbatim"}}}"#, true),
    ] {
        let p = Arc::new(FakeProvider::default());
        let mut o = options();
        o.autonaming = Some(Arc::new(strategy(config, &[])));
        let r = run(
            &p,
            &Snapshot::default(),
            o,
            Some(program(vec![res("a", vec![])])),
        )
        .await;
        assert_eq!(autonamed(&p), vec![("a".to_string(), None)]);
        let want: Vec<String> = if warned {
            vec![format!(
                "{} resource has a custom autonaming setting but the provider does not support \
                 autonaming configuration, consider upgrading to a newer version",
                Urn::new("test", "proj", None, TYPE, "a")
            )]
        } else {
            Vec::new()
        };
        assert_eq!(warnings(&r), want, "{config}");
    }
}

/// The steps replacing `a` (its `k` changed) under an autonaming config.
async fn replacing(config: &str) -> Vec<StepOp> {
    let p = Arc::new(FakeProvider {
        supports_autonaming: true,
        diff: Some(replace_on(&["k"], false)),
        ..FakeProvider::default()
    });
    let with = |k: &'static str| Some(program(vec![res("a", vec![("k", In::Lit(k))])]));
    let mut o = options();
    o.autonaming = Some(Arc::new(strategy(config, &[])));
    let first = run(&p, &Snapshot::default(), o.clone(), with("1")).await;
    let r = run(&p, &first.result.snapshot, o, with("2")).await;
    r.steps()
        .into_iter()
        .map(|(op, _)| op)
        .filter(|op| *op != StepOp::Same)
        .collect()
}

#[tokio::test]
async fn a_name_without_a_random_part_replaces_delete_first() {
    assert_eq!(
        replacing(r#"{"mode":"verbatim"}"#).await,
        vec![
            StepOp::DeleteReplaced,
            StepOp::Replace,
            StepOp::CreateReplacement
        ]
    );
    assert_eq!(
        replacing(r#"{"pattern":"${name}-${hex(8)}"}"#).await,
        vec![
            StepOp::CreateReplacement,
            StepOp::Replace,
            StepOp::DeleteReplaced
        ]
    );
}
