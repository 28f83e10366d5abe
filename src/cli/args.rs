//! The command line, as clap types.

use std::path::PathBuf;

use clap::builder::BoolishValueParser;
use clap::{ArgAction, Args, Parser, Subcommand, ValueEnum};

use super::pulumi_flags::GlobalArgs;
use stepdeck::rpc::debugger::targets::DebugTargets;

/// stepdeck: a deployment engine in the Pulumi model with a live operator's console.
#[derive(Debug, Parser)]
#[command(name = "stepdeck", about, disable_version_flag = true)]
pub(super) struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Print the version (Pulumi's, whose command line stepdeck implements, with stepdeck's).
    #[arg(long)]
    pub version: bool,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub(super) enum Command {
    /// Show what an update would do, without doing it.
    Preview(DeployArgs),
    /// Create or update the stack's resources.
    Up(DeployArgs),
    /// Delete every resource of the stack.
    #[command(visible_aliases = ["down", "dn"])]
    Destroy(DeployArgs),
    /// Read every resource back from its provider and record what exists.
    Refresh(DeployArgs),
    /// Import existing resources into the stack.
    ///
    /// One as TYPE NAME ID, or those of an import file (`--file`); prints Pulumi YAML declaring
    /// them.
    Import(ImportArgs),
    /// Cancel the update running on the stack.
    ///
    /// A run of this host is asked to stop as Ctrl-C asks it, and waited for; a lock whose
    /// holder is gone is released.
    Cancel {
        #[arg(value_name = "STACK")]
        name: Option<String>,
        #[command(flatten)]
        stack: StackArg,
        /// Cancel without asking.
        #[arg(short, long)]
        yes: bool,
    },
    /// Manage plugins.
    ///
    /// Pulumi's plugin cache (`$PULUMI_HOME/plugins`), installed from local files only.
    #[command(subcommand)]
    Plugin(PluginCommand),
    /// Work with packages: their schemas, and SDKs generated from them.
    #[command(subcommand)]
    Package(PackageCommand),
    /// Create a project from a local template directory (and its first stack).
    New(NewArgs),
    /// Install the project's dependencies.
    ///
    /// A Python virtualenv and its requirements, Node.js packages; plugins are not downloaded.
    Install {
        /// Skip installing dependencies.
        #[arg(long)]
        no_dependencies: bool,
        /// Skip installing plugins (accepted: plugins are never downloaded).
        #[arg(long)]
        no_plugins: bool,
        /// Reinstall plugins (accepted: plugins are never downloaded).
        #[arg(long)]
        reinstall: bool,
        /// Install the language's version tools (refused: they download toolchains).
        #[arg(long)]
        use_language_version_tools: bool,
        /// Packages installed at once (accepted).
        #[arg(long, value_name = "N")]
        parallel: Option<usize>,
    },
    /// Manage stacks (with no subcommand: show the current one).
    Stack(StackArgs),
    /// Manage stack configuration (with no subcommand: list it).
    Config(ConfigArgs),
    /// Edit the stack's state directly (delete, protect, rename, taint resources; repair).
    #[command(subcommand)]
    State(StateCommand),
    /// Run the bundled demo deployment in the console.
    Demo(DemoArgs),
    /// Open the console of a deployment served elsewhere (`up --serve`): watch it, and with
    /// an acting token pause, approve, decline and cancel it.
    Attach(AttachArgs),
    /// Open a finished run in the console, read-only, on a timeline to scrub: an `--event-log`
    /// file or the `--json` output of `up`, `destroy` or `refresh`.
    Replay {
        /// The engine-event stream, one JSON object a line.
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// The stack whose state gives the run's dependencies (the file records none); else
        /// the stack the file names, if the project here or beside the file has it.
        #[arg(short, long)]
        stack: Option<String>,
        /// Refused: a replay opens the console.
        #[arg(short, long)]
        json: bool,
    },
    /// Print the version: Pulumi's, whose command line stepdeck implements, with stepdeck's
    /// own as build metadata (`v3.N.0+stepdeck.X.Y.Z`).
    Version,
    /// The default organization (DIY backends have none).
    #[command(subcommand)]
    Org(OrgCommand),
    /// Print what stepdeck runs with: version, OS, backend, stack, runtime, plugins.
    About {
        #[command(flatten)]
        stack: StackArg,
        #[arg(short, long)]
        json: bool,
        /// Pulumi's `about --output json`.
        #[arg(short, long, value_name = "FORMAT")]
        output: Option<String>,
    },
    /// Make a backend current for every later command without a flag, variable or project
    /// `backend.url` (Pulumi's `credentials.json`, shared with `pulumi`).
    Login {
        /// `file://DIR` or `postgres://…`; none: the backend commands here use now.
        url: Option<String>,
        /// The same as `file://~`.
        #[arg(short, long, conflicts_with = "url")]
        local: bool,
    },
    /// Forget a backend `login` recorded (the state is not touched).
    Logout {
        /// None: the backend commands here use now.
        url: Option<String>,
        /// The same as `file://~`.
        #[arg(short, long, conflicts_with = "url")]
        local: bool,
        /// Forget every backend.
        #[arg(long, conflicts_with_all = ["url", "local"])]
        all: bool,
    },
    /// Print the user a self-managed backend knows (the OS user); with `--verbose` the backend
    /// URL commands here use too.
    Whoami {
        #[arg(short, long)]
        json: bool,
    },
}

/// `new`: Pulumi's flags.
#[derive(Debug, Clone, Args)]
pub(super) struct NewArgs {
    /// The template: a local directory holding its `Pulumi.yaml` (names and URLs need
    /// Pulumi's template repositories and are refused).
    #[arg(value_name = "TEMPLATE-DIR")]
    pub template: Option<String>,
    /// The project name (default: the directory's name).
    #[arg(short, long, value_name = "NAME")]
    pub name: Option<String>,
    /// The stack to create (default: dev).
    #[arg(short, long, value_name = "NAME")]
    pub stack: Option<String>,
    /// The project description (default: the template's).
    #[arg(short, long, value_name = "TEXT")]
    pub description: Option<String>,
    /// Config to save in the new stack (`KEY=VALUE`, repeatable).
    #[arg(short = 'c', long = "config", value_name = "KEY=VALUE")]
    pub config: Vec<String>,
    /// The --config keys are paths into maps or lists.
    #[arg(long)]
    pub config_path: bool,
    /// Where to make the project (created if missing; default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Write into a directory that is not empty, overwriting files.
    #[arg(short, long)]
    pub force: bool,
    /// Only write the project: no stack, no config.
    #[arg(short, long)]
    pub generate_only: bool,
    /// Use the defaults without asking (stepdeck never asks).
    #[arg(short, long)]
    pub yes: bool,
    /// Use local templates only (accepted: stepdeck uses only local template directories).
    #[arg(short, long)]
    pub offline: bool,
    /// The secrets provider (`default` or `passphrase`).
    #[arg(long, value_name = "PROVIDER")]
    pub secrets_provider: Option<String>,
    /// Options for the language runtime, written into Pulumi.yaml's `runtime.options`
    /// (`KEY=VALUE`, comma-separated or repeated): a Python project's `toolchain` then
    /// decides how its dependencies are recorded.
    #[arg(long, value_name = "KEY=VALUE", value_delimiter = ',')]
    pub runtime_options: Vec<String>,
}

/// `package`: a provider's schema, and the SDK a program uses it through.
#[derive(Debug, Subcommand)]
pub(super) enum PackageCommand {
    /// Print the schema of a package: a plugin directory, executable or installed plugin
    /// (parameterized with the arguments after it), or a schema file.
    GetSchema(PackageSource),
    /// Generate a package's SDK into `sdks/`, link it into the project and record the package
    /// in Pulumi.yaml (or PulumiPlugin.yaml).
    Add {
        #[command(flatten)]
        source: PackageSource,
        /// Run outside a Pulumi project or plugin: the language to generate for.
        #[arg(long, value_name = "LANG")]
        language: Option<String>,
    },
    /// Generate a package's SDKs, one directory per language under `--out`.
    GenSdk {
        #[command(flatten)]
        source: PackageSource,
        /// The language to generate: nodejs, python, or all.
        #[arg(long, value_name = "LANG", default_value = "all")]
        language: String,
        /// Where the SDKs are written.
        #[arg(short, long, value_name = "DIR", default_value = "./sdk")]
        out: PathBuf,
        /// Generate an SDK to link from a local directory rather than to publish.
        #[arg(long)]
        local: bool,
        /// The version the SDK carries, instead of the schema's.
        #[arg(long, value_name = "VERSION")]
        version: Option<String>,
    },
}

/// A package source and what to parameterize its provider with.
#[derive(Debug, Args)]
pub(super) struct PackageSource {
    /// A plugin directory or executable, an installed plugin (`NAME[@VERSION]`), or a schema
    /// file (`.json`, `.yaml`).
    #[arg(value_name = "SOURCE")]
    pub source: String,
    /// Parameters for a parameterized provider (after `--` when they start with a dash).
    #[arg(value_name = "PROVIDER-PARAMETER")]
    pub args: Vec<String>,
}

/// `plugin`: Pulumi's plugin commands.
#[derive(Debug, Subcommand)]
pub(super) enum PluginCommand {
    /// List the installed plugins, the providers built into stepdeck and the provider
    /// plugins on PATH.
    #[command(visible_alias = "list")]
    Ls {
        /// Print Pulumi's JSON: `[{"name", "kind", "version", "size", "installTime", "lastUsedTime"}]`.
        #[arg(short, long)]
        json: bool,
        /// Only the project's plugins (refused: stepdeck does not read a project's plugin list).
        #[arg(short, long)]
        project: bool,
    },
    /// Install a plugin from a local executable, directory or `.tar.gz` (`--file`); nothing is
    /// downloaded.
    Install {
        /// analyzer, language, resource, converter or tool.
        kind: Option<String>,
        name: Option<String>,
        version: Option<String>,
        /// The plugin's executable, a directory holding it, or its `.tar.gz`.
        #[arg(short, long, value_name = "PATH")]
        file: Option<PathBuf>,
        /// A download server (accepted; nothing is downloaded).
        #[arg(long, value_name = "URL")]
        server: Option<String>,
        /// Accepted (an exact version is always installed).
        #[arg(long)]
        exact: bool,
        /// Accepted (an installed version is always replaced).
        #[arg(long)]
        reinstall: bool,
        /// Accepted (a local file is not checked against a checksum).
        #[arg(long, value_name = "HEX")]
        checksum: Option<String>,
    },
    /// Remove installed plugins: by kind, name and version (or range), or `--all`.
    #[command(visible_aliases = ["remove", "delete"])]
    Rm {
        kind: Option<String>,
        name: Option<String>,
        version: Option<String>,
        /// Remove every plugin.
        #[arg(short, long)]
        all: bool,
        /// Remove without asking.
        #[arg(short, long)]
        yes: bool,
    },
}

/// `org`: Pulumi's organizations; a DIY backend has none, as Pulumi's says.
#[derive(Debug, Subcommand)]
pub(super) enum OrgCommand {
    /// Print the default organization.
    GetDefault,
    /// Set the default organization.
    SetDefault {
        #[arg(value_name = "NAME")]
        name: String,
    },
}

/// How replacements that must delete first are approved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(super) enum ApprovalArg {
    Ask,
    Auto,
    Decline,
}

#[derive(Debug, Clone, Default, Args)]
pub(super) struct StackArg {
    /// The stack to operate on (created on first use).
    #[arg(short, long, value_name = "NAME")]
    pub stack: Option<String>,
}

#[derive(Debug, Clone, Default, Args)]
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
    /// `--non-interactive` (a root flag): plain progress lines instead of the console.
    #[arg(skip)]
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
    /// recorded state; nothing is created or updated). Accepted and without effect on up and
    /// preview, which always run it. Default: PULUMI_RUN_PROGRAM.
    #[arg(long, env = "PULUMI_RUN_PROGRAM")]
    pub run_program: bool,
    /// Run without checking the stack's config against the project's declarations (refresh
    /// and destroy check it only with --run-program). Default: PULUMI_OPTION_SKIP_CONFIG_VALIDATION.
    #[arg(long, env = "PULUMI_OPTION_SKIP_CONFIG_VALIDATION")]
    pub skip_config_validation: bool,
    /// Refresh and destroy: only preview what they would do.
    #[arg(long)]
    pub preview_only: bool,
    /// Destroy: then remove the stack and its `Pulumi.<stack>.yaml`, as `stack rm` does.
    #[arg(long)]
    pub remove: bool,
    /// Destroy: leave protected resources, and everything they depend on, alone.
    #[arg(long, conflicts_with = "ignore_protect")]
    pub exclude_protected: bool,
    /// Show debug messages (the program's `log.debug`) too.
    #[arg(short, long)]
    pub debug: bool,
    /// Use this file instead of `Pulumi.<stack>.yaml` for the stack's configuration.
    #[arg(long, value_name = "FILE")]
    pub config_file: Option<PathBuf>,
    /// Preview: write an import file (Pulumi's `import --file` shape) declaring every resource
    /// the update would create.
    #[arg(long, value_name = "FILE")]
    pub import_file: Option<PathBuf>,
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
    /// Start the program (`program`, the default), every plugin started from source
    /// (`plugins`), one plugin (`plugin:<name>`) or all of them (`all`) under its language's
    /// debugger, waiting for one to attach (repeatable).
    #[arg(long, value_name = "WHAT", num_args = 0..=1, require_equals = true,
          default_missing_value = "program", action = ArgAction::Append,
          value_parser = parse_debug_target)]
    pub attach_debugger: Vec<String>,
    /// Do not print progress dots (accepted; stepdeck prints none).
    #[arg(long)]
    pub suppress_progress: bool,
    /// Show reads (accepted; reads are always shown).
    #[arg(long)]
    pub show_reads: bool,
    /// Refresh: leave pending creates alone (accepted; stepdeck keeps them unless told to clear them).
    #[arg(long)]
    pub skip_pending_creates: bool,
    /// Refresh: import a pending create as `URN ID` (refused: use `--clear-pending-creates`).
    #[arg(long, value_name = "URN_OR_ID")]
    pub import_pending_creates: Vec<String>,
    /// How this run was started, recorded in the history's `exec.kind`: `cli` (the
    /// default), `auto.local` or `auto.inline` (Pulumi's Automation API).
    #[arg(long, hide = true, value_name = "KIND")]
    pub exec_kind: Option<String>,
    /// Who started this run, recorded in the history's `exec.agent`.
    #[arg(long, hide = true, value_name = "AGENT")]
    pub exec_agent: Option<String>,
    /// The Automation API's inline program: its language runtime server's address.
    #[arg(long, hide = true, value_name = "ADDR")]
    pub client: Option<String>,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub serve: ServeArgs,
    /// `import`: what its deployment imports (the command builds it; no flag sets it).
    #[arg(skip)]
    pub import: Option<std::sync::Arc<super::import::program::ImportPlan>>,
}

/// `import`: Pulumi's flags.
#[derive(Debug, Clone, Args)]
pub(super) struct ImportArgs {
    /// The resource to import: its type, name and ID (without --file).
    #[arg(value_name = "TYPE NAME ID")]
    pub resource: Vec<String>,
    #[command(flatten)]
    pub stack: StackArg,
    /// The imported resource's parent: `NAME=URN` (NAME for the generated code) or a URN.
    #[arg(long, value_name = "NAME=URN")]
    pub parent: Option<String>,
    /// The imported resource's provider: `NAME=URN` or a URN.
    #[arg(long, value_name = "NAME=URN")]
    pub provider: Option<String>,
    /// The inputs to import, of those the provider's read returns (default: all).
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    pub properties: Vec<String>,
    /// Import the resources of this import file (Pulumi's `{"nameTable", "resources"}` JSON).
    #[arg(short = 'f', long, value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Write the generated code to FILE instead of standard output.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Generate Pulumi YAML declaring the imported resources (`--generate-code=false`: none).
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, require_equals = true,
          default_value = "true", default_missing_value = "true",
          value_parser = BoolishValueParser::new())]
    pub generate_code: bool,
    /// Protect the imported resources (the default, as Pulumi's; `--protect=false`: not).
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, require_equals = true,
          default_value = "true", default_missing_value = "true",
          value_parser = BoolishValueParser::new())]
    pub protect: bool,
    /// Show debug messages too.
    #[arg(short, long)]
    pub debug: bool,
    /// A message recorded with the import in the stack's history.
    #[arg(short, long, value_name = "TEXT")]
    pub message: Option<String>,
    /// Use this file instead of `Pulumi.<stack>.yaml` for the stack's configuration.
    #[arg(long, value_name = "FILE")]
    pub config_file: Option<PathBuf>,
    /// Show each import's properties.
    #[arg(long)]
    pub diff: bool,
    /// Workers that run steps at once.
    #[arg(short, long, value_name = "N", value_parser = parse_parallel)]
    pub parallel: Option<usize>,
    /// Only preview the import.
    #[arg(long, conflicts_with_all = ["yes", "skip_preview"])]
    pub preview_only: bool,
    /// Import without previewing first.
    #[arg(long)]
    pub skip_preview: bool,
    /// Print Pulumi's engine events as JSON (no code is printed).
    #[arg(short, long)]
    pub json: bool,
    /// Do not show the stack's outputs.
    #[arg(long)]
    pub suppress_outputs: bool,
    /// Do not print progress dots (accepted; stepdeck prints none).
    #[arg(long)]
    pub suppress_progress: bool,
    /// Import without asking.
    #[arg(short, long)]
    pub yes: bool,
    /// A converter to import from (refused: converters are plugins stepdeck does not run).
    #[arg(long, value_name = "CONVERTER")]
    pub from: Option<String>,
    /// Also write Pulumi's engine events to FILE (or `tcp://HOST:PORT`).
    #[arg(long, value_name = "FILE", value_parser = parse_event_log)]
    pub event_log: Option<EventLogTarget>,
    #[arg(long, hide = true, value_name = "KIND")]
    pub exec_kind: Option<String>,
    #[arg(long, hide = true, value_name = "AGENT")]
    pub exec_agent: Option<String>,
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
    /// display unless --json); `tcp://HOST:PORT` names the Automation API's event server.
    #[arg(long, value_name = "FILE", value_parser = parse_event_log)]
    pub event_log: Option<EventLogTarget>,
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
    /// List each policy remediation with the properties it changed, instead of a count per
    /// policy.
    #[arg(long)]
    pub show_policy_remediations: bool,
    /// `json`: print only Pulumi's one-line summary of the run on standard output (the
    /// progress goes to standard error).
    #[arg(
        long = "output",
        id = "output_format",
        value_name = "FORMAT",
        value_parser = ["json"],
        conflicts_with = "json"
    )]
    pub output_format: Option<String>,
}

/// Where `--event-log` sends the engine events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum EventLogTarget {
    /// A file, one JSON event a line.
    File(PathBuf),
    /// The Automation API's `pulumirpc.Events` server at `host:port` (`tcp://host:port`).
    Grpc(String),
}

fn parse_debug_target(text: &str) -> Result<String, String> {
    DebugTargets::parse(&[text.to_string()])
        .map(|_| text.to_string())
        .map_err(|e| e.to_string())
}

fn parse_event_log(text: &str) -> Result<EventLogTarget, String> {
    match text.strip_prefix("tcp://") {
        Some("") => Err("expected tcp://HOST:PORT".into()),
        Some(address) => Ok(EventLogTarget::Grpc(address.to_string())),
        None => Ok(EventLogTarget::File(PathBuf::from(text))),
    }
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

/// `stack`: with no subcommand, the current stack's resources and outputs (Pulumi's
/// `pulumi stack`). Its flags are its own: a subcommand takes `--stack` after its name.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub(super) struct StackArgs {
    /// The stack to show (default: the selected one).
    #[arg(short, long, value_name = "NAME")]
    pub stack: Option<String>,
    /// Show each resource's URN beneath it.
    #[arg(short = 'u', long)]
    pub show_urns: bool,
    /// Show each resource's ID beneath it.
    #[arg(short = 'i', long)]
    pub show_ids: bool,
    /// Show secret outputs in plain text.
    #[arg(long)]
    pub show_secrets: bool,
    /// Print only the stack's name.
    #[arg(long)]
    pub show_name: bool,
    #[command(subcommand)]
    pub command: Option<StackCommand>,
}

#[derive(Debug, Subcommand)]
pub(super) enum StackCommand {
    /// Create a stack and select it.
    Init {
        /// `<stack>`, `organization/<stack>` or `organization/<project>/<stack>`.
        #[arg(value_name = "NAME")]
        name: Option<String>,
        #[command(flatten)]
        stack: StackArg,
        /// The secrets provider: `passphrase` (Pulumi's default on DIY backends) or `default`.
        #[arg(long, value_name = "PROVIDER")]
        secrets_provider: Option<String>,
        /// Do not select the new stack.
        #[arg(long)]
        no_select: bool,
    },
    /// List the project's stacks (`--all`: every project's).
    Ls {
        #[arg(short, long)]
        json: bool,
        /// Every project's stacks.
        #[arg(short, long)]
        all: bool,
        /// Only this project's stacks.
        #[arg(short, long, value_name = "PROJECT")]
        project: Option<String>,
        /// Only this organization's stacks (DIY backends have only `organization`).
        #[arg(short, long, value_name = "ORG")]
        organization: Option<String>,
        /// Only stacks with this tag: `NAME` or `NAME=VALUE`.
        #[arg(short, long, value_name = "TAG")]
        tag: Option<String>,
    },
    /// Select the stack later commands use.
    Select {
        #[arg(value_name = "NAME")]
        name: Option<String>,
        #[command(flatten)]
        stack: StackArg,
        /// Create the stack if it does not exist.
        #[arg(short, long)]
        create: bool,
        /// With --create: the secrets provider (`passphrase` or `default`).
        #[arg(long, value_name = "PROVIDER")]
        secrets_provider: Option<String>,
    },
    /// Remove a stack (it must have no resources unless --force) and its `Pulumi.<stack>.yaml`.
    #[command(visible_alias = "remove")]
    Rm {
        #[arg(value_name = "NAME")]
        name: Option<String>,
        #[command(flatten)]
        stack: StackArg,
        #[arg(short, long)]
        force: bool,
        #[arg(short, long)]
        yes: bool,
        /// Keep the stack's `Pulumi.<stack>.yaml`.
        #[arg(long)]
        preserve_config: bool,
        /// Also remove backups (accepted; stepdeck keeps none).
        #[arg(long)]
        remove_backups: bool,
    },
    /// Write the stack's state as Pulumi's `{version: 3, deployment}` JSON.
    Export {
        #[command(flatten)]
        stack: StackArg,
        /// Write to this file instead of standard output.
        #[arg(long, value_name = "FILE")]
        file: Option<PathBuf>,
        /// Write secrets in plain text (Pulumi's `{"plaintext": …}` form) instead of encrypted.
        #[arg(long)]
        show_secrets: bool,
    },
    /// Replace the stack's state with an exported deployment.
    Import {
        #[command(flatten)]
        stack: StackArg,
        /// Read from this file instead of standard input.
        #[arg(long, value_name = "FILE")]
        file: Option<PathBuf>,
        /// Import even if the export is of another stack (accepted; URNs are taken as they are).
        #[arg(short, long)]
        force: bool,
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
    /// List the stack's updates, newest first, a page at a time.
    #[command(visible_alias = "hist")]
    History {
        #[command(flatten)]
        stack: StackArg,
        /// Print Pulumi's `UpdateInfo` JSON.
        #[arg(short, long)]
        json: bool,
        /// Show the recorded secret config values in plain text.
        #[arg(long)]
        show_secrets: bool,
        /// Updates on a page.
        #[arg(long, default_value_t = 10, value_name = "N")]
        page_size: usize,
        /// The page to show, from 1.
        #[arg(long, default_value_t = 1, value_name = "N")]
        page: usize,
        /// Show full dates (accepted; dates are always shown in full).
        #[arg(long)]
        full_dates: bool,
        /// Open update N (its version, as listed) in the console to replay it, read-only.
        #[arg(long, value_name = "N")]
        open: Option<u64>,
        /// Write update N's events as an event log (Pulumi's stream, without stepdeck's detail
        /// lines) to FILE or standard output: the replay's `line 41` is its line 41.
        #[arg(long, value_name = "N", conflicts_with_all = ["open", "json"])]
        export: Option<u64>,
        /// Where `--export` writes.
        #[arg(value_name = "FILE", requires = "export")]
        file: Option<PathBuf>,
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

/// `config`: the stack's configuration; the flags here apply to every subcommand.
#[derive(Debug, Args)]
pub(super) struct ConfigArgs {
    /// The stack to operate on.
    #[arg(short, long, global = true, value_name = "NAME")]
    pub stack: Option<String>,
    /// Use this file instead of `Pulumi.<stack>.yaml`.
    #[arg(long, global = true, value_name = "FILE")]
    pub config_file: Option<PathBuf>,
    /// Open ESC environments (accepted; DIY backends have none).
    #[arg(long, global = true)]
    pub open: bool,
    /// Show secret values in plain text.
    #[arg(long)]
    pub show_secrets: bool,
    /// Print Pulumi's JSON: `{"<ns>:<key>": {"value", "objectValue", "secret"}}`.
    #[arg(short, long)]
    pub json: bool,
    #[command(subcommand)]
    pub command: Option<ConfigCommand>,
}

#[derive(Debug, Subcommand)]
pub(super) enum ConfigCommand {
    /// Set a configuration value (`--secret` encrypts it); without VALUE, standard input.
    Set {
        key: String,
        value: Option<String>,
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
        /// A `key=value` pair saved in plaintext (repeatable).
        #[arg(long, value_name = "KEY=VALUE", allow_hyphen_values = true)]
        plaintext: Vec<String>,
        /// A `key=value` pair saved encrypted (repeatable).
        #[arg(long, value_name = "KEY=VALUE", allow_hyphen_values = true)]
        secret: Vec<String>,
        /// The keys are paths into maps or lists.
        #[arg(long)]
        path: bool,
        /// The values as `config --json` prints them: `{"key": {"value": "v", "secret": true}}`.
        #[arg(long, value_name = "JSON", conflicts_with_all = ["plaintext", "secret", "path"])]
        json: Option<String>,
    },
    /// Print a configuration value (secrets decrypted).
    Get {
        key: String,
        /// The key is a path into a map or list.
        #[arg(long)]
        path: bool,
        /// Print `{"value", "objectValue", "secret"}`.
        #[arg(short, long)]
        json: bool,
    },
    /// Remove a configuration value.
    #[command(visible_aliases = ["remove", "delete"])]
    Rm {
        key: String,
        /// The key is a path into a map or list.
        #[arg(long)]
        path: bool,
    },
    /// Remove several configuration values.
    #[command(name = "rm-all", visible_aliases = ["remove-all", "delete-all"])]
    RmAll {
        #[arg(required = true, value_name = "KEY")]
        keys: Vec<String>,
        /// The keys are paths into maps or lists.
        #[arg(long)]
        path: bool,
    },
    /// Restore the configuration the stack's latest update ran with (from its history).
    Refresh {
        /// Overwrite `Pulumi.<stack>.yaml` instead of backing it up first.
        #[arg(short, long)]
        force: bool,
    },
    /// Pulumi ESC environments (refused: they need the Pulumi Cloud backend).
    #[command(subcommand)]
    Env(ConfigEnvCommand),
    /// List the configuration (as `config` with no subcommand).
    Ls {
        /// Print secret values in plain text.
        #[arg(long)]
        show_secrets: bool,
        #[arg(short, long)]
        json: bool,
    },
}

/// `config env …`: Pulumi's commands, accepted so that each is refused as Pulumi's DIY
/// backends refuse it.
#[derive(Debug, Subcommand)]
pub(super) enum ConfigEnvCommand {
    /// Add environments to the stack.
    Add {
        #[arg(required = true, value_name = "ENV")]
        envs: Vec<String>,
        #[arg(short, long)]
        yes: bool,
        #[arg(long)]
        show_secrets: bool,
    },
    /// Remove an environment from the stack.
    #[command(visible_alias = "remove")]
    Rm {
        #[arg(value_name = "ENV")]
        env: String,
        #[arg(short, long)]
        yes: bool,
    },
    /// List the stack's environments.
    #[command(visible_alias = "list")]
    Ls {
        #[arg(short, long)]
        json: bool,
    },
    /// Create an environment from the stack's configuration.
    Init {
        #[arg(long, value_name = "NAME")]
        env: Option<String>,
        #[arg(short, long)]
        yes: bool,
        #[arg(long)]
        keep_config: bool,
        #[arg(long)]
        show_secrets: bool,
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
    /// `--non-interactive` (a root flag): plain progress lines instead of the console.
    #[arg(skip)]
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
