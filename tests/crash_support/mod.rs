//! What the crash tests share: a program with create-before-delete and delete-before-replace
//! replacements, and runs of the real binary killed at an injected fault point.

#![allow(dead_code)]

use std::os::unix::process::ExitStatusExt;

use serde_json::Value;

use super::cli_support::{Env, stderr, stdout};

pub(crate) const PROGRAM: &str = r#"
config:
  engine:
    type: string
    default: pg15
  image:
    type: string
    default: img-1
  prefix:
    type: string
    default: logs
  tag:
    type: string
    default: one
resources:
  net:
    type: sim:index:Network
    properties:
      cidr: 10.0.0.0/16
  db:
    type: sim:index:Database
    properties:
      engine: ${engine}
      networkId: ${net.networkId}
  app:
    type: sim:index:Server
    properties:
      image: ${image}
      subnetId: ${net.networkId}
      dbEndpoint: ${db.endpoint}
  bucket:
    type: sim:index:Bucket
    properties:
      namePrefix: ${prefix}
  box:
    type: sim:index:Resource
    properties:
      tag: ${tag}
"#;

/// Resources the program manages (the sim ones).
pub(crate) const MANAGED: usize = 5;

/// No change to the defaults.
pub(crate) const CONFIG_DEFAULT: &str = "config: {}\n";
/// `image` and `prefix` change: the server and the bucket are replaced create-before-delete
/// (and `tag` updates the box).
pub(crate) const CONFIG_CBD: &str =
    "config:\n  e2e:image: img-2\n  e2e:prefix: audit\n  e2e:tag: two\n";
/// `engine` changes: the database is replaced delete-before-replace, its server with it.
pub(crate) const CONFIG_DBR: &str = "config:\n  e2e:engine: pg16\n";

/// A fresh project on the program; `deployed` first runs an unkilled `up`.
pub(crate) fn stack(deployed: bool) -> Env {
    let env = Env::new(PROGRAM);
    env.write("Pulumi.dev.yaml", CONFIG_DEFAULT);
    if deployed {
        env.ok(&args("up"));
    }
    env
}

/// `<command>` on the `dev` stack, confirmed, plain output.
pub(crate) fn args(command: &str) -> [&str; 5] {
    [command, "--stack", "dev", "--yes", "--non-interactive"]
}

/// The stack's recorded pending operations.
pub(crate) fn pending_operations(env: &Env) -> Vec<Value> {
    env.export("dev")["deployment"]["pending_operations"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// Runs `command` killed at the `n`th occurrence of `point` (`STEPDECK_FAULT`); `false` when
/// the run finished before reaching it.
pub(crate) fn killed_run(env: &Env, command: &str, point: &str, n: usize) -> bool {
    let out = env
        .command(&args(command))
        .env("STEPDECK_FAULT", format!("{point}:{n}"))
        .output()
        .expect("run stepdeck");
    if out.status.signal() == Some(9) {
        return true;
    }
    assert!(
        out.status.success(),
        "the unkilled run failed:\n{}\n{}",
        stdout(&out),
        stderr(&out)
    );
    false
}
