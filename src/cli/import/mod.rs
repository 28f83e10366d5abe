//! `import`: adopts existing resources into the stack as Pulumi's `import` does: an update
//! whose only steps are the imports (everything the stack holds stays as it is), recorded in
//! the history as an `import`; then Pulumi YAML declaring the imported resources, printed or
//! written to `--out`.

mod code;
pub(super) mod program;
mod spec;

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use stepdeck::engine::{Operation, Urn};

use super::args::{DeployArgs, ImportArgs, OutputArgs, StackArg};
use super::deploy;
use super::errors::usage;
use super::stdout::outln;
use program::ImportPlan;

pub(super) async fn run(dir: &Path, backend: Option<&str>, args: ImportArgs) -> Result<()> {
    if args.from.is_some() {
        return Err(usage(
            "--from: converters are plugins stepdeck does not run; write an import file and pass it with --file",
        ));
    }
    let file = match &args.file {
        Some(_) if !args.resource.is_empty() => {
            return Err(usage(
                "an inline resource may not be specified in conjunction with an import file",
            ));
        }
        Some(path) => spec::read_file(path)?,
        None => spec::single(
            &args.resource,
            args.parent.as_deref(),
            args.provider.as_deref(),
            &args.properties,
        )?,
    };
    if !args.generate_code && args.out.is_some() {
        eprintln!("Output file will not be used as --generate-code is false.");
    }
    let operation = if args.preview_only {
        Operation::Preview
    } else {
        Operation::Update
    };
    let mut deploy_args = DeployArgs {
        stack: StackArg {
            stack: args.stack.stack.clone(),
        },
        parallel: args.parallel,
        yes: args.yes,
        skip_preview: args.skip_preview,
        non_interactive: true,
        json: args.json,
        message: args.message.clone(),
        debug: args.debug,
        config_file: args.config_file.clone(),
        exec_kind: args.exec_kind.clone(),
        exec_agent: args.exec_agent.clone(),
        output: OutputArgs {
            event_log: args.event_log.clone(),
            diff: args.diff,
            suppress_outputs: args.suppress_outputs,
            ..OutputArgs::default()
        },
        ..DeployArgs::default()
    };
    let opened = deploy::open(dir, backend, operation, &deploy_args)?;
    let crypter = opened.stack.crypter.as_ref();
    let existing = opened
        .ws
        .backend
        .load(&opened.stack.reference, crypter)?
        .snapshot
        .resources;
    let resolved = spec::resolve(file, &opened.stack.name, &opened.ws.project.name)?;
    for w in &resolved.warnings {
        eprintln!("warning: {w}");
    }
    let present = check_against_state(&resolved, &existing)?;
    let plan = Arc::new(ImportPlan {
        resolved,
        existing,
        protect: args.protect,
        present,
    });
    let targets = plan.targets();
    if !targets.is_empty() {
        deploy_args.targets = targets;
        deploy_args.import = Some(plan.clone());
        deploy::run(&opened, operation, deploy_args, None).await?;
    } else if !args.json {
        outln!("Every resource to import is in the stack already; nothing to do.")?;
    }
    if !args.generate_code || args.preview_only {
        return Ok(());
    }
    let states = opened
        .ws
        .backend
        .load(&opened.stack.reference, crypter)?
        .snapshot
        .resources;
    let code = code::generate(&plan.resolved, &states)?;
    match &args.out {
        Some(path) => std::fs::write(path, &code)
            .with_context(|| format!("could not open output file: {}", path.display()))?,
        None if args.json || code.is_empty() => {}
        None => {
            outln!(
                "Please copy the following code into your Pulumi application. Not doing so\nwill cause Pulumi to report that an update will happen on the next update command.\n"
            )?;
            if args.protect {
                outln!(
                    "Please note that the imported resources are marked as protected. To destroy them\nyou will need to remove the `protect` option and run `pulumi update` *before*\nthe destroy will take effect.\n"
                )?;
            }
            outln!("{}", code.trim_end())?;
        }
    }
    Ok(())
}

/// Checks the import against the stack: a resource already there under the same ID is left
/// as it is (returned, not imported again), under another ID it is refused as Pulumi refuses
/// it; every parent and provider `nameTable` names must be in the stack.
fn check_against_state(
    resolved: &spec::Resolved,
    existing: &[stepdeck::engine::ResourceState],
) -> Result<Vec<Urn>> {
    let live: HashMap<&Urn, &stepdeck::engine::ResourceState> = existing
        .iter()
        .filter(|r| !r.delete)
        .map(|r| (&r.urn, r))
        .collect();
    let own: Vec<&Urn> = resolved.entries.iter().map(|e| &e.urn).collect();
    let mut present = Vec::new();
    for e in &resolved.entries {
        for (what, urn) in [("parent", &e.parent), ("provider", &e.provider)] {
            if let Some(u) = urn
                && !own.contains(&u)
                && !live.contains_key(u)
            {
                return Err(usage(format!(
                    "the {what} of '{}' is not in the stack: {u}",
                    e.name
                )));
            }
        }
        if let Some(old) = live.get(&e.urn) {
            let old_id = old.import_id.as_ref().or(old.id.as_ref());
            if e.id.is_some() && old_id == e.id.as_ref() || e.id.is_none() && !old.custom {
                present.push(e.urn.clone());
            } else {
                return Err(usage(format!("resource '{}' already exists", e.urn)));
            }
        }
    }
    Ok(present)
}
