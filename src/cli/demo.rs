//! `stepdeck demo`: the bundled demo project, run in two phases against a fresh state: the
//! first rollout (a preview to explore, then creates in parallel chains), and an upgrade that
//! replaces resources create-before-delete, holds a delete-before-replace cascade for the
//! operator's approval and deletes a retired tier in groups.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use stepdeck::app::{ConsoleExit, ConsoleMode};
use stepdeck::console::Console;
use stepdeck::engine::Operation;
use stepdeck::private_dir::PrivateDir;

use super::args::{ApprovalArg, DemoArgs, DeployArgs, StackArg};
use super::console::{Showing, session};
use super::deploy::{Run, RunMeta, conclude, options};
use super::display::Display;
use super::operation;
use super::stdout::out;
use super::workspace::Workspace;

const STACK: &str = "demo";
const FILES: [(&str, &str); 2] = [
    (
        "Pulumi.yaml",
        include_str!("../../assets/examples/demo/Pulumi.yaml"),
    ),
    (
        "Pulumi.demo.yaml",
        include_str!("../../assets/examples/demo/Pulumi.demo.yaml"),
    ),
];
/// What each phase does, as the console announces it.
const PHASES: [&str; 2] = [
    "first rollout",
    "upgrade: replacements, a cascade to approve, deletes",
];
/// The second phase's stack settings, swapped in for the upgrade.
const PHASE_2: &str = include_str!("../../assets/examples/demo/Pulumi.demo2.yaml");

/// The demo keeps its state beside its project.
fn backend_url(dir: &Path) -> String {
    format!("file://{}", dir.join("state").display())
}

/// Writes the demo project into `dir` (phase 1 settings) and returns its workspace.
fn materialize(dir: &Path) -> Result<Workspace> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    for (name, text) in FILES {
        std::fs::write(dir.join(name), text)
            .with_context(|| format!("writing the demo's {name}"))?;
    }
    Workspace::open(dir, Some(&backend_url(dir)))
}

fn phase_2(dir: &Path) -> Result<()> {
    std::fs::write(dir.join("Pulumi.demo.yaml"), PHASE_2)
        .context("writing the demo's phase 2 settings")
}

/// Where the demo runs: `--state-dir`, or a fresh private directory removed when it ends
/// (held by the returned guard), so that nothing another user planted is run or written through.
fn demo_dir(args: &DemoArgs) -> Result<(PathBuf, Option<PrivateDir>)> {
    match &args.state_dir {
        Some(dir) => Ok((dir.clone(), None)),
        None => {
            let private = PrivateDir::create("stepdeck-demo")
                .context("making a private directory for the demo")?;
            Ok((private.path().to_path_buf(), Some(private)))
        }
    }
}

fn deploy_args(approval: Option<ApprovalArg>) -> DeployArgs {
    DeployArgs {
        stack: StackArg {
            stack: Some(STACK.into()),
        },
        parallel: Some(8),
        parallel_diff: true,
        approve_replacements: approval,
        yes: true,
        non_interactive: true,
        ..DeployArgs::default()
    }
}

pub(super) async fn run(args: DemoArgs) -> Result<()> {
    let (dir, _private) = demo_dir(&args)?;
    let ws = materialize(&dir)?;
    let display = Display::choose(false, args.non_interactive);
    if display != Display::Console {
        let backend = backend_url(&dir);
        for phase in 1..=2 {
            if phase == 2 {
                phase_2(&dir)?;
            }
            operation::run(&dir, Some(&backend), Operation::Update, deploy_args(None)).await?;
        }
        return Ok(());
    }
    let a = deploy_args(Some(ApprovalArg::Ask));
    // Creating the stack prints a line; do it before the console owns the screen.
    ws.stack(Some(STACK), true)?;
    let mut console = Console::enter()?;
    let outcome = async {
        for phase in 1..=2 {
            if phase == 2 {
                phase_2(&dir)?;
            }
            let stack = ws.stack(Some(STACK), true)?;
            let what = PHASES[phase - 1];
            let preview = options(&ws, &stack, Operation::Preview, &a, Display::Console)?;
            // A decline in the plan previews again with it declined, as `up` does.
            let (result, left) = loop {
                let mut options = preview.clone();
                options.preview_declines = console.preview_declines();
                let (result, left) = session(
                    &mut console,
                    &ws,
                    &stack,
                    Run {
                        options,
                        meta: RunMeta::default(),
                    },
                    Showing {
                        mode: ConsoleMode::Preview {
                            awaiting_decision: true,
                        },
                        leave_when_done: false,
                        phase: Some(format!("demo {phase}/2 {what}: plan (y applies)")),
                    },
                    None,
                )
                .await?;
                if left != ConsoleExit::Repreview {
                    break (result, left);
                }
            };
            conclude(&result, Operation::Preview)?;
            if left != ConsoleExit::Apply {
                return Ok(());
            }
            let up = options(&ws, &stack, Operation::Update, &a, Display::Console)?;
            let note = if phase == 1 {
                format!("demo 1/2 {what}, then phase 2")
            } else {
                format!("demo 2/2 {what}")
            };
            let (result, left) = session(
                &mut console,
                &ws,
                &stack,
                Run {
                    options: up,
                    meta: RunMeta::default(),
                },
                Showing {
                    mode: ConsoleMode::Live,
                    leave_when_done: phase == 1,
                    phase: Some(note),
                },
                None,
            )
            .await?;
            conclude(&result, Operation::Update)?;
            if matches!(left, ConsoleExit::Quit { .. }) {
                return Ok(());
            }
        }
        Ok(())
    }
    .await;
    let report = console.take_report();
    drop(console);
    if let Some(report) = report {
        out!("{report}")?;
    }
    outcome
}
