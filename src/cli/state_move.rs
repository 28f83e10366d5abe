//! `stepdeck state move`: moves resources, with their children, from one stack's state to
//! another's (Pulumi's `state move`). The providers they use are copied; dependencies between
//! what moves and what stays are broken and reported. Both stacks are locked; the destination
//! is saved first and read back as the next command will read it (its secrets under the salt
//! its state records) before the source changes, so a failure in between leaves the resources
//! tracked twice, never lost, and a destination that cannot be read is put back.

use std::collections::{HashMap, HashSet};

use anyhow::{Result, anyhow};
use stepdeck::engine::model::urn::ROOT_STACK_TYPE;
use stepdeck::engine::{ProviderRef, ResourceState, Snapshot, Urn};

use super::args::StateMoveArgs;
use super::errors::usage;
use super::state_save::{confirm, save};
use super::workspace::Workspace;

/// A dependency cut by the move: `resource`'s `kind` on `on`, now in the other stack.
struct Broken {
    resource: Urn,
    kind: &'static str,
    on: Urn,
}

/// What a move does, for the report before it is confirmed.
struct Moved {
    moved: Vec<Urn>,
    /// The same resources under their URNs in the destination.
    moved_to: Vec<Urn>,
    /// Resources staying in the source that depended on moved ones.
    source_broken: Vec<Broken>,
    /// Moved resources that depended on ones staying in the source.
    dest_broken: Vec<Broken>,
}

pub(super) fn run(ws: &Workspace, args: StateMoveArgs) -> Result<()> {
    if args.source.is_none() && args.dest.is_none() {
        return Err(usage("at least one of --source or --dest must be given"));
    }
    let source = ws.stack(args.source.as_deref(), false)?;
    let mut dest = ws.stack(args.dest.as_deref(), false)?;
    if source.reference == dest.reference {
        return Err(usage(format!(
            "the source and the destination are the same stack '{}'",
            source.name
        )));
    }
    // A destination fresh from `stack init` gets its salt recorded before anything is
    // encrypted under it, as Pulumi creates the destination's secrets manager.
    dest.remember_salt()?;
    let source_lock = ws.backend.lock(&source.reference, "state move")?;
    let dest_lock = ws.backend.lock(&dest.reference, "state move")?;
    let (sc, dc) = (source.crypter.as_ref(), dest.crypter.as_ref());
    let mut from = ws.backend.load(&source.reference, sc)?.snapshot;
    let mut to = ws.backend.load(&dest.reference, dc)?.snapshot;
    let dest_before = to.clone();
    let project = dest.reference.project().to_string();
    let report = move_resources(
        &mut from,
        &mut to,
        &args.urns,
        args.include_parents,
        (&dest.name, &project),
    )?;
    println!(
        "Planning to move the following resources from {} to {}:\n",
        source.name, dest.name
    );
    for u in &report.moved {
        println!("  - {u}");
    }
    print_broken(
        &format!(
            "The following resources remaining in {} have dependencies on resources moved to {}:",
            source.name, dest.name
        ),
        &report.source_broken,
    );
    print_broken(
        &format!(
            "The following resources being moved to {} have dependencies on resources in {}:",
            dest.name, source.name
        ),
        &report.dest_broken,
    );
    if !report.source_broken.is_empty() || !report.dest_broken.is_empty() {
        println!(
            "\nThose dependencies are removed; the programs of both stacks must pass the values across (stack references)."
        );
    }
    if !confirm(args.yes)? {
        println!("Confirmation denied, not proceeding with the state move");
        return Ok(());
    }
    to.verify_integrity()?;
    from.verify_integrity()?;
    save(ws, &dest_lock, to, dc)?;
    if let Err(e) = readable(ws, &dest.name, &report.moved_to) {
        save(ws, &dest_lock, dest_before, dc)?;
        return Err(e.context(format!(
            "the moved resources could not be read back from {}; both stacks are as they were",
            dest.name
        )));
    }
    save(ws, &source_lock, from, sc)?;
    println!(
        "Successfully moved resources from {} to {}",
        source.name, dest.name
    );
    Ok(())
}

/// Loads the stack `name` as the next command will (its settings, the salt its state records,
/// the passphrase of the environment) and checks that it holds `urns`.
fn readable(ws: &Workspace, name: &str, urns: &[Urn]) -> Result<()> {
    let stack = ws.stack(Some(name), false)?;
    let snap = ws
        .backend
        .load(&stack.reference, stack.crypter.as_ref())?
        .snapshot;
    let held: HashSet<&Urn> = snap.resources.iter().map(|r| &r.urn).collect();
    match urns.iter().find(|u| !held.contains(u)) {
        Some(u) => Err(anyhow!("{u} is missing from {name}'s state")),
        None => Ok(()),
    }
}

fn print_broken(title: &str, broken: &[Broken]) {
    if broken.is_empty() {
        return;
    }
    println!("\n{title}\n");
    for b in broken {
        println!("  {} ({}) -> {}", b.resource, b.kind, b.on);
    }
}

/// Drops `r`'s dependencies, property dependencies, deletedWith and replaceWith on URNs in
/// `gone`.
fn break_dependencies(r: &mut ResourceState, gone: &HashSet<Urn>) -> Vec<Broken> {
    let mut broken = Vec::new();
    let mut cut = |kind: &'static str, on: &Urn| {
        let hit = gone.contains(on);
        if hit {
            broken.push(Broken {
                resource: r.urn.clone(),
                kind,
                on: on.clone(),
            });
        }
        !hit
    };
    r.dependencies.retain(|d| cut("dependency", d));
    for urns in r.property_dependencies.values_mut() {
        urns.retain(|d| cut("property dependency", d));
    }
    r.property_dependencies.retain(|_, urns| !urns.is_empty());
    if r.deleted_with
        .as_ref()
        .is_some_and(|d| !cut("deletedWith", d))
    {
        r.deleted_with = None;
    }
    r.replace_with.retain(|d| cut("replaceWith", d));
    broken
}

/// Moves the resources `args` names (and their descendants; their ancestors too with
/// `include_parents`) from `from` to `to`, the stack `dest` = (name, project).
fn move_resources(
    from: &mut Snapshot,
    to: &mut Snapshot,
    args: &[String],
    include_parents: bool,
    dest: (&str, &str),
) -> Result<Moved> {
    let (dest_stack, project) = dest;
    let by_urn: HashMap<&Urn, &ResourceState> =
        from.resources.iter().map(|r| (&r.urn, r)).collect();
    let mut moving: HashSet<Urn> = HashSet::new();
    for arg in args {
        let Some(r) = Urn::parse(arg).ok().and_then(|u| by_urn.get(&u).copied()) else {
            println!("warning: resource {arg} not found in the source stack");
            continue;
        };
        if r.is_provider() {
            return Err(usage(
                "providers cannot be moved: they are copied with the resources that use them",
            ));
        }
        if r.type_ != ROOT_STACK_TYPE {
            moving.insert(r.urn.clone());
        }
    }
    if moving.is_empty() {
        return Err(usage(
            "no resources found to move; `stepdeck stack export` lists the stack's URNs",
        ));
    }
    if include_parents {
        for u in moving.clone() {
            let mut parent = by_urn[&u].parent.clone();
            while let Some(p) = parent {
                let Some(pr) = by_urn.get(&p) else { break };
                if pr.type_ == ROOT_STACK_TYPE || pr.is_provider() {
                    break;
                }
                moving.insert(p);
                parent = pr.parent.clone();
            }
        }
    }
    // Children go with their parents (resources are in dependency order: parents first).
    for r in &from.resources {
        if !r.is_provider() && r.parent.as_ref().is_some_and(|p| moving.contains(p)) {
            moving.insert(r.urn.clone());
        }
    }
    let (moved, kept): (Vec<ResourceState>, Vec<ResourceState>) =
        std::mem::take(&mut from.resources)
            .into_iter()
            .partition(|r| moving.contains(&r.urn));
    from.resources = kept;
    let remaining: HashSet<Urn> = from.resources.iter().map(|r| r.urn.clone()).collect();
    let mut source_broken = Vec::new();
    for r in &mut from.resources {
        source_broken.extend(break_dependencies(r, &moving));
    }

    let root = match to.resources.iter().find(|r| r.type_ == ROOT_STACK_TYPE) {
        Some(r) => r.urn.clone(),
        None => {
            let urn = Urn::new(
                dest_stack,
                project,
                None,
                ROOT_STACK_TYPE,
                &format!("{project}-{dest_stack}"),
            );
            to.resources.insert(
                0,
                ResourceState {
                    urn: urn.clone(),
                    type_: ROOT_STACK_TYPE.to_string(),
                    ..ResourceState::default()
                },
            );
            urn
        }
    };
    let existing: HashMap<Urn, ResourceState> = to
        .resources
        .iter()
        .map(|r| (r.urn.clone(), r.clone()))
        .collect();
    // Old URN (or provider reference) to the one in the destination.
    let mut renamed: HashMap<Urn, Urn> = HashMap::new();
    let mut references: HashMap<ProviderRef, ProviderRef> = HashMap::new();
    let mut dest_broken = Vec::new();
    let used: HashSet<&ProviderRef> = moved.iter().filter_map(|r| r.provider.as_ref()).collect();
    let copies: Vec<ResourceState> = from
        .resources
        .iter()
        .filter(|r| {
            r.is_provider()
                && r.id
                    .as_deref()
                    .is_some_and(|id| used.contains(&ProviderRef::new(r.urn.clone(), id)))
        })
        .cloned()
        .collect();
    for mut p in copies {
        let old_ref = ProviderRef::new(p.urn.clone(), p.id.as_deref().unwrap_or_default());
        dest_broken.extend(break_dependencies(&mut p, &remaining));
        p.parent = Some(root.clone());
        p.urn = Urn::new(dest_stack, project, None, p.urn.type_(), p.urn.name());
        p.aliases.clear();
        if let Some(there) = existing.get(&p.urn) {
            if there.id != p.id && there.inputs != p.inputs {
                return Err(usage(format!(
                    "provider {} already exists in the destination stack with other settings",
                    p.urn
                )));
            }
            references.insert(
                old_ref,
                ProviderRef::new(there.urn.clone(), there.id.as_deref().unwrap_or_default()),
            );
            continue;
        }
        references.insert(
            old_ref,
            ProviderRef::new(p.urn.clone(), p.id.as_deref().unwrap_or_default()),
        );
        to.resources.push(p);
    }
    let moved_urns: Vec<Urn> = moved.iter().map(|r| r.urn.clone()).collect();
    let mut moved_to = Vec::with_capacity(moved.len());
    for mut r in moved {
        dest_broken.extend(break_dependencies(&mut r, &remaining));
        let parent = match r.parent.as_ref().and_then(|p| renamed.get(p)) {
            Some(p) => p.clone(),
            None => root.clone(),
        };
        let urn = Urn::new(
            dest_stack,
            project,
            Some(&parent),
            r.urn.type_(),
            r.urn.name(),
        );
        if existing.contains_key(&urn) {
            return Err(usage(format!(
                "resource {urn} already exists in the destination stack"
            )));
        }
        moved_to.push(urn.clone());
        renamed.insert(std::mem::replace(&mut r.urn, urn), r.urn.clone());
        r.parent = Some(parent);
        let follow = |u: &mut Urn| {
            if let Some(n) = renamed.get(u) {
                *u = n.clone();
            }
        };
        r.for_each_reference(follow);
        r.aliases.clear();
        if let Some(p) = r.provider.take() {
            r.provider = Some(references.get(&p).cloned().unwrap_or(p));
        }
        to.resources.push(r);
    }
    Ok(Moved {
        moved: moved_urns,
        moved_to,
        source_broken,
        dest_broken,
    })
}
