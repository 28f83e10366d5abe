//! Tests of Pulumi YAML's built-in functions, property access and `pulumi.*`/config names
//! inside whole programs run against the real resource monitor: values, unknowns in previews,
//! secrets, and misuse located at `file:line:col`.

use crate::engine::model::property::{ARCHIVE_SIG, ASSET_SIG, SIG_KEY};
use crate::engine::program::source::DeploymentInfo;
use crate::engine::{PropertyMap, PropertyValue};

use super::YamlProgram;
use super::test_monitor::{Recorded, Script, info, parse, parse_err, run};

fn s(v: &str) -> PropertyValue {
    PropertyValue::String(v.into())
}

fn n(v: f64) -> PropertyValue {
    PropertyValue::Number(v)
}

fn secret(v: PropertyValue) -> PropertyValue {
    PropertyValue::Secret(Box::new(v))
}

fn list(items: &[&str]) -> PropertyValue {
    PropertyValue::Array(items.iter().map(|i| s(i)).collect())
}

async fn run_with(program: YamlProgram, info: DeploymentInfo, script: Script) -> Recorded {
    let (res, rec) = run(Box::new(program), info, script).await;
    res.unwrap_or_else(|e| panic!("{e}"));
    rec
}

async fn props(text: &str) -> PropertyMap {
    run_with(parse(text), info(&[], &[]), Script::default())
        .await
        .goal("r")
        .properties
        .clone()
}

async fn run_err(text: &str, info: DeploymentInfo) -> String {
    let (res, _) = run(Box::new(parse(text)), info, Script::default()).await;
    res.expect_err("the program should fail").0
}

#[tokio::test]
async fn builtins_compute_pulumi_yamls_values() {
    let p = props(
        r#"variables:
  words: {fn::split: [",", "a,b,c"]}
resources:
  r:
    type: sim:index:Resource
    properties:
      joined: {fn::join: ["-", "${words}"]}
      split: ${words}
      second: {fn::select: [1, "${words}"]}
      count: {fn::length: "${words}"}
      chars: {fn::length: "héllo"}
      keys: {fn::length: {a: 1, b: 2}}
      json: {fn::toJSON: {b: [1, true], a: "x"}}
      b64: {fn::toBase64: "hello"}
      plain: {fn::fromBase64: "aGVsbG8="}
      one: {fn::singleOrNone: ["only"]}
      none: {fn::singleOrNone: []}
      sha: {fn::sha1: "abc"}
      Cased: {FN::JOIN: ["", ["x", "y"]]}
"#,
    )
    .await;
    assert_eq!(p["joined"], s("a-b-c"));
    assert_eq!(p["split"], list(&["a", "b", "c"]));
    assert_eq!(p["second"], s("b"));
    assert_eq!(p["count"], n(3.0));
    assert_eq!(p["chars"], n(5.0));
    assert_eq!(p["keys"], n(2.0));
    assert_eq!(p["json"], s(r#"{"a":"x","b":[1,true]}"#));
    assert_eq!(p["b64"], s("aGVsbG8="));
    assert_eq!(p["plain"], s("hello"));
    assert_eq!(p["one"], s("only"));
    assert_eq!(p["none"], PropertyValue::Null);
    assert_eq!(p["sha"], s("a9993e364706816aba3e25717850c26c9cd0d89d"));
    assert_eq!(p["Cased"], s("xy"));
}

#[tokio::test]
async fn a_function_of_a_secret_is_secret_and_unsecret_reveals() {
    let text = r#"config:
  token:
    type: String
    secret: true
  parts:
    type: List<String>
    secret: true
resources:
  r:
    type: sim:index:Resource
    properties:
      joined: {fn::join: ["-", ["${token}", "x"]]}
      split: {fn::split: ["-", "${token}"]}
      select: {fn::select: [0, "${parts}"]}
      length: {fn::length: "${token}"}
      json: {fn::toJSON: {t: "${token}"}}
      b64: {fn::toBase64: "${token}"}
      back: {fn::fromBase64: {fn::toBase64: "${token}"}}
      single: {fn::singleOrNone: "${parts}"}
      asset: {fn::stringAsset: "${token}"}
      text: "t=${token}"
      revealed: {fn::unsecret: "${token}"}
      wrapped: {fn::secret: "plain"}
"#;
    let rec = run_with(
        parse(text),
        info(
            &[("proj:token", "a-b"), ("proj:parts", "[\"p\"]")],
            &["proj:parts"],
        ),
        Script::default(),
    )
    .await;
    let p = &rec.goal("r").properties;
    assert_eq!(p["joined"], secret(s("a-b-x")));
    assert_eq!(p["split"], secret(list(&["a", "b"])));
    assert_eq!(p["select"], secret(s("p")));
    assert_eq!(p["length"], secret(n(3.0)));
    assert_eq!(p["json"], secret(s(r#"{"t":"a-b"}"#)));
    assert_eq!(p["b64"], secret(s("YS1i")));
    assert_eq!(p["back"], secret(s("a-b")));
    assert_eq!(p["single"], secret(s("p")));
    assert!(
        matches!(&p["asset"], PropertyValue::Secret(inner) if matches!(**inner, PropertyValue::Asset(_)))
    );
    assert_eq!(p["text"], secret(s("t=a-b")));
    assert_eq!(p["revealed"], s("a-b"));
    assert_eq!(p["wrapped"], secret(s("plain")));
}

#[tokio::test]
async fn functions_of_unknown_outputs_are_unknown() {
    let text = r#"resources:
  a:
    type: sim:index:Resource
    properties:
      name: x
  r:
    type: sim:index:Resource
    properties:
      joined: {fn::join: ["-", ["${a.name}", "x"]]}
      split: {fn::split: ["-", "${a.name}"]}
      select: {fn::select: [0, ["${a.name}"]]}
      length: {fn::length: "${a.name}"}
      json: {fn::toJSON: ["${a.name}"]}
      b64: {fn::toBase64: "${a.name}"}
      asset: {fn::fileAsset: "${a.name}"}
      archive:
        fn::assetArchive:
          f: {fn::stringAsset: "${a.name}"}
      invoked:
        fn::invoke:
          function: fns:index:echo
          arguments: {x: "${a.name}"}
      typed: {fn::pulumiResourceType: "${a}"}
"#;
    let script = Script {
        failed: vec!["a".into()],
        ..Script::default()
    };
    let rec = run_with(parse(text), info(&[], &[]), script).await;
    let p = &rec.goal("r").properties;
    for k in [
        "joined", "split", "select", "length", "json", "b64", "asset", "archive", "invoked",
    ] {
        assert_eq!(p[k], PropertyValue::Unknown, "{k}");
    }
    assert_eq!(p["typed"], s("sim:index:Resource"), "the type is known");
}

#[tokio::test]
async fn builtin_misuse_is_reported_with_pulumi_yamls_words_and_location() {
    // Shapes, found while loading.
    assert_eq!(
        parse_err("variables:\n  v:\n    fn::join: [\",\"]\n"),
        "Pulumi.yaml:3:15: the argument to fn::join must be a two-valued list"
    );
    assert_eq!(
        parse_err("variables:\n  v:\n    fn::split: x\n"),
        "Pulumi.yaml:3:16: The argument to fn::split must be a two-values list"
    );
    assert_eq!(
        parse_err("variables:\n  v:\n    fn::select: {a: 1}\n"),
        "Pulumi.yaml:3:17: the argument to fn::select must be a two-valued list"
    );
    assert_eq!(
        parse_err("variables:\n  v:\n    fn::invoke: x\n"),
        "Pulumi.yaml:3:17: the argument to fn::invoke must be an object containing 'function', 'arguments', 'options', and 'return'"
    );
    assert_eq!(
        parse_err("variables:\n  v:\n    fn::invoke:\n      arguments: {}\n"),
        "Pulumi.yaml:4:7: missing function name ('function')"
    );
    assert_eq!(
        parse_err("variables:\n  v:\n    fn::invoke:\n      function: [x]\n"),
        "Pulumi.yaml:4:17: function name must be a string literal"
    );
    assert_eq!(
        parse_err(
            "variables:\n  v:\n    fn::invoke:\n      function: a:b:c\n      arguments: [1]\n"
        ),
        "Pulumi.yaml:5:18: function arguments ('arguments') must be an object"
    );
    assert_eq!(
        parse_err("variables:\n  v:\n    fn::invoke:\n      function: a:b:c\n      return: [1]\n"),
        "Pulumi.yaml:5:15: return directive must be a string literal"
    );
    assert_eq!(
        parse_err("variables:\n  v:\n    fn::assetArchive: [1]\n"),
        "Pulumi.yaml:3:23: the argument to fn::assetArchive must be an object"
    );
    assert_eq!(
        parse_err("variables:\n  v:\n    fn::assetArchive:\n      a: 1\n"),
        "Pulumi.yaml:4:10: value must be an asset or an archive, not a number"
    );
    assert_eq!(
        parse_err("variables:\n  v:\n    fn::stackReference: [1, out]\n"),
        "Pulumi.yaml:3:25: the first argument to fn::stackReference must be a string literal"
    );
    assert_eq!(
        parse_err("variables:\n  v:\n    fn::fileAsset: a.txt\n    other: 1\n"),
        "Pulumi.yaml:3:5: fn::fileAsset must have it's own object"
    );
    assert_eq!(
        parse_err("variables:\n  v:\n    fn::stackReference: x\n"),
        "Pulumi.yaml:3:25: the argument to fn::stackReference must be a two-valued list"
    );

    // Types, found while evaluating, at the argument at fault.
    let cases = [
        (
            "fn::join: [1, [a]]",
            "3:16: delimiter must be a string, not a number",
        ),
        (
            "fn::join: [',', x]",
            "3:21: the second argument to fn::join must be a list, found a string",
        ),
        (
            "fn::join: [',', [a, 2]]",
            "3:21: the second argument to fn::join must be a list of strings, found a number at index 1",
        ),
        (
            "fn::split: [',', [a]]",
            "3:22: Must be a string, not a list",
        ),
        (
            "fn::select: [x, [a]]",
            "3:18: index must be a number, not a string",
        ),
        (
            "fn::select: [-1, [a]]",
            "3:18: index must be a positive integral, not -1",
        ),
        (
            "fn::select: [3, [a]]",
            "3:21: list index 3 out-of-bounds for list of length 1",
        ),
        (
            "fn::length: 3",
            "3:17: fn::length requires a list, map, or string, got a number",
        ),
        (
            "fn::toBase64: 3",
            "3:19: expected argument to fn::toBase64 to be a string, got a number",
        ),
        (
            "fn::fromBase64: '***'",
            "3:21: fn::fromBase64 unable to decode ***, error: Invalid symbol 42, offset 0.",
        ),
        (
            "fn::singleOrNone: [a, b]",
            "3:23: fn::singleOrNone expected a list of 0 or 1 elements, got 2",
        ),
        (
            "fn::readFile: [x]",
            "3:19: Argument to fn::readFile must be a string, got a list",
        ),
        (
            "fn::fileAsset: 1",
            "3:20: Argument to fn::fileAsset must be a string, got a number",
        ),
        (
            "fn::pulumiResourceName: x",
            "3:29: fn::pulumiResourceName requires a resource, got a string",
        ),
        (
            "fn::pulumiResourceType: 1",
            "3:29: fn::pulumiResourceType requires a resource, got a number",
        ),
    ];
    let mut wrong = Vec::new();
    for (call, want) in cases {
        let text = format!("variables:\n  v:\n    {call}\n");
        let got = run_err(&text, info(&[], &[])).await;
        if got != format!("Pulumi.yaml:{want}") {
            wrong.push(format!("{call}: {got}"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// A scratch program directory with a file, a subdirectory and an archive file.
fn scratch_dir() -> tempfile::TempDir {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    std::fs::create_dir_all(dir.join("site")).unwrap();
    std::fs::write(dir.join("hello.txt"), "hello").unwrap();
    std::fs::write(dir.join("site/index.html"), "<h1>hi</h1>").unwrap();
    std::fs::write(dir.join("bundle.zip"), b"PK\x05\x06 not really").unwrap();
    temp
}

fn field<'a>(v: &'a PropertyValue, k: &str) -> &'a serde_json::Value {
    match v {
        PropertyValue::Asset(m) | PropertyValue::Archive(m) => &m[k],
        other => panic!("not an asset or archive: {other:?}"),
    }
}

#[tokio::test]
async fn files_and_assets_resolve_against_the_program_directory() {
    let temp = scratch_dir();
    let dir = temp.path().to_path_buf();
    let mut program = parse(
        r#"resources:
  r:
    type: sim:index:Resource
    properties:
      text: {fn::readFile: hello.txt}
      b64: {fn::filebase64: hello.txt}
      sha: {fn::filebase64sha256: hello.txt}
      file: {fn::fileAsset: hello.txt}
      str: {fn::stringAsset: hello}
      remote: {fn::remoteAsset: "https://example.com/a.txt"}
      dir: {fn::fileArchive: site}
      zip: {fn::fileArchive: bundle.zip}
      remoteZip: {fn::remoteArchive: "file://bundle.zip"}
      bag:
        fn::assetArchive:
          index.html: {fn::stringAsset: "<h1>hi</h1>"}
          nested:
            fn::assetArchive:
              a: {fn::fileAsset: hello.txt}
          site: {fn::fileArchive: site}
"#,
    );
    program.dir = dir.clone();
    let rec = run_with(program, info(&[], &[]), Script::default()).await;
    let p = &rec.goal("r").properties;
    assert_eq!(p["text"], s("hello"));
    assert_eq!(p["b64"], s("aGVsbG8="));
    assert_eq!(p["sha"], s("LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ="));
    let hello_hash = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";
    assert_eq!(field(&p["file"], SIG_KEY), ASSET_SIG);
    assert_eq!(field(&p["file"], "path"), "hello.txt");
    assert_eq!(field(&p["file"], "hash"), hello_hash);
    assert_eq!(field(&p["str"], "text"), "hello");
    assert_eq!(field(&p["str"], "hash"), hello_hash);
    assert_eq!(field(&p["remote"], "uri"), "https://example.com/a.txt");
    assert_eq!(field(&p["dir"], SIG_KEY), ARCHIVE_SIG);
    assert_eq!(field(&p["dir"], "path"), "site");
    assert_eq!(field(&p["zip"], "hash"), field(&p["remoteZip"], "hash"));
    let assets = field(&p["bag"], "assets").as_object().unwrap();
    assert_eq!(assets["nested"]["assets"]["a"]["path"], "hello.txt");
    assert_eq!(assets["site"]["path"], "site");
    assert_eq!(
        run_err(
            "variables:\n  v:\n    fn::readFile: nope.txt\n",
            info(&[], &[])
        )
        .await,
        "Pulumi.yaml:3:19: Error reading file at path nope.txt: No such file or directory (os error 2)"
    );
}

#[tokio::test]
async fn invoke_calls_the_provider_function_with_options_and_return() {
    let text = r#"config:
  token:
    type: String
    secret: true
resources:
  prov:
    type: pulumi:providers:fns
  parent:
    type: sim:index:Resource
    options:
      provider: ${prov}
  r:
    type: sim:index:Resource
    properties:
      whole:
        fn::invoke:
          function: fns:index:echo
          arguments: {a: 1}
      picked:
        fn::invoke:
          function: fns:index:echo
          arguments: {a: 1}
          return: a
      versioned:
        fn::invoke:
          function: fns:index:echo
          options:
            version: 1.2.3
          return: version
      explicit:
        fn::invoke:
          function: fns:index:echo
          options:
            provider: ${prov}
            dependsOn: ["${parent}"]
          return: version
      shorthand:
        fn::fns:index:echo: {b: x}
      secretArgs:
        fn::invoke:
          function: fns:index:echo
          arguments: {t: "${token}"}
          return: t
"#;
    let rec = run_with(
        parse(text),
        info(&[("proj:token", "s3")], &[]),
        Script::default(),
    )
    .await;
    let p = &rec.goal("r").properties;
    let whole = p["whole"].as_object().unwrap();
    assert_eq!(whole["a"], n(1.0));
    assert_eq!(whole["token"], s("fns:index:echo"));
    assert_eq!(p["picked"], n(1.0));
    assert_eq!(
        p["versioned"],
        s("1.2.3"),
        "the version option picks the default provider"
    );
    assert_eq!(p["explicit"], s(""));
    assert_eq!(p["shorthand"].as_object().unwrap()["b"], s("x"));
    assert_eq!(p["secretArgs"], secret(s("s3")));
    let defaults: Vec<&str> = rec
        .goals
        .iter()
        .filter(|g| g.type_ == "pulumi:providers:fns")
        .map(|g| g.name.as_str())
        .collect();
    assert_eq!(defaults, ["prov", "default", "default_1_2_3"]);
    let r = rec.goal("r");
    assert!(
        r.dependencies.iter().any(|u| u.name() == "parent"),
        "dependsOn of an invoke makes the result depend on it"
    );
}

#[tokio::test]
async fn invoke_errors_and_previews() {
    assert_eq!(
        run_err(
            "variables:\n  v:\n    fn::invoke:\n      function: fns:index:echo\n      return: nope\n",
            info(&[], &[])
        )
        .await,
        "Pulumi.yaml:3:5: fn::invoke of fns:index:echo did not contain a property 'nope' in the returned value"
    );
    let failed = run_err(
        "variables:\n  v:\n    fn::invoke:\n      function: fns:index:fail\n",
        info(&[], &[]),
    )
    .await;
    assert!(
        failed.starts_with(
            "Pulumi.yaml:3:5: invoke of fns:index:fail failed: fns:index:fail refused"
        ),
        "{failed}"
    );
    assert_eq!(
        run_err(
            "resources:\n  a:\n    type: sim:index:Resource\nvariables:\n  v:\n    fn::invoke:\n      function: fns:index:echo\n      options:\n        provider: ${a}\n",
            info(&[], &[])
        )
        .await,
        "Pulumi.yaml:9:19: resource passed as Provider was not a provider resource 'urn:pulumi:dev::proj::sim:index:Resource::a'"
    );
}

#[tokio::test]
async fn resource_name_and_type_of_a_resource() {
    let p = props(
        r#"resources:
  a:
    type: sim:index:Bucket
    name: real-name
  r:
    type: sim:index:Resource
    properties:
      name: {fn::pulumiResourceName: "${a}"}
      type: {fn::pulumiResourceType: "${a}"}
"#,
    )
    .await;
    assert_eq!(p["name"], s("real-name"));
    assert_eq!(p["type"], s("sim:index:Bucket"));
}

#[tokio::test]
async fn property_access_and_indexing_on_resources_config_and_variables() {
    let text = r#"config:
  obj:
    type: Object
variables:
  v:
    list: [{key: one}, {key: two}]
    "a.b": dotted
resources:
  a:
    type: sim:index:Resource
    properties:
      prop: [{key: first}]
      "a.b": quoted
      nested: {deep: [1, 2]}
  r:
    type: sim:index:Resource
    properties:
      res: ${a.prop[0].key}
      resQuoted: ${a["a.b"]}
      resNested: ${a.nested["deep"][1]}
      resMissingKey: ${a.nested.nothing}
      var: ${v.list[1].key}
      varQuoted: ${v["a.b"]}
      cfg: ${obj.inner[0]}
      urn: ${a.urn}
      id: ${a.id}
"#;
    let rec = run_with(
        parse(text),
        info(&[("proj:obj", r#"{"inner":["x"]}"#)], &[]),
        Script::default(),
    )
    .await;
    let p = &rec.goal("r").properties;
    assert_eq!(p["res"], s("first"));
    assert_eq!(p["resQuoted"], s("quoted"));
    assert_eq!(p["resNested"], n(2.0));
    assert_eq!(p["resMissingKey"], PropertyValue::Null);
    assert_eq!(p["var"], s("two"));
    assert_eq!(p["varQuoted"], s("dotted"));
    assert_eq!(p["cfg"], s("x"));
    assert_eq!(p["urn"], s("urn:pulumi:dev::proj::sim:index:Resource::a"));
    assert_eq!(p["id"], s("a-id"));

    let bad = |expr: &str| {
        format!(
            "resources:\n  a:\n    type: sim:index:Resource\n    properties:\n      size: 1\n      tags: [x]\noutputs:\n  o: {expr}\n"
        )
    };
    assert_eq!(
        run_err(&bad("${a.tags[5]}"), info(&[], &[])).await,
        "Pulumi.yaml:8:6: list index 5 out-of-bounds for list of length 1"
    );
    assert_eq!(
        run_err(&bad("${a.tags.x}"), info(&[], &[])).await,
        "Pulumi.yaml:8:6: cannot access a list element using a property name"
    );
    assert_eq!(
        run_err(&bad("${a.size.x}"), info(&[], &[])).await,
        "Pulumi.yaml:8:6: receiver must be a list or object, not a number"
    );
}

#[tokio::test]
async fn a_property_a_resource_does_not_have_is_an_error_once_outputs_are_known() {
    let text = "resources:\n  a:\n    type: sim:index:Resource\n    properties:\n      size: 1\n      sise2: 2\noutputs:\n  o: x-${a.sise}\n";
    assert_eq!(
        run_err(text, info(&[], &[])).await,
        "Pulumi.yaml:8:8: sise does not exist on a; Existing properties are: sise2, size, id, urn"
    );
    let mut preview = info(&[], &[]);
    preview.dry_run = true;
    let rec = run_with(parse(text), preview, Script::default()).await;
    let (_, outputs) = rec.outputs.unwrap();
    assert_eq!(outputs["o"], PropertyValue::Unknown, "unknown in a preview");
}

#[tokio::test]
async fn pulumi_variables() {
    let mut program = parse(
        "outputs:\n  stack: ${pulumi.stack}\n  project: ${pulumi.project}\n  org: ${pulumi.organization}\n  cwd: ${pulumi.cwd}\n  root: ${pulumi.rootDirectory}\n",
    );
    let dir = std::env::temp_dir().join("stepdeck-yaml-vars");
    program.dir = dir.join("app");
    program.root_dir = dir.clone();
    let rec = run_with(program, info(&[], &[]), Script::default()).await;
    let (_, o) = rec.outputs.unwrap();
    assert_eq!(o["stack"], s("dev"));
    assert_eq!(o["project"], s("proj"));
    assert_eq!(o["org"], s("organization"));
    assert_eq!(o["cwd"], s(&dir.join("app").to_string_lossy()));
    assert_eq!(o["root"], s(&dir.to_string_lossy()));
}

#[tokio::test]
async fn undeclared_and_namespaced_config_keys() {
    let text = "config:\n  declared: {type: Number}\noutputs:\n  bare: ${extra}\n  own: ${proj:extra}\n  ownDeclared: ${proj:declared}\n  other: ${aws:region}\n  structured: ${tags.team}\n  hidden: ${pass}\n  hiddenTeam: ${stags.team}\n";
    let rec = run_with(
        parse(text),
        info(
            &[
                ("proj:declared", "2"),
                ("proj:extra", "x"),
                ("aws:region", "us-west-2"),
                ("proj:tags", r#"{"team":"core"}"#),
                ("proj:pass", "p"),
                ("proj:stags", r#"{"team":"core"}"#),
            ],
            &["proj:pass", "proj:stags"],
        ),
        Script::default(),
    )
    .await;
    let (_, o) = rec.outputs.unwrap();
    assert_eq!(o["bare"], s("x"));
    assert_eq!(o["own"], s("x"));
    assert_eq!(o["ownDeclared"], n(2.0));
    assert_eq!(o["other"], s("us-west-2"));
    assert_eq!(o["structured"], s("core"));
    assert_eq!(o["hidden"], secret(s("p")));
    assert_eq!(
        o["hiddenTeam"],
        secret(s("core")),
        "a property of a secret value is secret"
    );
    assert_eq!(
        run_err("outputs:\n  o: ${aws:zone}\n", info(&[], &[])).await,
        "Pulumi.yaml:2:6: output \"o\" references unknown variable or resource \"aws:zone\""
    );
}
