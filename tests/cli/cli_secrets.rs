//! A secret a provider rejects is never printed in plain text, in any display.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::cli_support;
use cli_support::*;

const PROGRAM: &str = r#"
config:
  tok:
    type: string
resources:
  literal:
    type: sim:index:Resource
    properties:
      latencyMs:
        fn::secret: hunter2-literal
  fromConfig:
    type: sim:index:Resource
    properties:
      latencyMs: ${tok}
"#;

#[test]
fn a_secret_failing_a_providers_check_is_masked_everywhere() {
    let env = Env::with_passphrase(PROGRAM);
    env.set_secret("tok", "hunter2-config");
    for args in [
        &["preview", "--stack", "dev", "--non-interactive"][..],
        &["preview", "--stack", "dev", "--json"],
        &["up", "--stack", "dev", "--yes", "--non-interactive"],
        &["up", "--stack", "dev", "--yes", "--json"],
    ] {
        let out = env.run(args);
        let (o, e) = (stdout(&out), stderr(&out));
        assert!(!out.status.success(), "{args:?}: the check must fail");
        assert!(
            !o.contains("hunter2") && !e.contains("hunter2"),
            "{args:?} printed a secret:\n{o}\n{e}"
        );
        assert!(
            o.contains("got \\\"[secret]\\\"")
                || o.contains("got \"[secret]\"")
                || e.contains("[secret]"),
            "{args:?}: the failure is still reported:\n{o}\n{e}"
        );
    }
}

/// A secret config value that a command prints and a bucket's name is made from.
const LEAKY: &str = r#"
config:
  pw:
    type: string
resources:
  cmd:
    type: command:local:Command
    properties:
      create: echo "token is $PW"
      environment:
        PW: ${pw}
  bucket:
    type: sim:index:Bucket
    properties:
      namePrefix: ${pw}
    options:
      additionalSecretOutputs: [arn]
  last:
    type: command:local:Command
    properties:
      create: test -f ran-once || { touch ran-once; kill -9 $PPID; }
    options:
      dependsOn:
        - ${cmd}
        - ${bucket}
outputs:
  printed: ${cmd.stdout}
  arn: ${bucket.arn}
"#;

/// Every file under `dir` (recursively) that holds `needle`.
fn files_holding(dir: &std::path::Path, needle: &str) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(files_holding(&path, needle));
        } else if std::fs::read(&path)
            .unwrap()
            .windows(needle.len())
            .any(|w| w == needle.as_bytes())
        {
            found.push(path);
        }
    }
    found
}

#[test]
fn a_secret_printed_by_a_command_or_named_by_a_bucket_reaches_no_output_channel() {
    const PLANT: &str = "plant-9f3e1c-secret";
    let env = Env::with_passphrase(LEAKY);
    let root = env.root.path();
    env.ok(&["stack", "init", "dev"]);
    env.set_secret("pw", PLANT);
    let mut shown = Vec::new();
    let mut show = |what: &str, out: &std::process::Output| {
        shown.push(format!("{what}:\n{}\n{}", stdout(out), stderr(out)));
    };

    // Killed after the command and the bucket are journaled: the journal stays on disk.
    let events = root.join("events.jsonl");
    let killed = env.run(&[
        "up",
        "--stack",
        "dev",
        "--yes",
        "--json",
        "--event-log",
        events.to_str().unwrap(),
    ]);
    assert!(!killed.status.success(), "{}", stderr(&killed));
    show("up --json (killed)", &killed);
    let stack_dir = root.join("state/.pulumi/.stepdeck/stacks/e2e/dev");
    let journals: Vec<_> = std::fs::read_dir(&stack_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".jsonl"))
        .collect();
    assert!(!journals.is_empty(), "no journal left in {stack_dir:?}");
    let journaled: String = journals
        .iter()
        .map(|j| std::fs::read_to_string(j).unwrap())
        .collect();
    assert!(
        journaled.contains("command:local:Command::cmd") && journaled.contains("ciphertext"),
        "the command's outputs are journaled, encrypted:\n{journaled}"
    );
    let mut journal_hits = files_holding(&stack_dir, PLANT);

    let finished = env.run(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    assert!(finished.status.success(), "{}", stderr(&finished));
    assert!(
        stdout(&finished).contains("Outputs:"),
        "{}",
        stdout(&finished)
    );
    show("up (plain)", &finished);
    let update = env.run(&["up", "--stack", "dev", "--yes", "--json", "--refresh"]);
    show("up --refresh --json", &update);
    let preview = env.run(&["preview", "--stack", "dev", "--json", "--diff"]);
    show("preview --json", &preview);
    for args in [
        &["stack", "output", "--stack", "dev"][..],
        &["stack", "output", "--stack", "dev", "--json"],
        &["stack", "output", "printed", "--stack", "dev"],
        &["stack", "export", "--stack", "dev"],
        &["stack", "history", "--stack", "dev", "--json"],
        &["preview", "--stack", "dev", "--non-interactive", "--diff"],
    ] {
        let out = env.run(args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        show(&format!("{args:?}"), &out);
    }
    let copy = root.join("edited-copy.json");
    let editor = root.join("copy-editor");
    std::fs::write(
        &editor,
        format!("#!/bin/sh\ncp \"$1\" '{}'\n", copy.display()),
    )
    .unwrap();
    std::fs::set_permissions(&editor, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let edit = env
        .command(&["state", "edit", "--stack", "dev"])
        .env("EDITOR", &editor)
        .env_remove("VISUAL")
        .output()
        .unwrap();
    assert!(edit.status.success(), "{}", stderr(&edit));
    show("state edit", &edit);
    assert!(
        std::fs::read_to_string(&copy).unwrap().contains("arn"),
        "the editor saw the state"
    );

    let leaks: Vec<&String> = shown.iter().filter(|s| s.contains(PLANT)).collect();
    assert!(leaks.is_empty(), "printed in plain text:\n{leaks:#?}");
    // On disk: the state, journal and history, the event log and the editor's copy; the sim
    // world is the cloud itself, which holds the bucket's real name.
    journal_hits.extend(
        files_holding(root, PLANT)
            .into_iter()
            .filter(|p| *p != env.world_path()),
    );
    assert!(
        journal_hits.is_empty(),
        "written in plain text: {journal_hits:?}"
    );
    assert!(
        std::fs::read_to_string(&events)
            .unwrap()
            .contains("[secret]")
    );

    // Asked for, the secret is there: it did flow into both outputs.
    let out = env.ok(&[
        "stack",
        "output",
        "--stack",
        "dev",
        "--show-secrets",
        "--json",
    ]);
    assert!(out.contains(&format!("token is {PLANT}")), "{out}");
    assert!(out.contains(&format!("arn:sim:bucket:::{PLANT}-")), "{out}");
}
