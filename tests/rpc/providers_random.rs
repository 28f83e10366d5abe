//! The `random` provider through the `Provider` trait: output shapes as in `pulumi-random`,
//! secrets, previews, and replacement on any input change.

#![allow(clippy::unwrap_used, clippy::panic)]

use std::sync::Arc;

use stepdeck::engine::model::property::props;
use stepdeck::engine::provider::{
    CheckRequest, CreateRequest, CreateResult, DiffChanges, DiffKind, DiffRequest,
};
use stepdeck::engine::{PropertyMap, PropertyValue, Provider, ProviderFactory, Urn};
use stepdeck::providers::BuiltinProviders;

fn provider() -> Arc<dyn Provider> {
    BuiltinProviders::new("unused.json".into())
        .load("random", None)
        .unwrap()
}

fn urn(kind: &str, name: &str) -> Urn {
    let lower = kind[..1].to_lowercase() + &kind[1..];
    Urn::new(
        "dev",
        "p",
        None,
        &format!("random:index/{lower}:{kind}"),
        name,
    )
}

fn n(v: f64) -> PropertyValue {
    PropertyValue::Number(v)
}

async fn create(kind: &str, inputs: PropertyMap, preview: bool) -> CreateResult {
    provider()
        .create(CreateRequest {
            urn: urn(kind, "r"),
            inputs,
            timeout: 0.0,
            preview,
        })
        .await
        .unwrap()
}

#[tokio::test]
async fn random_string_outputs_result_and_defaults() {
    let r = create(
        "RandomString",
        props([("length", n(24.0)), ("special", PropertyValue::Bool(false))]),
        false,
    )
    .await;
    let result = r.outputs["result"].as_str().unwrap();
    assert_eq!(result.len(), 24);
    assert!(
        result.chars().all(|c| c.is_ascii_alphanumeric()),
        "{result}"
    );
    assert_eq!(r.id, result, "pulumi-random: a string's id is the string");
    assert!(!r.outputs["result"].is_secret());
    for (k, v) in [
        ("upper", PropertyValue::Bool(true)),
        ("lower", PropertyValue::Bool(true)),
        ("numeric", PropertyValue::Bool(true)),
        ("number", PropertyValue::Bool(true)),
        ("special", PropertyValue::Bool(false)),
        ("minUpper", n(0.0)),
        ("length", n(24.0)),
    ] {
        assert_eq!(r.outputs[k], v, "{k}");
    }
}

#[tokio::test]
async fn random_password_hides_result_and_hash() {
    let r = create(
        "RandomPassword",
        props([
            ("length", n(16.0)),
            ("minSpecial", n(2.0)),
            ("overrideSpecial", "#!".into()),
        ]),
        false,
    )
    .await;
    let result = match &r.outputs["result"] {
        PropertyValue::Secret(v) => v.as_str().unwrap().to_string(),
        other => panic!("result not secret: {other:?}"),
    };
    assert_eq!(result.len(), 16);
    assert_eq!(r.id, "none", "a password's id never holds it");
    assert!(result.chars().filter(|c| *c == '#' || *c == '!').count() >= 2);
    let hash = match &r.outputs["bcryptHash"] {
        PropertyValue::Secret(v) => v.as_str().unwrap().to_string(),
        other => panic!("bcryptHash not secret: {other:?}"),
    };
    assert!(bcrypt::verify(&result, &hash).unwrap());

    let p = create("RandomPassword", props([("length", n(8.0))]), true).await;
    assert_eq!(
        p.outputs["result"],
        PropertyValue::Secret(Box::new(PropertyValue::Unknown))
    );
    assert_eq!(p.outputs["length"], n(8.0));
}

#[tokio::test]
async fn integer_id_uuid_pet_and_shuffle_shapes() {
    let i = create(
        "RandomInteger",
        props([("min", n(5.0)), ("max", n(7.0))]),
        false,
    )
    .await;
    let v = i.outputs["result"].as_f64().unwrap();
    assert!((5.0..=7.0).contains(&v));
    assert_eq!(i.id, (v as i64).to_string());

    let seeded = props([
        ("min", n(0.0)),
        ("max", n(1_000_000.0)),
        ("seed", "abc".into()),
    ]);
    let a = create("RandomInteger", seeded.clone(), false).await;
    let b = create("RandomInteger", seeded, false).await;
    assert_eq!(
        a.outputs["result"], b.outputs["result"],
        "same seed, same value"
    );

    let id = create(
        "RandomId",
        props([("byteLength", n(8.0)), ("prefix", "x-".into())]),
        false,
    )
    .await;
    let hex = id.outputs["hex"].as_str().unwrap();
    assert!(hex.starts_with("x-") && hex.len() == 2 + 16, "{hex}");
    let dec = id.outputs["dec"]
        .as_str()
        .unwrap()
        .strip_prefix("x-")
        .unwrap();
    let from_hex = u64::from_str_radix(&hex[2..], 16).unwrap();
    assert_eq!(dec, from_hex.to_string());
    assert_eq!(
        id.outputs["b64Url"].as_str().unwrap(),
        format!("x-{}", id.id)
    );
    assert!(id.outputs["b64Std"].as_str().unwrap().starts_with("x-"));

    let u = create("RandomUuid", PropertyMap::new(), false).await;
    let s = u.outputs["result"].as_str().unwrap();
    assert!(uuid::Uuid::parse_str(s).is_ok());
    assert_eq!(u.id, s);

    let pet = create("RandomPet", props([("prefix", "app")]), false).await;
    assert_eq!(pet.id.split('-').count(), 3, "{}", pet.id);
    assert!(pet.id.starts_with("app-"));
    assert_eq!(pet.outputs["length"], n(2.0));
    assert_eq!(pet.outputs["separator"], PropertyValue::from("-"));

    let items = PropertyValue::Array(vec!["a".into(), "b".into(), "c".into()]);
    let sh = create(
        "RandomShuffle",
        props([("inputs", items.clone()), ("resultCount", n(2.0))]),
        false,
    )
    .await;
    let results = sh.outputs["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    assert_ne!(results[0], results[1]);
    assert_eq!(sh.outputs["inputs"], items);
}

/// `RandomBytes` (pulumi-random 4.16+): `length` random bytes as secret `base64` and `hex`,
/// the ID their base64; unknown and still secret in a preview.
#[tokio::test]
async fn random_bytes_are_secret_base64_and_hex() {
    let r = create("RandomBytes", props([("length", n(16.0))]), false).await;
    assert!(r.outputs["base64"].is_secret() && r.outputs["hex"].is_secret());
    let hex = r.outputs["hex"].reveal();
    assert_eq!(hex.as_str().unwrap().len(), 32);
    assert_eq!(r.outputs["base64"].reveal().as_str().unwrap(), r.id);
    assert_eq!(r.outputs["length"], n(16.0));
    let preview = create("RandomBytes", props([("length", n(4.0))]), true).await;
    assert_eq!(
        preview.outputs["hex"],
        PropertyValue::Secret(Box::new(PropertyValue::Unknown))
    );
    let check = provider()
        .check(CheckRequest {
            urn: urn("RandomBytes", "r"),
            olds: PropertyMap::new(),
            news: props([("length", n(0.0))]),
            random_seed: Vec::new(),
            autonaming: None,
        })
        .await
        .unwrap();
    assert_eq!(check.failures[0].property, "length");
}

#[tokio::test]
async fn any_input_change_replaces() {
    let p = provider();
    let old = props([("length", n(8.0))]);
    let diff = |old: PropertyMap, new: PropertyMap| {
        let p = p.clone();
        async move {
            p.diff(DiffRequest {
                urn: urn("RandomString", "s"),
                id: "none".into(),
                old_inputs: old,
                old_outputs: PropertyMap::new(),
                new_inputs: new,
                ignore_changes: Vec::new(),
            })
            .await
            .unwrap()
        }
    };
    assert_eq!(
        diff(old.clone(), old.clone()).await.changes,
        DiffChanges::None
    );
    let mut keepers = old.clone();
    keepers.insert(
        "keepers".into(),
        PropertyValue::Object(props([("ami", "ami-2")])),
    );
    let d = diff(old.clone(), keepers).await;
    assert_eq!(d.replace_keys, vec!["keepers"]);
    assert_eq!(d.detailed_diff["keepers"].kind, DiffKind::AddReplace);
    let d = diff(old, props([("length", n(9.0))])).await;
    assert_eq!(d.replace_keys, vec!["length"]);
    assert!(!d.delete_before_replace);
}

#[tokio::test]
async fn check_names_bad_inputs() {
    let p = provider();
    let check = |kind: &str, news: PropertyMap| {
        let p = p.clone();
        let u = urn(kind, "c");
        async move {
            p.check(CheckRequest {
                urn: u,
                olds: PropertyMap::new(),
                news,
                random_seed: Vec::new(),
                autonaming: None,
            })
            .await
            .unwrap()
            .failures
        }
    };
    let f = check("RandomString", props([("lenght", n(3.0))])).await;
    let fields: Vec<_> = f.iter().map(|f| f.property.as_str()).collect();
    assert_eq!(fields, vec!["lenght", "length"]);
    let f = check(
        "RandomString",
        props([
            ("length", n(2.0)),
            ("minUpper", n(2.0)),
            ("minLower", n(1.0)),
        ]),
    )
    .await;
    assert_eq!(f.len(), 1);
    assert!(f[0].reason.contains("minUpper"), "{}", f[0].reason);
    let f = check("RandomInteger", props([("min", n(5.0)), ("max", n(1.0))])).await;
    assert_eq!(f[0].property, "min");
    let f = check("RandomString", props([("length", PropertyValue::Unknown)])).await;
    assert!(f.is_empty(), "unknown inputs are checked later");
}

#[tokio::test]
async fn an_interrupted_create_left_nothing_to_find() {
    let p = provider();
    create("RandomPet", PropertyMap::new(), false).await;
    // A random value lives only in the state: there is never anything to look up.
    assert_eq!(p.lookup(&urn("RandomPet", "r")).await, Ok(Vec::new()));
}

#[tokio::test]
async fn random_uuid4_and_uuid7_make_their_versions() {
    for (kind, version) in [("RandomUuid4", 4), ("RandomUuid7", 7)] {
        let u = create(kind, PropertyMap::new(), false).await;
        let s = u.outputs["result"].as_str().unwrap();
        let parsed = uuid::Uuid::parse_str(s).unwrap();
        assert_eq!(parsed.get_version_num(), version, "{kind}: {s}");
        assert_eq!(u.id, s);
    }
    let first = create("RandomUuid7", PropertyMap::new(), false).await.id;
    std::thread::sleep(std::time::Duration::from_millis(2));
    let later = create("RandomUuid7", PropertyMap::new(), false).await.id;
    assert!(first < later, "v7 UUIDs sort by time: {first} {later}");
}

async fn import(kind: &str, id: &str) -> Result<stepdeck::engine::provider::ReadResult, String> {
    provider()
        .read(stepdeck::engine::provider::ReadRequest {
            urn: urn(kind, "imported"),
            id: id.into(),
            inputs: PropertyMap::new(),
            state: PropertyMap::new(),
        })
        .await
        .map_err(|e| e.to_string())
}

#[tokio::test]
async fn imports_rebuild_values_from_ids_in_pulumi_randoms_formats() {
    let s = import("RandomString", "myspecialdata").await.unwrap();
    assert_eq!(s.outputs["result"], PropertyValue::string("myspecialdata"));
    assert_eq!(s.inputs["length"], n(13.0));
    assert_eq!(s.outputs["special"], PropertyValue::Bool(true));

    let p = import("RandomPassword", "hunter2").await.unwrap();
    assert!(matches!(&p.outputs["result"], PropertyValue::Secret(_)));
    let PropertyValue::Secret(hash) = &p.outputs["bcryptHash"] else {
        panic!("the hash is secret");
    };
    assert!(bcrypt::verify("hunter2", hash.as_str().unwrap()).unwrap());

    let i = import("RandomInteger", "15390,1,50000,seed").await.unwrap();
    assert_eq!(i.outputs["result"], n(15390.0));
    assert_eq!((&i.inputs["min"], &i.inputs["max"]), (&n(1.0), &n(50000.0)));
    assert_eq!(i.inputs["seed"], PropertyValue::string("seed"));

    let id = import("RandomId", "my-prefix-,p-9hUg").await.unwrap();
    assert_eq!(id.inputs["byteLength"], n(4.0));
    assert_eq!(
        id.outputs["b64Url"],
        PropertyValue::string("my-prefix-p-9hUg")
    );
    assert_eq!(
        id.outputs["hex"],
        PropertyValue::string("my-prefix-a7ef6152")
    );

    let u = import("RandomUuid7", "0197ad85-fe6e-7e92-a2f5-7550daa83030")
        .await
        .unwrap();
    assert_eq!(u.id, "0197ad85-fe6e-7e92-a2f5-7550daa83030");

    let b = import("RandomBytes", "AQID").await.unwrap();
    assert_eq!(b.inputs["length"], n(3.0));
    assert!(
        matches!(&b.outputs["hex"], PropertyValue::Secret(h) if **h == PropertyValue::string("010203"))
    );

    for (kind, id, why) in [
        ("RandomInteger", "15390", "expected result,min,max"),
        ("RandomUuid", "nope", "not a UUID"),
        ("RandomPet", "happy-cat", "cannot import this type"),
    ] {
        let e = import(kind, id).await.unwrap_err();
        assert!(
            e.contains("cannot import random:index/") && e.contains(why),
            "{e}"
        );
    }
}
