//! `stack` with no subcommand: the current stack, its resources as a tree (each one's URN
//! and ID beneath it on request) and its outputs, as Pulumi's `pulumi stack` prints them.

use std::collections::HashMap;
use std::path::Path;

use anyhow::Result;
use stepdeck::engine::ResourceState;
use stepdeck::engine::model::urn::ROOT_STACK_TYPE;

use super::args::StackArgs;
use super::stdout::outln;
use super::workspace::Workspace;

/// Prints the summary `args` asks for (`--show-name`: the stack's name alone).
pub(super) fn run(dir: &Path, backend: Option<&str>, args: &StackArgs) -> Result<()> {
    let ws = Workspace::open(dir, backend)?;
    let name = ws.stack_name(args.stack.as_deref())?;
    let shown = ws.shown(&name);
    if args.show_name {
        outln!("{shown}")?;
        return Ok(());
    }
    let stack = ws.stack(args.stack.as_deref(), false)?;
    let snap = ws
        .backend
        .load(&stack.reference, stack.crypter.as_ref())?
        .snapshot;
    outln!("Current stack is {shown}:")?;
    outln!("Current stack resources ({}):", snap.resources.len())?;
    if snap.resources.is_empty() {
        outln!("    No resources currently in this stack")?;
    } else {
        let mut rows = Vec::new();
        tree_rows(&snap.resources, args, &mut rows);
        let width = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0);
        let width = width.max("TYPE".len());
        outln!("    {:<width$}  NAME", "TYPE")?;
        for (type_, name, info) in rows {
            outln!("    {type_:<width$}  {name}")?;
            for line in info {
                outln!("{line}")?;
            }
        }
        let outputs = snap.stack_outputs();
        outln!("")?;
        outln!("Current stack outputs ({}):", outputs.len())?;
        if outputs.is_empty() {
            outln!("    No output values currently in this stack")?;
        } else {
            let width = outputs.keys().map(String::len).max().unwrap_or(0);
            let width = width.max("OUTPUT".len());
            outln!("    {:<width$}  VALUE", "OUTPUT")?;
            for (k, v) in &outputs {
                let v = if args.show_secrets {
                    v.reveal()
                } else {
                    v.clone()
                };
                let text = match v.to_display_json() {
                    serde_json::Value::String(s) => s,
                    other => other.to_string(),
                };
                outln!("    {k:<width$}  {text}")?;
            }
        }
    }
    outln!("")?;
    outln!("Use `stepdeck stack select` to change stack; `stepdeck stack ls` lists known ones")?;
    Ok(())
}

/// One row: the type (after its tree branch), the name, and the info lines beneath it.
type Row = (String, String, Vec<String>);

/// The resources as Pulumi's tree: children under their parents, resources whose parent is
/// not in the state under the root stack; in state order when there is no root stack.
fn tree_rows(resources: &[ResourceState], args: &StackArgs, rows: &mut Vec<Row>) {
    let mut children: HashMap<&str, Vec<usize>> = HashMap::new();
    let known: std::collections::HashSet<&str> = resources.iter().map(|r| r.urn.as_str()).collect();
    let root = resources
        .iter()
        .position(|r| r.type_ == ROOT_STACK_TYPE && r.parent.is_none());
    let Some(root) = root else {
        for r in resources {
            rows.push(row(r, "", "    ", args));
        }
        return;
    };
    for (i, r) in resources.iter().enumerate() {
        if i == root {
            continue;
        }
        let parent = match &r.parent {
            Some(p) if known.contains(p.as_str()) => p.as_str(),
            _ => resources[root].urn.as_str(),
        };
        children.entry(parent).or_default().push(i);
    }
    node(resources, &children, root, "", "", args, rows);
}

fn node(
    resources: &[ResourceState],
    children: &HashMap<&str, Vec<usize>>,
    i: usize,
    padding: &str,
    branch: &str,
    args: &StackArgs,
    rows: &mut Vec<Row>,
) {
    let pad_branch = match branch {
        "├─ " => "│  ",
        "└─ " => "   ",
        _ => "",
    };
    let child_padding = format!("{padding}{pad_branch}");
    let mine = children
        .get(resources[i].urn.as_str())
        .cloned()
        .unwrap_or_default();
    let info_branch = if mine.is_empty() { "   " } else { "│  " };
    rows.push(row(
        &resources[i],
        &format!("{padding}{branch}"),
        &format!("{child_padding}{info_branch}"),
        args,
    ));
    for (n, c) in mine.iter().enumerate() {
        let b = if n + 1 == mine.len() {
            "└─ "
        } else {
            "├─ "
        };
        node(resources, children, *c, &child_padding, b, args, rows);
    }
}

fn row(r: &ResourceState, prefix: &str, info_prefix: &str, args: &StackArgs) -> Row {
    let mut info = Vec::new();
    if args.show_urns {
        info.push(format!("    {info_prefix}URN: {}", r.urn.as_str()));
    }
    if let Some(id) = r.id.as_ref().filter(|id| args.show_ids && !id.is_empty()) {
        info.push(format!("    {info_prefix}ID: {id}"));
    }
    (
        format!("{prefix}{}", r.type_),
        r.urn.name().to_string(),
        info,
    )
}
