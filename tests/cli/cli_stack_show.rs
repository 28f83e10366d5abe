//! `stack` with no subcommand (Pulumi's `pulumi stack`): the stack's resources as a tree, with
//! their URNs and IDs beneath them on request, and its outputs.

use super::cli_support::{Env, stderr, stdout};

const PROGRAM: &str = "resources:
  net:
    type: sim:index:Network
    properties:
      cidr: 10.0.0.0/16
  db:
    type: sim:index:Database
    properties:
      engine: pg15
      networkId: ${net.networkId}
    options:
      parent: ${net}
outputs:
  cidr: ${net.cidr}
";

#[test]
fn stack_shows_the_resource_tree_with_urns_and_ids() {
    let env = Env::new(PROGRAM);
    env.ok(&["stack", "init", "dev"]);
    env.ok(&["up", "--yes", "--non-interactive"]);
    let out = env.ok(&["stack", "--show-urns", "--show-ids"]);
    let db_id = env.export("dev")["deployment"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["type"] == "sim:index:Database")
        .map(|r| r["id"].as_str().unwrap().to_string())
        .unwrap();
    assert!(out.starts_with("Current stack is dev:\n"), "{out}");
    assert!(out.contains("Current stack resources (4):\n"), "{out}");
    // The network under the stack (after its default provider), the database under the network.
    assert!(out.contains("    ├─ pulumi:providers:sim"), "{out}");
    assert!(out.contains("    └─ sim:index:Network"), "{out}");
    assert!(out.contains("       └─ sim:index:Database"), "{out}");
    assert!(
        out.contains("urn:pulumi:dev::e2e::sim:index:Network$sim:index:Database::db\n"),
        "{out}"
    );
    assert!(out.contains(&format!("ID: {db_id}\n")), "{out}");
    assert!(out.contains("Current stack outputs (1):\n"), "{out}");
    assert!(out.contains("    cidr    10.0.0.0/16\n"), "{out}");
    let plain = env.ok(&["stack"]);
    assert!(!plain.contains("URN: "), "{plain}");
    assert_eq!(env.ok(&["stack", "--show-name"]), "dev\n");
    // `--stack` before a subcommand is refused, never silently left for the selected stack.
    let out = env.run(&["stack", "--stack", "other", "output"]);
    assert!(!out.status.success(), "{}", stdout(&out));
}

#[test]
fn stack_of_a_stack_never_updated_has_no_resources() {
    let env = Env::new("");
    env.ok(&["stack", "init", "dev"]);
    let out = env.run(&["stack"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out)
            .contains("Current stack resources (0):\n    No resources currently in this stack\n"),
        "{}",
        stdout(&out)
    );
}
