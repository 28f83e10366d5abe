//! Fuzzing without nightly: property tests over the decoders of everything stepdeck reads
//! from disk or the command line (checkpoints, journals, project and stack settings files, YAML
//! programs, URNs, `--target` globs). None may panic or hang; what loads must be a state that
//! passes the integrity check and survives compaction unchanged; a refused program is named by
//! its file; globs agree with a plain reference matcher. Each runs a small fixed budget in CI;
//! `cargo test --test fuzz_decoders -- --ignored` runs the same properties with many more cases.

#![allow(clippy::unwrap_used, clippy::panic)]

use std::fs;
use std::path::Path;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{Value, json};
use stepdeck::engine::model::resource::OperationType;
use stepdeck::engine::model::targets::UrnGlob;
use stepdeck::engine::{JournalEntry, PropertyMap, PropertyValue, ProviderRef, ResourceState, Urn};
use stepdeck::project::{Project, StackSettings};
use stepdeck::state::{BackendUrl, FileBackend, StackRef};

/// Cases per property in CI.
const CI_CASES: u32 = 48;
/// Cases per property in the long (ignored) run.
const LONG_CASES: u32 = 4_000;

fn run<S: Strategy>(cases: u32, strategy: S, test: impl Fn(S::Value) -> Result<(), TestCaseError>) {
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    if let Err(e) = runner.run(&strategy, test) {
        panic!("{e}");
    }
}

// ---- checkpoints and journals ------------------------------------------------------------

const NAMES: [&str; 4] = ["a", "b", "c", "d"];

fn urn(i: usize) -> Urn {
    Urn::new(
        "dev",
        "proj",
        None,
        "sim:index:Resource",
        NAMES[i % NAMES.len()],
    )
}

fn arb_state() -> impl Strategy<Value = ResourceState> {
    (
        0..NAMES.len(),
        any::<bool>(),
        proptest::option::of(0..NAMES.len()),
        proptest::collection::vec(0..NAMES.len(), 0..3),
        any::<bool>(),
        proptest::option::of("[a-z0-9-]{0,6}"),
        proptest::option::of(Just(
            ProviderRef::parse("urn:pulumi:dev::proj::pulumi:providers:sim::default::id-1")
                .unwrap(),
        )),
        any::<bool>(),
    )
        .prop_map(
            |(name, custom, parent, deps, delete, id, provider, secret)| {
                let mut inputs = PropertyMap::new();
                let v = PropertyValue::string("v");
                let v = if secret {
                    PropertyValue::Secret(Box::new(v))
                } else {
                    v
                };
                inputs.insert("k".into(), v);
                ResourceState {
                    urn: urn(name),
                    custom,
                    id,
                    type_: "sim:index:Resource".into(),
                    outputs: inputs.clone(),
                    inputs,
                    parent: parent.map(urn),
                    dependencies: deps.into_iter().map(urn).collect(),
                    delete,
                    provider,
                    ..Default::default()
                }
            },
        )
}

fn arb_index() -> impl Strategy<Value = usize> {
    prop_oneof![4 => 0usize..6, 1 => Just(usize::MAX)]
}

fn arb_entry() -> impl Strategy<Value = JournalEntry> {
    let op = || 0u64..5;
    let kind = prop_oneof![
        Just(OperationType::Creating),
        Just(OperationType::Updating),
        Just(OperationType::Deleting),
    ];
    prop_oneof![
        (op(), kind, arb_state()).prop_map(|(op, operation, state)| JournalEntry::Begin {
            op,
            operation,
            state
        }),
        (
            proptest::option::of(op()),
            proptest::option::of(arb_state()),
            proptest::option::of(arb_index()),
            proptest::option::of(arb_index()),
            proptest::option::of(arb_index()),
            proptest::option::of(arb_index()),
            proptest::option::of(arb_index()),
        )
            .prop_map(
                |(op, new, keep_old, remove_old, mark, pending, supersede)| {
                    JournalEntry::Success {
                        op,
                        new,
                        keep_old,
                        remove_old,
                        mark_delete_old: mark,
                        pending_replacement_old: pending,
                        supersede_new: supersede,
                    }
                }
            ),
        op().prop_map(|op| JournalEntry::Failure { op }),
        arb_index().prop_map(|new| JournalEntry::Outputs {
            new,
            outputs: PropertyMap::new()
        }),
        (arb_index(), proptest::option::of(arb_state()))
            .prop_map(|(old, state)| JournalEntry::Refresh { old, state }),
    ]
}

/// A JSON value of the shapes the decoders look for, with some of the wrong shapes.
fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        Just(json!(u64::MAX)),
        Just(json!(-1.5)),
        prop_oneof![
            Just("urn:pulumi:dev::proj::sim:index:Resource::a"),
            Just("urn:pulumi:"),
            Just("sim:index:Resource"),
            Just("4dabf18193072939515e22adb298388d"),
            Just("1b47061264138c4ac30d75fd1eb44270"),
            Just("v1:AAAA:BBBB"),
            Just("creating"),
            Just(""),
        ]
        .prop_map(Value::from),
    ];
    let keys = prop_oneof![
        Just("urn"),
        Just("type"),
        Just("id"),
        Just("custom"),
        Just("inputs"),
        Just("outputs"),
        Just("parent"),
        Just("dependencies"),
        Just("provider"),
        Just("resources"),
        Just("pending_operations"),
        Just("resource"),
        Just("manifest"),
        Just("time"),
        Just("magic"),
        Just("version"),
        Just("secrets_providers"),
        Just("ciphertext"),
        Just("4dabf18193072939515e22adb298388d"),
        Just("propertyDependencies"),
    ];
    leaf.prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            proptest::collection::vec((keys.clone(), inner), 0..6).prop_map(|kv| {
                Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
            }),
        ]
    })
}

/// A checkpoint file: well-formed around a fuzzed deployment, or with fuzzed outer fields.
fn arb_checkpoint() -> impl Strategy<Value = Vec<u8>> {
    let deployment = prop_oneof![
        arb_json(),
        (
            proptest::collection::vec(arb_state(), 0..5),
            proptest::collection::vec(arb_json(), 0..2)
        )
            .prop_map(|(states, extra)| {
                let mut resources: Vec<Value> = states
                    .iter()
                    .map(|s| serde_json::to_value(s).unwrap())
                    .collect();
                resources.extend(extra);
                json!({"manifest": {"time": "t", "magic": "m", "version": "v"},
                       "resources": resources})
            }),
    ];
    (
        deployment,
        prop_oneof![Just(json!(0)), Just(json!(u64::MAX)), arb_json()],
        prop_oneof![4 => Just(json!(3)), 1 => arb_json()],
    )
        .prop_map(|(latest, epoch, version)| {
            serde_json::to_vec(&json!({
                "version": version,
                "checkpoint": {"stack": "proj/dev", "latest": latest},
                "stepdeck": {"journalEpoch": epoch}
            }))
            .unwrap()
        })
}

/// Journal text: entries, a few garbage or torn lines among them.
fn arb_journal() -> impl Strategy<Value = Vec<u8>> {
    let line = prop_oneof![
        8 => arb_entry().prop_map(|e| serde_json::to_vec(&e).unwrap()),
        1 => arb_json().prop_map(|v| serde_json::to_vec(&v).unwrap()),
        1 => proptest::collection::vec(any::<u8>(), 0..24),
    ];
    (proptest::collection::vec(line, 0..10), any::<bool>()).prop_map(|(lines, torn)| {
        let mut text = Vec::new();
        for l in lines {
            text.extend(l.into_iter().filter(|b| *b != b'\n'));
            text.push(b'\n');
        }
        if torn {
            text.extend_from_slice(b"{\"kind\":\"beg");
        }
        text
    })
}

/// Loads whatever is on disk; what loads must be consistent and survive compaction as is.
fn load_and_compact(dir: &Path, checkpoint: &[u8], journal: &[u8]) -> Result<(), TestCaseError> {
    let url = BackendUrl::parse(&format!("file://{}", dir.display())).unwrap();
    let b = FileBackend::open(&url).unwrap();
    let dev = StackRef::new("proj", "dev").unwrap();
    let stack_dir = b.stack_dir(&dev);
    if stack_dir.exists() {
        fs::remove_dir_all(&stack_dir).unwrap();
    }
    fs::create_dir_all(&stack_dir).unwrap();
    fs::create_dir_all(b.checkpoint_path(&dev).parent().unwrap()).unwrap();
    fs::write(b.checkpoint_path(&dev), checkpoint).unwrap();
    let epoch = serde_json::from_slice::<Value>(checkpoint)
        .ok()
        .and_then(|v| v["stepdeck"]["journalEpoch"].as_u64())
        .unwrap_or(0);
    fs::write(b.journal_path(&dev, epoch), journal).unwrap();
    let Ok(loaded) = b.load(&dev, None) else {
        return Ok(());
    };
    prop_assert!(loaded.snapshot.verify_integrity().is_ok());
    let lock = b.lock(&dev, "fuzz").unwrap();
    if let Ok(compacted) = b.compact(&lock, None) {
        let again = b.load(&dev, None).unwrap();
        prop_assert_eq!(&again.snapshot.resources, &compacted.snapshot.resources);
        prop_assert_eq!(&again.snapshot.resources, &loaded.snapshot.resources);
    }
    Ok(())
}

fn state_files(cases: u32) {
    let dir = tempfile::tempdir().unwrap();
    run(cases, (arb_checkpoint(), arb_journal()), |(c, j)| {
        load_and_compact(dir.path(), &c, &j)
    });
}

fn mutated_checkpoints(cases: u32) {
    let dir = tempfile::tempdir().unwrap();
    let valid = serde_json::to_vec(&json!({
        "version": 3,
        "checkpoint": {"stack": "proj/dev", "latest": {
            "manifest": {"time": "t", "magic": "m", "version": "v"},
            "resources": [serde_json::to_value(ResourceState {
                urn: urn(0), custom: true, type_: "sim:index:Resource".into(),
                id: Some("id-a".into()), ..Default::default()
            }).unwrap()]}},
        "stepdeck": {"journalEpoch": 0}
    }))
    .unwrap();
    let edits = proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6);
    run(cases, edits, |edits| {
        let mut bytes = valid.clone();
        for (at, b) in edits {
            let i = at.index(bytes.len());
            bytes[i] = b;
        }
        load_and_compact(dir.path(), &bytes, b"")
    });
}

#[test]
fn checkpoint_and_journal_decoders_never_panic() {
    state_files(CI_CASES);
    mutated_checkpoints(CI_CASES);
}

#[test]
#[ignore = "long fuzzing run: cargo test --test fuzz_decoders -- --ignored"]
fn checkpoint_and_journal_decoders_never_panic_long() {
    state_files(LONG_CASES);
    mutated_checkpoints(LONG_CASES);
}

// ---- project and stack settings files ----------------------------------------------------

/// YAML-ish text from the pieces these files are made of, including anchors, aliases, tags,
/// flow collections and bad indentation.
fn arb_yaml() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("name: p\n"),
        Just("runtime: yaml\n"),
        Just("runtime:\n  name: python\n  options:\n    virtualenv: venv\n"),
        Just("main: src/\n"),
        Just("config:\n"),
        Just("  p:key: 1\n"),
        Just("  key: {secure: v1:abc}\n"),
        Just("  other:\n    type: integer\n    default: x\n"),
        Just("  list: [1, 2, {a: b}]\n"),
        Just("encryptionsalt: v1:c2FsdA==:v1:abc:def\n"),
        Just("encryptionsalt: [1]\n"),
        Just("  a: &x [1, 2]\n"),
        Just("  b: *x\n"),
        Just("  c: *nope\n"),
        Just("  d: !!binary aGk=\n"),
        Just("resources:\n  r:\n    type: sim:index:Resource\n"),
        Just("- item\n"),
        Just("? complex\n: key\n"),
        Just("\t tab: 1\n"),
        Just("'unterminated\n"),
        Just("key: \"esc \\u00e9 \\x\"\n"),
        Just("---\n"),
        Just("...\n"),
        Just("~\n"),
        Just("    deeply: indented\n"),
        Just("config: 3\n"),
    ];
    proptest::collection::vec(piece, 0..12).prop_map(|p| p.concat())
}

fn config_files(cases: u32) {
    let dir = tempfile::tempdir().unwrap();
    run(cases, arb_yaml(), |text| {
        let project = Project::parse(dir.path(), &text);
        if let Ok(settings) = StackSettings::parse("Pulumi.dev.yaml", &text, "p") {
            // What we would write back must read back the same.
            let saved = settings.to_yaml();
            let again = StackSettings::parse("Pulumi.dev.yaml", &saved, "p");
            prop_assert!(again.is_ok(), "{saved}: {:?}", again.err());
            let again = again.unwrap();
            prop_assert_eq!(&again.config, &settings.config);
            prop_assert_eq!(&again.encryption_salt, &settings.encryption_salt);
            if let Ok(project) = project {
                let _ = settings.resolve(&project, None);
            }
        }
        Ok(())
    });
}

#[test]
fn config_file_decoders_never_panic() {
    config_files(CI_CASES * 4);
}

#[test]
#[ignore = "long fuzzing run: cargo test --test fuzz_decoders -- --ignored"]
fn config_file_decoders_never_panic_long() {
    config_files(LONG_CASES * 4);
}

// ---- URNs and globs ----------------------------------------------------------------------

/// The glob semantics, written as plainly as possible (exponential, so only for short input).
fn reference_match(p: &[u8], s: &[u8]) -> bool {
    match p {
        [] => s.is_empty(),
        [b'*', b'*', rest @ ..] => (0..=s.len()).any(|i| reference_match(rest, &s[i..])),
        [b'*', rest @ ..] => {
            let mut i = 0;
            loop {
                if reference_match(rest, &s[i..]) {
                    return true;
                }
                if i >= s.len() || s[i..].starts_with(b"::") {
                    return false;
                }
                i += 1;
            }
        }
        [c, rest @ ..] => s.first() == Some(c) && reference_match(rest, &s[1..]),
    }
}

fn urns_and_globs(cases: u32) {
    run(cases, ("[a:$*]{0,10}", "[a:$b]{0,14}"), |(glob, text)| {
        prop_assert_eq!(
            UrnGlob::new(&glob).matches(&text),
            reference_match(glob.as_bytes(), text.as_bytes()),
            "glob {:?} over {:?}",
            glob,
            text
        );
        Ok(())
    });
    // Long inputs with many stars: must finish (a backtracking matcher would not).
    run(
        cases / 4,
        ("[a*:]{0,80}", "[a:b]{0,400}"),
        |(glob, text)| {
            let _ = UrnGlob::new(&glob).matches(&text);
            Ok(())
        },
    );
    run(cases, any::<String>(), |text| {
        if let Ok(urn) = Urn::parse(&text) {
            prop_assert_eq!(urn.as_str(), text.as_str());
            let _ = (
                urn.stack(),
                urn.project(),
                urn.qualified_type(),
                urn.type_(),
                urn.name(),
            );
        }
        let urn = format!("urn:pulumi:{text}");
        if let Ok(u) = Urn::parse(&urn) {
            let _ = (
                u.stack(),
                u.project(),
                u.qualified_type(),
                u.type_(),
                u.name(),
            );
        }
        Ok(())
    });
}

#[test]
fn urn_and_glob_parsing_never_panics_and_globs_match_the_reference() {
    urns_and_globs(CI_CASES * 8);
}

#[test]
#[ignore = "long fuzzing run: cargo test --test fuzz_decoders -- --ignored"]
fn urn_and_glob_parsing_never_panics_and_globs_match_the_reference_long() {
    urns_and_globs(LONG_CASES * 8);
}

// ---- YAML programs --------------------------------------------------------------------------

/// Program text built from fragments of every section, expression form and built-in, right
/// and wrong: references to nothing, cycles, bad interpolations, misused functions.
fn arb_program() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("name: p\nruntime: yaml\n"),
        Just("config:\n  size:\n    type: integer\n    default: 2\n"),
        Just("variables:\n  v: ${a.id}\n  w: ${v}\n"),
        Just("variables:\n  j:\n    fn::join: [\",\", [\"x\", \"${size}\"]]\n"),
        Just("variables:\n  s:\n    fn::split: [\",\", \"a,b\"]\n"),
        Just("variables:\n  bad:\n    fn::select: [9, [1]]\n"),
        Just("variables:\n  inv:\n    fn::invoke:\n      function: random:index:nothing\n"),
        Just("variables:\n  b64:\n    fn::fromBase64: \"%%%\"\n"),
        Just("variables:\n  f:\n    fn::frobnicate: 1\n"),
        Just("resources:\n  a:\n    type: sim:index:Resource\n"),
        Just("  b:\n    type: sim:index:Resource\n    properties:\n      tag: ${a.tag}\n"),
        Just("  c:\n    type: sim:Resource\n    options:\n      dependsOn: [${b}]\n"),
        Just("  d:\n    type: random:RandomPet\n    options:\n      parent: ${d}\n"),
        Just("  e:\n    properties: {x: 1}\n"),
        Just("  f:\n    type: sim:index:Resource\n    options: 3\n"),
        Just("  g:\n    type: sim:index:Resource\n    get:\n      id: ${a.id}\n"),
        Just("  h:\n    type: sim:index:Resource\n    properties:\n      x: ${nothing[0].y}\n"),
        Just("  i:\n    type: sim:index:Resource\n    properties:\n      x: ${a[\"k\"]\n"),
        Just("outputs:\n  o: ${a.id}\n  p: ${pulumi.stack}-${pulumi.cwd}\n"),
        Just("outputs: [1]\n"),
        Just("resources: 7\n"),
        Just("  ${x}: 1\n"),
        Just("\t- tab\n"),
        Just("'unterminated\n"),
        Just("---\n"),
    ];
    proptest::collection::vec(piece, 0..10).prop_map(|p| p.concat())
}

fn yaml_programs(cases: u32) {
    run(cases, arb_program(), |text| {
        if let Err(e) = stepdeck::yaml::YamlProgram::parse("Pulumi.yaml", &text, "p") {
            let message = e.to_string();
            prop_assert!(
                message.starts_with("Pulumi.yaml"),
                "an error names the file: {message}\n{text}"
            );
        }
        Ok(())
    });
}

#[test]
fn yaml_program_loader_never_panics_and_names_the_file() {
    yaml_programs(CI_CASES);
}

#[test]
#[ignore = "long fuzzing run: cargo test --test fuzz_decoders -- --ignored"]
fn yaml_program_loader_never_panics_and_names_the_file_long() {
    yaml_programs(LONG_CASES);
}
