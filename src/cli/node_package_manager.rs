//! Which Node.js package manager installs a project or plugin whose `packagemanager` is `auto`
//! (or left out), as Pulumi's Node.js language host picks it.

use std::path::Path;

/// Pulumi's `auto` package manager: yarn when `PULUMI_PREFER_YARN` is true, else the one whose
/// lock file is in the project or a directory above it (a workspace's root holds it), else npm.
pub(super) fn detect_package_manager(root: &Path) -> &'static str {
    let prefer_yarn = std::env::var("PULUMI_PREFER_YARN")
        .is_ok_and(|v| ["1", "true", "yes"].contains(&v.to_ascii_lowercase().as_str()));
    if prefer_yarn {
        return "yarn";
    }
    [
        ("yarn.lock", "yarn"),
        ("pnpm-lock.yaml", "pnpm"),
        ("bun.lock", "bun"),
        ("bun.lockb", "bun"),
    ]
    .into_iter()
    .find(|(file, _)| root.ancestors().any(|d| d.join(file).is_file()))
    .map_or("npm", |(_, pm)| pm)
}
