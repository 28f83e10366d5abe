//! Inputs that once panicked, exhausted memory or blocked: they get a clear error and exit 2.

#![allow(clippy::unwrap_used, clippy::panic)]

mod cli_support;

use cli_support::*;

const PROGRAM: &str =
    "resources:\n  a:\n    type: sim:index:Resource\n    properties:\n      v: 1\n";

#[test]
fn parallel_is_bounded_at_the_command_line() {
    let env = Env::new(PROGRAM);
    let up = |n: &str| {
        env.run(&[
            "up",
            "--stack",
            "dev",
            "--yes",
            "--non-interactive",
            "--parallel",
            n,
        ])
    };
    for n in ["0", "16385", "4294967296", "2305843009213693951"] {
        let out = up(n);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "--parallel {n}: {err}");
        assert!(
            err.contains("--parallel")
                && err.contains("from 1 to 16384")
                && !err.contains("panicked"),
            "--parallel {n}: {err}"
        );
    }
    let out = up("16384");
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn a_passphrase_file_that_never_ends_is_refused() {
    let env = Env::new(PROGRAM);
    let out = env
        .command(&["preview", "--stack", "dev", "--non-interactive"])
        .env("PULUMI_CONFIG_PASSPHRASE_FILE", "/dev/zero")
        .output()
        .unwrap();
    let err = stderr(&out);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("/dev/zero") && err.contains("64 KiB"), "{err}");
}
