//! The policy packs under tests/policy_packs, set up beside a test's project as a user's packs
//! are, and the program they judge.

#![allow(dead_code)]

use std::path::Path;

use crate::cli_support::{Env, link_sdks, sdk};

/// A network and a pg15 database: the pack's remediation rewrites the network, its mandatory
/// policy refuses the database.
pub(crate) const PROGRAM: &str = r#"
resources:
  net:
    type: sim:index:Network
    properties:
      cidr: 10.0.0.0/16
  db:
    type: sim:index:Database
    properties:
      engine: pg15
      networkId: ${net.networkId}
"#;

/// Copies the pack `name` from tests/policy_packs next to the project, with the installed SDKs
/// linked in as a user's pack holds them; returns the path to pass to `--policy-pack`.
pub(crate) fn pack(env: &Env, name: &str) -> String {
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/policy_packs")
        .join(name);
    let to = env.root.path().join(name);
    std::fs::create_dir_all(&to).unwrap();
    for entry in std::fs::read_dir(&from).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
    }
    let sdks = sdk::sdk_env();
    let python_sdk = std::process::Command::new(&sdks.python)
        .args(["-c", "import pulumi_policy"])
        .status()
        .unwrap()
        .success();
    assert!(
        python_sdk && sdks.root.join("node_modules/@pulumi/policy").exists(),
        "the policy SDKs (pulumi_policy, @pulumi/policy) are not installed in {}: run `bash .ci/install-sdks.sh`",
        sdks.root.display()
    );
    link_sdks(&to);
    format!("../{name}")
}
