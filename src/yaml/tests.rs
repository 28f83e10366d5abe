//! Tests of the YAML program language: located errors, dependencies, cycles, evaluation order,
//! config typing, and the example projects.

use std::path::Path;

use crate::engine::{PropertyValue, Urn};
use crate::project::{Project, StackSettings};

use super::YamlProgram;
use super::ast::Properties;
use super::test_monitor::{Script, info, run};

/// The load error of a program, or the error of its references against an empty stack config.
fn err(text: &str) -> String {
    match YamlProgram::parse("Pulumi.yaml", text, "proj") {
        Err(e) => e.to_string(),
        Ok(p) => p
            .check_references(&Default::default(), "proj")
            .unwrap_err()
            .to_string(),
    }
}

fn program(text: &str) -> YamlProgram {
    YamlProgram::parse("Pulumi.yaml", text, "proj").unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn error_classes_name_file_line_and_column() {
    // YAML syntax.
    let syntax = err("resources:\n  a: [1\n");
    assert!(
        syntax.starts_with("Pulumi.yaml:2:6: YAML syntax error: unclosed bracket"),
        "{syntax}"
    );
    // Unknown reference (property access: a resource).
    assert_eq!(
        err(
            "resources:\n  net:\n    type: sim:index:Network\n  db:\n    type: sim:index:Database\n    properties:\n      networkId: ${nett.id}\n"
        ),
        "Pulumi.yaml:7:18: resource \"db\": resource, variable, or config value \"nett\" not found"
    );
    // Unknown reference inside text, column at the `${`.
    assert_eq!(
        err("outputs:\n  url: http://${host}\n"),
        "Pulumi.yaml:2:15: output \"url\": resource, variable, or config value \"host\" not found"
    );
    // Unknown resource in an option.
    assert_eq!(
        err(
            "resources:\n  a:\n    type: sim:index:Resource\n    options:\n      dependsOn: [\"${b}\"]\n"
        ),
        "Pulumi.yaml:5:19: resource \"a\": resource, variable, or config value \"b\" not found"
    );
    // Bad option.
    assert_eq!(
        err("resources:\n  a:\n    type: sim:index:Resource\n    options:\n      protekt: true\n"),
        "Pulumi.yaml:5:7: Field 'protekt' does not exist on Object 'resources.a.options'; Existing fields are: 'protect', 'parent', 'provider', 'import', 'providers' and 14 others"
    );
    // Wrong option type.
    assert_eq!(
        err("resources:\n  a:\n    type: sim:index:Resource\n    options:\n      protect: yes\n"),
        "Pulumi.yaml:5:16: resource \"a\": option `protect` must be true or false, found a string"
    );
    assert_eq!(
        err(
            "resources:\n  a:\n    type: sim:index:Resource\n  b:\n    type: sim:index:Resource\n    options:\n      parent: a\n"
        ),
        "Pulumi.yaml:7:15: resource \"b\": option `parent` must be a resource reference like ${name}, found \"a\""
    );
    // Option naming a variable.
    assert_eq!(
        err(
            "variables:\n  v: 1\nresources:\n  a:\n    type: sim:index:Resource\n    options:\n      parent: ${v}\n"
        ),
        "Pulumi.yaml:7:15: resource \"a\": option refers to \"v\", which is not a resource"
    );
    // Missing type, bad type token, unknown field.
    assert_eq!(
        err("resources:\n  a:\n    properties: {}\n"),
        "Pulumi.yaml:2:3: Required field 'type' is missing on resource \"a\""
    );
    assert_eq!(
        err("resources:\n  a:\n    type: Bucket\n"),
        "Pulumi.yaml:3:11: error resolving type of resource a: invalid type token \"Bucket\""
    );
    assert_eq!(
        err("resources:\n  a:\n    type: sim:index:Resource\n    propertes: {}\n"),
        "Pulumi.yaml:4:5: Field 'propertes' does not exist on Object 'resources.a'; Existing fields are: 'properties', 'get', 'options', 'type', 'name' and 2 others"
    );
    // Malformed interpolation.
    assert_eq!(
        err("variables:\n  v: abc${x\n"),
        "Pulumi.yaml:2:9: unterminated `${`: missing `}`"
    );
    // Duplicate names across sections.
    assert_eq!(
        err("variables:\n  a: 1\nresources:\n  a:\n    type: sim:index:Resource\n"),
        "Pulumi.yaml:4:3: resource \"a\" is already declared as a variable at line 2"
    );
    // Unknown section and unknown pulumi value.
    assert_eq!(
        err("resource:\n  a: {}\n"),
        "Pulumi.yaml:1:1: unknown top-level section \"resource\" (expected config, variables, resources or outputs)"
    );
    assert_eq!(
        err("outputs:\n  s: ${pulumi.stak}\n"),
        "Pulumi.yaml:2:6: output \"s\": unknown value `${pulumi.stak}` (expected pulumi.cwd, pulumi.organization, pulumi.project, pulumi.rootDirectory or pulumi.stack)"
    );
    // Bad builtin and bad duration.
    assert!(
        err("variables:\n  v:\n    fn::frobnicate: 1\n")
            .starts_with("Pulumi.yaml:3:5: 'fn::' is a reserved prefix: \"fn::frobnicate\" is not a built-in function")
    );
    assert_eq!(
        err(
            "resources:\n  a:\n    type: sim:index:Resource\n    options:\n      customTimeouts:\n        create: soon\n"
        ),
        "Pulumi.yaml:6:17: resource \"a\": invalid duration \"soon\" (use e.g. 30s, 5m, 1h)"
    );
}

#[test]
fn cycles_name_their_members_and_line() {
    let text = "resources:
  a:
    type: sim:index:Resource
    properties:
      x: ${c.out}
  b:
    type: sim:index:Resource
    properties:
      x: ${a.out}
  c:
    type: sim:index:Resource
    properties:
      x: ${v}
variables:
  v: ${b.id}
";
    assert_eq!(
        err(text),
        "Pulumi.yaml:2:3: dependency cycle: resource \"a\" -> resource \"c\" -> variable \"v\" -> resource \"b\" -> resource \"a\""
    );
}

#[test]
fn self_reference_is_an_error() {
    assert_eq!(
        err("resources:\n  a:\n    type: sim:index:Resource\n    properties:\n      x: ${a.y}\n"),
        "Pulumi.yaml:2:3: resource \"a\" references itself"
    );
}

#[test]
fn dependencies_and_order_come_from_references() {
    let p = program(
        "variables:
  name: ${net.name}-x
resources:
  db:
    type: sim:index:Database
    properties:
      networkId: ${net.id}
      label: ${name}
      tags: ['${pulumi.stack}', '${region}']
    options:
      dependsOn: ['${bucket}']
  net:
    type: sim:index:Network
  bucket:
    type: sim:index:Bucket
config:
  region: us-east-1
",
    );
    let a = &p.analysis;
    assert_eq!(a.deps["db"], ["bucket", "name", "net"]);
    assert_eq!(a.deps["name"], ["net"]);
    assert!(a.deps["net"].is_empty());
    let pos = |n: &str| a.order.iter().position(|x| x == n).unwrap();
    assert!(pos("net") < pos("name") && pos("name") < pos("db") && pos("bucket") < pos("db"));
}

const CHAIN: &str = "resources:
  a:
    type: sim:index:Resource
    properties:
      v: 1
  b:
    type: sim:index:Resource
    properties:
      v: 2
  c:
    type: sim:index:Resource
    properties:
      fromA: ${a.v}
      mixed: a=${a.v},b=${b.v}
      plain: x
      list: ['${a.v}', 3]
    options:
      parent: ${b}
";

#[tokio::test]
async fn registers_concurrently_and_only_after_references_resolved() {
    let script = Script {
        latency_ms: [("a".to_string(), 80), ("b".to_string(), 40)].into(),
        ..Script::default()
    };
    let (res, rec) = run(Box::new(program(CHAIN)), info(&[], &[]), script).await;
    res.unwrap();
    // The stack first, then a and b both in flight before either finished.
    assert_eq!(rec.log[0], "start proj-dev");
    assert!(rec.index("start a") < rec.index("done b"));
    assert!(rec.index("start b") < rec.index("done a"));
    // c waits for both a (property) and b (parent).
    assert!(rec.index("start c") > rec.index("done a"));
    assert!(rec.index("start c") > rec.index("done b"));

    let stack = rec.goal("proj-dev");
    assert_eq!(stack.type_, "pulumi:pulumi:Stack");
    assert!(!stack.custom);
    let c = rec.goal("c");
    let urn_a = Urn::parse("urn:pulumi:dev::proj::sim:index:Resource::a").unwrap();
    let urn_b = Urn::parse("urn:pulumi:dev::proj::sim:index:Resource::b").unwrap();
    assert_eq!(c.properties["fromA"], PropertyValue::Number(1.0));
    assert_eq!(c.properties["mixed"], PropertyValue::string("a=1,b=2"));
    assert_eq!(
        c.properties["list"],
        PropertyValue::Array(vec![1.0.into(), 3.0.into()])
    );
    assert_eq!(c.dependencies, [urn_a.clone(), urn_b.clone()]);
    assert_eq!(
        c.property_dependencies["fromA"],
        std::slice::from_ref(&urn_a)
    );
    assert_eq!(
        c.property_dependencies["mixed"],
        [urn_a.clone(), urn_b.clone()]
    );
    assert_eq!(c.property_dependencies["list"], [urn_a]);
    assert!(!c.property_dependencies.contains_key("plain"));
    assert_eq!(c.parent.as_ref(), Some(&urn_b));
    assert!(c.custom);
    assert_eq!(c.source_position.as_deref(), Some("Pulumi.yaml:10:3"));
    // The default provider registered once, before the first custom resource.
    assert_eq!(
        rec.goals
            .iter()
            .filter(|g| g.type_ == "pulumi:providers:sim")
            .count(),
        1
    );
}

#[tokio::test]
async fn options_become_goal_fields() {
    let text = "resources:
  prov:
    type: pulumi:providers:sim
    properties:
      latencyMs: 5
  tier:
    type: demo:component:Tier
  old:
    type: sim:index:Resource
  r:
    type: sim:index:Resource
    name: r-physical
    options:
      provider: ${prov}
      deletedWith: ${tier}
      replaceWith:
        - ${old}
        - ${tier}
      replacementTrigger:
        generation: ${old.id}
        tags: [a]
      protect: true
      deleteBeforeReplace: true
      retainOnDelete: false
      ignoreChanges: [tags]
      replaceOnChanges: [size]
      additionalSecretOutputs: [password]
      import: imported-id
      version: 1.2.3
      customTimeouts:
        create: 5m
        delete: 90s
      aliases:
        - urn:pulumi:dev::proj::sim:index:Resource::older
        - name: legacy
          parent: ${old}
";
    let (res, rec) = run(Box::new(program(text)), info(&[], &[]), Script::default()).await;
    res.unwrap();
    let r = rec.goal("r-physical");
    assert_eq!(
        r.provider.as_ref().map(ToString::to_string).as_deref(),
        Some("urn:pulumi:dev::proj::pulumi:providers:sim::prov::prov-id")
    );
    assert_eq!(
        r.deleted_with.as_ref().map(Urn::as_str),
        Some("urn:pulumi:dev::proj::demo:component:Tier::tier")
    );
    assert_eq!(
        r.replace_with.iter().map(Urn::name).collect::<Vec<_>>(),
        ["old", "tier"]
    );
    let trigger = r
        .replacement_trigger
        .as_object()
        .expect("an object trigger");
    assert_eq!(trigger["generation"].as_str(), Some("old-id"));
    assert_eq!(trigger["tags"], PropertyValue::Array(vec!["a".into()]));
    assert!(!rec.goal("tier").custom);
    assert_eq!(r.protect, Some(true));
    assert_eq!(r.delete_before_replace, Some(true));
    assert_eq!(r.retain_on_delete, Some(false));
    assert_eq!(r.ignore_changes, ["tags"]);
    assert_eq!(r.replace_on_changes, ["size"]);
    assert_eq!(r.additional_secret_outputs, ["password"]);
    assert_eq!(r.import_id.as_deref(), Some("imported-id"));
    assert_eq!(r.version.as_deref(), Some("1.2.3"));
    let t = r.custom_timeouts.as_ref().unwrap();
    assert_eq!((t.create, t.update, t.delete), (300.0, 0.0, 90.0));
    assert_eq!(r.aliases.len(), 2);
    match &r.aliases[1] {
        crate::engine::Alias::Spec { name, parent, .. } => {
            assert_eq!(name.as_deref(), Some("legacy"));
            assert_eq!(parent.as_ref().map(Urn::name), Some("old"));
        }
        other => panic!("unexpected alias {other:?}"),
    }
    // Options add no property dependencies; the provider resource is registered as custom.
    assert!(r.dependencies.is_empty());
    assert!(rec.goal("prov").custom);
}

#[tokio::test]
async fn failed_registrations_propagate_unknowns() {
    let script = Script {
        failed: vec!["a".into()],
        ..Script::default()
    };
    let (res, rec) = run(Box::new(program(CHAIN)), info(&[], &[]), script).await;
    res.unwrap();
    let c = rec.goal("c");
    assert_eq!(c.properties["fromA"], PropertyValue::Unknown);
    assert_eq!(c.properties["mixed"], PropertyValue::Unknown);
    assert_eq!(c.properties["plain"], PropertyValue::string("x"));
}

#[tokio::test]
async fn config_is_typed_and_secrets_stay_secret() {
    let text = "config:
  count:
    type: Number
  enabled:
    type: Boolean
    default: false
  zones:
    type: List<String>
  password:
    type: String
  token:
    type: String
    secret: true
    default: t0k
resources:
  r:
    type: sim:index:Resource
    properties:
      count: ${count}
      enabled: ${enabled}
      zone: ${zones[1]}
      password: ${password}
      token: ${token}
      greeting: hi-${password}
      stack: ${pulumi.stack}/${pulumi.project}
      joined:
        fn::join: ['-', ['${zones[0]}', 'n${count}']]
      json:
        fn::toJSON: {a: '${count}'}
      picked:
        fn::select: [0, '${zones}']
      wrapped:
        fn::secret: plain
outputs:
  count: ${count}
  escaped: $${not.a.ref}
";
    let cfg = info(
        &[
            ("proj:count", "3"),
            ("proj:zones", "[\"a\",\"b\"]"),
            ("proj:password", "hunter2"),
        ],
        &["proj:password"],
    );
    let (res, rec) = run(Box::new(program(text)), cfg, Script::default()).await;
    res.unwrap();
    let r = rec.goal("r");
    let secret = |v: PropertyValue| PropertyValue::Secret(Box::new(v));
    assert_eq!(r.properties["count"], PropertyValue::Number(3.0));
    assert_eq!(r.properties["enabled"], PropertyValue::Bool(false));
    assert_eq!(r.properties["zone"], PropertyValue::string("b"));
    assert_eq!(r.properties["password"], secret("hunter2".into()));
    assert_eq!(r.properties["token"], secret("t0k".into()));
    assert_eq!(r.properties["greeting"], secret("hi-hunter2".into()));
    assert_eq!(r.properties["stack"], PropertyValue::string("dev/proj"));
    assert_eq!(r.properties["joined"], PropertyValue::string("a-n3"));
    assert_eq!(r.properties["json"], PropertyValue::string(r#"{"a":3}"#));
    assert_eq!(r.properties["picked"], PropertyValue::string("a"));
    assert_eq!(r.properties["wrapped"], secret("plain".into()));
    let (urn, outputs) = rec.outputs.unwrap();
    assert_eq!(
        urn.as_str(),
        "urn:pulumi:dev::proj::pulumi:pulumi:Stack::proj-dev"
    );
    assert_eq!(outputs["count"], PropertyValue::Number(3.0));
    assert_eq!(outputs["escaped"], PropertyValue::string("${not.a.ref}"));
}

#[tokio::test]
async fn config_errors_are_located() {
    let text = "config:\n  count:\n    type: Integer\n";
    let p = program(text);
    let (res, _) = run(
        Box::new(p.clone()),
        info(&[("proj:count", "many")], &[]),
        Script::default(),
    )
    .await;
    assert_eq!(
        res.unwrap_err().0,
        "Pulumi.yaml:2:3: config proj:count: expected an integer, got \"many\""
    );
    let (res, _) = run(Box::new(p), info(&[], &[]), Script::default()).await;
    assert_eq!(
        res.unwrap_err().0,
        "Pulumi.yaml:2:3: missing required configuration value proj:count (set it with `config set count <value>`)"
    );
}

#[tokio::test]
async fn get_reads_an_existing_resource() {
    let text = "config:
  existing: vpc-123
resources:
  vpc:
    type: sim:index:Network
    get:
      id: ${existing}
      state:
        cidr: 10.0.0.0/16
  sub:
    type: sim:index:Subnet
    properties:
      networkId: ${vpc.readId}
";
    let (res, rec) = run(Box::new(program(text)), info(&[], &[]), Script::default()).await;
    res.unwrap();
    assert_eq!(rec.reads.len(), 1);
    assert_eq!(rec.reads[0].id, "vpc-123");
    assert_eq!(
        rec.reads[0].properties["cidr"],
        PropertyValue::string("10.0.0.0/16")
    );
    assert_eq!(
        rec.goal("sub").properties["networkId"],
        PropertyValue::string("vpc-123")
    );
}

fn example(dir: &str) -> (Project, YamlProgram) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/examples")
        .join(dir);
    let project = Project::load(&path).unwrap_or_else(|e| panic!("{dir}: {e}"));
    assert_eq!(project.runtime.name, "yaml");
    let program = YamlProgram::load(&project).unwrap_or_else(|e| panic!("{dir}: {e}"));
    (project, program)
}

#[test]
fn demo_example_parses_and_analyses() {
    let (project, p) = example("demo");
    let n = p.ast.resources.len();
    assert!((30..=60).contains(&n), "demo has {n} resources");
    assert!(
        p.ast
            .resources
            .iter()
            .any(|r| super::is_component_type(&r.type_))
    );
    for ty in [
        "Network", "Subnet", "Database", "Server", "Bucket", "Queue", "Resource",
    ] {
        let token = format!("sim:index:{ty}");
        assert!(
            p.ast.resources.iter().any(|r| r.type_ == token),
            "no {token}"
        );
    }
    for stack in ["demo", "demo2"] {
        let s = StackSettings::load(&project.dir, stack, &project.name).unwrap();
        s.resolve(&project, None)
            .unwrap_or_else(|e| panic!("{stack}: {e}"));
    }
}

#[tokio::test]
async fn demo_phase_two_changes_what_registers() {
    let (project, p) = example("demo");
    let names = |phase: &str| {
        let p = p.clone();
        let project = project.name.clone();
        let phase = phase.to_string();
        async move {
            let mut i = info(&[("demo:phase", &phase)], &[]);
            i.project = project;
            // A preview: the test monitor echoes inputs, and outputs only providers compute
            // (`${db.endpoint}`) are unknown until an update.
            i.dry_run = true;
            let (res, rec) = run(Box::new(p), i, Script::default()).await;
            res.unwrap();
            rec.goals
        }
    };
    let one = names("1").await;
    let two = names("2").await;
    let engine = |goals: &[crate::engine::Goal]| {
        goals
            .iter()
            .find(|g| g.type_ == "sim:index:Database")
            .map(|g| g.properties["engine"].clone())
    };
    assert_ne!(engine(&one), engine(&two));
    assert!(two.len() < one.len(), "phase 2 deletes resources");
}

#[test]
fn random_and_command_examples_parse_and_analyse() {
    let (_, p) = example("random");
    assert!(
        p.ast
            .resources
            .iter()
            .any(|r| r.type_ == "random:index/randomPet:RandomPet")
    );
    assert!(
        p.ast
            .resources
            .iter()
            .any(|r| r.type_ == "random:index/randomString:RandomString")
    );
    let (_, p) = example("command");
    assert!(
        p.ast
            .resources
            .iter()
            .all(|r| r.type_ == "command:local:Command")
    );
    assert!(p.ast.resources.iter().any(
        |r| matches!(&r.properties, Properties::Map(m) if m.iter().any(|(k, _)| k == "delete"))
    ));
}

#[tokio::test]
async fn conditions_use_config_and_disabled_resources_cannot_be_referenced() {
    assert_eq!(
        err(
            "resources:\n  a:\n    type: sim:index:Resource\n  b:\n    type: sim:index:Resource\n    if: ${a.on}\n"
        ),
        "Pulumi.yaml:6:9: resource \"b\": `if` may only use config values, not \"a\""
    );
    let text = "config:
  keep:
    type: Boolean
resources:
  a:
    type: sim:index:Resource
    if: ${keep}
  b:
    type: sim:index:Resource
    properties:
      x: ${a.id}
";
    let (res, _) = run(
        Box::new(program(text)),
        info(&[("proj:keep", "false")], &[]),
        Script::default(),
    )
    .await;
    assert_eq!(
        res.unwrap_err().0,
        "Pulumi.yaml:8:3: \"b\" references resource \"a\", which this configuration disables with `if:`"
    );
    let (res, rec) = run(
        Box::new(program(text)),
        info(&[("proj:keep", "true")], &[]),
        Script::default(),
    )
    .await;
    res.unwrap();
    assert_eq!(rec.goal("b").properties["x"], PropertyValue::string("a-id"));
}
