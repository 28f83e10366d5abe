//! The command line, as clap types.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// stepdeck: a deployment engine in the Pulumi model with a live operator's console.
#[derive(Debug, Parser)]
#[command(name = "stepdeck", version, about, propagate_version = true)]
pub(super) struct Cli {
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
pub(super) enum Command {
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
    /// Edit the stack's state directly (delete, protect, rename, taint resources; repair).
    #[command(subcommand)]
    State(StateCommand),
    /// Run the bundled demo deployment in the console.
    Demo(DemoArgs),
    /// Open the console of a deployment served elsewhere (`up --serve`): watch it, and with
    /// an acting token pause, approve, decline and cancel it.
    Attach(AttachArgs),
    /// Print stepdeck's version.
    Version,
    /// Print what stepdeck runs with: version, OS, backend, stack, runtime, plugins.
    About {
        #[command(flatten)]
        stack: StackArg,
        #[arg(short, long)]
        json: bool,
    },
}

/// How replacements that must delete first are approved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(super) enum ApprovalArg {
    Ask,
    Auto,
    Decline,
}

#[derive(Debug, Clone, Args)]
pub(super) struct StackArg {
    /// The stack to operate on (created on first use).
    #[arg(short, long, value_name = "NAME")]
    pub stack: Option<String>,
}

#[derive(Debug, Clone, Args)]
pub(super) struct DeployArgs {
    #[command(flatten)]
    pub stack: StackArg,
    /// Workers that run steps at once (default: 4 × cores; at most 16384).
    #[arg(short, long, value_name = "N", value_parser = parse_parallel)]
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
    /// An approval rule, `KIND=POLICY` or `KIND[URN-GLOB]=POLICY` (repeatable): KIND is
    /// deletes, replacements, updates, creates or violations (steps on resources a policy pack
    /// warned about; comma-separated for several); POLICY is ask, auto or decline.
    #[arg(long = "approve", value_name = "RULE")]
    pub approve: Vec<String>,
    /// Read approval rules from FILE (YAML or JSON: `KIND[URN-GLOB]: POLICY` entries).
    #[arg(long, value_name = "FILE")]
    pub approve_file: Option<PathBuf>,
    /// Answer gates from FILE (`URN-GLOB: approve|decline`, first match wins); without a
    /// console, a gate no entry answers is declined.
    #[arg(long, value_name = "FILE")]
    pub decisions: Option<PathBuf>,
    /// Pause before a step on a matching URN starts (repeatable): a breakpoint.
    #[arg(long = "pause-before", value_name = "URN-GLOB")]
    pub pause_before: Vec<String>,
    /// Skip the confirmation (and, in the console, the preview step).
    #[arg(short, long)]
    pub yes: bool,
    /// Print plain progress lines instead of opening the console.
    #[arg(long)]
    pub non_interactive: bool,
    /// Print Pulumi-shaped JSON.
    #[arg(short, long)]
    pub json: bool,
    /// Set a config value (`KEY=VALUE`, repeatable) in the stack's settings before running.
    #[arg(short = 'c', long = "config", value_name = "KEY=VALUE")]
    pub config: Vec<String>,
    /// The --config keys are paths into maps or lists.
    #[arg(long)]
    pub config_path: bool,
    /// In the console, update without previewing first.
    #[arg(short = 'f', long)]
    pub skip_preview: bool,
    /// A message recorded with the update in the stack's history.
    #[arg(short, long, value_name = "TEXT")]
    pub message: Option<String>,
    /// Preview: write what the preview decided for every resource to FILE (an update plan,
    /// Pulumi's plan shape) for `up --plan`.
    #[arg(long, value_name = "FILE")]
    pub save_plan: Option<PathBuf>,
    /// Up: do only what the plan in FILE (from `preview --save-plan`) allows; a resource or
    /// input it does not plan fails the update before its step runs.
    #[arg(long, value_name = "FILE")]
    pub plan: Option<PathBuf>,
    /// With --plan: outputs the plan did not expect are an error too.
    #[arg(long, requires = "plan")]
    pub strict: bool,
    /// Destroy and refresh: run the program too (its registrations are answered from the
    /// recorded state; nothing is created or updated).
    #[arg(long)]
    pub run_program: bool,
    /// Preview and up: run the policy pack in DIR (repeatable, or comma-separated).
    #[arg(long = "policy-pack", value_name = "DIR", value_delimiter = ',')]
    pub policy_packs: Vec<String>,
    /// Preview and up: the config (JSON) of the policy pack of the matching --policy-pack.
    #[arg(
        long = "policy-pack-config",
        value_name = "FILE",
        value_delimiter = ','
    )]
    pub policy_pack_configs: Vec<PathBuf>,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub serve: ServeArgs,
}

/// `--serve`: the deployment's console served to watchers elsewhere (`stepdeck attach`).
#[derive(Debug, Clone, Default, Args)]
pub(super) struct ServeArgs {
    /// Also serve the console at ADDR: `host:port`, a port (on localhost), or `unix:/path`.
    /// Tokens come from STEPDECK_SERVE_TOKEN / STEPDECK_SERVE_WATCH_TOKEN or the token
    /// files; those not given are generated and printed once on standard error.
    #[arg(long, value_name = "ADDR")]
    pub serve: Option<String>,
    /// Read the token that may act from FILE.
    #[arg(long, value_name = "FILE", requires = "serve")]
    pub serve_token_file: Option<PathBuf>,
    /// Read the watch-only token from FILE.
    #[arg(long, value_name = "FILE", requires = "serve")]
    pub serve_watch_token_file: Option<PathBuf>,
    /// Serve over TLS with this certificate (PEM).
    #[arg(long, value_name = "FILE", requires_all = ["serve", "serve_tls_key"])]
    pub serve_tls_cert: Option<PathBuf>,
    /// The TLS certificate's private key (PEM).
    #[arg(long, value_name = "FILE", requires = "serve_tls_cert")]
    pub serve_tls_key: Option<PathBuf>,
    /// Decline a cascade that no one decided within this many seconds.
    #[arg(long, value_name = "SECONDS", requires = "serve")]
    pub approval_timeout: Option<u64>,
}

/// `stepdeck attach`.
#[derive(Debug, Clone, Args)]
pub(super) struct AttachArgs {
    /// Where the deployment is served: `host:port`, a port (on localhost), or `unix:/path`.
    #[arg(value_name = "ADDR")]
    pub address: String,
    /// Read the token from FILE (default: the STEPDECK_TOKEN environment variable).
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// The name your actions are recorded with (default: user@host).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Print the engine events as Pulumi's JSON event stream instead of opening the console.
    #[arg(short, long)]
    pub json: bool,
    /// Speak TLS and trust this CA certificate (PEM).
    #[arg(long, value_name = "FILE")]
    pub tls_ca: Option<PathBuf>,
    /// The name the server's certificate must carry (default: the address's host).
    #[arg(long, value_name = "NAME", requires = "tls_ca")]
    pub tls_domain: Option<String>,
}

/// What the plain and JSON displays show, and the engine-event log (Pulumi's flags).
#[derive(Debug, Clone, Default, Args)]
pub(super) struct OutputArgs {
    /// Also write Pulumi's engine events to FILE, one JSON object a line (implies the plain
    /// display unless --json).
    #[arg(long, value_name = "FILE")]
    pub event_log: Option<PathBuf>,
    /// Show resources that do not change.
    #[arg(long)]
    pub show_sames: bool,
    /// Show the create and delete halves of replacements as steps of their own.
    #[arg(long)]
    pub show_replacement_steps: bool,
    /// Show each change's properties (implies the plain display unless --json).
    #[arg(long)]
    pub diff: bool,
    /// Fail with exit code 7 if a preview or update changes anything (the update still runs,
    /// as Pulumi's does).
    #[arg(long)]
    pub expect_no_changes: bool,
    /// Do not show the stack's outputs.
    #[arg(long)]
    pub suppress_outputs: bool,
}

/// The most workers `--parallel` may ask for: the engine sizes its worker pool by it.
pub(super) const MAX_PARALLEL: usize = 16_384;

/// `--parallel`: a count of workers from 1 to [`MAX_PARALLEL`].
fn parse_parallel(text: &str) -> Result<usize, String> {
    text.parse::<usize>()
        .ok()
        .filter(|n| (1..=MAX_PARALLEL).contains(n))
        .ok_or_else(|| format!("expected a number of workers from 1 to {MAX_PARALLEL}"))
}

#[derive(Debug, Subcommand)]
pub(super) enum StackCommand {
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
    /// List the stack's updates, newest first.
    History {
        #[command(flatten)]
        stack: StackArg,
        /// Print Pulumi's `UpdateInfo` JSON.
        #[arg(short, long)]
        json: bool,
    },
    /// Rename the stack: its state (every URN rewritten), settings file, history and tags.
    Rename {
        #[command(flatten)]
        stack: StackArg,
        /// The stack's new name.
        new_name: String,
    },
    /// Re-encrypt every secret of the stack's state and config with a new passphrase (the
    /// old one from PULUMI_CONFIG_PASSPHRASE, the new one from a prompt, or from standard
    /// input when it is not a terminal).
    ChangeSecretsProvider {
        #[command(flatten)]
        stack: StackArg,
        /// The new provider: only `passphrase` is supported.
        provider: String,
    },
    /// Manage the stack's tags.
    #[command(subcommand)]
    Tag(TagCommand),
    /// Remove a stack's update lock.
    Unlock {
        #[command(flatten)]
        stack: StackArg,
        /// Remove the lock even if its holder may still be running.
        #[arg(long)]
        force: bool,
    },
}

/// `stack tag`: tags live in the backend; `pulumi:` tags are derived and read-only.
#[derive(Debug, Subcommand)]
pub(super) enum TagCommand {
    /// Print one tag's value.
    Get {
        #[command(flatten)]
        stack: StackArg,
        name: String,
    },
    /// Set a tag.
    Set {
        #[command(flatten)]
        stack: StackArg,
        name: String,
        value: String,
    },
    /// Remove a tag.
    Rm {
        #[command(flatten)]
        stack: StackArg,
        name: String,
    },
    /// List every tag.
    Ls {
        #[command(flatten)]
        stack: StackArg,
        #[arg(short, long)]
        json: bool,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(super) enum GraphFormat {
    Dot,
    Mermaid,
}

#[derive(Debug, Subcommand)]
pub(super) enum ConfigCommand {
    /// Set a configuration value (`--secret` encrypts it).
    Set {
        #[command(flatten)]
        stack: StackArg,
        key: String,
        value: String,
        /// Encrypt the value.
        #[arg(long, conflicts_with_all = ["plaintext", "type_"])]
        secret: bool,
        /// Save the value as plaintext (the default; excludes --secret and --type).
        #[arg(long, conflicts_with = "type_")]
        plaintext: bool,
        /// Save the value as this type.
        #[arg(long = "type", value_enum, value_name = "TYPE")]
        type_: Option<ConfigTypeArg>,
        /// The key is a path into a map or list (`names[0]`, `db.port`, `["a.b"]`).
        #[arg(long)]
        path: bool,
    },
    /// Set several configuration values at once.
    SetAll {
        #[command(flatten)]
        stack: StackArg,
        /// A `key=value` pair saved in plaintext (repeatable).
        #[arg(long, value_name = "KEY=VALUE")]
        plaintext: Vec<String>,
        /// A `key=value` pair saved encrypted (repeatable).
        #[arg(long, value_name = "KEY=VALUE")]
        secret: Vec<String>,
        /// The keys are paths into maps or lists.
        #[arg(long)]
        path: bool,
        /// The values as a JSON object: `{"key": {"value": "v", "secret": true}}`.
        #[arg(long, value_name = "JSON", conflicts_with_all = ["plaintext", "secret", "path"])]
        json: Option<String>,
    },
    /// Print a configuration value.
    Get {
        #[command(flatten)]
        stack: StackArg,
        key: String,
        /// The key is a path into a map or list.
        #[arg(long)]
        path: bool,
    },
    /// Remove a configuration value.
    Rm {
        #[command(flatten)]
        stack: StackArg,
        key: String,
        /// The key is a path into a map or list.
        #[arg(long)]
        path: bool,
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

/// `config set --type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(super) enum ConfigTypeArg {
    String,
    Int,
    Bool,
    Float,
}

#[derive(Debug, Clone, Args)]
pub(super) struct DemoArgs {
    /// Keep the demo's state here instead of a fresh temporary directory.
    #[arg(long, value_name = "DIR")]
    pub state_dir: Option<PathBuf>,
    /// Print plain progress lines instead of opening the console.
    #[arg(long)]
    pub non_interactive: bool,
}

/// What every `state` edit takes: the stack and the confirmation.
#[derive(Debug, Clone, Args)]
pub(super) struct StateEditArgs {
    #[command(flatten)]
    pub stack: StackArg,
    /// Skip the confirmation prompt.
    #[arg(short, long)]
    pub yes: bool,
}

/// `state protect` / `state unprotect`: some resources, or all of them.
#[derive(Debug, Clone, Args)]
pub(super) struct StateProtectArgs {
    #[command(flatten)]
    pub edit: StateEditArgs,
    #[arg(value_name = "URN", required_unless_present = "all")]
    pub urns: Vec<String>,
    /// Every resource of the stack.
    #[arg(long, conflicts_with = "urns")]
    pub all: bool,
}

/// A `state` edit of the resources named by URN.
#[derive(Debug, Clone, Args)]
pub(super) struct StateUrnsArgs {
    #[command(flatten)]
    pub edit: StateEditArgs,
    #[arg(required = true, value_name = "URN")]
    pub urns: Vec<String>,
}

#[derive(Debug, Subcommand)]
pub(super) enum StateCommand {
    /// Delete resources from the state only (the cloud is not touched).
    #[command(visible_aliases = ["rm", "remove"])]
    Delete {
        #[command(flatten)]
        edit: StateEditArgs,
        #[arg(required = true, value_name = "URN")]
        urns: Vec<String>,
        /// Also delete everything that depends on them.
        #[arg(long)]
        target_dependents: bool,
        /// Delete protected resources too.
        #[arg(long)]
        force: bool,
    },
    /// Set the protect flag, so that no deployment deletes the resources.
    Protect(StateProtectArgs),
    /// Clear the protect flag.
    Unprotect(StateProtectArgs),
    /// Give a resource a new name, keeping everything that refers to it pointing at it.
    Rename {
        #[command(flatten)]
        edit: StateEditArgs,
        #[arg(value_name = "URN")]
        urn: String,
        #[arg(value_name = "NEW_NAME")]
        new_name: String,
    },
    /// Mark resources to be replaced by the next update.
    Taint(StateUrnsArgs),
    /// Clear the taint mark.
    Untaint(StateUrnsArgs),
    /// Sort a state that fails the integrity check and drop references to missing resources.
    Repair {
        #[command(flatten)]
        edit: StateEditArgs,
    },
    /// Move resources (with their children) to another stack of the project.
    #[command(visible_alias = "mv")]
    Move(StateMoveArgs),
    /// Edit the state as exported JSON in $VISUAL or $EDITOR; saved only if it is valid.
    Edit {
        #[command(flatten)]
        stack: StackArg,
    },
}

#[derive(Debug, Clone, Args)]
pub(super) struct StateMoveArgs {
    /// The stack to move from (default: the current stack).
    #[arg(long, value_name = "NAME")]
    pub source: Option<String>,
    /// The stack to move to (default: the current stack).
    #[arg(long, value_name = "NAME")]
    pub dest: Option<String>,
    #[arg(required = true, value_name = "URN")]
    pub urns: Vec<String>,
    /// Move the resources' parents too.
    #[arg(long)]
    pub include_parents: bool,
    /// Skip the confirmation prompt.
    #[arg(short, long)]
    pub yes: bool,
}
