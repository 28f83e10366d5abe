//! Real Pulumi SDK programs (Python and Node.js, from `tests/sdk_programs/`) through the real
//! binary: random and command resources, components, config and secrets, dynamic providers, a
//! failing program and a delete-before-replace cascade, checked through state and outputs.
//!
//! Needs the SDKs installed by `.ci/install-sdks.sh` (in `target/sdk-env`, or `STEPDECK_SDK_ENV`).

#![allow(clippy::unwrap_used, clippy::panic)]

mod cli_support;

use std::path::{Path, PathBuf};

use cli_support::*;
use serde_json::Value;

/// A temporary project holding a copy of `tests/sdk_programs/<name>`, with the SDK
/// environment linked in (`venv` for Python, `node_modules` for Node.js), and a `dev` stack.
fn sdk_project(name: &str) -> Env {
    let mut env = Env::new("");
    // Dynamic providers' code and secret config are secrets in the state.
    env.passphrase = true;
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/sdk_programs")
        .join(name);
    for entry in std::fs::read_dir(&source).expect("test program directory") {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), env.project().join(entry.file_name())).unwrap();
    }
    link_sdks(&env.project());
    env.ok(&["stack", "init", "dev"]);
    env
}

/// Sets a plain config value by editing `Pulumi.dev.yaml` as a user would (each `config set`
/// costs a passphrase key derivation, which is slow in debug builds).
fn config(env: &Env, key: &str, value: &str) {
    let project_file = std::fs::read_to_string(env.project().join("Pulumi.yaml")).unwrap();
    let project = project_file
        .lines()
        .find_map(|l| l.strip_prefix("name: "))
        .expect("Pulumi.yaml names the project");
    let path = env.project().join("Pulumi.dev.yaml");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let full = format!("{project}:{key}:");
    let entry = format!("  {full} {}", serde_json::to_string(value).unwrap());
    let mut lines: Vec<String> = text
        .lines()
        .filter(|l| !l.trim_start().trim_start_matches('"').starts_with(&full))
        .map(str::to_string)
        .collect();
    match lines.iter().position(|l| l == "config:") {
        Some(i) => lines.insert(i + 1, entry),
        None => lines
            .splice(0..0, ["config:".to_string(), entry])
            .for_each(drop),
    }
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
}

fn up(env: &Env, extra: &[&str]) -> String {
    let mut args = vec!["up", "--stack", "dev", "--yes", "--non-interactive"];
    args.extend_from_slice(extra);
    env.ok(&args)
}

fn outputs(env: &Env, show_secrets: bool) -> Value {
    let mut args = vec!["stack", "output", "--json", "--stack", "dev"];
    if show_secrets {
        args.push("--show-secrets");
    }
    serde_json::from_str(&env.ok(&args)).expect("stack output --json is JSON")
}

/// The exported state's resources.
fn resources(env: &Env) -> Vec<Value> {
    env.export("dev")["deployment"]["resources"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// The resource named `name` among exported `resources`.
fn find<'a>(resources: &'a [Value], name: &str) -> &'a Value {
    resources
        .iter()
        .find(|r| r["urn"].as_str().unwrap().ends_with(&format!("::{name}")))
        .unwrap_or_else(|| panic!("{name} is not in the state"))
}

fn resource(env: &Env, name: &str) -> Value {
    find(&resources(env), name).clone()
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key]
        .as_str()
        .unwrap_or_else(|| panic!("{key} is not a string in {v}"))
}

/// Lines of a `--json` update as JSON events.
fn events(out: &str) -> Vec<Value> {
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// The `op` of every resourcePreEvent for the resource named `name`.
fn ops_for(events: &[Value], name: &str) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| e.get("resourcePreEvent"))
        .filter(|e| {
            e["metadata"]["urn"]
                .as_str()
                .is_some_and(|u| u.ends_with(&format!("::{name}")))
        })
        .map(|e| e["metadata"]["op"].as_str().unwrap().to_string())
        .collect()
}

/// The same checks for the Python and Node random programs: preview, up, a changed up
/// (the command updates, `second` is replaced through its keepers), then destroy.
fn random_program_lifecycle(name: &str, project: &str) {
    let env = sdk_project(name);
    config(&env, "greeting", "hi");
    env.ok(&[
        "config", "set", "--secret", "token", "s3cr3t", "--stack", "dev",
    ]);

    let preview = env.ok(&["preview", "--stack", "dev", "--non-interactive"]);
    assert!(preview.contains("Previewing update (dev):"), "{preview}");
    assert!(
        preview.contains(" +  random:index/randomString:RandomString pair-child create"),
        "{preview}"
    );
    assert!(
        preview.contains(" +  command:local:Command echo create"),
        "{preview}"
    );
    assert!(preview.contains("+ 6 to create"), "{preview}");
    assert!(preview.contains("token: \"[secret]\""), "{preview}");
    assert!(resources(&env).is_empty(), "a preview wrote state");

    let out = up(&env, &[]);
    assert!(out.contains("Updating (dev):"), "{out}");
    assert!(out.contains(" +  stepdeck:test:Pair pair created"), "{out}");
    assert!(out.contains("+ 6 created"), "{out}");
    // Program output arrives as a diagnostic; the SDK's debug logs stay out of plain output.
    assert!(out.contains("info: program says hi"), "{out}");
    assert!(!out.to_lowercase().contains("debug"), "{out}");
    assert!(!out.contains("s3cr3t"), "{out}");

    let first = outputs(&env, false);
    let first_result = str_of(&first, "first").to_string();
    assert_eq!(first_result.len(), 8, "{first}");
    assert_eq!(str_of(&first, "second").len(), 6, "{first}");
    assert_eq!(str_of(&first, "child").len(), 4, "{first}");
    assert_eq!(first["greeting"], "hi");
    assert_eq!(first["token"], "[secret]");
    assert_eq!(
        str_of(&first, "echoed").trim(),
        format!("hi {first_result}")
    );
    assert_eq!(outputs(&env, true)["token"], "s3cr3t");

    let stack_urn = format!("urn:pulumi:dev::{project}::pulumi:pulumi:Stack::{project}-dev");
    let exported = env.export("dev");
    let state = exported["deployment"]["resources"].as_array().unwrap();
    let pair = find(state, "pair");
    assert_eq!(pair["type"], "stepdeck:test:Pair");
    assert_eq!(pair["custom"], false);
    assert_eq!(pair["parent"], stack_urn.as_str());
    let child = find(state, "pair-child");
    assert_eq!(child["parent"], pair["urn"]);
    assert_eq!(
        str_of(child, "urn"),
        format!(
            "urn:pulumi:dev::{project}::stepdeck:test:Pair$random:index/randomString:RandomString::pair-child"
        )
    );
    let first_urn = find(state, "first")["urn"].clone();
    let second = find(state, "second");
    assert!(
        second["dependencies"]
            .as_array()
            .unwrap()
            .contains(&first_urn),
        "{second}"
    );
    assert_eq!(second["inputs"]["keepers"]["from"], first_result.as_str());
    assert!(
        str_of(second, "provider").contains("pulumi:providers:random::default_4_"),
        "{second}"
    );
    let exported = serde_json::to_string(&exported).unwrap();
    assert!(!exported.contains("s3cr3t"), "the secret is in the state");

    config(&env, "greeting", "bye");
    config(&env, "keeper", "k2");
    let changed = events(&up(&env, &["--json"]));
    assert_eq!(ops_for(&changed, "echo"), ["update"]);
    assert!(
        ops_for(&changed, "second").contains(&"replace".to_string()),
        "{:?}",
        ops_for(&changed, "second")
    );
    assert_eq!(ops_for(&changed, "first"), ["same"]);
    let diagnostics: Vec<&Value> = changed
        .iter()
        .filter_map(|e| e.get("diagnosticEvent"))
        .collect();
    assert!(
        diagnostics
            .iter()
            .any(|d| d["message"] == "program says bye\n" && d["severity"] == "info"),
        "{diagnostics:?}"
    );
    // `up --json` streams every engine event, the SDK's debug messages too, as Pulumi's
    // `ShowJSONEvents` does (only the preview digest leaves them out).
    assert!(
        diagnostics.iter().any(|d| d["severity"] == "debug"),
        "{diagnostics:?}"
    );
    let summary = changed
        .iter()
        .find_map(|e| e.get("summaryEvent"))
        .expect("a summary event");
    assert_eq!(summary["resourceChanges"]["update"], 1, "{summary}");
    assert_eq!(summary["resourceChanges"]["replace"], 1, "{summary}");

    let after = outputs(&env, false);
    assert_eq!(after["first"], first_result.as_str());
    assert_ne!(after["second"], first["second"]);
    assert_eq!(after["child"], first["child"]);
    assert_eq!(
        str_of(&after, "echoed").trim(),
        format!("bye {first_result}")
    );

    let destroyed = env.ok(&["destroy", "--stack", "dev", "--yes", "--non-interactive"]);
    assert!(destroyed.contains("Destroying (dev):"), "{destroyed}");
    assert!(resources(&env).is_empty(), "{:?}", resources(&env));
}

#[test]
fn a_python_program_previews_updates_changes_and_destroys() {
    random_program_lifecycle("py_random", "pyrandom");
}

#[test]
fn a_node_program_previews_updates_changes_and_destroys() {
    random_program_lifecycle("node_random", "noderandom");
}

/// The boxes a Python dynamic provider keeps as files in `dir`, with their content.
fn boxes(dir: &Path) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name() != "ops.log")
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read_to_string(e.path()).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

/// Takes the operations the dynamic provider logged since the last call.
fn take_ops(dir: &Path) -> Vec<String> {
    let log = dir.join("ops.log");
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let _ = std::fs::remove_file(&log);
    text.lines().map(str::to_string).collect()
}

fn dynamic_project() -> (Env, PathBuf) {
    let env = sdk_project("py_dynamic");
    let dir = env.root.path().join("boxes");
    std::fs::create_dir_all(&dir).unwrap();
    config(&env, "dir", dir.to_str().unwrap());
    (env, dir)
}

#[test]
fn a_python_dynamic_provider_creates_updates_replaces_and_deletes() {
    let (env, dir) = dynamic_project();
    let out = up(&env, &[]);
    assert!(
        out.contains(" +  pulumi-python:dynamic:Resource root created"),
        "{out}"
    );
    assert_eq!(take_ops(&dir), ["create root", "create leaf"]);
    let created = boxes(&dir);
    assert_eq!(created.len(), 2, "{created:?}");
    assert!(
        created
            .iter()
            .any(|(id, c)| id.starts_with("root-1-") && c == "v1")
    );
    assert_eq!(
        outputs(&env, false),
        serde_json::json!({"rootStamp": "root@1", "leafStamp": "leaf@1"})
    );
    let leaf = resource(&env, "leaf");
    assert_eq!(leaf["inputs"]["upstream"], "root@1");
    assert_eq!(
        leaf["provider"].as_str().unwrap().split("::").nth(2),
        Some("pulumi:providers:pulumi-python")
    );

    config(&env, "content", "v2");
    let out = up(&env, &[]);
    assert!(
        out.contains(" ~  pulumi-python:dynamic:Resource root updated"),
        "{out}"
    );
    assert_eq!(take_ops(&dir), ["update root"]);
    let updated = boxes(&dir);
    assert_eq!(
        updated.iter().map(|(id, _)| id).collect::<Vec<_>>(),
        created.iter().map(|(id, _)| id).collect::<Vec<_>>()
    );
    assert!(
        updated
            .iter()
            .any(|(id, c)| id.starts_with("root-1-") && c == "v2")
    );

    config(&env, "gen", "2");
    let out = up(&env, &[]);
    assert!(out.contains("+- 2 replaced"), "{out}");
    // Create-before-delete: both replacements exist before the originals go, dependents first.
    assert_eq!(
        take_ops(&dir),
        ["create root", "create leaf", "delete leaf", "delete root"]
    );
    let replaced = boxes(&dir);
    assert_eq!(replaced.len(), 2, "{replaced:?}");
    assert!(
        replaced
            .iter()
            .any(|(id, c)| id.starts_with("root-2-") && c == "v2")
    );
    assert!(
        replaced.iter().all(|b| !created.contains(b)),
        "{replaced:?}"
    );
    assert_eq!(resource(&env, "leaf")["inputs"]["upstream"], "root@2");

    env.ok(&["destroy", "--stack", "dev", "--yes", "--non-interactive"]);
    assert_eq!(take_ops(&dir), ["delete leaf", "delete root"]);
    assert!(boxes(&dir).is_empty());
    assert!(resources(&env).is_empty());
}

#[test]
fn a_dbr_cascade_from_a_python_program_is_declined_or_replaced_dependent_first() {
    let (env, dir) = dynamic_project();
    config(&env, "dbr", "true");
    up(&env, &[]);
    take_ops(&dir);
    let before = boxes(&dir);

    config(&env, "gen", "2");
    let declined = up(&env, &["--approve-replacements", "decline"]);
    assert!(
        declined.contains("delete-before-replace of root with leaf"),
        "{declined}"
    );
    assert!(declined.contains("1 replacement declined"), "{declined}");
    assert!(take_ops(&dir).is_empty());
    assert_eq!(boxes(&dir), before);
    assert_eq!(outputs(&env, false)["rootStamp"], "root@1");

    let replaced = up(&env, &["--approve-replacements", "auto"]);
    assert!(replaced.contains("+- 2 replaced"), "{replaced}");
    assert_eq!(
        take_ops(&dir),
        ["delete leaf", "delete root", "create root", "create leaf"]
    );
    let after = boxes(&dir);
    assert_eq!(after.len(), 2, "{after:?}");
    assert!(after.iter().all(|b| !before.contains(b)), "{after:?}");
    assert_eq!(
        outputs(&env, false),
        serde_json::json!({"rootStamp": "root@2", "leafStamp": "leaf@1"})
    );
    assert_eq!(resource(&env, "leaf")["inputs"]["upstream"], "root@2");
}

#[test]
fn a_node_dynamic_provider_creates_and_deletes() {
    let env = sdk_project("node_dynamic");
    let dir = env.root.path().join("notes");
    std::fs::create_dir_all(&dir).unwrap();
    config(&env, "dir", dir.to_str().unwrap());

    let out = up(&env, &[]);
    assert!(
        out.contains(" +  pulumi-nodejs:dynamic:Resource note created"),
        "{out}"
    );
    let notes = boxes(&dir);
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].0.starts_with("note-"), "{notes:?}");
    assert_eq!(notes[0].1, "hello from node");
    assert_eq!(outputs(&env, false)["length"], 15);
    assert_eq!(resource(&env, "note")["id"], notes[0].0.as_str());

    env.ok(&["destroy", "--stack", "dev", "--yes", "--non-interactive"]);
    assert!(boxes(&dir).is_empty());
    assert!(resources(&env).is_empty());
}

#[test]
fn a_program_that_throws_fails_with_its_error_and_keeps_what_it_created() {
    let env = sdk_project("py_throws");
    let out = env.run(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    let (text, err) = (stdout(&out), stderr(&out));
    assert_eq!(out.status.code(), Some(1), "{text}\n{err}");
    assert!(
        text.contains("ValueError: the program gave up after"),
        "{text}"
    );
    assert!(err.contains("the deployment failed"), "{err}");
    assert!(
        text.contains(" +  random:index/randomString:RandomString before created"),
        "{text}"
    );
    let before = resource(&env, "before");
    assert_eq!(before["outputs"]["result"].as_str().unwrap().len(), 5);
    assert!(
        text.contains(&format!(
            "gave up after {}",
            before["outputs"]["result"].as_str().unwrap()
        )),
        "{text}"
    );
    assert!(
        resources(&env)
            .iter()
            .any(|r| r["type"] == "pulumi:pulumi:Stack")
    );

    // The recorded state is usable: the same failure again changes nothing that was created.
    let again = env.run(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    assert_eq!(again.status.code(), Some(1));
    assert_eq!(resource(&env, "before"), before);
    env.ok(&["destroy", "--stack", "dev", "--yes", "--non-interactive"]);
    assert!(resources(&env).is_empty());
}

#[test]
fn a_failed_step_stops_the_program_with_the_providers_error_only() {
    let (env, dir) = dynamic_project();
    up(&env, &[]);
    take_ops(&dir);
    config(&env, "content", "explode");
    let out = env.run(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    let (text, err) = (stdout(&out), stderr(&out));
    assert_eq!(out.status.code(), Some(1), "{text}\n{err}");
    assert!(text.contains("box root refused to explode"), "{text}");
    assert!(err.contains("box root refused to explode"), "{err}");
    // The program is stopped quietly: no report of its own about the refused registration.
    assert!(!text.contains("Program failed"), "{text}");
    assert!(!text.contains("Resource monitor"), "{text}");
    assert!(take_ops(&dir).is_empty());
    assert_eq!(resource(&env, "root")["outputs"]["content"], "v1");
}

#[test]
fn a_typescript_program_runs_with_its_tsconfig_and_node_arguments() {
    let env = sdk_project("node_ts");
    config(&env, "length", "5");
    let out = up(&env, &[]);
    assert!(
        out.contains(" +  stepdeck:test:TsPair pair created"),
        "{out}"
    );
    assert!(out.contains("+ 4 created"), "{out}");
    let outputs = outputs(&env, false);
    let joined = str_of(&outputs, "joined");
    let (left, right) = joined
        .strip_prefix("ts:")
        .and_then(|j| j.split_once('-'))
        .unwrap_or_else(|| panic!("{outputs}"));
    assert_eq!((left.len(), right.len()), (5, 5), "{outputs}");
    assert_eq!(outputs["lengthUsed"], 5);
    assert_eq!(outputs["preloaded"], "yes");
    let left_state = resource(&env, "pair-left");
    assert_eq!(left_state["outputs"]["result"], left);
    assert_eq!(
        left_state["parent"],
        resource(&env, "pair")["urn"],
        "{left_state}"
    );
}

/// A dynamic provider's configure() sees the stack's configuration with namespaced keys,
/// secrets decrypted, as Pulumi hands the `pulumi-python`/`pulumi-nodejs` providers the whole
/// stack config.
fn dynamic_provider_reads_config(name: &str) {
    let env = sdk_project(name);
    config(&env, "greeting", "howdy");
    env.ok(&[
        "config", "set", "--secret", "token", "s3cr3t!", "--stack", "dev",
    ]);
    env.ok(&["config", "set", "aws:region", "eu-west-3", "--stack", "dev"]);
    up(&env, &[]);
    assert_eq!(
        outputs(&env, false),
        serde_json::json!({"message": "howdy, world", "tokenLength": 7, "region": "eu-west-3"})
    );
    let exported = serde_json::to_string(&env.export("dev")).unwrap();
    assert!(!exported.contains("s3cr3t!"), "the secret is in the state");
}

#[test]
fn a_python_dynamic_providers_configure_reads_the_stack_config() {
    dynamic_provider_reads_config("py_dynamic_config");
}

#[test]
fn a_node_dynamic_providers_configure_reads_the_stack_config() {
    dynamic_provider_reads_config("node_dynamic_config");
}

/// Runs the program of `tests/sdk_programs/<name>` once, then again with config `gen` 2 and
/// `fail` set; returns the stack outputs after the failed update.
fn outputs_after_a_failed_update(name: &str) -> Value {
    let env = sdk_project(name);
    up(&env, &[]);
    assert_eq!(
        outputs(&env, false),
        serde_json::json!({"first": "first@1", "second": "second@1", "third": "third@1"})
    );
    config(&env, "gen", "2");
    config(&env, "fail", "true");
    let failed = env.run(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    assert_eq!(failed.status.code(), Some(1), "{}", stdout(&failed));
    let shown = stdout(&failed);
    assert!(shown.contains("failing "), "{shown}");
    // The display shows the outputs the stack keeps.
    assert!(shown.contains("third: \"third@1\""), "{shown}");
    outputs(&env, false)
}

#[test]
fn a_failed_python_update_keeps_the_previous_outputs_and_merges_what_it_registered() {
    assert_eq!(
        outputs_after_a_failed_update("py_outputs_fail"),
        serde_json::json!({"first": "first@2", "second": "second@1", "third": "third@1"})
    );
}

#[test]
fn a_failed_node_update_keeps_the_previous_outputs() {
    assert_eq!(
        outputs_after_a_failed_update("node_outputs_fail"),
        serde_json::json!({"first": "first@1", "second": "second@1", "third": "third@1"})
    );
}

#[test]
fn secrets_nested_in_config_objects_and_arrays_reach_the_program_decrypted() {
    let env = sdk_project("py_config_paths");
    let set = |args: &[&str]| {
        let mut all = vec!["config", "set", "--stack", "dev", "--path"];
        all.extend_from_slice(args);
        env.ok(&all);
    };
    set(&["db.user", "admin"]);
    set(&["db.port", "5432"]);
    set(&["--secret", "db.password", "hunter22"]);
    set(&["tokens[0]", "abc"]);
    set(&["--secret", "tokens[1]", "s3cr3t-token"]);
    config(&env, "plain", "visible");
    up(&env, &[]);
    assert_eq!(
        outputs(&env, false),
        serde_json::json!({
            "dbUser": "admin",
            "dbPort": 5432,
            "passwordLength": 8,
            "tokenLengths": [3, 12],
            "secretKeys": ["db", "tokens"],
        })
    );
    let settings = std::fs::read_to_string(env.project().join("Pulumi.dev.yaml")).unwrap();
    assert!(!settings.contains("hunter22"), "{settings}");
    let exported = serde_json::to_string(&env.export("dev")).unwrap();
    assert!(!exported.contains("hunter22"), "the secret is in the state");
}

#[test]
fn a_python_stack_reference_reads_plain_and_secret_outputs_and_follows_the_stack() {
    let env = sdk_project("py_stack_reference");
    let net = env.sibling("net", &net_program("s3cr3t-one", "first"));

    let missing = env.run(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        stdout(&missing).contains("unknown stack \"organization/net/prod\""),
        "{}",
        stdout(&missing)
    );

    env.ok_in(&net, &["stack", "init", "prod"]);
    env.ok_in(
        &net,
        &["up", "--stack", "prod", "--yes", "--non-interactive"],
    );
    let net_outputs: Value =
        serde_json::from_str(&env.ok_in(&net, &["stack", "output", "--json", "--stack", "prod"]))
            .unwrap();

    let out = up(&env, &[]);
    assert!(
        out.contains(" >  pulumi:pulumi:StackReference organization/net/prod read"),
        "{out}"
    );
    assert!(!out.contains("s3cr3t"), "{out}");
    let o = outputs(&env, false);
    assert_eq!(o["petName"], net_outputs["petName"]);
    assert_eq!(o["token"], "[secret]");
    assert_eq!(o["tokenIsSecret"], true);
    assert_eq!(o["readPetName"], net_outputs["petName"]);
    assert_eq!(o["readSecretNames"], serde_json::json!(["token"]));
    assert_eq!(
        o["netTypes"],
        serde_json::json!([
            "pulumi:providers:random",
            "pulumi:pulumi:Stack",
            "random:index/randomPet:RandomPet"
        ])
    );
    assert_eq!(outputs(&env, true)["token"], "s3cr3t-one");
    assert_eq!(
        o["rehydrated"], o["local"],
        "getResource found the pet by its URN"
    );

    // The reference's own state keeps the secret encrypted.
    let reference = resource(&env, "organization/net/prod");
    assert_eq!(reference["type"], "pulumi:pulumi:StackReference");
    assert_eq!(
        reference["outputs"]["secretOutputNames"],
        serde_json::json!(["token"])
    );
    let text = env.checkpoint_text("pyref", "dev");
    assert!(!text.contains("s3cr3t-one"), "{text}");
    assert!(text.contains("ciphertext"), "{text}");

    // When the stack changes, the next update reads its new outputs.
    env.sibling("net", &net_program("s3cr3t-two", "second"));
    env.ok_in(
        &net,
        &["up", "--stack", "prod", "--yes", "--non-interactive"],
    );
    up(&env, &[]);
    assert_eq!(outputs(&env, true)["token"], "s3cr3t-two");
    assert_eq!(
        resource(&env, "organization/net/prod")["outputs"]["outputs"]["extra"],
        "second"
    );
}
