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
        assert_eq!(out.status.code(), Some(2), "--parallel {n}: {err}");
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

#[test]
fn every_file_a_user_names_is_read_only_up_to_its_limit() {
    let env = Env::new(PROGRAM);
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    let checkpoint = env.checkpoint_text("e2e", "dev");
    let big = env.root.path().join("big");
    std::fs::File::create(&big)
        .unwrap()
        .set_len((1 << 30) + 1)
        .unwrap();
    let big = big.to_str().unwrap();
    let up = |flag: &'static str| {
        move |file: &str| -> Vec<String> {
            [
                "up",
                "--stack",
                "dev",
                "--yes",
                "--non-interactive",
                flag,
                file,
            ]
            .map(String::from)
            .to_vec()
        }
    };
    let import = |file: &str| -> Vec<String> {
        ["stack", "import", "--stack", "dev", "--file", file]
            .map(String::from)
            .to_vec()
    };
    let attach = |file: &str| -> Vec<String> {
        ["attach", "--token-file", file, "127.0.0.1:1"]
            .map(String::from)
            .to_vec()
    };
    let cases: [(&dyn Fn(&str) -> Vec<String>, &str); 5] = [
        (
            &up("--plan"),
            "1 GiB, the most stepdeck reads from a plan or state file",
        ),
        (
            &import,
            "1 GiB, the most stepdeck reads from a plan or state file",
        ),
        (
            &up("--approve-file"),
            "256 MiB, the most stepdeck reads from a YAML file",
        ),
        (
            &up("--decisions"),
            "256 MiB, the most stepdeck reads from a YAML file",
        ),
        (
            &attach,
            "1 MiB, the most stepdeck reads from a token or certificate file",
        ),
    ];
    for (args, limit) in cases {
        for (file, words) in [
            ("/dev/zero", "a device, not a file or a pipe"),
            (big, limit),
        ] {
            let args = args(file);
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let out = env.run(&args);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            assert!(err.contains(file) && err.contains(words), "{args:?}: {err}");
        }
    }
    assert_eq!(env.checkpoint_text("e2e", "dev"), checkpoint);
}
