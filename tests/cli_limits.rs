//! Inputs that once panicked, exhausted memory or blocked: they get a clear error and exit 2.

#![allow(clippy::unwrap_used, clippy::panic)]

mod cli_support;

use cli_support::*;
use stepdeck::located_yaml::limits::MAX_YAML_BYTES;

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
fn a_yaml_program_past_the_parsers_default_budget_previews_and_one_past_ours_is_refused() {
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

    // Past the limit, the file is refused before it is read (it is sparse: reading it would
    // cost half a gigabyte), naming the file and the limit.
    let file = std::fs::File::create(env.project().join("Pulumi.yaml")).unwrap();
    file.set_len(MAX_YAML_BYTES + 1).unwrap();
    let out = env.run(&["preview", "--stack", "dev", "--non-interactive"]);
    let err = stderr(&out);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("Pulumi.yaml: larger than 512 MiB, the most stepdeck reads of a YAML file"),
        "{err}"
    );
}
