//! The command line, as clap types.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// stepdeck: a deployment engine in the Pulumi model with a live operator's console.
#[derive(Debug, Parser)]
#[command(name = "stepdeck", version, about, propagate_version = true)]
pub struct Cli {
    /// Run as if started in this directory.
    #[arg(short = 'C', long, global = true, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Where state is kept (`file://DIR`); defaults to `file://~/.stepdeck`.
    #[arg(long, global = true, env = "STEPDECK_BACKEND_URL", value_name = "URL")]
    pub backend: Option<String>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show what an update would do, without doing it.
    Preview(DeployArgs),
    /// Create or update the stack's resources.
    Up(DeployArgs),
    /// Delete every resource of the stack.
    Destroy(DeployArgs),
    /// Read every resource back from its provider and record what exists.
    Refresh(DeployArgs),
    /// Manage stacks.
    #[command(subcommand)]
    Stack(StackCommand),
    /// Manage stack configuration.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Run the bundled demo deployment in the console.
    Demo(DemoArgs),
}

/// How replacements that must delete first are approved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ApprovalArg {
    Ask,
    Auto,
    Decline,
}

#[derive(Debug, Clone, Args)]
pub struct StackArg {
    /// The stack to operate on (created on first use).
    #[arg(short, long, value_name = "NAME")]
    pub stack: Option<String>,
}

#[derive(Debug, Clone, Args)]
pub struct DeployArgs {
    #[command(flatten)]
    pub stack: StackArg,
    /// Workers that run steps at once (default: 4 × cores).
    #[arg(short, long, value_name = "N")]
    pub parallel: Option<usize>,
    /// Run provider diffs on the workers while planning goes on.
    #[arg(long)]
    pub parallel_diff: bool,
    /// Operate only on these URNs (globs: `*` within a segment, `**` anything).
    #[arg(short, long = "target", value_name = "URN")]
    pub targets: Vec<String>,
    /// Leave these URNs alone (globs, as for --target).
    #[arg(long = "exclude", value_name = "URN", conflicts_with = "targets")]
    pub excludes: Vec<String>,
    /// Also operate on resources that depend on the targets.
    #[arg(long)]
    pub target_dependents: bool,
    /// Also leave alone resources that depend on the excluded ones.
    #[arg(long)]
    pub exclude_dependents: bool,
    /// Refresh every resource from its provider before the update.
    #[arg(short, long)]
    pub refresh: bool,
    /// Delete or replace protected resources anyway (their protect flag is kept).
    #[arg(long)]
    pub ignore_protect: bool,
    /// Drop the pending creates an interrupted run left, once you checked they made nothing.
    #[arg(long)]
    pub clear_pending_creates: bool,
    /// Replace these URNs whatever their diff says.
    #[arg(long = "replace", value_name = "URN")]
    pub replace: Vec<String>,
    /// Shorthand for `--target URN --replace URN`.
    #[arg(long = "target-replace", value_name = "URN")]
    pub target_replace: Vec<String>,
    /// Keep going after a failed step, skipping what depends on it.
    #[arg(long)]
    pub continue_on_error: bool,
    /// What to do with delete-before-replace cascades (default: ask in the console, auto otherwise).
    #[arg(long, value_enum, value_name = "POLICY")]
    pub approve_replacements: Option<ApprovalArg>,
    /// Skip the confirmation (and, in the console, the preview step).
    #[arg(short, long)]
    pub yes: bool,
    /// Print plain progress lines instead of opening the console.
    #[arg(long)]
    pub non_interactive: bool,
    /// Print Pulumi-shaped JSON.
    #[arg(short, long)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum StackCommand {
    /// Create a stack and select it.
    Init { name: String },
    /// List the project's stacks.
    Ls,
    /// Select the stack later commands use.
    Select { name: String },
    /// Remove a stack (it must have no resources unless --force).
    Rm {
        name: String,
        #[arg(short, long)]
        force: bool,
        #[arg(short, long)]
        yes: bool,
    },
    /// Write the stack's state as Pulumi's `{version: 3, deployment}` JSON.
    Export {
        #[command(flatten)]
        stack: StackArg,
        /// Write to this file instead of standard output.
        #[arg(long, value_name = "FILE")]
        file: Option<PathBuf>,
    },
    /// Replace the stack's state with an exported deployment.
    Import {
        #[command(flatten)]
        stack: StackArg,
        /// Read from this file instead of standard input.
        #[arg(long, value_name = "FILE")]
        file: Option<PathBuf>,
    },
    /// Print the stack's outputs.
    Output {
        #[command(flatten)]
        stack: StackArg,
        /// Print one output.
        name: Option<String>,
        #[arg(short, long)]
        json: bool,
        /// Print secret values in plain text.
        #[arg(long)]
        show_secrets: bool,
    },
    /// Print the stack's dependency graph.
    Graph {
        #[command(flatten)]
        stack: StackArg,
        #[arg(long, value_enum, default_value = "dot")]
        format: GraphFormat,
    },
    /// Remove a stack's update lock.
    Unlock {
        #[command(flatten)]
        stack: StackArg,
        /// Remove the lock even if its holder may still be running.
        #[arg(long)]
        force: bool,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GraphFormat {
    Dot,
    Mermaid,
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Set a configuration value (`--secret` encrypts it).
    Set {
        #[command(flatten)]
        stack: StackArg,
        key: String,
        value: String,
        #[arg(long)]
        secret: bool,
    },
    /// Print a configuration value.
    Get {
        #[command(flatten)]
        stack: StackArg,
        key: String,
    },
    /// Remove a configuration value.
    Rm {
        #[command(flatten)]
        stack: StackArg,
        key: String,
    },
    /// List the configuration.
    Ls {
        #[command(flatten)]
        stack: StackArg,
        /// Print secret values in plain text.
        #[arg(long)]
        show_secrets: bool,
        #[arg(short, long)]
        json: bool,
    },
}

#[derive(Debug, Clone, Args)]
pub struct DemoArgs {
    /// Keep the demo's state here instead of a fresh temporary directory.
    #[arg(long, value_name = "DIR")]
    pub state_dir: Option<PathBuf>,
    /// Print plain progress lines instead of opening the console.
    #[arg(long)]
    pub non_interactive: bool,
}
