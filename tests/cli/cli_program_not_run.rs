//! Destroy and refresh never evaluate the program (Pulumi's behaviour without
//! `--run-program`): a stack whose program no longer loads can still be refreshed and destroyed.
//! With `--run-program` (Pulumi's destroy and refresh modes) the program is evaluated, its
//! registrations answered from the recorded state, and nothing is created; a program that fails
//! to load fails the command and keeps the state.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::cli_support;
use cli_support::*;

const PROGRAM: &str = r#"
resources:
  net:
    type: sim:index:Network
    properties:
      cidr: 10.0.0.0/16
  box:
    type: sim:index:Resource
    properties:
      tag: ${net.networkId}
"#;

/// The same project with a program that fails to load: a reference to nothing.
const BROKEN: &str = r#"
resources:
  box:
    type: sim:index:Resource
    properties:
      tag: ${gone.networkId}
"#;

#[test]
fn a_stack_whose_program_no_longer_loads_is_refreshed_and_destroyed() {
    let env = Env::new(PROGRAM);
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    assert_eq!(env.managed("dev").len(), 2);
    env.write(
        "Pulumi.yaml",
        &format!("name: e2e\nruntime: yaml\n{BROKEN}"),
    );
    let up = env.run(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    assert_eq!(up.status.code(), Some(1), "{}", stderr(&up));
    assert!(
        stderr(&up).contains(r#"resource, variable, or config value "gone" not found"#),
        "{}",
        stderr(&up)
    );

    let refreshed = env.ok(&["refresh", "--stack", "dev", "--yes", "--non-interactive"]);
    assert!(refreshed.contains("Refreshing (dev):"), "{refreshed}");
    assert_eq!(env.managed("dev").len(), 2);

    let destroyed = env.ok(&["destroy", "--stack", "dev", "--yes", "--non-interactive"]);
    assert!(destroyed.contains("Destroying (dev):"), "{destroyed}");
    assert!(env.managed("dev").is_empty());
    assert!(env.world().is_empty(), "{:?}", env.world());
}

/// PROGRAM with one more resource, which neither destroy nor refresh may create.
fn grown() -> String {
    format!(
        "{PROGRAM}  extra:\n    type: sim:index:Resource\n    properties:\n      tag: ${{box.uid}}\n"
    )
}

const YES: [&str; 4] = ["--stack", "dev", "--yes", "--non-interactive"];

fn with(verb: &str, extra: &[&str]) -> Vec<String> {
    std::iter::once(verb)
        .chain(YES)
        .chain(extra.iter().copied())
        .map(str::to_string)
        .collect()
}

fn args(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[test]
fn destroy_with_the_program_fails_when_it_does_not_load_and_keeps_everything() {
    let env = Env::new(PROGRAM);
    env.ok(&args(&with("up", &[])));
    env.write(
        "Pulumi.yaml",
        &format!("name: e2e\nruntime: yaml\n{BROKEN}"),
    );
    let out = env.run(&args(&with("destroy", &["--run-program"])));
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(r#"resource, variable, or config value "gone" not found"#),
        "{}",
        stderr(&out)
    );
    assert_eq!(env.managed("dev").len(), 2);
    assert_eq!(env.world().len(), 2);
}

#[test]
fn destroy_with_the_program_deletes_everything_and_creates_nothing() {
    let env = Env::new(PROGRAM);
    env.ok(&args(&with("up", &[])));
    env.write(
        "Pulumi.yaml",
        &format!("name: e2e\nruntime: yaml\n{}", grown()),
    );
    let out = env.ok(&args(&with("destroy", &["--run-program"])));
    assert!(out.contains("Destroying (dev):"), "{out}");
    assert!(env.managed("dev").is_empty());
    assert!(env.world().is_empty(), "{:?}", env.world());
    assert!(
        env.export("dev")["deployment"]["resources"]
            .as_array()
            .is_none_or(Vec::is_empty)
    );
}

#[test]
fn refresh_with_the_program_reads_back_what_exists_and_creates_nothing() {
    let env = Env::new(PROGRAM);
    env.ok(&args(&with("up", &[])));
    env.write(
        "Pulumi.yaml",
        &format!("name: e2e\nruntime: yaml\n{}", grown()),
    );
    let out = env.ok(&args(&with("refresh", &["--run-program"])));
    assert!(out.contains("Refreshing (dev):"), "{out}");
    assert_eq!(env.managed("dev").len(), 2);
    assert_eq!(env.world().len(), 2);

    env.write(
        "Pulumi.yaml",
        &format!("name: e2e\nruntime: yaml\n{BROKEN}"),
    );
    let failed = env.run(&args(&with("refresh", &["--run-program"])));
    assert_eq!(failed.status.code(), Some(1), "{}", stderr(&failed));
    let plain = env.ok(&args(&with("refresh", &[])));
    assert!(plain.contains("Refreshing (dev):"), "{plain}");
    assert_eq!(env.managed("dev").len(), 2);
}

#[test]
fn run_program_takes_pulumis_boolean_forms_and_its_environment_default() {
    let env = Env::new(PROGRAM);
    // Up and preview always run the program: the flag is accepted there, as Pulumi's is.
    for verb in ["up", "preview"] {
        env.ok(&args(&with(verb, &["--run-program=true"])));
    }
    env.write(
        "Pulumi.yaml",
        &format!("name: e2e\nruntime: yaml\n{BROKEN}"),
    );
    env.ok(&args(&with("refresh", &["--run-program=false"])));
    let failed = env
        .command(&args(&with("refresh", &[])))
        .env("PULUMI_RUN_PROGRAM", "true")
        .output()
        .unwrap();
    assert_eq!(failed.status.code(), Some(1), "{}", stderr(&failed));
    assert!(
        stderr(&failed).contains(r#"resource, variable, or config value "gone" not found"#),
        "{}",
        stderr(&failed)
    );
    let explicit = env
        .command(&args(&with("refresh", &["--run-program=false"])))
        .env("PULUMI_RUN_PROGRAM", "true")
        .output()
        .unwrap();
    assert!(explicit.status.success(), "{}", stderr(&explicit));
}
