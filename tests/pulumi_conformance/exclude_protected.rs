//! `destroy --exclude-protected` (Pulumi's `TestExcludeProtected`): protected components and
//! what they need stay, the rest goes, and an `--exclude`d resource stays too.

use super::harness::ProgramTest;

/// Pulumi's `TestExcludeProtected`, command for command.
#[test]
fn exclude_protected() {
    let t = ProgramTest::new("exclude_protected");
    let env = &t.env;
    env.ok(&["up", "--skip-preview", "--yes"]);
    let urn =
        "urn:pulumi:dev::exclude-protected::my:module:Resource$my:module:Resource::my-bucket-child";
    let kept = "All unprotected resources were destroyed. There are still 7 protected resources";
    let out = env.ok(&[
        "destroy",
        "--skip-preview",
        "--yes",
        "--exclude-protected",
        "--exclude",
        urn,
    ]);
    assert!(out.contains(kept), "{out}");
    let urns = env.ok(&["stack", "--show-urns"]);
    assert!(urns.contains(&format!("{urn}\n")), "{urns}");
    let out = env.ok(&["destroy", "--skip-preview", "--yes", "--exclude-protected"]);
    assert!(out.contains(kept), "{out}");
    let urns = env.ok(&["stack", "--show-urns"]);
    assert!(!urns.contains(&format!("{urn}\n")), "{urns}");
    let out = env.ok(&["destroy", "--skip-preview", "--yes", "--exclude-protected"]);
    assert!(
        out.contains("There were no unprotected resources to destroy. There are still 7"),
        "{out}"
    );
}
