//! `stepdeck stack tag get/set/rm/ls`: the user's tags kept by the backend (set and removed
//! under the stack's lock) and Pulumi's built-in `pulumi:` tags derived from the project.

use std::collections::BTreeMap;

use anyhow::Result;
use stepdeck::state::BUILTIN_TAG_PREFIX;

use super::args::TagCommand;
use super::errors::usage;
use super::stack_name::StackName;
use super::stdout::outln;
use super::workspace::{Stack, Workspace, warn_if_broke_stale};

pub(super) fn run(ws: &Workspace, cmd: TagCommand) -> Result<()> {
    match cmd {
        TagCommand::Get { stack, name } => {
            let stack = ws.stack(stack.stack.as_deref(), false)?;
            let tags = stack_tags(ws, &stack)?;
            let value = tags.get(&name).ok_or_else(|| {
                usage(format!(
                    "stack tag '{name}' not found for stack '{}'",
                    ws.shown(&StackName::new(&ws.project.name, &stack.name))
                ))
            })?;
            outln!("{value}")?;
        }
        TagCommand::Set { stack, name, value } => {
            edit(ws, stack.stack.as_deref(), &name, |tags| {
                tags.insert(name.clone(), value);
                Ok(())
            })?;
        }
        TagCommand::Rm { stack, name } => {
            edit(ws, stack.stack.as_deref(), &name, |tags| {
                tags.remove(&name)
                    .map(drop)
                    .ok_or_else(|| usage(format!("stack tag '{name}' not found")))
            })?;
        }
        TagCommand::Ls { stack, json } => {
            let tags = stack_tags(ws, &ws.stack(stack.stack.as_deref(), false)?)?;
            if json {
                outln!("{}", serde_json::to_string_pretty(&tags)?)?;
            } else {
                outln!("{:<24} VALUE", "NAME")?;
                for (k, v) in &tags {
                    outln!("{k:<24} {v}")?;
                }
            }
        }
    }
    Ok(())
}

/// The built-in tags (Pulumi's `pulumi:project` and `pulumi:runtime`)
/// merged with the user's.
pub(super) fn stack_tags(ws: &Workspace, stack: &Stack) -> Result<BTreeMap<String, String>> {
    let mut tags = ws.backend.user_tags(&stack.reference)?;
    tags.insert("pulumi:project".into(), ws.project.name.clone());
    tags.insert("pulumi:runtime".into(), ws.project.runtime.name.clone());
    Ok(tags)
}

/// Changes the user's tags under the stack's lock; built-in tags are refused.
fn edit(
    ws: &Workspace,
    stack: Option<&str>,
    name: &str,
    change: impl FnOnce(&mut BTreeMap<String, String>) -> Result<()>,
) -> Result<()> {
    if name.starts_with(BUILTIN_TAG_PREFIX) {
        return Err(usage(format!(
            "stack tag '{name}' is built in (names starting with '{BUILTIN_TAG_PREFIX}' are reserved) and cannot be changed"
        )));
    }
    if name.is_empty() {
        return Err(usage("a stack tag needs a name"));
    }
    let stack = ws.stack(stack, false)?;
    let lock = ws.backend.lock(&stack.reference, "tag")?;
    warn_if_broke_stale(&lock);
    let mut tags = ws.backend.user_tags(&stack.reference)?;
    change(&mut tags)?;
    ws.backend.save_user_tags(&lock, &tags)?;
    Ok(())
}
