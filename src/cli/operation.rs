//! `preview`, `up`, `destroy` and `refresh` from the command line: the stack is opened once,
//! then the run goes to the console or to the plain and JSON displays. A destroy ends as
//! Pulumi's does: it says what is left, and with `--remove` removes the stack.

use std::path::Path;

use anyhow::Result;
use stepdeck::engine::Operation;
use stepdeck::project::settings_file_name;

use super::args::DeployArgs;
use super::deploy::{self, Opened};
use super::display::Display;
use super::errors::usage;
use super::exclude_protected::protected;
use super::stack_name::StackName;
use super::stdout::outln;

pub(super) async fn run(
    dir: &Path,
    backend: Option<&str>,
    operation: Operation,
    mut args: DeployArgs,
) -> Result<()> {
    let opened = deploy::open(dir, backend, operation, &args)?;
    let mut kept = 0;
    if args.exclude_protected {
        let state = opened
            .ws
            .backend
            .load(&opened.stack.reference, opened.stack.crypter.as_ref())?;
        let p = protected(&state.snapshot.resources);
        kept = p.urns.len();
        if p.everything {
            outln!(
                "There were no unprotected resources to destroy. There are still {kept} protected resources associated with this stack."
            )?;
            return Ok(());
        }
        args.excludes.extend(p.urns);
    }
    let serving = super::serve::start(&args.serve).await?;
    if opened.display == Display::Console {
        super::console::run(&opened.ws, &opened.stack, operation, &args, serving).await?;
    } else {
        deploy::run(&opened, operation, args.clone(), serving).await?;
    }
    if operation == Operation::Destroy && !args.preview_only {
        finish_destroy(&opened, &args, kept)?;
    }
    Ok(())
}

/// After a successful destroy: Pulumi's closing sentence, or with `--remove` the stack and
/// its settings file removed.
fn finish_destroy(opened: &Opened, args: &DeployArgs, kept: usize) -> Result<()> {
    // Under `--json` or `--output json`, standard output is the JSON's alone.
    let json = args.json || args.output.output_format.is_some();
    let ws = &opened.ws;
    let name = StackName::new(&ws.project.name, &opened.stack.name);
    if kept > 0 {
        if !json {
            outln!(
                "All unprotected resources were destroyed. There are still {kept} protected resources associated with this stack."
            )?;
        }
        return Ok(());
    }
    if !args.targets.is_empty() {
        return Ok(());
    }
    if !args.remove {
        if !json {
            outln!(
                "The resources in the stack have been deleted, but the history and configuration associated with the stack are still maintained. \nIf you want to remove the stack completely, run `{} stack rm {}`.",
                super::program_name(),
                ws.shown(&name)
            )?;
        }
        return Ok(());
    }
    ws.backend
        .remove_stack(&opened.stack.reference, false)
        .map_err(|e| usage(e.to_string()))?;
    let settings = ws.dir().join(settings_file_name(&opened.stack.name));
    match std::fs::remove_file(&settings) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(anyhow::anyhow!("removing {}: {e}", settings.display()));
        }
        _ => {}
    }
    if !json {
        outln!(
            "The resources in the stack have been deleted, and the history and configuration removed."
        )?;
    }
    Ok(())
}
