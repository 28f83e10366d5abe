//! Tests of program-level Pulumi YAML features: short type tokens, the older `configuration:`
//! key, and resource options and `defaultProvider` as they reach the engine's goals.

use crate::engine::PropertyValue;

use super::YamlProgram;
use super::test_monitor::{Recorded, Script, info, parse, parse_err, run};

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
    assert_eq!(
        r["w"].as_object().unwrap()["token"],
        PropertyValue::string("fns:index:echo")
    );
    let err = YamlProgram::parse(
        "Pulumi.yaml",
        "variables:\n  v:\n    fn::invoke:\n      function: a:b:c:d\n",
        "proj",
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Pulumi.yaml:4:7: invalid type token \"a:b:c:d\""
    );
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

const PROV_SIM: &str = "urn:pulumi:dev::proj::pulumi:providers:sim::psim::psim-id";
const PROV_FNS: &str = "urn:pulumi:dev::proj::pulumi:providers:fns::pfns::pfns-id";

#[tokio::test]
async fn providers_serve_their_package_and_pass_to_children() {
    let rec = record(
        r#"resources:
  psim:
    type: pulumi:providers:sim
  pfns:
    type: pulumi:providers:fns
  tier:
    type: demo:component:Tier
    options:
      providers: ["${psim}", "${pfns}"]
  own:
    type: sim:index:Resource
    options:
      providers: ["${psim}"]
  child:
    type: sim:index:Resource
    options:
      parent: ${tier}
  grandchild:
    type: fns:index:Thing
    options:
      parent: ${child}
  r:
    type: sim:index:Resource
    properties:
      viaParent:
        fn::invoke:
          function: fns:index:echo
          options:
            parent: ${tier}
          return: token
"#,
        &[],
    )
    .await;
    assert_eq!(
        rec.goal("own")
            .provider
            .as_ref()
            .map(ToString::to_string)
            .as_deref(),
        Some(PROV_SIM)
    );
    assert_eq!(
        rec.goal("child")
            .provider
            .as_ref()
            .map(ToString::to_string)
            .as_deref(),
        Some(PROV_SIM)
    );
    assert_eq!(
        rec.goal("grandchild")
            .provider
            .as_ref()
            .map(ToString::to_string)
            .as_deref(),
        Some(PROV_FNS)
    );
    assert_eq!(
        rec.goal("r").properties["viaParent"],
        PropertyValue::string("fns:index:echo")
    );
    assert!(
        !rec.goals
            .iter()
            .any(|g| g.name == "default" && g.type_ == "pulumi:providers:fns"),
        "the invoke used the parent's provider, not a default one"
    );
    let (res, _) = run(
        Box::new(parse(
            "resources:\n  a:\n    type: sim:index:Resource\n  b:\n    type: sim:index:Resource\n    options:\n      providers: [\"${a}\"]\n",
        )),
        info(&[], &[]),
        Script::default(),
    )
    .await;
    assert_eq!(
        res.unwrap_err().0,
        "Pulumi.yaml:7:19: resource passed as provider was not a provider resource 'urn:pulumi:dev::proj::sim:index:Resource::a'"
    );
}

#[tokio::test]
async fn default_provider_serves_resources_and_invokes_without_one() {
    let rec = record(
        r#"resources:
  psim:
    type: pulumi:providers:sim
    defaultProvider: true
  pfns:
    type: pulumi:providers:fns
    defaultProvider: true
    options:
      version: 2.0.0
  plain:
    type: sim:index:Resource
  other:
    type: pulumi:providers:sim
  explicit:
    type: sim:index:Resource
    options:
      provider: ${other}
variables:
  called:
    fn::invoke:
      function: fns:index:echo
      return: version
outputs:
  called: ${called}
"#,
        &[],
    )
    .await;
    assert_eq!(
        rec.goal("plain")
            .provider
            .as_ref()
            .map(ToString::to_string)
            .as_deref(),
        Some(PROV_SIM)
    );
    assert_eq!(
        rec.goal("explicit")
            .provider
            .as_ref()
            .map(ToString::to_string)
            .as_deref(),
        Some("urn:pulumi:dev::proj::pulumi:providers:sim::other::other-id")
    );
    assert!(
        rec.goals.iter().all(|g| g.name != "default"),
        "no default providers"
    );
    assert_eq!(
        parse_err("resources:\n  a:\n    type: sim:index:Resource\n    defaultProvider: true\n"),
        "Pulumi.yaml:2:3: cannot set defaultProvider on non-provider resource"
    );
    assert_eq!(
        parse_err(
            "resources:\n  p:\n    type: pulumi:providers:sim\n    defaultProvider: true\n    options:\n      version: 1.0.0\n  a:\n    type: sim:index:Resource\n    options:\n      version: 2.0.0\n"
        ),
        "Pulumi.yaml:7:3: Version conflicts with the default provider version; Try removing this option on resource \"a\""
    );
}

#[test]
fn replace_options_parse_and_display_options_are_accepted() {
    let opt = |o: &str| {
        parse_err(&format!(
            "resources:\n  a:\n    type: sim:index:Resource\n  b:\n    type: sim:index:Resource\n    options:\n      {o}\n"
        ))
    };
    assert_eq!(opt("replaceWith: [\"${a}\"]"), "");
    assert_eq!(opt("replacementTrigger: x"), "");
    assert_eq!(
        opt("replaceWith: [a]"),
        "Pulumi.yaml:7:21: resource \"b\": option `replaceWith` must be a resource reference like ${name}, found \"a\""
    );
    assert_eq!(opt("hideDiffs: [tags]"), "");
    assert_eq!(opt("pluginDownloadURL: https://example.com"), "");
    assert_eq!(
        opt("hideDiffs: tags"),
        "Pulumi.yaml:7:18: resource \"b\": option `hideDiffs` must be a list of strings, found a string"
    );
}

#[test]
fn type_tokens_resolve_against_the_providers_schema_names() {
    use super::ast::resolve_type;
    let declared = vec![
        "random:index/randomPassword:RandomPassword".to_string(),
        "command:local:Command".to_string(),
    ];
    assert_eq!(
        resolve_type("random:index:RandomPassword", &declared),
        "random:index/randomPassword:RandomPassword"
    );
    assert_eq!(
        resolve_type("random:index/randompassword:randompassword", &declared),
        "random:index/randomPassword:RandomPassword"
    );
    assert_eq!(
        resolve_type("command:local:Command", &declared),
        "command:local:Command"
    );
    assert_eq!(
        resolve_type("sim:index:Bucket", &declared),
        "sim:index:Bucket"
    );
    assert_eq!(resolve_type("random:index:Nope", &[]), "random:index:Nope");
}

const PET_PLUGIN: &str = r#"name: pets
runtime: yaml
components:
  petGenerator:
    inputs:
      length:
        type: integer
      prefix:
        type: string
        default: pet
    resources:
      pet:
        type: sim:index:Resource
        properties:
          length: ${length}
          name: ${prefix}-${length}
    outputs:
      pet: ${pet.name}
      parentType: {fn::pulumiResourceType: "${pet}"}
"#;

fn with_pets(text: &str) -> YamlProgram {
    let mut components = super::component::Components::default();
    components
        .add("pets", "pets/PulumiPlugin.yaml", PET_PLUGIN)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut program = parse(text);
    program.components = std::sync::Arc::new(components);
    program
}

#[tokio::test]
async fn yaml_components_register_their_body_as_children_with_outputs() {
    let program = with_pets(
        "resources:\n  gen:\n    type: pets:petGenerator\n    properties:\n      length: 3\noutputs:\n  pet: ${gen.pet}\n",
    );
    let (res, rec) = run(Box::new(program), info(&[], &[]), Script::default()).await;
    res.unwrap_or_else(|e| panic!("{e}"));
    let generator = rec.goal("gen");
    assert_eq!(generator.type_, "pets:index:petGenerator");
    assert!(!generator.custom, "a component");
    assert_eq!(generator.properties["length"], PropertyValue::Number(3.0));
    // Named after the component instance (pulumi-yaml 1.33), aliased to the name before.
    let pet = rec.goal("gen-pet");
    assert_eq!(
        pet.parent.as_ref().map(|u| u.as_str()),
        Some("urn:pulumi:dev::proj::pets:index:petGenerator::gen")
    );
    assert_eq!(
        pet.aliases,
        vec![crate::engine::Alias::Urn(
            crate::engine::Urn::parse(&format!(
                "urn:pulumi:dev::proj::pets:index:petGenerator${}::pet",
                pet.type_
            ))
            .unwrap()
        )]
    );
    assert_eq!(pet.properties["name"], PropertyValue::string("pet-3"));
    let (_, outputs) = rec.outputs.unwrap();
    assert_eq!(outputs["pet"], PropertyValue::string("pet-3"));
}

#[tokio::test]
async fn two_instances_of_a_component_name_their_children_apart() {
    let program = with_pets(
        "resources:\n  a:\n    type: pets:petGenerator\n    properties:\n      length: 1\n  b:\n    type: pets:petGenerator\n    properties:\n      length: 2\n",
    );
    let (res, rec) = run(Box::new(program), info(&[], &[]), Script::default()).await;
    res.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        rec.goal("a-pet").properties["name"],
        PropertyValue::string("pet-1")
    );
    assert_eq!(
        rec.goal("b-pet").properties["name"],
        PropertyValue::string("pet-2")
    );
}

#[tokio::test]
async fn a_child_takes_no_alias_a_sibling_is_literally_named() {
    let mut components = super::component::Components::default();
    components
        .add(
            "pets",
            "pets/PulumiPlugin.yaml",
            "components:\n  pair:\n    resources:\n      x:\n        type: sim:index:Resource\n      c-x:\n        type: sim:index:Resource\n",
        )
        .unwrap();
    let mut program = parse("resources:\n  c:\n    type: pets:pair\n");
    program.components = std::sync::Arc::new(components);
    let (res, rec) = run(Box::new(program), info(&[], &[]), Script::default()).await;
    res.unwrap_or_else(|e| panic!("{e}"));
    assert!(
        rec.goal("c-x").aliases.is_empty(),
        "c-x is a sibling's own name"
    );
    assert_eq!(rec.goal("c-c-x").aliases.len(), 1);
}

#[tokio::test]
async fn yaml_component_errors_name_the_component_and_the_body() {
    let program = with_pets("resources:\n  gen:\n    type: pets:index:petGenerator\n");
    let (res, _) = run(Box::new(program), info(&[], &[]), Script::default()).await;
    assert_eq!(
        res.unwrap_err().0,
        "Pulumi.yaml:2:3: resource \"gen\": missing required input \"length\" of component pets:index:petGenerator"
    );
    let mut program = with_pets("resources:\n  b:\n    type: pets:index:broken\n");
    let mut components = (*program.components).clone();
    components
        .add(
            "pets",
            "pets/more.yaml",
            "components:\n  broken:\n    outputs:\n      o: ${missing.x}\n",
        )
        .unwrap();
    program.components = std::sync::Arc::new(components);
    let (res, _) = run(Box::new(program), info(&[], &[]), Script::default()).await;
    assert_eq!(
        res.unwrap_err().0,
        "Pulumi.yaml:2:3: component \"b\" (pets:index:broken) failed:\npets/more.yaml:4:10: output \"o\": resource, variable, or config value \"missing\" not found"
    );
    let mut components = super::component::Components::default();
    let bad = components
        .add(
            "pets",
            "pets/PulumiPlugin.yaml",
            "components:\n  c:\n    resources:\n      r:\n        properties: {}\n",
        )
        .unwrap_err();
    assert_eq!(
        bad.to_string(),
        "pets/PulumiPlugin.yaml:4:7: Required field 'type' is missing on resource \"r\""
    );
}

#[tokio::test]
async fn get_reads_by_id_with_state_and_waits_for_unknown_ids() {
    let text = "resources:\n  a:\n    type: sim:index:Resource\n  r:\n    type: sim:Network\n    get:\n      id: ${a.id}\n      state:\n        cidr: 10.0.0.0/16\n";
    let rec = record(text, &[]).await;
    assert_eq!(rec.reads.len(), 1);
    let read = &rec.reads[0];
    assert_eq!(
        read.type_, "sim:index:Network",
        "short tokens resolve for reads too"
    );
    assert_eq!(read.id, "a-id");
    assert_eq!(
        read.properties["cidr"],
        PropertyValue::string("10.0.0.0/16")
    );
    assert!(read.dependencies.iter().any(|u| u.name() == "a"));

    let script = Script {
        failed: vec!["a".into()],
        ..Script::default()
    };
    let (res, rec) = run(Box::new(parse(text)), info(&[], &[]), script).await;
    res.unwrap();
    assert_eq!(
        rec.reads[0].id,
        crate::engine::model::property::UNKNOWN_SENTINEL,
        "an id not known yet is read as unknown"
    );
    let (res, _) = run(
        Box::new(parse(
            "resources:\n  r:\n    type: sim:index:Network\n    get:\n      id: [1]\n",
        )),
        info(&[], &[]),
        Script::default(),
    )
    .await;
    assert_eq!(
        res.unwrap_err().0,
        "Pulumi.yaml:5:11: resource \"r\": `get.id` must be a string, found a list"
    );
}

#[test]
fn invalid_resource_objects_are_worded_as_pulumi_yaml_words_them() {
    let cases = [
        (
            "resources: [a]\n",
            "Pulumi.yaml:1:12: resources must be an object",
        ),
        (
            "resources:\n  a: 1\n",
            "Pulumi.yaml:2:6: resources.a must be an object",
        ),
        (
            "resources:\n  a:\n    type: [x]\n",
            "Pulumi.yaml:3:11: resources.a.type must be a string",
        ),
        (
            "resources:\n  a:\n    type: sim:index:Resource\n    properties: [1]\n",
            "Pulumi.yaml:4:17: resources.a.properties must be an object",
        ),
        (
            "resources:\n  a:\n    type: sim:index:Resource\n    options: 3\n",
            "Pulumi.yaml:4:14: resources.a.options must be an object",
        ),
        (
            "resources:\n  a:\n    type: sim:index:Resource\n    options:\n      customTimeouts: 5m\n",
            "Pulumi.yaml:5:23: resources.a.options.customTimeouts must be an object",
        ),
        (
            "resources:\n  a:\n    type: sim:index:Resource\n    get: x\n",
            "Pulumi.yaml:4:10: resource \"a\": `get` needs an `id`",
        ),
        (
            "resources:\n  a:\n    type: a:b:c:d\n",
            "Pulumi.yaml:3:11: error resolving type of resource a: invalid type token \"a:b:c:d\"",
        ),
    ];
    let wrong: Vec<String> = cases
        .iter()
        .filter(|(text, want)| parse_err(text) != *want)
        .map(|(text, _)| format!("{text:?}: {}", parse_err(text)))
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[tokio::test]
async fn protect_may_come_from_config() {
    let text = "config:\n  production: {type: Boolean}\nresources:\n  r:\n    type: sim:index:Resource\n    options:\n      protect: ${production}\n";
    let rec = record(text, &[("proj:production", "true")]).await;
    assert_eq!(rec.goal("r").protect, Some(true));
    let rec = record(text, &[("proj:production", "false")]).await;
    assert_eq!(rec.goal("r").protect, Some(false));
    let (res, _) = run(
        Box::new(parse("config:\n  p: {default: x}\nresources:\n  r:\n    type: sim:index:Resource\n    options:\n      protect: ${p}\n")),
        info(&[], &[]),
        Script::default(),
    )
    .await;
    assert_eq!(
        res.unwrap_err().0,
        "Pulumi.yaml:7:16: protect must be a boolean value"
    );
}

#[tokio::test]
async fn stack_references_are_reads_named_for_their_stack() {
    let rec = record(
        "resources:\n  ref:\n    type: pulumi:pulumi:StackReference\n  named:\n    type: pulumi:pulumi:StackReference\n    properties:\n      name: organization/net/prod\noutputs:\n  a:\n    fn::stackReference: [organization/net/dev, x]\n  b:\n    fn::stackReference: [organization/net/dev, y]\n",
        &[],
    )
    .await;
    let mut reads: Vec<(String, String, PropertyValue)> = rec
        .reads
        .iter()
        .map(|r| {
            assert_eq!(r.type_, "pulumi:pulumi:StackReference");
            (r.name.clone(), r.id.clone(), r.properties["name"].clone())
        })
        .collect();
    reads.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        reads,
        [
            (
                "named".to_string(),
                "organization/net/prod".to_string(),
                PropertyValue::string("organization/net/prod")
            ),
            (
                "organization/net/dev".to_string(),
                "organization/net/dev".to_string(),
                PropertyValue::string("organization/net/dev")
            ),
            (
                "ref".to_string(),
                "ref".to_string(),
                PropertyValue::string("ref")
            ),
        ],
        "the name defaults to the key; one read per stack for fn::stackReference"
    );

    let (res, _) = run(
        Box::new(parse(
            "resources:\n  ref:\n    type: pulumi:pulumi:StackReference\n    properties:\n      name: [1]\n",
        )),
        info(&[], &[]),
        Script::default(),
    )
    .await;
    assert_eq!(
        res.unwrap_err().0,
        "Pulumi.yaml:2:3: 'name' property must be a string, instead got type a list"
    );
}

#[tokio::test]
async fn a_stack_is_read_once_whichever_body_references_it() {
    let mut program = with_pets(
        "resources:\n  r:\n    type: pets:index:refs\noutputs:\n  a:\n    fn::stackReference: [organization/net/dev, x]\n",
    );
    let mut components = (*program.components).clone();
    components
        .add(
            "pets",
            "pets/refs.yaml",
            "components:\n  refs:\n    outputs:\n      b:\n        fn::stackReference: [organization/net/dev, y]\n",
        )
        .unwrap();
    program.components = std::sync::Arc::new(components);
    let (res, rec) = run(Box::new(program), info(&[], &[]), Script::default()).await;
    res.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(rec.reads.len(), 1, "{:?}", rec.reads);
}

#[tokio::test]
async fn properties_may_be_one_expression_whose_object_holds_them() {
    let rec = record(
        "variables:\n  props:\n    length: 8\n    name: ${first.v}\n  hidden:\n    fn::secret:\n      v: 1\nresources:\n  first:\n    type: sim:index:Resource\n    properties:\n      v: x\n  r:\n    type: sim:index:Resource\n    properties: ${props}\n  s:\n    type: sim:index:Resource\n    properties: ${hidden}\n",
        &[],
    )
    .await;
    let r = rec.goal("r");
    assert_eq!(r.properties["length"], PropertyValue::Number(8.0));
    assert_eq!(r.properties["name"], PropertyValue::string("x"));
    assert_eq!(r.dependencies.len(), 1, "{:?}", r.dependencies);
    assert!(r.dependencies[0].as_str().ends_with("::first"));
    assert_eq!(r.property_dependencies["length"], r.dependencies);
    assert_eq!(
        rec.goal("s").properties["v"],
        PropertyValue::Secret(Box::new(PropertyValue::Number(1.0)))
    );
}

#[test]
fn properties_that_cannot_be_an_object_are_refused_where_written() {
    for (text, message) in [
        (
            "resources:\n  a:\n    type: sim:index:Resource\n    properties: text\n",
            "Pulumi.yaml:4:17: resources.a.properties must be an object",
        ),
        (
            "resources:\n  a:\n    type: sim:index:Resource\n    properties: 3\n",
            "Pulumi.yaml:4:17: resources.a.properties must be an object",
        ),
    ] {
        assert_eq!(parse_err(text), message, "{text}");
    }
}
