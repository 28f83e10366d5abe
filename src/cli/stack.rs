//! `stepdeck stack …`: create, list, select and remove stacks; export, import, outputs, graph,
//! history, tags, rename, secrets provider, unlock.

use std::path::Path;

use anyhow::{Context, Result};
use stepdeck::engine::model::urn::ROOT_STACK_TYPE;
use stepdeck::file_limits::{self, STATE_DOCUMENT, check_write};
use stepdeck::state::{Crypter, export_salt, passphrase_from_env};

use super::args::{GraphFormat, StackCommand};
use super::errors::usage;
use super::graph;
use super::stdout::{out, outln};
use super::workspace::{Workspace, warn_if_broke_stale};

pub(super) fn run(dir: &Path, backend: Option<&str>, cmd: StackCommand) -> Result<()> {
    let ws = Workspace::open(dir, backend)?;
    match cmd {
        StackCommand::Init { name } => {
            let r = ws.reference(&name)?;
            ws.backend.create_stack(&r)?;
            ws.backend.select_stack(&r)?;
            outln!("Created stack '{name}'")?;
        }
        StackCommand::Ls => {
            outln!("{:<24} {:<26} RESOURCE COUNT", "NAME", "LAST UPDATE")?;
            for s in ws.backend.list_stacks(&ws.project.name)? {
                let marker = if s.current { "*" } else { "" };
                let updated = s.last_update.unwrap_or_else(|| "n/a".to_string());
                outln!(
                    "{:<24} {updated:<26} {}",
                    format!("{}{marker}", s.name),
                    s.resource_count
                )?;
            }
        }
        StackCommand::Select { name } => {
            let r = ws.reference(&name)?;
            if !ws.backend.stack_exists(&r) {
                return Err(usage(format!(
                    "no stack named '{name}' exists in project '{}'",
                    ws.project.name
                )));
            }
            ws.backend.select_stack(&r)?;
        }
        StackCommand::Rm { name, force, yes } => {
            if !yes {
                return Err(usage(
                    "--yes must be passed in to proceed when running in non-interactive mode",
                ));
            }
            let r = ws.reference(&name)?;
            ws.backend.remove_stack(&r, force)?;
            outln!("Stack '{name}' has been removed!")?;
        }
        StackCommand::Export { stack, file } => {
            let stack = ws.stack(stack.stack.as_deref(), false)?;
            let doc = ws
                .backend
                .export(&stack.reference, stack.crypter.as_ref())?;
            let text = serde_json::to_string_pretty(&doc)?;
            // `stack import` reads at most this much back.
            check_write("the export", text.len() + 1, STATE_DOCUMENT)
                .map_err(|e| usage(e.to_string()))?;
            match file {
                Some(f) => std::fs::write(&f, text + "\n")
                    .with_context(|| format!("writing {}", f.display()))?,
                None => outln!("{text}")?,
            }
        }
        StackCommand::Import { stack, file } => {
            let stack = ws.stack(stack.stack.as_deref(), true)?;
            let (text, source) = match &file {
                Some(f) => (
                    file_limits::read_to_string(f, STATE_DOCUMENT)
                        .map_err(|e| usage(e.to_string()))?,
                    f.display().to_string(),
                ),
                None => (
                    file_limits::read_stream_to_string(
                        std::io::stdin().lock(),
                        Path::new("standard input"),
                        STATE_DOCUMENT,
                    )
                    .map_err(|e| usage(e.to_string()))?,
                    "standard input".to_string(),
                ),
            };
            let doc: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
                usage(format!(
                    "{source}:{}:{}: invalid JSON: {e}",
                    e.line(),
                    e.column()
                ))
            })?;
            let decrypt = match (export_salt(&doc), passphrase_from_env()?) {
                (Some(salt), Some(p)) => Some(
                    Crypter::from_salt(&p, &salt).map_err(|e| usage(format!("{source}: {e}")))?,
                ),
                _ => None,
            };
            let lock = ws.backend.lock(&stack.reference, "import")?;
            warn_if_broke_stale(&lock);
            ws.backend
                .import(&lock, &doc, decrypt.as_ref(), stack.crypter.as_ref())?;
            outln!("Import complete.")?;
        }
        StackCommand::Output {
            stack,
            name,
            json,
            show_secrets,
        } => {
            let stack = ws.stack(stack.stack.as_deref(), false)?;
            let snap = ws
                .backend
                .load(&stack.reference, stack.crypter.as_ref())?
                .snapshot;
            let outputs = snap
                .resources
                .iter()
                .find(|r| r.type_ == ROOT_STACK_TYPE && !r.delete)
                .map(|r| r.outputs.clone())
                .unwrap_or_default();
            let render = |v: &stepdeck::engine::PropertyValue| {
                if show_secrets {
                    v.reveal().to_display_json()
                } else {
                    v.to_display_json()
                }
            };
            match name {
                Some(n) => {
                    let v = outputs.get(&n).ok_or_else(|| {
                        usage(format!("current stack does not have output property '{n}'"))
                    })?;
                    let j = render(v);
                    match (&j, json) {
                        (serde_json::Value::String(s), false) => outln!("{s}")?,
                        _ => outln!("{j}")?,
                    }
                }
                None if json => {
                    let all: serde_json::Map<String, serde_json::Value> = outputs
                        .iter()
                        .map(|(k, v)| (k.clone(), render(v)))
                        .collect();
                    outln!("{}", serde_json::to_string_pretty(&all)?)?;
                }
                None => {
                    outln!("Current stack outputs ({}):", outputs.len())?;
                    outln!("    {:<20} VALUE", "OUTPUT")?;
                    for (k, v) in &outputs {
                        outln!("    {k:<20} {}", render(v))?;
                    }
                }
            }
        }
        StackCommand::Graph { stack, format } => {
            let stack = ws.stack(stack.stack.as_deref(), false)?;
            let snap = ws
                .backend
                .load(&stack.reference, stack.crypter.as_ref())?
                .snapshot;
            let text = match format {
                GraphFormat::Dot => graph::dot(&snap),
                GraphFormat::Mermaid => graph::mermaid(&snap),
            };
            out!("{text}")?;
        }
        StackCommand::History { stack, json } => {
            super::stack_history::run(&ws, stack.stack.as_deref(), json)?;
        }
        StackCommand::Tag(cmd) => super::stack_tag::run(&ws, cmd)?,
        StackCommand::Rename { stack, new_name } => {
            super::stack_rename::run(&ws, stack.stack.as_deref(), &new_name)?;
        }
        StackCommand::ChangeSecretsProvider { stack, provider } => {
            super::stack_secrets::run(&ws, stack.stack.as_deref(), &provider)?;
        }
        StackCommand::Unlock { stack, force } => {
            let stack = ws.stack(stack.stack.as_deref(), false)?;
            match ws.backend.unlock(&stack.reference, force)? {
                Some(info) => outln!(
                    "Removed the lock held by pid {} on {} since {}",
                    info.pid,
                    info.hostname,
                    info.time
                )?,
                None => outln!("The stack is not locked.")?,
            }
        }
    }
    Ok(())
}
