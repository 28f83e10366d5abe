//! Struct⇄property marshalling as the SDKs and providers see it on the wire.

#![allow(clippy::unwrap_used, clippy::panic)]

use prost_types::value::Kind;
use prost_types::{Struct, Value};
use stepdeck::engine::model::property::{
    ARCHIVE_SIG, ASSET_SIG, OUTPUT_SIG, RESOURCE_REF_SIG, ResourceRef, SECRET_SIG, SIG_KEY,
    UNKNOWN_SENTINEL, props,
};
use stepdeck::engine::{PropertyMap, PropertyValue, Urn};
use stepdeck::rpc::marshal::{
    MarshalOptions, annotate_secrets, map_to_struct, mark_secret_outputs, struct_to_map,
};

fn s(v: &str) -> Value {
    Value {
        kind: Some(Kind::StringValue(v.into())),
    }
}

fn obj(fields: Vec<(&str, Value)>) -> Value {
    Value {
        kind: Some(Kind::StructValue(Struct {
            fields: fields
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        })),
    }
}

fn field<'a>(st: &'a Struct, k: &str) -> &'a Kind {
    st.fields[k].kind.as_ref().unwrap()
}

fn urn() -> Urn {
    Urn::parse("urn:pulumi:dev::proj::random:index/randomString:RandomString::a").unwrap()
}

fn sample() -> PropertyMap {
    let mut asset = serde_json::Map::new();
    asset.insert(SIG_KEY.into(), ASSET_SIG.into());
    asset.insert("text".into(), "hello".into());
    let mut archive = serde_json::Map::new();
    archive.insert(SIG_KEY.into(), ARCHIVE_SIG.into());
    archive.insert("path".into(), "./dir".into());
    props([
        ("null", PropertyValue::Null),
        ("flag", true.into()),
        ("n", 8.0.into()),
        ("half", 0.5.into()),
        ("s", "text".into()),
        ("later", PropertyValue::Unknown),
        ("pw", PropertyValue::Secret(Box::new("hunter2".into()))),
        (
            "nested",
            PropertyValue::Object(props([
                (
                    "list",
                    PropertyValue::Array(vec![1.0.into(), PropertyValue::Unknown]),
                ),
                (
                    "inner",
                    PropertyValue::Secret(Box::new(PropertyValue::Array(vec!["x".into()]))),
                ),
            ])),
        ),
        (
            "ref",
            PropertyValue::ResourceReference(Box::new(ResourceRef {
                urn: urn(),
                id: Some("id-1".into()),
                package_version: "4.21.4".into(),
            })),
        ),
        (
            "pendingRef",
            PropertyValue::ResourceReference(Box::new(ResourceRef {
                urn: urn(),
                id: Some(PropertyValue::Unknown),
                package_version: String::new(),
            })),
        ),
        ("asset", PropertyValue::Asset(Box::new(asset))),
        ("archive", PropertyValue::Archive(Box::new(archive))),
    ])
}

#[test]
fn everything_round_trips_when_kept() {
    let m = sample();
    let st = map_to_struct(&m, MarshalOptions::ALL);
    assert_eq!(struct_to_map(Some(&st), MarshalOptions::ALL).unwrap(), m);
}

#[test]
fn wire_shapes_match_the_sdks() {
    let st = map_to_struct(&sample(), MarshalOptions::ALL);
    assert_eq!(
        field(&st, "later"),
        &Kind::StringValue(UNKNOWN_SENTINEL.into())
    );
    let Kind::StructValue(pw) = field(&st, "pw") else {
        panic!("secret is not an object")
    };
    assert_eq!(field(pw, SIG_KEY), &Kind::StringValue(SECRET_SIG.into()));
    assert_eq!(field(pw, "value"), &Kind::StringValue("hunter2".into()));
    let Kind::StructValue(r) = field(&st, "ref") else {
        panic!("ref is not an object")
    };
    assert_eq!(
        field(r, SIG_KEY),
        &Kind::StringValue(RESOURCE_REF_SIG.into())
    );
    assert_eq!(field(r, "urn"), &Kind::StringValue(urn().to_string()));
    assert_eq!(field(r, "id"), &Kind::StringValue("id-1".into()));
    assert_eq!(
        field(r, "packageVersion"),
        &Kind::StringValue("4.21.4".into())
    );
    let Kind::StructValue(p) = field(&st, "pendingRef") else {
        panic!()
    };
    assert_eq!(field(p, "id"), &Kind::StringValue(String::new()));
    assert_eq!(field(&st, "n"), &Kind::NumberValue(8.0));
}

#[test]
fn secrets_are_stripped_when_not_kept() {
    let opts = MarshalOptions::for_peer(false, true);
    let st = map_to_struct(&sample(), opts);
    assert_eq!(field(&st, "pw"), &Kind::StringValue("hunter2".into()));
    let back = struct_to_map(Some(&st), MarshalOptions::ALL).unwrap();
    assert!(!back.values().any(PropertyValue::contains_secrets));
    // Decoding with keep_secrets=false also strips the SDK's envelope.
    let wire = Struct {
        fields: [(
            "pw".to_string(),
            obj(vec![(SIG_KEY, s(SECRET_SIG)), ("value", s("x"))]),
        )]
        .into_iter()
        .collect(),
    };
    let m = struct_to_map(Some(&wire), opts).unwrap();
    assert_eq!(m["pw"], PropertyValue::String("x".into()));
}

#[test]
fn resources_become_ids_or_urns_when_not_kept() {
    let opts = MarshalOptions::for_peer(true, false);
    let mut m = sample();
    m.insert(
        "component".into(),
        PropertyValue::ResourceReference(Box::new(ResourceRef {
            urn: urn(),
            id: None,
            package_version: String::new(),
        })),
    );
    let st = map_to_struct(&m, opts);
    assert_eq!(field(&st, "ref"), &Kind::StringValue("id-1".into()));
    assert_eq!(
        field(&st, "pendingRef"),
        &Kind::StringValue(UNKNOWN_SENTINEL.into())
    );
    assert_eq!(
        field(&st, "component"),
        &Kind::StringValue(urn().to_string())
    );
}

#[test]
fn unknowns_are_dropped_when_not_kept() {
    let opts = MarshalOptions {
        keep_unknowns: false,
        ..MarshalOptions::ALL
    };
    let st = map_to_struct(&sample(), opts);
    assert!(!st.fields.contains_key("later"));
    let back = struct_to_map(Some(&map_to_struct(&sample(), MarshalOptions::ALL)), opts).unwrap();
    assert!(!back.contains_key("later"));
    assert_eq!(
        back["nested"].as_object().unwrap()["list"],
        PropertyValue::Array(vec![1.0.into(), PropertyValue::Null])
    );
}

#[test]
fn output_values_encode_and_decode() {
    let opts = MarshalOptions {
        keep_output_values: true,
        ..MarshalOptions::ALL
    };
    let st = map_to_struct(&sample(), opts);
    let Kind::StructValue(later) = field(&st, "later") else {
        panic!()
    };
    assert_eq!(field(later, SIG_KEY), &Kind::StringValue(OUTPUT_SIG.into()));
    assert!(!later.fields.contains_key("value"));
    let Kind::StructValue(pw) = field(&st, "pw") else {
        panic!()
    };
    assert_eq!(field(pw, "secret"), &Kind::BoolValue(true));
    assert_eq!(
        struct_to_map(Some(&st), MarshalOptions::ALL).unwrap(),
        sample()
    );

    // An output value from an SDK with dependencies: known, secret.
    let wire = Struct {
        fields: [(
            "o".to_string(),
            obj(vec![
                (SIG_KEY, s(OUTPUT_SIG)),
                ("value", s("v")),
                (
                    "secret",
                    Value {
                        kind: Some(Kind::BoolValue(true)),
                    },
                ),
                (
                    "dependencies",
                    Value {
                        kind: Some(Kind::ListValue(Default::default())),
                    },
                ),
            ]),
        )]
        .into_iter()
        .collect(),
    };
    let m = struct_to_map(Some(&wire), MarshalOptions::ALL).unwrap();
    assert_eq!(m["o"], PropertyValue::Secret(Box::new("v".into())));
}

#[test]
fn bad_signatures_are_errors_naming_the_property() {
    let wire = Struct {
        fields: [(
            "outer".to_string(),
            obj(vec![("inner", obj(vec![(SIG_KEY, s("nope"))]))]),
        )]
        .into_iter()
        .collect(),
    };
    let e = struct_to_map(Some(&wire), MarshalOptions::ALL).unwrap_err();
    assert_eq!(e.path, "outer.inner");
    assert!(e.to_string().contains("nope"));
}

#[test]
fn secret_annotation_and_additional_secret_outputs() {
    let inputs = props([
        (
            "__provider",
            PropertyValue::Secret(Box::new("pickled".into())),
        ),
        ("plain", "p".into()),
    ]);
    let mut outputs = props([("__provider", "pickled"), ("plain", "p"), ("result", "r")]);
    annotate_secrets(&mut outputs, &inputs);
    assert!(outputs["__provider"].is_secret());
    assert!(!outputs["plain"].is_secret());
    mark_secret_outputs(&mut outputs, &["result".to_string(), "missing".to_string()]);
    assert_eq!(
        outputs["result"],
        PropertyValue::Secret(Box::new("r".into()))
    );
    assert!(!outputs.contains_key("missing"));
}
