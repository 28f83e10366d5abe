//! Destroy and refresh never evaluate the program (Pulumi's behaviour without
//! `--run-program`): a stack whose program no longer loads can still be refreshed and destroyed.

mod cli_support;

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
    assert!(!up.status.success(), "{}", stderr(&up));
    assert!(
        stderr(&up).contains(r#"references unknown resource "gone""#),
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
