//! Whole Pulumi YAML programs in the style of pulumi-yaml's examples (random, command, assets,
//! invokes, config), run through the real binary with the built-in providers: preview, up, the
//! exported state and the stack outputs.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::cli_support;
use serde_json::Value;

use cli_support::*;

fn up(env: &Env) -> String {
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"])
}

/// Every stack output with secrets revealed.
fn outputs(env: &Env) -> Value {
    let text = env.ok(&[
        "stack",
        "output",
        "--json",
        "--show-secrets",
        "--stack",
        "dev",
    ]);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// The exported state of one resource by its name.
fn resource(env: &Env, name: &str) -> Value {
    env.export("dev")["deployment"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["urn"].as_str().unwrap().ends_with(&format!("::{name}")))
        .cloned()
        .unwrap_or_else(|| panic!("no resource {name}"))
}

#[test]
fn random_program_with_short_tokens_and_functions() {
    let mut env = Env::new(
        r#"
resources:
  password:
    type: random:RandomPassword
    properties:
      length: 16
      special: false
  pet:
    type: random:index:RandomPet
    properties:
      prefix: ${pulumi.stack}
      length: 2
outputs:
  passwordLength: {fn::length: "${password.result}"}
  petParts: {fn::length: {fn::split: ["-", "${pet.id}"]}}
  firstPart: {fn::select: [0, {fn::split: ["-", "${pet.id}"]}]}
  encoded: {fn::toBase64: "${pet.id}"}
  where: ${pulumi.project}/${pulumi.stack}/${pulumi.organization}
"#,
    );
    env.passphrase = true;
    let preview = env.ok(&["preview", "--stack", "dev", "--non-interactive"]);
    assert!(
        preview.contains("random:index/randomPassword:RandomPassword"),
        "the short token resolves to the provider's type: {preview}"
    );
    up(&env);
    assert_eq!(
        resource(&env, "password")["type"],
        "random:index/randomPassword:RandomPassword"
    );
    assert_eq!(
        resource(&env, "pet")["type"],
        "random:index/randomPet:RandomPet"
    );
    let o = outputs(&env);
    assert_eq!(o["passwordLength"], 16);
    assert_eq!(o["petParts"], 3);
    assert_eq!(o["firstPart"], "dev");
    let pet = resource(&env, "pet")["id"].as_str().unwrap().to_string();
    use base64::Engine as _;
    assert_eq!(
        o["encoded"],
        base64::engine::general_purpose::STANDARD.encode(&pet)
    );
    assert_eq!(o["where"], "e2e/dev/organization");
    let plain = env.ok(&["stack", "output", "--json", "--stack", "dev"]);
    assert!(
        plain.contains("\"passwordLength\": \"[secret]\""),
        "a function of a secret output is secret: {plain}"
    );
}

#[test]
fn command_program_with_invokes() {
    let env = Env::new(
        r#"
variables:
  greeting:
    fn::invoke:
      function: command:local:run
      arguments:
        command: echo hello from ${pulumi.stack}
      return: stdout
  shorthand:
    fn::command:local:run:
      command: printf short
resources:
  hello:
    type: command:local:Command
    properties:
      create: echo ${greeting}
outputs:
  greeting: ${greeting}
  shorthand: ${shorthand.stdout}
  echoed: ${hello.stdout}
"#,
    );
    let preview = env.ok(&["preview", "--stack", "dev", "--non-interactive"]);
    assert!(preview.contains("command:local:Command"), "{preview}");
    up(&env);
    let o = outputs(&env);
    assert_eq!(o["greeting"], "hello from dev");
    assert_eq!(o["shorthand"], "short");
    assert_eq!(o["echoed"], "hello from dev");
    env.write(
        "Pulumi.yaml",
        "name: e2e\nruntime: yaml\nvariables:\n  v:\n    fn::invoke:\n      function: command:local:run\n      arguments:\n        command: exit 3\noutputs:\n  v: ${v}\n",
    );
    let failed = env.run(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    assert!(!failed.status.success());
    let text = format!("{}{}", stdout(&failed), stderr(&failed));
    assert!(
        text.contains("Pulumi.yaml:5:5:"),
        "the failing invoke is located: {text}"
    );
}

#[test]
fn assets_and_archives_reach_the_state_with_pulumis_hashes() {
    let env = Env::new(
        r#"
resources:
  site:
    type: sim:Resource
    properties:
      index: {fn::fileAsset: ./www/index.html}
      inline: {fn::stringAsset: "<h1>inline</h1>"}
      text: {fn::readFile: ./www/index.html}
      bundle:
        fn::assetArchive:
          index.html: {fn::fileAsset: ./www/index.html}
          www: {fn::fileArchive: ./www}
outputs:
  text: ${site.text}
  hash: ${site.index.hash}
"#,
    );
    std::fs::create_dir_all(env.project().join("www")).unwrap();
    env.write("www/index.html", "<h1>hello</h1>");
    up(&env);
    let site = resource(&env, "site");
    assert_eq!(
        site["type"], "sim:index:Resource",
        "sim:Resource is sim:index:Resource"
    );
    let index = &site["inputs"]["index"];
    assert_eq!(
        index["4dabf18193072939515e22adb298388d"],
        "c44067f5952c0a294b673a41bacd8c17"
    );
    assert_eq!(index["path"], "./www/index.html");
    // Pulumi's asset hash: the SHA-256 of the file's bytes.
    let want = {
        use sha2::Digest as _;
        hex::encode(sha2::Sha256::digest(b"<h1>hello</h1>"))
    };
    assert_eq!(index["hash"], want.as_str());
    assert_eq!(site["inputs"]["inline"]["text"], "<h1>inline</h1>");
    let bundle = &site["inputs"]["bundle"];
    assert_eq!(
        bundle["4dabf18193072939515e22adb298388d"],
        "0def7320c3a5731c473e5ecbe6d01bc7"
    );
    assert_eq!(bundle["assets"]["www"]["path"], "./www");
    let o = outputs(&env);
    assert_eq!(o["text"], "<h1>hello</h1>");
    assert_eq!(o["hash"], want.as_str());

    // Same files: nothing changes. A changed file changes the hash and updates the resource.
    let again = up(&env);
    assert!(!again.contains("updated"), "{again}");
    env.write("www/index.html", "<h1>changed</h1>");
    let changed = up(&env);
    assert!(changed.contains("updated"), "{changed}");
}

#[test]
fn config_keys_undeclared_namespaced_and_structured() {
    let env = Env::new(
        r#"
config:
  size:
    type: integer
    default: 2
resources:
  r:
    type: sim:index:Resource
    properties:
      size: ${size}
      extra: ${extra}
      ownNamespace: ${e2e:extra}
      region: ${aws:region}
outputs:
  cwd: ${pulumi.cwd}
  root: ${pulumi.rootDirectory}
  extra: ${r.extra}
  region: ${r.region}
"#,
    );
    env.write(
        "Pulumi.dev.yaml",
        "config:\n  e2e:extra: more\n  aws:region: us-west-2\n",
    );
    up(&env);
    let r = resource(&env, "r");
    assert_eq!(r["inputs"]["size"], 2);
    assert_eq!(r["inputs"]["extra"], "more");
    assert_eq!(r["inputs"]["ownNamespace"], "more");
    let o = outputs(&env);
    assert_eq!(o["region"], "us-west-2");
    let project = env.project().canonicalize().unwrap();
    let cwd = std::path::PathBuf::from(o["cwd"].as_str().unwrap());
    assert_eq!(cwd.canonicalize().unwrap(), project);
    assert_eq!(o["root"], o["cwd"]);
}

#[test]
fn a_property_a_resource_lacks_fails_the_update_with_its_location_but_not_the_preview() {
    let env = Env::new(
        r#"
resources:
  a:
    type: sim:index:Resource
    properties:
      size: 1
outputs:
  o: ${a.nosuchprop}
"#,
    );
    env.ok(&["preview", "--stack", "dev", "--non-interactive"]);
    let out = env.run(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    assert!(!out.status.success());
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        text.contains("Pulumi.yaml:10:6: nosuchprop does not exist on a; Existing properties are:"),
        "{text}"
    );
}

#[test]
fn yaml_component_package_builds_its_resources_under_the_component() {
    let env = Env::new(
        r#"
packages:
  pets: ./pets
resources:
  generator:
    type: pets:index:petGenerator
    properties:
      length: 3
      prefix: test
outputs:
  pet: ${generator.pet}
"#,
    );
    std::fs::create_dir_all(env.project().join("pets")).unwrap();
    env.write(
        "pets/PulumiPlugin.yaml",
        r#"name: pets
runtime: yaml
components:
  petGenerator:
    inputs:
      length:
        type: integer
      prefix:
        type: string
    resources:
      randomPet:
        type: random:RandomPet
        properties:
          length: ${length}
          prefix: ${prefix}
    outputs:
      pet: ${randomPet.id}
"#,
    );
    up(&env);
    let generator = resource(&env, "generator");
    assert_eq!(generator["type"], "pets:index:petGenerator");
    assert_eq!(generator["custom"], false);
    // Named after the component instance, as Pulumi YAML 1.33 names component children.
    let pet = resource(&env, "generator-randomPet");
    assert_eq!(pet["parent"], generator["urn"]);
    let id = pet["id"].as_str().unwrap().to_string();
    assert!(id.starts_with("test-"), "{id}");
    assert_eq!(id.split('-').count(), 4);
    assert_eq!(outputs(&env)["pet"], id.as_str());
    assert_eq!(generator["outputs"]["pet"], id.as_str());
    let again = up(&env);
    assert!(!again.contains("created"), "{again}");

    // A stack whose child still has the unprefixed name (written before the prefix) keeps it:
    // the alias to the old name makes the next update rename it, not replace it.
    let mut state = env.export("dev");
    let text = state
        .to_string()
        .replace("::generator-randomPet", "::randomPet");
    state = serde_json::from_str(&text).unwrap();
    let file = env.root.path().join("old.json");
    std::fs::write(&file, state.to_string()).unwrap();
    env.ok(&[
        "stack",
        "import",
        "--stack",
        "dev",
        "--file",
        file.to_str().unwrap(),
    ]);
    assert!(
        resource(&env, "randomPet")["id"] == id.as_str(),
        "the old name is in the state"
    );
    let migrated = up(&env);
    assert!(
        !migrated.contains("created") && !migrated.contains("deleted"),
        "{migrated}"
    );
    assert_eq!(resource(&env, "generator-randomPet")["id"], id.as_str());
}

/// Copies an example project from `assets/examples` into a fresh environment.
fn example(name: &str) -> Env {
    let env = Env::new("");
    let from = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/examples")
        .join(name);
    copy_dir(&from, &env.project());
    env
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

#[test]
fn the_site_example_runs() {
    let env = example("site");
    env.ok(&["preview", "--stack", "dev", "--non-interactive"]);
    up(&env);
    let o = outputs(&env);
    let label = o["label"].as_str().unwrap();
    assert!(label.starts_with("site-example-dev-"), "{label}");
    assert_eq!(o["builtBy"], "built for dev");
    assert_eq!(o["pages"], 2);
    assert_eq!(o["firstPage"], "index");
    let want = {
        use sha2::Digest as _;
        let page = std::fs::read(env.project().join("www/index.html")).unwrap();
        hex::encode(sha2::Sha256::digest(page))
    };
    assert_eq!(o["indexHash"], want.as_str());
    let bucket = resource(&env, "bucket");
    assert!(
        bucket["outputs"]["arn"]
            .as_str()
            .unwrap()
            .starts_with(&format!("arn:sim:bucket:::{label}-")),
        "{bucket}"
    );
    let again = up(&env);
    assert!(
        !again.contains("created") && !again.contains("updated"),
        "{again}"
    );
    env.ok(&["destroy", "--stack", "dev", "--yes", "--non-interactive"]);
    assert!(env.managed("dev").is_empty());
}

#[test]
fn stack_references_read_another_stacks_plain_and_secret_outputs() {
    let mut env = Env::new(
        r#"
resources:
  net:
    type: pulumi:pulumi:StackReference
    properties:
      name: organization/net/prod
  tag:
    type: random:RandomString
    properties:
      length: 4
      keepers:
        extra: ${net.outputs["extra"]}
outputs:
  petName: ${net.outputs["petName"]}
  token: ${net.outputs["token"]}
  secretNames: ${net.secretOutputNames}
  viaFunction:
    fn::stackReference: [organization/net/prod, petName]
  tokenViaFunction:
    fn::stackReference: [organization/net/prod, token]
  missing:
    fn::stackReference: [organization/net/prod, nothing]
"#,
    );
    env.passphrase = true;
    let net = env.sibling("net", &net_program("s3cr3t-one", "first"));

    let missing = env.run(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    assert_eq!(missing.status.code(), Some(1));
    let text = stdout(&missing);
    assert!(
        text.contains("unknown stack \"organization/net/prod\""),
        "{text}"
    );

    env.ok_in(&net, &["stack", "init", "prod"]);
    env.ok_in(
        &net,
        &["up", "--stack", "prod", "--yes", "--non-interactive"],
    );
    let out = up(&env);
    assert!(
        out.contains(" >  pulumi:pulumi:StackReference net read"),
        "{out}"
    );
    assert!(
        out.contains("'fn::stackReference' is deprecated"),
        "pulumi-yaml's warning: {out}"
    );
    assert!(!out.contains("s3cr3t"), "{out}");
    let shown: Value =
        serde_json::from_str(&env.ok(&["stack", "output", "--json", "--stack", "dev"])).unwrap();
    assert_eq!(shown["token"], "[secret]");
    assert_eq!(shown["tokenViaFunction"], "[secret]");
    let o = outputs(&env);
    assert_eq!(o["token"], "s3cr3t-one");
    assert_eq!(o["tokenViaFunction"], "s3cr3t-one");
    assert_eq!(o["viaFunction"], o["petName"]);
    assert_eq!(o["secretNames"], serde_json::json!(["token"]));
    assert_eq!(o["missing"], Value::Null);
    let checkpoint = env.checkpoint_text("e2e", "dev");
    assert!(!checkpoint.contains("s3cr3t-one"), "{checkpoint}");
    assert!(checkpoint.contains("ciphertext"));
    let first_tag = resource(&env, "tag")["outputs"]["result"].clone();

    // The referenced stack changes: the next update reads its new outputs and what depends
    // on them follows.
    env.sibling("net", &net_program("s3cr3t-two", "second"));
    env.ok_in(
        &net,
        &["up", "--stack", "prod", "--yes", "--non-interactive"],
    );
    let out = up(&env);
    assert!(
        out.contains("random:index/randomString:RandomString tag replaced"),
        "{out}"
    );
    let o = outputs(&env);
    assert_eq!(o["token"], "s3cr3t-two");
    assert_ne!(resource(&env, "tag")["outputs"]["result"], first_tag);
}

fn replacing_program(token: &str) -> String {
    format!(
        r#"
resources:
  a:
    type: sim:index:Resource
    properties:
      size: 1
    options:
      replacementTrigger:
        fn::secret: {token}
  b:
    type: sim:index:Resource
    properties:
      size: 1
    options:
      replaceWith:
        - ${{a}}
  c:
    type: sim:index:Resource
    properties:
      size: 1
"#
    )
}

#[test]
fn replacement_trigger_and_replace_with_replace_through_the_binary() {
    let mut env = Env::new(&replacing_program("token-1"));
    env.passphrase = true;
    up(&env);
    let a = resource(&env, "a");
    let b = resource(&env, "b");
    assert_eq!(b["replaceWith"], serde_json::json!([a["urn"]]));
    assert!(
        !env.checkpoint_text("e2e", "dev").contains("token-1"),
        "a secret trigger is encrypted in the checkpoint"
    );
    let before = env.managed("dev");

    // The same trigger changes nothing.
    let same = env.ok(&["preview", "--stack", "dev", "--non-interactive", "--diff"]);
    assert!(!same.contains("replace"), "{same}");

    env.write(
        "Pulumi.yaml",
        &format!("name: e2e\nruntime: yaml\n{}", replacing_program("token-2")),
    );
    let preview = env.ok(&["preview", "--stack", "dev", "--non-interactive"]);
    assert!(preview.contains("2 to replace"), "{preview}");
    up(&env);
    let after = env.managed("dev");
    let id = |list: &[(String, String)], n: &str| {
        list.iter().find(|(name, _)| name == n).unwrap().1.clone()
    };
    assert_ne!(id(&before, "a"), id(&after, "a"), "the trigger replaced a");
    assert_ne!(id(&before, "b"), id(&after, "b"), "b was replaced with a");
    assert_eq!(id(&before, "c"), id(&after, "c"));
    env.assert_no_leaks("dev");
}

/// pulumi-yaml's type check of property values against the package's schema: values the schema
/// refuses fail the preview and the update at their line, naming each property, before any
/// resource registers; coercions it allows (numbers to strings) and references pass.
#[test]
fn property_values_the_schema_refuses_fail_before_anything_registers() {
    let env = Env::new(
        r#"
config:
  flag:
    type: boolean
    default: true
resources:
  fine:
    type: random:RandomString
    properties:
      length: 8
      special: ${flag}
      overrideSpecial: 5
      keepers: {a: 1, b: [x]}
  shuffled:
    type: random:RandomShuffle
    properties:
      inputs: [a, 1]
      resultCount: [1]
      colour: red
  bounded:
    type: random:RandomInteger
    properties:
      min: 1
"#,
    );
    for verb in [
        &["preview", "--stack", "dev", "--non-interactive"][..],
        &["up", "--stack", "dev", "--yes", "--non-interactive"][..],
    ] {
        let out = env.run(verb);
        assert!(!out.status.success());
        let text = format!("{}{}", stdout(&out), stderr(&out));
        for expected in [
            "Pulumi.yaml:20:20: random:index/randomShuffle:RandomShuffle is not assignable from \
             {inputs: List<Union<string, number>>, resultCount: List<number>, colour: string}; \
             Cannot assign '{inputs: List<Union<string, number>>, resultCount: List<number>, colour: string}' \
             to 'random:index/randomShuffle:RandomShuffle':\n\n  \
             resultCount: Cannot assign 'List<number>' to 'integer'\n\n  \
             Property colour does not exist on 'random:index/randomShuffle:RandomShuffle'; Existing properties are: ",
            "Pulumi.yaml:22:3: random:index/randomInteger:RandomInteger is not assignable from \
             {min: number}; Cannot assign '{min: number}' to \
             'random:index/randomInteger:RandomInteger':\n\n  max: Missing required property 'max'",
        ] {
            assert!(text.contains(expected), "{expected}\n---\n{text}");
        }
        assert!(!text.contains("fine"), "{text}");
    }
    let resources = &env.export("dev")["deployment"]["resources"];
    assert!(
        resources.as_array().is_none_or(Vec::is_empty),
        "{resources}"
    );
}

/// `pluginDownloadURL` as Pulumi's engine records it (`SetProviderURL`, `DefaultName`): a
/// resource naming a URL gets a default provider of its own, `default_<url as a name>`, and an
/// explicit provider keeps its URL; each URL is in its provider's `__internal` inputs only, and
/// a second update changes nothing.
#[test]
fn plugin_download_urls_are_recorded_on_their_providers() {
    let env = Env::new(
        r#"
resources:
  plain:
    type: sim:index:Resource
  fetched:
    type: sim:index:Resource
    options:
      pluginDownloadURL: https://get.example.test/plugins
  explicit:
    type: pulumi:providers:sim
    options:
      pluginDownloadURL: get.pulumi.test/providers
  onExplicit:
    type: sim:index:Resource
    options:
      provider: ${explicit}
"#,
    );
    up(&env);
    let url = |name: &str| {
        let r = resource(&env, name);
        assert!(r["outputs"].get("__internal").is_none(), "{r:#}");
        r["inputs"]["__internal"]["pluginDownloadURL"].clone()
    };
    assert_eq!(url("default"), Value::Null);
    assert_eq!(
        url("default_https_/get.example.test/plugins"),
        "https://get.example.test/plugins"
    );
    assert_eq!(url("explicit"), "get.pulumi.test/providers");
    let fetched = resource(&env, "fetched");
    assert!(
        fetched["provider"]
            .as_str()
            .unwrap()
            .contains("::default_https_/get.example.test/plugins::"),
        "{fetched:#}"
    );
    assert!(fetched["inputs"].get("__internal").is_none(), "{fetched:#}");
    env.ok(&[
        "up",
        "--stack",
        "dev",
        "--yes",
        "--non-interactive",
        "--expect-no-changes",
    ]);
}
