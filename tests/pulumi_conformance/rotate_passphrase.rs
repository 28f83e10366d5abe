//! Pulumi's `rotate_passphrase` (`TestRotatePassphrase`): after an update and a secret config
//! value, `stack change-secrets-provider passphrase` reads the new passphrase from standard
//! input (`PULUMI_TEST_PASSPHRASE=true`, twice to confirm), and the secret reads back under it.
//! Pulumi's program is an empty Go one; ours is an empty YAML one.

use std::io::Write;
use std::process::Stdio;

use super::cli_support::{stderr, stdout};
use super::harness::ProgramTest;

#[test]
fn rotate_passphrase() {
    let t = ProgramTest::with_secrets("rotate_passphrase");
    t.env.ok(&["up", "--skip-preview", "--yes"]);
    t.env.ok(&["config", "set", "--secret", "foo", "bar"]);
    let mut rotate = t
        .env
        .command(&["stack", "change-secrets-provider", "passphrase"]);
    let mut child = rotate
        .env("PULUMI_TEST_PASSPHRASE", "true")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"qwerty\nqwerty\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    let get = t
        .env
        .command(&["config", "get", "foo"])
        .env("PULUMI_CONFIG_PASSPHRASE", "qwerty")
        .output()
        .unwrap();
    assert!(get.status.success(), "{}", stderr(&get));
    assert_eq!(stdout(&get).trim(), "bar");
}
