//! The command line: parses arguments, runs the command, maps errors to exit codes.

mod about;
mod approvals;
mod args;
mod attach;
mod cancel;
mod config;
mod config_list;
mod config_refresh;
mod console;
mod credentials;
mod demo;
mod deploy;
mod display;
mod errors;
mod exclude_protected;
mod graph;
mod held_notices;
mod import;
mod install;
mod login;
mod new;
mod node_package_manager;
mod node_workspace;
mod operation;
mod org;
mod package;
mod plan;
mod plugin;
mod policy_packs;
mod pulumi_flags;
mod recording;
mod replay;
mod serve;
mod stack;
mod stack_history;
mod stack_list;
mod stack_name;
mod stack_rename;
mod stack_secrets;
mod stack_show;
mod stack_tag;
mod state;
mod state_move;
mod state_save;
mod stdout;
mod summary_json;
mod time_format;
mod whoami;
mod workspace;

use std::process::ExitCode;

use anyhow::Context;
use clap::{CommandFactory, FromArgMatches};
use stepdeck::engine::Operation;

use args::{Cli, Command};

/// Parses the command line as `pulumi` would (see [`pulumi_flags`]); a flag error is printed
/// in cobra's words (exit code 1), help to standard output (exit code 0).
fn parse() -> Result<Cli, ExitCode> {
    let command = pulumi_flags::cobra_syntax(Cli::command());
    let parsed = command
        .clone()
        .try_get_matches_from(std::env::args_os())
        .and_then(|mut m| Cli::from_arg_matches_mut(&mut m));
    parsed.map_err(|e| {
        if !e.use_stderr() {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        match pulumi_flags::cobra_message(&e, &command) {
            Some(message) => eprintln!("error: {message}"),
            None => {
                let _ = e.print();
            }
        }
        ExitCode::from(1)
    })
}

/// The name this program was run as (`stepdeck`, or `pulumi` when installed as that), for
/// the commands messages suggest.
pub(super) fn program_name() -> String {
    std::env::args_os()
        .next()
        .as_deref()
        .map(std::path::Path::new)
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "stepdeck".into())
}

/// Runs the command line and returns the process's exit code.
pub(crate) fn main() -> ExitCode {
    let cli = match parse() {
        Ok(c) => c,
        Err(code) => return code,
    };
    if let Err(message) = cli.global.validate() {
        eprintln!("error: {message}");
        return ExitCode::from(1);
    }
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
            eprintln!("error: {}", errors::render(&e));
            if state::fails_integrity(&e) {
                eprintln!("The stack's state can be repaired with `stepdeck state repair`.");
            }
            ExitCode::from(errors::exit_code(&e))
        }
    }
}

async fn dispatch(cli: Cli) -> anyhow::Result<()> {
    let global = cli.global;
    stack_name::fully_qualify(global.fully_qualify_stack_names);
    let backend = global.backend.as_deref();
    let command = match cli.command {
        _ if cli.version => Command::Version,
        Some(c) => c,
        None => {
            let mut help = Cli::command();
            help.print_help()?;
            return Ok(());
        }
    };
    match command {
        Command::Demo(mut args) => {
            args.non_interactive |= global.non_interactive;
            return demo::run(args).await;
        }
        Command::Attach(args) => return attach::run(args).await,
        Command::Replay { file, stack, json } => {
            let file = replay::File {
                path: &file,
                stack: stack.as_deref(),
                backend,
                cwd: global.cwd.as_deref(),
                json,
                non_interactive: global.non_interactive,
            };
            return replay::replay_file(file).await;
        }
        Command::Version => {
            return about::version();
        }
        Command::About {
            stack,
            json,
            output,
        } => {
            let dir = workspace::project_dir(global.cwd.as_deref()).ok();
            let json = json || output.as_deref() == Some("json");
            return about::about(dir.as_deref(), backend, stack.stack.as_deref(), json);
        }
        Command::Org(c) => return org::run(c, backend),
        Command::Package(c) => {
            let wd = match global.cwd.as_deref() {
                Some(d) => std::path::absolute(d).context("resolving --cwd")?,
                None => std::env::current_dir().context("reading the current directory")?,
            };
            return package::run(&wd, c).await;
        }
        Command::Plugin(c) => return plugin::run(c),
        Command::New(a) => return new::run(global.cwd.as_deref(), backend, a).await,
        Command::Login { url, local } => {
            let dir = workspace::project_dir(global.cwd.as_deref()).ok();
            return login::login(dir.as_deref(), backend, url, local);
        }
        Command::Logout { url, local, all } => {
            let dir = workspace::project_dir(global.cwd.as_deref()).ok();
            return login::logout(dir.as_deref(), backend, url, local, all);
        }
        Command::Whoami { json } => {
            let dir = workspace::project_dir(global.cwd.as_deref()).ok();
            let verbose = global.verbose.is_some();
            return whoami::whoami(dir.as_deref(), backend, verbose, json);
        }
        _ => {}
    }
    let dir = std::path::absolute(match &command {
        // A policy pack's or a plugin's directory installs its own dependencies.
        Command::Install { .. } => workspace::install_dir(global.cwd.as_deref())?,
        _ => workspace::project_dir(global.cwd.as_deref())?,
    })
    .context("resolving the project directory")?;
    // As Pulumi does, run in the project directory (`--cwd` changes to it): built-in providers
    // such as `command` run their commands there, as Pulumi's plugins do.
    std::env::set_current_dir(&dir)
        .with_context(|| format!("changing to the project directory {}", dir.display()))?;
    let deploy = |mut a: args::DeployArgs| {
        a.non_interactive |= global.non_interactive;
        a
    };
    match command {
        Command::Preview(a) => operation::run(&dir, backend, Operation::Preview, deploy(a)).await,
        Command::Up(a) => operation::run(&dir, backend, Operation::Update, deploy(a)).await,
        Command::Destroy(a) => operation::run(&dir, backend, Operation::Destroy, deploy(a)).await,
        Command::Refresh(a) => operation::run(&dir, backend, Operation::Refresh, deploy(a)).await,
        Command::Import(a) => import::run(&dir, backend, a).await,
        Command::Install {
            no_dependencies,
            use_language_version_tools,
            ..
        } => {
            if use_language_version_tools {
                return Err(errors::usage(
                    "--use-language-version-tools is not supported: it downloads language toolchains",
                ));
            }
            install::run(&dir, no_dependencies).await
        }
        Command::Cancel { name, stack, yes } => {
            let name = stack::one_name(name, stack.stack)?;
            cancel::run(&dir, backend, name, yes).await
        }
        Command::Stack(args::StackArgs {
            command:
                Some(args::StackCommand::History {
                    stack,
                    json,
                    open: Some(version),
                    ..
                }),
            ..
        }) => {
            let open = replay::Open {
                stack: stack.stack.as_deref(),
                version,
                json,
                non_interactive: global.non_interactive,
            };
            replay::replay_update(&dir, backend, open).await
        }
        Command::Stack(args::StackArgs {
            command: Some(c), ..
        }) => stack::run(&dir, backend, c),
        Command::Stack(a) => stack_show::run(&dir, backend, &a),
        Command::Config(c) => config::run(&dir, backend, c),
        Command::State(c) => state::run(&dir, backend, c),
        Command::Demo(_)
        | Command::Attach(_)
        | Command::Replay { .. }
        | Command::Version
        | Command::About { .. }
        | Command::Org(_)
        | Command::Package(_)
        | Command::Plugin(_)
        | Command::New(_)
        | Command::Login { .. }
        | Command::Logout { .. }
        | Command::Whoami { .. } => {
            unreachable!("handled above")
        }
    }
}
