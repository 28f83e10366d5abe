//! `stepdeck stack …`: create, list, select and remove stacks; export, import, outputs, graph,
//! history, tags, rename, secrets provider, unlock.

use std::path::Path;

use anyhow::{Context, Result, anyhow};
use stepdeck::file_limits::{self, STATE_DOCUMENT, check_write};
use stepdeck::project::settings_file_name;
use stepdeck::state::secrets::{decrypt_secrets, has_ciphertext};
use stepdeck::state::{Crypter, StateError, export_salt, passphrase_from_env};

use super::args::{GraphFormat, StackCommand};
use super::errors::{StackAlreadyExists, StackNotFound, usage};
use super::graph;
use super::stack_name::StackName;
use super::stdout::{out, outln};
use super::workspace::{Workspace, warn_if_broke_stale};

pub(super) fn run(dir: &Path, backend: Option<&str>, cmd: StackCommand) -> Result<()> {
    let ws = Workspace::open(dir, backend)?;
    match cmd {
        StackCommand::Init {
            name,
            stack,
            secrets_provider,
            no_select,
        } => {
            let text = one_name(name, stack.stack)?
                .ok_or_else(|| usage("a stack name is required: `stack init NAME`"))?;
            let full = ws.stack_name(Some(&text))?;
            create(&ws, &full, secrets_provider.as_deref())?;
            if !no_select {
                ws.backend.select_stack(&ws.reference(&full)?)?;
            }
            outln!("Created stack '{}'", ws.shown(&full))?;
        }
        StackCommand::Ls {
            json,
            all,
            project,
            organization,
            tag,
        } => {
            let filter = super::stack_list::Filter {
                project: if all {
                    project
                } else {
                    project.or_else(|| Some(ws.project.name.clone()))
                },
                organization,
                tag,
            };
            super::stack_list::run(&ws, &filter, json)?;
        }
        StackCommand::Select {
            name,
            stack,
            create: create_missing,
            secrets_provider,
        } => {
            let text = one_name(name, stack.stack)?.ok_or_else(|| {
                usage("a stack name is required: `stack select NAME` (or --stack NAME)")
            })?;
            let full = ws.stack_name(Some(&text))?;
            let r = ws.reference(&full)?;
            if !ws.backend.check_exists(&r)? {
                if !create_missing {
                    return Err(StackNotFound(ws.shown(&full)).into());
                }
                create(&ws, &full, secrets_provider.as_deref())?;
            }
            ws.backend.select_stack(&r)?;
        }
        StackCommand::Rm {
            name,
            stack,
            force,
            yes,
            preserve_config,
            remove_backups: _,
        } => {
            let text = one_name(name, stack.stack)?;
            let full = ws.stack_name(text.as_deref())?;
            let r = ws.reference(&full)?;
            if !ws.backend.check_exists(&r)? {
                let named = text.unwrap_or_else(|| ws.shown(&full));
                return Err(StackNotFound(named).into());
            }
            if !yes {
                return Err(usage("non-interactive mode requires --yes flag"));
            }
            remove(&ws, &full, force, preserve_config)?;
            outln!("Stack '{}' has been removed!", ws.shown(&full))?;
        }
        StackCommand::Export {
            stack,
            file,
            show_secrets,
        } => {
            let stack = ws.stack(stack.stack.as_deref(), false)?;
            let mut doc = ws
                .backend
                .export(&stack.reference, stack.crypter.as_ref())?;
            // An empty deployment has no `resources`, as Pulumi's export omits them.
            if let Some(d) = doc["deployment"].as_object_mut()
                && d.get("resources")
                    .and_then(|r| r.as_array())
                    .is_some_and(Vec::is_empty)
            {
                d.remove("resources");
            }
            if show_secrets && has_ciphertext(&doc) {
                decrypt_secrets(&mut doc, Some(stack.require_crypter()?))
                    .map_err(|e| anyhow!("{}: {e}", stack.reference))?;
            }
            let text = pretty4(&doc)?;
            // `stack import` reads at most this much back.
            check_write("the export", text.len() + 1, STATE_DOCUMENT)
                .map_err(|e| usage(e.to_string()))?;
            match file {
                Some(f) => std::fs::write(&f, text + "\n")
                    .with_context(|| format!("writing {}", f.display()))?,
                None => outln!("{text}")?,
            }
        }
        StackCommand::Import {
            stack,
            file,
            force: _,
        } => {
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
            let outputs = snap.stack_outputs();
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
        StackCommand::History {
            stack,
            json,
            show_secrets,
            page_size,
            page,
            full_dates: _,
            open: _,
            export: None,
            file: _,
        } => {
            let shown = super::stack_history::Shown {
                json,
                show_secrets,
                page_size,
                page,
            };
            super::stack_history::run(&ws, stack.stack.as_deref(), &shown)?;
        }
        StackCommand::History {
            stack,
            export: Some(version),
            file,
            ..
        } => super::replay::export(&ws, stack.stack.as_deref(), version, file.as_deref())?,
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

/// The stack named by the argument or by `--stack` (Pulumi refuses both at once).
pub(super) fn one_name(argument: Option<String>, flag: Option<String>) -> Result<Option<String>> {
    match (argument, flag) {
        (Some(_), Some(_)) => Err(usage(
            "only one of --stack or argument stack name may be specified, not both",
        )),
        (a, f) => Ok(a.or(f)),
    }
}

/// Creates a stack of this project, refusing an existing one in Pulumi's words.
pub(super) fn create(
    ws: &Workspace,
    name: &StackName,
    secrets_provider: Option<&str>,
) -> Result<()> {
    match secrets_provider {
        None | Some("passphrase" | "default") => {}
        Some(other) => {
            return Err(usage(format!(
                "secrets provider '{other}' is not supported; stepdeck has the passphrase provider only"
            )));
        }
    }
    if name.project() != ws.project.name {
        return Err(usage(format!(
            "provided project name \"{}\" doesn't match Pulumi.yaml",
            name.project()
        )));
    }
    match ws.backend.create_stack(&ws.reference(name)?) {
        Err(StateError::StackExists { .. }) => Err(StackAlreadyExists(name.qualified()).into()),
        other => Ok(other?),
    }
}

/// Removes a stack (refused, in Pulumi's words, while it has resources unless `force`) and,
/// unless `preserve_config`, its `Pulumi.<stack>.yaml`.
fn remove(ws: &Workspace, name: &StackName, force: bool, preserve_config: bool) -> Result<()> {
    let shown = ws.shown(name);
    match ws.backend.remove_stack(&ws.reference(name)?, force) {
        Err(StateError::HasResources { .. }) => {
            let program = super::program_name();
            return Err(usage(format!(
                "'{shown}' still has resources; removal rejected. Possible actions:\n\
                 - Make sure that '{shown}' is the stack that you want to destroy\n\
                 - Run `{program} destroy` to delete the resources, then run `{program} stack rm`\n\
                 - Run `{program} stack rm --force` to override this error"
            )));
        }
        other => other?,
    }
    if !preserve_config && name.project() == ws.project.name {
        let path = ws.dir().join(settings_file_name(name.stack()));
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(anyhow!("removing {}: {e}", path.display()));
            }
            _ => {}
        }
    }
    Ok(())
}

/// JSON with four-space indents, as Pulumi writes `stack export`.
fn pretty4(doc: &serde_json::Value) -> Result<String> {
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(
        &mut out,
        serde_json::ser::PrettyFormatter::with_indent(b"    "),
    );
    serde::Serialize::serialize(doc, &mut ser)?;
    Ok(String::from_utf8(out)?)
}
