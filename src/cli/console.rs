//! Deployments in the console: `preview` to explore, `up` previewing first (`y` applies, `n`
//! aborts), `destroy` and `refresh` live. One terminal session spans the preview and the update.

use std::sync::Mutex;

use anyhow::{Result, anyhow};
use stepdeck::app::{Console, ConsoleExit, ConsoleMode, Title};
use stepdeck::engine::{DeploymentResult, EventSink, Operation, Options};

use super::args::DeployArgs;
use super::deploy::{Display, conclude, execute, expect_no_changes, options};
use super::errors::DeploymentFailed;
use super::workspace::{Stack, Workspace};

/// Runs one deployment in an open console session and returns its result and how the operator
/// left the session.
pub async fn session(
    console: &mut Console,
    ws: &Workspace,
    stack: &Stack,
    opts: Options,
    mode: ConsoleMode,
    leave_when_done: bool,
) -> Result<(DeploymentResult, ConsoleExit)> {
    let title = Title {
        operation: opts.operation.as_str().to_string(),
        stack: stack.name.clone(),
        project: ws.project.name.clone(),
    };
    let (sink, events) = EventSink::channel();
    let exit = Mutex::new(None);
    let result = execute(ws, stack, opts, sink, |d, program| async {
        let control = d.control();
        let (result, left) = tokio::join!(
            d.run(program),
            console.session(events, control, mode, title, leave_when_done)
        );
        *exit.lock().expect("exit lock") = Some(left);
        result
    })
    .await?;
    let left = exit
        .into_inner()
        .expect("exit lock")
        .ok_or_else(|| anyhow!("the console did not start"))?;
    Ok((result, left?))
}

/// `preview`, `up`, `destroy`, `refresh` with the console.
pub async fn run(
    ws: &Workspace,
    stack: &Stack,
    operation: Operation,
    args: &DeployArgs,
) -> Result<()> {
    let mut console = Console::enter()?;
    let outcome = async {
        let previews_first = operation == Operation::Preview
            || (operation == Operation::Update && !args.skip_preview);
        if previews_first && !args.yes {
            let preview = options(ws, stack, Operation::Preview, args, Display::Console)?;
            let asks = operation == Operation::Update;
            let (result, left) = session(
                &mut console,
                ws,
                stack,
                preview,
                ConsoleMode::Preview {
                    awaiting_decision: asks,
                },
                false,
            )
            .await?;
            conclude(&result)?;
            if !asks {
                expect_no_changes(args, operation, &result)?;
            }
            if !asks || left != ConsoleExit::Apply {
                return if asks {
                    Err(DeploymentFailed("the update was aborted".into()).into())
                } else {
                    Ok(())
                };
            }
        }
        if operation == Operation::Preview {
            return Ok(());
        }
        let opts = options(ws, stack, operation, args, Display::Console)?;
        let (result, _) = session(&mut console, ws, stack, opts, ConsoleMode::Live, false).await?;
        conclude(&result)?;
        expect_no_changes(args, operation, &result)
    }
    .await;
    drop(console);
    outcome
}
