//! `stepdeck state …`: edits of a stack's recorded state without a deployment (Pulumi's
//! `pulumi state`): delete, protect, unprotect, rename, taint, untaint, repair and edit (`move`
//! is in `state_move`). Every edit holds the stack lock, loads the state with its journal and
//! saves it as a new checkpoint (integrity checked), so nothing recorded is lost and no
//! deployment runs meanwhile.

use std::collections::HashSet;
use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result, anyhow};
use stepdeck::engine::model::graph::DependencyGraph;
use stepdeck::engine::{ResourceState, Snapshot, Urn};
use stepdeck::file_limits::{self, STATE_DOCUMENT, check_write};
use stepdeck::private_dir::PrivateDir;
use stepdeck::state::StateError;

use super::args::{StateCommand, StateEditArgs};
use super::errors::usage;
use super::state_save::{confirm, save};
use super::workspace::Workspace;

pub(super) fn run(dir: &Path, backend: Option<&str>, cmd: StateCommand) -> Result<()> {
    let ws = Workspace::open(dir, backend)?;
    match cmd {
        StateCommand::Delete {
            edit,
            urns,
            target_dependents,
            force,
        } => edit_state(&ws, &edit, "state delete", |snap| {
            delete(snap, &urns, target_dependents, force)
        }),
        StateCommand::Protect(a) => edit_state(&ws, &a.edit, "state protect", |s| {
            mark(s, &a.urns, a.all, "protected", |r| r.protect = true)
        }),
        StateCommand::Unprotect(a) => edit_state(&ws, &a.edit, "state unprotect", |s| {
            mark(s, &a.urns, a.all, "unprotected", |r| r.protect = false)
        }),
        StateCommand::Rename {
            edit,
            urn,
            new_name,
        } => edit_state(&ws, &edit, "state rename", |s| rename(s, &urn, &new_name)),
        StateCommand::Taint(a) => edit_state(&ws, &a.edit, "state taint", |s| {
            mark(s, &a.urns, false, "tainted", |r| r.taint = true)
        }),
        StateCommand::Untaint(a) => edit_state(&ws, &a.edit, "state untaint", |s| {
            mark(s, &a.urns, false, "untainted", |r| r.taint = false)
        }),
        StateCommand::Repair { edit } => repair(&ws, &edit),
        StateCommand::Move(a) => super::state_move::run(&ws, a),
        StateCommand::Edit { stack } => edit_in_editor(&ws, stack.stack.as_deref()),
    }
}

/// Whether an error is a state failing the integrity check (which `state repair` may fix).
pub(super) fn fails_integrity(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        matches!(
            c.downcast_ref::<StateError>(),
            Some(StateError::Integrity { .. })
        )
    })
}

/// Locks the stack, applies `edit` to its state and saves the result; prints what `edit`
/// reports.
fn edit_state(
    ws: &Workspace,
    args: &StateEditArgs,
    operation: &str,
    edit: impl FnOnce(&mut Snapshot) -> Result<String>,
) -> Result<()> {
    let stack = ws.stack(args.stack.stack.as_deref(), false)?;
    if !confirm(args.yes)? {
        println!("Confirmation denied, not proceeding with the state edit");
        return Ok(());
    }
    let lock = ws.backend.lock(&stack.reference, operation)?;
    let crypter = stack.crypter.as_ref();
    let mut snap = ws.backend.load(&stack.reference, crypter)?.snapshot;
    let done = edit(&mut snap)?;
    save(ws, &lock, snap, crypter)?;
    println!("{done}");
    Ok(())
}

fn parse_urn(arg: &str) -> Result<Urn> {
    Urn::parse(arg).map_err(|_| {
        usage(format!(
            "'{arg}' is not a URN (urn:pulumi:<stack>::<project>::<type>::<name>); `stepdeck stack export` lists the stack's URNs"
        ))
    })
}

/// The position of the live copy (not one pending deletion) of the resource `arg` names.
fn locate(snap: &Snapshot, arg: &str) -> Result<usize> {
    let urn = parse_urn(arg)?;
    snap.resources
        .iter()
        .position(|r| r.urn == urn && !r.delete)
        .ok_or_else(|| not_found(snap, &urn))
}

fn not_found(snap: &Snapshot, urn: &Urn) -> anyhow::Error {
    let similar: Vec<String> = snap
        .resources
        .iter()
        .filter(|r| r.urn.name() == urn.name() && !r.delete)
        .map(|r| format!("\n  {}", r.urn))
        .collect();
    let hint = if similar.is_empty() {
        "; `stepdeck stack export` lists the stack's URNs".to_string()
    } else {
        format!("; did you mean:{}", similar.concat())
    };
    usage(format!(
        "no resource {urn} exists in the stack's state{hint}"
    ))
}

fn count(n: usize, what: &str) -> String {
    let noun = if n == 1 { "resource" } else { "resources" };
    format!("{n} {noun} {what}")
}

/// Sets a flag on the named resources (or every live one).
fn mark(
    snap: &mut Snapshot,
    args: &[String],
    all: bool,
    what: &str,
    set: impl Fn(&mut ResourceState),
) -> Result<String> {
    let positions: Vec<usize> = if all {
        (0..snap.resources.len())
            .filter(|&i| !snap.resources[i].delete)
            .collect()
    } else {
        args.iter()
            .map(|a| locate(snap, a))
            .collect::<Result<_>>()?
    };
    for &i in &positions {
        set(&mut snap.resources[i]);
    }
    Ok(count(positions.len(), what))
}

/// Removes resources from the state (Pulumi's `state delete`): refused while something else
/// depends on them (unless `target_dependents`, which removes those too) or while one is
/// protected (unless `force`).
fn delete(
    snap: &mut Snapshot,
    args: &[String],
    target_dependents: bool,
    force: bool,
) -> Result<String> {
    let targets: Vec<usize> = args
        .iter()
        .map(|a| locate(snap, a))
        .collect::<Result<_>>()?;
    let chosen: HashSet<usize> = targets.iter().copied().collect();
    let graph = DependencyGraph::new(&snap.resources);
    let none = HashSet::new();
    let mut condemned = chosen.clone();
    for &t in &targets {
        let dependents = graph.depending_on(t, &snap.resources, &none, true);
        if target_dependents {
            condemned.extend(dependents);
            continue;
        }
        let outside: Vec<String> = dependents
            .into_iter()
            .filter(|d| !chosen.contains(d))
            .map(|d| {
                let u = &snap.resources[d].urn;
                format!(" * {:<15} ({u})\n", format!("{:?}", u.name()))
            })
            .collect();
        if !outside.is_empty() {
            return Err(usage(format!(
                "{} can't be safely deleted because the following resources depend on it:\n{}\nDelete those resources first or pass --target-dependents.",
                snap.resources[t].urn,
                outside.concat()
            )));
        }
    }
    let mut protected: Vec<usize> = condemned
        .iter()
        .copied()
        .filter(|&i| snap.resources[i].protect)
        .collect();
    protected.sort_unstable();
    if let Some(&first) = protected.first()
        && !force
    {
        return Err(usage(format!(
            "{} can't be safely deleted because it is protected. Re-run this command with --force to force deletion, or unprotect it first with `stepdeck state unprotect '{}'`",
            snap.resources[first].urn, snap.resources[first].urn
        )));
    }
    for i in protected {
        eprintln!(
            "warning: deleting protected resource {} due to presence of --force",
            snap.resources[i].urn
        );
    }
    let mut position = 0;
    snap.resources.retain(|_| {
        position += 1;
        !condemned.contains(&(position - 1))
    });
    Ok(count(condemned.len(), "deleted"))
}

/// Renames a resource (Pulumi's `state rename`): its URN takes the new name, and every
/// reference to it (parent, dependencies, property dependencies, deletedWith, provider
/// references) follows.
fn rename(snap: &mut Snapshot, arg: &str, new_name: &str) -> Result<String> {
    let old = parse_urn(arg)?;
    let copies = snap.resources.iter().filter(|r| r.urn == old).count();
    if copies == 0 {
        return Err(not_found(snap, &old));
    }
    if copies > 1 {
        return Err(usage(format!(
            "{old} names more than one resource (old copies pending deletion); run `stepdeck up` to delete them first"
        )));
    }
    if new_name.is_empty() || new_name.contains("::") {
        return Err(usage(format!(
            "'{new_name}' is not a valid resource name (it must be non-empty and without `::`)"
        )));
    }
    let new = Urn::parse(&format!(
        "urn:pulumi:{}::{}::{}::{new_name}",
        old.stack(),
        old.project(),
        old.qualified_type()
    ))
    .map_err(|e| usage(e.to_string()))?;
    if snap.resources.iter().any(|r| r.urn == new) {
        return Err(usage(format!(
            "a resource {new} already exists in the stack's state"
        )));
    }
    let follow = |u: &mut Urn| {
        if *u == old {
            *u = new.clone();
        }
    };
    for r in &mut snap.resources {
        follow(&mut r.urn);
        r.for_each_reference(follow);
        r.aliases.iter_mut().for_each(follow);
        if let Some(reference) = &mut r.provider {
            follow(&mut reference.urn);
        }
    }
    Ok(format!("Resource renamed to {new}"))
}

/// Repairs a state that fails the integrity check (Pulumi's `state repair`): sorts it and
/// drops references to missing resources, shows what changed and saves only a valid result.
fn repair(ws: &Workspace, args: &StateEditArgs) -> Result<()> {
    let stack = ws.stack(args.stack.stack.as_deref(), false)?;
    let crypter = stack.crypter.as_ref();
    let lock = ws.backend.lock(&stack.reference, "state repair")?;
    let mut snap = ws
        .backend
        .load_unchecked(&stack.reference, crypter)?
        .snapshot;
    let Err(initial) = snap.verify_integrity() else {
        println!("The state is already valid; skipping repair");
        return Ok(());
    };
    let before: Vec<Urn> = snap.resources.iter().map(|r| r.urn.clone()).collect();
    let manual = "edit it by hand: `stepdeck stack export --file state.json`, fix the file, then `stepdeck stack import --file state.json`";
    let pruned = snap.repair().map_err(|e| {
        anyhow!("the state cannot be repaired automatically ({e}); it failed the integrity check because {initial}; {manual}")
    })?;
    if let Err(e) = snap.verify_integrity() {
        return Err(anyhow!(
            "the state is still invalid after repair ({e}); it failed the integrity check because {initial}; {manual}"
        ));
    }
    println!("The state failed the integrity check: {initial}");
    println!("Repair will:");
    for (to, r) in snap.resources.iter().enumerate() {
        let from = pruned
            .iter()
            .find(|p| p.new_urn == r.urn)
            .map_or(&r.urn, |p| &p.old_urn);
        if before.get(to) != Some(from) {
            println!("  move {from} to position {to}");
        }
    }
    for p in &pruned {
        for (kind, urn) in &p.removed {
            println!("  drop {}'s {kind} {urn} (missing)", p.old_urn);
        }
        if p.new_urn != p.old_urn {
            println!("  rename {} to {}", p.old_urn, p.new_urn);
        }
    }
    if !confirm(args.yes)? {
        println!("Confirmation denied, not proceeding with state repair");
        return Ok(());
    }
    save(ws, &lock, snap, crypter)?;
    println!("State repaired successfully");
    Ok(())
}

/// Opens the state, as `stack export` writes it, in the user's editor; the edited document is
/// validated as `stack import` does and replaces the state only if it passes. On a bad edit
/// the file is kept so that nothing typed is lost. The file lives in a fresh private directory
/// (`private_dir`), so no other user can plant it, follow it or read the state in it.
fn edit_in_editor(ws: &Workspace, stack: Option<&str>) -> Result<()> {
    let stack = ws.stack(stack, false)?;
    let editor = std::env::var("VISUAL")
        .or_else(|_| std::env::var("EDITOR"))
        .unwrap_or_else(|_| "vi".to_string());
    let crypter = stack.crypter.as_ref();
    let lock = ws.backend.lock(&stack.reference, "state edit")?;
    let before = serde_json::to_string_pretty(&ws.backend.export(&stack.reference, crypter)?)?;
    check_write("the state", before.len() + 1, STATE_DOCUMENT).map_err(|e| usage(e.to_string()))?;
    let dir = PrivateDir::create("stepdeck-state-edit")
        .context("making a private directory for the edit")?;
    let name = format!("{}.json", stack.name.replace('/', "-"));
    let (path, mut file) = dir
        .create_file(&name)
        .with_context(|| format!("creating the file to edit in {}", dir.path().display()))?;
    file.write_all(format!("{before}\n").as_bytes())
        .and_then(|()| file.sync_all())
        .with_context(|| format!("writing {}", path.display()))?;
    drop(file);
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("sh")
        .arg(&path)
        .status()
        .map_err(|e| anyhow!("running the editor `{editor}`: {e}"))?;
    if !status.success() {
        dir.keep();
        return Err(anyhow!(
            "the editor `{editor}` failed ({status}); the state is unchanged, the edit is in {}",
            path.display()
        ));
    }
    let after = match file_limits::read_to_string(&path, STATE_DOCUMENT) {
        Ok(text) => text,
        Err(e) => {
            dir.keep();
            return Err(usage(format!(
                "{e}; the state is unchanged, the edit is in {}",
                path.display()
            )));
        }
    };
    if after.trim() == before.trim() {
        println!("No changes; the state is unchanged");
        return Ok(());
    }
    let imported = serde_json::from_str::<serde_json::Value>(&after)
        .map_err(|e| {
            format!(
                "{}:{}:{}: invalid JSON: {e}",
                path.display(),
                e.line(),
                e.column()
            )
        })
        .and_then(|doc| {
            ws.backend
                .import(&lock, &doc, crypter, crypter)
                .map_err(|e| e.to_string())
        });
    if let Err(e) = imported {
        dir.keep();
        return Err(usage(format!(
            "{e}; the state is unchanged, the edit is in {}",
            path.display()
        )));
    }
    println!("State edited");
    Ok(())
}
