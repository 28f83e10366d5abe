//! `stack change-secrets-provider passphrase`: every secret of the state and of the config
//! (nested leaves too) is re-encrypted under a new passphrase read from standard input; the
//! old passphrase no longer opens the stack, the new one does, and nothing is lost.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::cli_support;
use std::io::Write;
use std::process::Stdio;

use cli_support::*;

const PROGRAM: &str = r#"
config:
  tok:
    type: string
resources:
  box:
    type: sim:index:Resource
    properties:
      tag:
        fn::secret: hunter2-literal
outputs:
  tok: ${tok}
"#;

const NEW: &str = "a brand new passphrase";

const CHANGE: [&str; 5] = [
    "stack",
    "change-secrets-provider",
    "passphrase",
    "--stack",
    "dev",
];

/// The project with the secret `tok` set under the first passphrase.
fn with_secret_config() -> Env {
    let env = Env::with_passphrase(PROGRAM);
    env.set_secret("tok", "hunter2-config");
    env
}

#[test]
fn secrets_of_state_and_config_are_reencrypted_with_the_new_passphrase() {
    let env = with_secret_config();
    env.ok(&[
        "config",
        "set",
        "--secret",
        "--path",
        "db.password",
        "nested-pw",
        "--stack",
        "dev",
    ]);
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    let settings_before = std::fs::read_to_string(env.project().join("Pulumi.dev.yaml")).unwrap();

    rotate(&env);

    let settings = std::fs::read_to_string(env.project().join("Pulumi.dev.yaml")).unwrap();
    assert_ne!(settings, settings_before);
    assert!(
        !settings.contains("hunter2") && !settings.contains("nested-pw"),
        "{settings}"
    );

    // The old passphrase no longer opens the stack.
    let old = env.run(&["config", "get", "tok", "--stack", "dev"]);
    assert!(!old.status.success(), "{}", stdout(&old));

    let with_new = |args: &[&str]| {
        let out = env
            .command(args)
            .env("PULUMI_CONFIG_PASSPHRASE", NEW)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        stdout(&out)
    };
    assert_eq!(
        with_new(&["config", "get", "tok", "--stack", "dev"]),
        "hunter2-config\n"
    );
    assert_eq!(
        with_new(&["config", "get", "--path", "db.password", "--stack", "dev"]),
        "nested-pw\n"
    );
    let export = with_new(&["stack", "export", "--stack", "dev"]);
    assert!(!export.contains("hunter2"), "{export}");
    let outputs = with_new(&[
        "stack",
        "output",
        "--stack",
        "dev",
        "--show-secrets",
        "--json",
    ]);
    assert!(outputs.contains("hunter2-config"), "{outputs}");
    let preview = with_new(&[
        "preview",
        "--stack",
        "dev",
        "--non-interactive",
        "--expect-no-changes",
    ]);
    assert!(!preview.contains("hunter2"), "{preview}");
}

#[test]
fn a_wrong_old_passphrase_changes_nothing() {
    let env = with_secret_config();
    let before = std::fs::read_to_string(env.project().join("Pulumi.dev.yaml")).unwrap();
    let out = env
        .command(&CHANGE)
        .env("PULUMI_CONFIG_PASSPHRASE", "wrong")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let after = std::fs::read_to_string(env.project().join("Pulumi.dev.yaml")).unwrap();
    assert_eq!(before, after);
    let unsupported = env.run(&[
        "stack",
        "change-secrets-provider",
        "awskms://x",
        "--stack",
        "dev",
    ]);
    assert_eq!(unsupported.status.code(), Some(2));
    assert!(
        stderr(&unsupported).contains("not supported"),
        "{}",
        stderr(&unsupported)
    );
}

/// A rotation interrupted after the state was saved and before the settings were (here: the
/// old settings put back) is completed by running it again with the same passphrases.
#[test]
fn an_interrupted_rotation_is_completed_by_running_it_again() {
    let env = with_secret_config();
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    let settings = env.project().join("Pulumi.dev.yaml");
    let old_settings = std::fs::read_to_string(&settings).unwrap();
    rotate(&env);
    std::fs::write(&settings, &old_settings).unwrap();
    rotate(&env);
    let outputs = env
        .command(&[
            "stack",
            "output",
            "--stack",
            "dev",
            "--show-secrets",
            "--json",
        ])
        .env("PULUMI_CONFIG_PASSPHRASE", NEW)
        .output()
        .unwrap();
    assert!(outputs.status.success(), "{}", stderr(&outputs));
    assert!(
        stdout(&outputs).contains("hunter2-config"),
        "{}",
        stdout(&outputs)
    );
}

/// Runs the rotation with the old passphrase in the environment and NEW on standard input.
fn rotate(env: &Env) {
    let mut child = env
        .command(&CHANGE)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    writeln!(child.stdin.take().unwrap(), "{NEW}").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
}
