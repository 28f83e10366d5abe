//! The command line: parses arguments, runs the command, maps errors to exit codes.

mod about;
mod approvals;
mod args;
mod attach;
mod config;
mod console;
mod demo;
mod deploy;
mod display;
mod errors;
mod graph;
mod held_notices;
mod operation;
mod plan;
mod policy_packs;
mod serve;
mod stack;
mod stack_history;
mod stack_rename;
mod stack_secrets;
mod stack_tag;
mod state;
mod state_move;
mod state_save;
mod stdout;
mod workspace;

use std::process::ExitCode;

use anyhow::Context;
use clap::Parser;
use stepdeck::engine::Operation;

use args::{Cli, Command};

/// Runs the command line and returns the process's exit code.
pub(crate) fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: starting the runtime: {e}");
            return ExitCode::from(1);
        }
    };
    // Output `print!` left without a newline is still buffered: flushed here, a failure is the
    // command's, not lost at exit.
    let flushed = |()| stdout::write(format_args!("")).map_err(anyhow::Error::from);
    match runtime.block_on(dispatch(cli)).and_then(flushed) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            if state::fails_integrity(&e) {
                eprintln!("The stack's state can be repaired with `stepdeck state repair`.");
            }
            ExitCode::from(errors::exit_code(&e))
        }
    }
}

async fn dispatch(cli: Cli) -> anyhow::Result<()> {
    let backend = cli.backend.as_deref();
    match cli.command {
        Command::Demo(args) => return demo::run(args).await,
        Command::Attach(args) => return attach::run(args).await,
        Command::Version => {
            return about::version();
        }
        Command::About { stack, json } => {
            let dir = workspace::project_dir(cli.cwd.as_deref()).ok();
            return about::about(dir.as_deref(), backend, stack.stack.as_deref(), json);
        }
        _ => {}
    }
    let dir = std::path::absolute(workspace::project_dir(cli.cwd.as_deref())?)
        .context("resolving the project directory")?;
    // As Pulumi does, run in the project directory (`--cwd` changes to it): built-in providers
    // such as `command` run their commands there, as Pulumi's plugins do.
    std::env::set_current_dir(&dir)
        .with_context(|| format!("changing to the project directory {}", dir.display()))?;
    match cli.command {
        Command::Preview(a) => operation::run(&dir, backend, Operation::Preview, a).await,
        Command::Up(a) => operation::run(&dir, backend, Operation::Update, a).await,
        Command::Destroy(a) => operation::run(&dir, backend, Operation::Destroy, a).await,
        Command::Refresh(a) => operation::run(&dir, backend, Operation::Refresh, a).await,
        Command::Stack(c) => stack::run(&dir, backend, c),
        Command::Config(c) => config::run(&dir, backend, c),
        Command::State(c) => state::run(&dir, backend, c),
        Command::Demo(_) | Command::Attach(_) | Command::Version | Command::About { .. } => {
            unreachable!("handled above")
        }
    }
}
