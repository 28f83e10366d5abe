//! Tests of program-level Pulumi YAML features: short type tokens, the older `configuration:`
//! key, and resource options and `defaultProvider` as they reach the engine's goals.

use crate::engine::property::PropertyValue;

use super::YamlProgram;
use super::test_monitor::{Recorded, Script, info, run};

fn parse(text: &str) -> YamlProgram {
    YamlProgram::parse("Pulumi.yaml", text, "proj").unwrap_or_else(|e| panic!("{e}"))
}

async fn record(text: &str, config: &[(&str, &str)]) -> Recorded {
    let (res, rec) = run(Box::new(parse(text)), info(config, &[]), Script::default()).await;
    res.unwrap_or_else(|e| panic!("{e}"));
    rec
}

#[tokio::test]
async fn short_type_tokens_resolve_to_the_index_module() {
    let rec = record(
        "resources:\n  pw:\n    type: random:RandomPassword\n    properties:\n      length: 8\n  r:\n    type: sim:index:Resource\n    properties:\n      v:\n        fn::invoke:\n          function: fns:echo\n          return: token\n      w:\n        fn::fns:echo: {}\n",
        &[],
    )
    .await;
    assert_eq!(rec.goal("pw").type_, "random:index:RandomPassword");
    let r = &rec.goal("r").properties;
    assert_eq!(r["v"], PropertyValue::string("fns:index:echo"));
    assert_eq!(r["w"].as_object().unwrap()["token"], PropertyValue::string("fns:index:echo"));
    let err = YamlProgram::parse(
        "Pulumi.yaml",
        "variables:\n  v:\n    fn::invoke:\n      function: a:b:c:d\n",
        "proj",
    )
    .unwrap_err();
    assert_eq!(err.to_string(), "Pulumi.yaml:4:7: invalid type token \"a:b:c:d\"");
}

#[tokio::test]
async fn the_older_configuration_key_declares_config() {
    let rec = record(
        "configuration:\n  size:\n    type: Number\n    default: 2\nresources:\n  r:\n    type: sim:index:Resource\n    properties:\n      size: ${size}\n",
        &[],
    )
    .await;
    assert_eq!(rec.goal("r").properties["size"], PropertyValue::Number(2.0));
}
