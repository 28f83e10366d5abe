//! The npm, yarn, bun or pnpm workspace a Node.js project belongs to, as Pulumi's
//! `npm.FindWorkspaceRoot` finds it: `install` runs there, since yarn (classic) cannot install
//! a workspace member from its own directory.

use std::path::{Component, Path, PathBuf};

use serde_json::Value;

/// The nearest directory above the project's package.json whose `workspaces` (package.json's,
/// or pnpm-workspace.yaml's `packages`) match the project's directory; `None` outside any.
pub(super) fn workspace_root(project: &Path) -> Option<PathBuf> {
    let project = project.canonicalize().ok()?;
    let member = project
        .ancestors()
        .find(|d| d.join("package.json").is_file())?;
    member.ancestors().skip(1).find_map(|dir| {
        let manifest = std::fs::read_to_string(dir.join("package.json")).ok()?;
        let pnpm = std::fs::read_to_string(dir.join("pnpm-workspace.yaml"))
            .ok()
            .and_then(|t| serde_saphyr::from_str::<Value>(&t).ok())
            .map(|v| globs(&v["packages"]))
            .unwrap_or_default();
        let manifest: Value = serde_json::from_str(&manifest).ok()?;
        let npm = match &manifest["workspaces"] {
            Value::Object(o) => globs(&o["packages"]),
            other => globs(other),
        };
        let relative = member.strip_prefix(dir).ok()?;
        pnpm.iter()
            .chain(&npm)
            .any(|g| matches(g, relative))
            .then(|| dir.to_path_buf())
    })
}

fn globs(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|g| g.as_str().map(str::to_string))
        .collect()
}

/// Whether a workspace glob (components literal or holding `*`) names the relative directory.
fn matches(glob: &str, dir: &Path) -> bool {
    let parts: Vec<&str> = glob
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    let names: Vec<String> = dir
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    parts.len() == names.len() && parts.iter().zip(&names).all(|(p, n)| component(p, n))
}

fn component(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == name,
        Some((pre, post)) => {
            name.len() >= pre.len() + post.len() && name.starts_with(pre) && name.ends_with(post)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_by_component() {
        assert!(matches("packages/*", Path::new("packages/my-random")));
        assert!(matches("infra/", Path::new("infra")));
        assert!(!matches("doesnt-exist/*", Path::new("infra")));
        assert!(!matches("packages/*", Path::new("packages")));
    }
}
