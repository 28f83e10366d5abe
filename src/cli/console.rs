//! Deployments in the console: `preview` to explore; `up`, `destroy` and `refresh` previewing
//! first (`y` applies, `n` aborts). One terminal session spans the preview and the run; with
//! `--serve` the run (not its preview) is served to watchers too.

use std::sync::Arc;

use parking_lot::Mutex;

use anyhow::{Result, anyhow};
use stepdeck::app::{ConsoleExit, ConsoleMode, Title};
use stepdeck::console::Console;
use stepdeck::engine::{DeploymentResult, EventSink, Operation};

use super::args::DeployArgs;
use super::deploy::{Run, RunMeta, conclude, execute, options, save_plan, update_kind};
use super::display::Display;
use super::errors::DeploymentFailed;
use super::serve::ServeSession;
use super::stdout::out;
use super::workspace::{Stack, Workspace};

/// How a console session shows its deployment.
pub(super) struct Showing {
    pub mode: ConsoleMode,
    /// Leave by itself shortly after the deployment ends.
    pub leave_when_done: bool,
    /// Where the session stands in a longer story (the demo's phases).
    pub phase: Option<String>,
}

/// Runs one deployment in an open console session (served to watchers too with `serving`)
/// and returns its result and how the operator left the session.
pub(super) async fn session(
    console: &mut Console,
    ws: &Workspace,
    stack: &Stack,
    run: Run,
    Showing {
        mode,
        leave_when_done,
        phase,
    }: Showing,
    serving: Option<&ServeSession>,
) -> Result<(DeploymentResult, ConsoleExit)> {
    let title = Title {
        operation: run.options.operation.as_str().to_string(),
        stack: stack.name.clone(),
        project: ws.project.name.clone(),
        phase,
    };
    let (sink, events) = EventSink::channel();
    let (events, recording) = super::recording::tee(events, run.options.dry_run);
    let notes = sink.clone();
    let served_options = run.options.clone();
    let exit = Mutex::new(None);
    // Encoded for the watchers only when the run is served: the plan is as large as the stack.
    let preview_plan = serving.map(|_| console.expected().encode());
    let result = execute(ws, stack, run, sink, &recording, |d, program| async {
        let control = d.control();
        let events = match serving {
            Some(s) => s.consume(
                (control.clone(), notes),
                &served_options,
                preview_plan.unwrap_or_default(),
                events,
            ),
            None => events,
        };
        // A SIGINT from outside (`cancel`; the terminal's own Ctrl-C is a key here) cancels
        // the run as Ctrl-C cancels a plain one.
        let interrupts = tokio::spawn(super::deploy::cancel_on_ctrl_c(control.clone()));
        let (result, left) = tokio::join!(
            d.run(program),
            console.session(events, control, mode, title, leave_when_done)
        );
        interrupts.abort();
        *exit.lock() = Some(left);
        result
    })
    .await?;
    let left = exit
        .into_inner()
        .ok_or_else(|| anyhow!("the console did not start"))?;
    Ok((result, left?))
}

/// `preview`, `up`, `destroy`, `refresh` with the console. Unless `--yes`, every operation but
/// `preview` shows its plan first and runs only on `y` (as `pulumi destroy` and `pulumi refresh`
/// preview before asking); the run's summary is printed once the terminal is back.
pub(super) async fn run(
    ws: &Workspace,
    stack: &Stack,
    operation: Operation,
    args: &DeployArgs,
    serving: Option<ServeSession>,
) -> Result<()> {
    let meta = RunMeta::from_args(args);
    // The header names the plan an `up --plan` is held to, in its preview and its run.
    let plan_title = args.plan.as_ref().map(|p| format!("plan {}", p.display()));
    let mut console = Console::enter()?;
    // A destroy of the whole stack asks for its name before `y` applies, as `pulumi stack rm`
    // does; a targeted one (or one picked in the plan) keeps y/n.
    if operation == Operation::Destroy && args.targets.is_empty() && args.excludes.is_empty() {
        console.ask_name_to_apply(&stack.name);
    }
    let outcome = async {
        let mut planned = None;
        let read_only = operation == Operation::Preview || args.preview_only;
        if read_only || !(args.yes || args.skip_preview) {
            let mut preview = if operation == Operation::Update {
                options(ws, stack, Operation::Preview, args, Display::Console)?
            } else {
                options(ws, stack, operation, args, Display::Console)?
            };
            preview.dry_run = true;
            let asks = !read_only;
            // An update's preview records its plan: `y` applies under it.
            preview.record_plan |= operation == Operation::Update;
            // A decline in the plan previews again with it declined: the plan then shows what
            // the apply does (what followed the kept resource diffs against its outputs).
            let (mut result, left) = loop {
                let mut options = preview.clone();
                options.preview_declines = console.preview_declines();
                let (result, left) = session(
                    &mut console,
                    ws,
                    stack,
                    Run {
                        options,
                        meta: meta.clone(),
                    },
                    Showing {
                        mode: ConsoleMode::Preview {
                            awaiting_decision: asks,
                        },
                        leave_when_done: false,
                        phase: plan_title.clone(),
                    },
                    None,
                )
                .await?;
                if left != ConsoleExit::Repreview {
                    break (result, left);
                }
            };
            if !asks {
                // A read-only preview ends as it ended, left early or not: one quit while it
                // ran was cancelled (`preview canceled`, Pulumi's exit code 8).
                return conclude(&result, operation)
                    .and_then(|()| save_plan(ws, stack, args, &mut result));
            }
            if left != ConsoleExit::Apply {
                return Err(DeploymentFailed(format!(
                    "the {} was aborted",
                    update_kind(operation)
                ))
                .into());
            }
            conclude(&result, operation)?;
            planned = result.plan.take();
        }
        let mut opts = options(ws, stack, operation, args, Display::Console)?;
        if opts.plan.is_none() {
            opts.plan = planned.map(Arc::new);
        }
        if let Some(selection) = console.applied_selection() {
            if !selection.targets.is_empty() {
                opts.targets = selection.targets.clone();
            }
            if !selection.excludes.is_empty() {
                opts.excludes = selection.excludes.clone();
                opts.exclude_dependents = true;
            }
        }
        opts.clear_pending_creates |= console.pending_creates_marked().is_some();
        let (result, _) = session(
            &mut console,
            ws,
            stack,
            Run {
                options: opts,
                meta,
            },
            Showing {
                mode: ConsoleMode::Live,
                leave_when_done: false,
                phase: plan_title,
            },
            serving.as_ref(),
        )
        .await?;
        conclude(&result, operation)
    }
    .await;
    let turned_away = match serving {
        Some(s) => s.finish().await,
        None => None,
    };
    let report = console.take_report();
    drop(console);
    let reported = report.map(|r| out!("{r}"));
    if let Some(line) = turned_away {
        eprintln!("{line}");
    }
    // The run's own failure comes first; a report that could not be written is still said.
    match (reported, outcome) {
        (Some(Err(e)), Ok(())) => Err(e.into()),
        (Some(Err(e)), Err(failed)) => Err(failed.context(e.to_string())),
        // The summary just printed holds the failure in full: the last line says only how the
        // run ended, instead of the whole error once more.
        (Some(Ok(())), Err(failed)) => match failed.downcast_ref::<DeploymentFailed>() {
            Some(d) if d.0.starts_with("the deployment failed: ") => Err(DeploymentFailed(
                "the deployment failed; the summary above says why".into(),
            )
            .into()),
            _ => Err(failed),
        },
        (_, outcome) => outcome,
    }
}
