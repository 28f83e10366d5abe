//! Pulumi's `state_rename_parent` (`TestParentRename_issue13179`, Quick, SkipRefresh, run with
//! `ProgramTestManualLifeCycle`): after the update, `state rename -y` renames a resource that
//! has a child. Pulumi's program is Go against its test provider's `Random`; ours is YAML with
//! the built-in `random` provider's `RandomString` (the same `length` input and `result`).

use super::harness::{ProgramTest, live, resources, urn};

#[test]
fn state_rename_parent() {
    let t = ProgramTest::new("state_rename_parent");
    t.env
        .ok(&["up", "--non-interactive", "--yes", "--skip-preview"]);
    let state = t.checked_export();
    let parent = resources(&state)
        .iter()
        .map(|r| urn(r).to_string())
        .find(|u| u.ends_with("::parent"))
        .expect("the update created `parent`");
    t.env.ok(&["state", "rename", "-y", &parent, "newParent"]);
    // Issue 13179: the child must follow its parent to the new URN.
    let state = t.checked_export();
    let renamed = live(&state, "newParent");
    let child = live(&state, "child");
    assert_eq!(child["parent"], renamed["urn"], "{state:#}");
    t.destroy();
}
