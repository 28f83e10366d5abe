//! Inputs that once panicked, exhausted memory or blocked: they get a clear error and exit 2.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::cli_support;
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
    const UP: [&str; 5] = ["up", "--stack", "dev", "--yes", "--non-interactive"];
    const STATE: &str = "1 GiB, the most stepdeck reads from a plan or state file";
    const YAML: &str = "256 MiB, the most stepdeck reads from a YAML file";
    // Each command with the file it is given last.
    let cases: [(Vec<&str>, &str); 5] = [
        ([&UP[..], &["--plan"]].concat(), STATE),
        (vec!["stack", "import", "--stack", "dev", "--file"], STATE),
        ([&UP[..], &["--approve-file"]].concat(), YAML),
        ([&UP[..], &["--decisions"]].concat(), YAML),
        (
            vec!["attach", "127.0.0.1:1", "--token-file"],
            "1 MiB, the most stepdeck reads from a token or certificate file",
        ),
    ];
    for (command, limit) in cases {
        for (file, words) in [
            ("/dev/zero", "a device, not a file or a pipe"),
            (big, limit),
        ] {
            let args = [&command[..], &[file]].concat();
            let out = env.run(&args);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            assert!(err.contains(file) && err.contains(words), "{args:?}: {err}");
        }
    }
    assert_eq!(env.checkpoint_text("e2e", "dev"), checkpoint);
}

#[test]
fn a_yaml_program_past_the_parsers_default_budget_previews() {
    // 30,000 resources of 10 YAML nodes each: the parser's default budget (250,000 nodes)
    // stopped programs of this shape at 25,000 resources.
    let mut program = String::from("resources:\n");
    for i in 0..30_000 {
        program.push_str(&format!(
            "  r{i}:\n    type: sim:index:Resource\n    properties:\n      n: {i}\n      g: {}\n",
            i % 100
        ));
    }
    let env = Env::new(&program);
    let out = env.run(&["preview", "--stack", "dev", "--non-interactive"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("+ 30001 to create"),
        "{}",
        stdout(&out)
    );
}
