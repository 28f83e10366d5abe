//! Moving a backend from stepdeck's earlier layout (`DIR/.stepdeck/stacks/<project>/<stack>/`
//! holding `checkpoint.json`, its journals, lock files, `history/` and `tags.json`;
//! `DIR/.stepdeck/workspaces/`) into Pulumi's layout (`layout`), when the backend is opened.
//! Everything is moved by renames, nothing copied or dropped: a stack's directory first, whole,
//! into our bookkeeping (so its journals and lease keep their epoch and generation), then its
//! history and tags to Pulumi's places, and its checkpoint last. A `checkpoint.json` still in
//! a bookkeeping directory marks a move that was interrupted, and is finished by the next open.
//! A stack found in both layouts is refused, naming both, rather than either being chosen.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::state::error::StateError;

use super::atomic::{is_leftover_temp, write_atomic};
use super::layout::{OURS, STACK_EXT};

const OLD_CHECKPOINT: &str = "checkpoint.json";

/// Moves the stacks of the old layout at `old` (`DIR/.stepdeck`) into `root` (`DIR/.pulumi`).
pub(super) fn from_stepdeck_layout(old: &Path, root: &Path) -> Result<(), StateError> {
    let old_stacks = old.join("stacks");
    let ours = root.join(OURS).join("stacks");
    for (project, stack) in stack_dirs(&old_stacks)? {
        let from = old_stacks.join(&project).join(&stack);
        if !from.join(OLD_CHECKPOINT).is_file() && !has_journal(&from) {
            continue;
        }
        let to = ours.join(&project).join(&stack);
        let target = stack_file(root, &project, &stack);
        if target.exists() || to.exists() {
            return Err(StateError::Corrupt {
                path: from,
                line: None,
                message: format!(
                    "stack {project}/{stack} is in both stepdeck's earlier layout (here) and \
                     Pulumi's ({}): keep one (export it, or remove the other) and open the \
                     backend again",
                    if target.exists() { target } else { to }.display()
                ),
            });
        }
        let parent = ours.join(&project);
        fs::create_dir_all(&parent).map_err(StateError::io(&parent))?;
        rename_unless_gone(&from, &to)?;
    }
    for (project, stack) in stack_dirs(&ours)? {
        finish(root, &ours.join(&project).join(&stack), &project, &stack)?;
    }
    move_workspaces(&old.join("workspaces"), &root.join(OURS).join("workspaces"))?;
    for project in entries(&old_stacks)? {
        let _ = fs::remove_dir(old_stacks.join(project));
    }
    let _ = fs::remove_dir(&old_stacks);
    Ok(())
}

fn stack_file(root: &Path, project: &str, stack: &str) -> PathBuf {
    root.join("stacks")
        .join(project)
        .join(format!("{stack}{STACK_EXT}"))
}

/// The `(project, stack)` directories two levels under `dir`.
fn stack_dirs(dir: &Path) -> Result<Vec<(String, String)>, StateError> {
    let mut out = Vec::new();
    for project in entries(dir)? {
        if !dir.join(&project).is_dir() {
            continue;
        }
        for stack in entries(&dir.join(&project))? {
            if dir.join(&project).join(&stack).is_dir() {
                out.push((project.clone(), stack));
            }
        }
    }
    Ok(out)
}

fn entries(dir: &Path) -> Result<Vec<String>, StateError> {
    let read = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(StateError::io(dir)(e)),
    };
    let mut out = Vec::new();
    for entry in read {
        let entry = entry.map_err(StateError::io(dir))?;
        if let Some(name) = entry.file_name().to_str() {
            out.push(name.to_string());
        }
    }
    out.sort();
    Ok(out)
}

fn has_journal(dir: &Path) -> bool {
    entries(dir).is_ok_and(|names| names.iter().any(|n| n.starts_with("journal.")))
}

/// Renames `from` to `to`; a `from` already gone was moved by another process opening the
/// backend at the same time.
fn rename_unless_gone(from: &Path, to: &Path) -> Result<(), StateError> {
    match fs::rename(from, to) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(StateError::io(from)(e)),
        _ => Ok(()),
    }
}

/// Moves what a stack's bookkeeping directory `dir` still holds of the old layout to Pulumi's
/// places: history, tags, then the checkpoint.
fn finish(root: &Path, dir: &Path, project: &str, stack: &str) -> Result<(), StateError> {
    let checkpoint = dir.join(OLD_CHECKPOINT);
    if !checkpoint.is_file() {
        return Ok(());
    }
    let history = dir.join("history");
    if history.is_dir() {
        let to = root.join("history").join(project).join(stack);
        fs::create_dir_all(&to).map_err(StateError::io(&to))?;
        for name in entries(&history)? {
            rename_unless_gone(&history.join(&name), &to.join(&name))?;
        }
        let _ = fs::remove_dir(&history);
    }
    let tags = dir.join("tags.json");
    if let Ok(text) = fs::read(&tags) {
        let parsed: BTreeMap<String, String> =
            serde_json::from_slice(&text).map_err(|e| StateError::Corrupt {
                path: tags.clone(),
                line: Some(e.line()),
                message: e.to_string(),
            })?;
        let to = root
            .join("stacks")
            .join(project)
            .join(format!("{stack}.pulumi-tags"));
        fs::create_dir_all(to.parent().unwrap_or(root)).map_err(StateError::io(&to))?;
        let file = serde_json::json!({ "version": 1, "tags": parsed });
        write_atomic(&to, file.to_string().as_bytes()).map_err(StateError::io(&to))?;
        fs::remove_file(&tags).map_err(StateError::io(&tags))?;
    }
    for name in entries(dir)? {
        if is_leftover_temp(&name) && name.contains(OLD_CHECKPOINT) {
            let _ = fs::remove_file(dir.join(name));
        }
    }
    let target = stack_file(root, project, stack);
    if target.exists() {
        return Err(StateError::Corrupt {
            path: checkpoint,
            line: None,
            message: format!(
                "stack {project}/{stack} has a checkpoint here, left by an interrupted move \
                 from stepdeck's earlier layout, and one in Pulumi's layout ({}): keep one",
                target.display()
            ),
        });
    }
    let parent = root.join("stacks").join(project);
    fs::create_dir_all(&parent).map_err(StateError::io(&parent))?;
    rename_unless_gone(&checkpoint, &target)?;
    super::atomic::sync_dir(&parent).map_err(StateError::io(&parent))
}

/// Moves the selected stack of each project, unless one is selected in the new place already.
fn move_workspaces(from: &Path, to: &Path) -> Result<(), StateError> {
    let names = entries(from)?;
    if names.is_empty() {
        return Ok(());
    }
    fs::create_dir_all(to).map_err(StateError::io(to))?;
    for name in names {
        if !to.join(&name).exists() {
            rename_unless_gone(&from.join(&name), &to.join(&name))?;
        }
    }
    let _ = fs::remove_dir(from);
    Ok(())
}
