//! `preview`, `up`, `destroy` and `refresh`: one deployment of a stack, shown in the console,
//! as plain progress lines, or as JSON.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use anyhow::{Context, Result, anyhow};
use stepdeck::engine::model::urn::ROOT_STACK_TYPE;
use stepdeck::engine::run::autonaming::{Autonaming, StackContext as AutonamingContext};
use stepdeck::engine::{
    Control, Deployment, DeploymentResult, EngineEvent, EventSink, NullJournal, Operation, Options,
    Outcome, Program, ProviderFactory, Severity,
};
use stepdeck::output::checked_output::{CheckedOutput, WriteFailed};
use stepdeck::output::digest::PreviewDigest;
use stepdeck::output::event_stream::{EventWriter, Stamped};
use stepdeck::output::import_file::ImportFileBuilder;
use stepdeck::output::plain::ProgressPrinter;
use stepdeck::output::summary::has_changes;
use stepdeck::output::visibility::Visibility;
use stepdeck::policy::PackRequest;
use stepdeck::project::LocalPlugin;
use stepdeck::project::check_version_range;
use stepdeck::project::config::value_text;
use stepdeck::project::local_plugins::with_nested_packages;
use stepdeck::project::{ConfigValue, NewConfigValue};
use stepdeck::rpc::debugger::targets::DebugTargets;
use stepdeck::rpc::event_stream::EventStream;
use stepdeck::rpc::plugin::PluginContext;
use stepdeck::rpc::plugin::plugin_paths::PluginPath;
use stepdeck::rpc::plugin::providers::PluginProviders;
use stepdeck::rpc::program::client_program::ClientProgram;
use stepdeck::rpc::program::language_host::python_interpreter;
use stepdeck::rpc::program::language_host::{Runtime, SdkProgram};
use stepdeck::rpc::program::served_program::ServedProgram;
use stepdeck::rpc::program::typechecker::Typechecker;
use stepdeck::state::secrets::encrypt_secrets;
use stepdeck::state::{RecordedConfig, UpdateRecord};
use stepdeck::yaml::YamlProgram;
use tokio::sync::mpsc::UnboundedReceiver;

use super::approvals::approval_settings;
use super::args::{DeployArgs, EventLogTarget, OutputArgs};
use super::display::{Display, shown_config};
use super::errors::{Cancelled, ChangesNotExpected, DeploymentFailed, usage};
use super::held_notices;
use super::recording::Recording;
use super::serve::ServeSession;
use super::stdout::outln;
use super::summary_json::SummaryJson;
use super::workspace::{Stack, Workspace, provider_factory, report_notices, warn_if_broke_stale};

/// What a run records and loads beyond the engine's options: the history message and
/// environment, whether destroy or refresh runs the program (`--run-program`), and the policy
/// packs it consults.
#[derive(Clone, Debug, Default)]
pub(super) struct RunMeta {
    pub message: Option<String>,
    pub run_program: bool,
    /// `--client=ADDR`: the Automation API's inline program, run by its server at ADDR.
    pub client: Option<String>,
    /// The history's `environment`: `exec.kind`, `exec.agent`, `updatePlan`, as Pulumi's.
    pub environment: BTreeMap<String, String>,
    pub policy_packs: Vec<PackRequest>,
    /// `import`: the run imports these resources instead of running the project's program,
    /// and is recorded as an `import`.
    pub import: Option<Arc<super::import::program::ImportPlan>>,
    /// `--attach-debugger`: what runs under a debugger.
    pub debug: DebugTargets,
}

/// A deployment as the command line runs it: the engine's options and what the CLI adds.
pub(super) struct Run {
    pub options: Options,
    pub meta: RunMeta,
}

impl RunMeta {
    pub(super) fn from_args(args: &DeployArgs) -> RunMeta {
        // As Pulumi's metadata: an unknown kind (the flag is hidden) is recorded as `cli`.
        let kind = args
            .exec_kind
            .as_deref()
            .filter(|k| ["auto.local", "auto.inline", "cli"].contains(k))
            .unwrap_or("cli");
        let mut environment = BTreeMap::from([
            ("exec.kind".to_string(), kind.to_string()),
            (
                "updatePlan".to_string(),
                (args.plan.is_some() || args.save_plan.is_some()).to_string(),
            ),
        ]);
        if let Some(agent) = args.exec_agent.as_ref().filter(|a| !a.is_empty()) {
            environment.insert("exec.agent".into(), agent.clone());
        }
        RunMeta {
            message: args.message.clone(),
            run_program: args.run_program,
            client: args.client.clone(),
            environment,
            policy_packs: super::policy_packs::pairs(args),
            import: args.import.clone(),
            // Each value was checked as the flag was parsed.
            debug: DebugTargets::parse(&args.attach_debugger).unwrap_or_default(),
        }
    }
}

/// A project's program (when the operation runs it) and the providers it may load.
pub(super) struct Prepared {
    pub program: Option<Box<dyn Program>>,
    pub factory: Arc<dyn ProviderFactory>,
}

/// Loads the project's program (YAML in-process, or a Python/Node SDK program over gRPC) when
/// `run_program`, and the provider factory: built-in providers first, then plugins found for
/// the project, each plugin given its package's part of the stack's `config`. Without `run_program` the program is never read, as Pulumi's destroy and
/// refresh never evaluate it: a stack whose program no longer loads can still be destroyed.
pub(super) fn prepare(
    ws: &Workspace,
    events: &EventSink,
    run_program: bool,
    client: Option<&str>,
    config: &BTreeMap<String, String>,
    debug: &DebugTargets,
) -> Result<Prepared> {
    let project = &ws.project;
    // The plugins named by path: the project's, and a YAML program's own `packages:`.
    let mut listed = project.local_plugins.clone();
    let (program, python, dir): (Option<Box<dyn Program>>, PathBuf, PathBuf) = match project
        .runtime
        .name
        .as_str()
    {
        // As Pulumi's, `--client` replaces the project's runtime: the program is the
        // Automation API's, served at the address; no process is started.
        _ if let Some(address) = client => {
            let program: Option<Box<dyn Program>> = run_program
                .then(|| Box::new(ClientProgram::new(address, &project.dir, events.clone())) as _);
            (program, PathBuf::from("python3"), project.dir.clone())
        }
        "yaml" => {
            let program: Option<Box<dyn Program>> = if run_program {
                let yaml = YamlProgram::load(project).map_err(|e| usage(e.to_string()))?;
                listed = (*yaml.local_plugins).clone();
                if debug.program() {
                    events.diag(
                            None,
                            Severity::Warning,
                            "--attach-debugger: a YAML program runs inside stepdeck; there is no program process to attach a debugger to",
                        );
                }
                Some(Box::new(yaml))
            } else {
                None
            };
            let python = python_interpreter(&project.dir, None);
            (program, python, project.program_dir())
        }
        name @ ("python" | "nodejs" | "bun") => {
            let options: serde_json::Map<String, serde_json::Value> = project
                .runtime
                .options
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            let mut runtime =
                Runtime::from_project(name, &options).map_err(|e| usage(e.to_string()))?;
            // A poetry program runs in the virtualenv poetry made for it (a uv program in the
            // one `install` made: Pulumi's host also runs `uv sync --inexact` first; here a
            // linked `venv` may stand in for it).
            if let Runtime::Python { virtualenv } = &mut runtime
                && options.get("toolchain").and_then(|t| t.as_str()) == Some("poetry")
            {
                *virtualenv = Some(super::install::poetry_virtualenv(&project.program_dir())?);
            }
            if let Runtime::Python {
                virtualenv: Some(venv),
            } = &runtime
                && options
                    .get("toolchain")
                    .and_then(|t| t.as_str())
                    .is_none_or(|t| t == "pip")
            {
                super::install::ensure_pip_virtualenv(&project.dir, &venv.to_string_lossy())?;
            }
            let typechecker = if name == "python" {
                Typechecker::from_options(&options).map_err(|e| usage(e.to_string()))?
            } else {
                None
            };
            let mut sdk = SdkProgram::new(runtime, &project.dir, events.clone())
                .with_debugger(debug.program())
                .with_typechecker(typechecker);
            if let Some(main) = &project.main {
                sdk = sdk.with_main(main);
            }
            let python = sdk.python();
            let dir = sdk.program_directory().to_path_buf();
            let program: Option<Box<dyn Program>> = run_program.then(|| Box::new(sdk) as _);
            (program, python, dir)
        }
        other => {
            return Err(usage(format!(
                "{}: runtime `{other}` is not supported (supported: yaml, python, nodejs, bun)",
                project.dir.join("Pulumi.yaml").display()
            )));
        }
    };
    let mut ctx = PluginContext::new(dir, &project.name, python, events.clone());
    ctx.local = local_plugins(&listed)?;
    ctx.config = config.clone();
    ctx.debug = debug.clone();
    // A YAML program's components from plugins register their children through the monitor's
    // gRPC address, which an in-process program otherwise does not need.
    let program = match program {
        Some(p) if client.is_none() && project.runtime.name == "yaml" && !ctx.local.is_empty() => {
            Some(Box::new(ServedProgram::new(p, events.clone())) as Box<dyn Program>)
        }
        other => other,
    };
    let factory = Arc::new(PluginProviders::new(
        provider_factory(ws, events.clone()),
        ctx,
    ));
    Ok(Prepared { program, factory })
}

/// The provider plugins the project names by path; YAML component packages are not plugins
/// (the YAML program evaluates them itself).
fn local_plugins(listed: &[LocalPlugin]) -> Result<Vec<PluginPath>> {
    let mut out = Vec::new();
    let listed = with_nested_packages(listed).map_err(|e| usage(e.to_string()))?;
    for p in &listed {
        let runtime = p.source_runtime().map_err(|e| usage(e.to_string()))?;
        if runtime.as_ref().is_some_and(|r| r.name == "yaml") {
            continue;
        }
        out.push(PluginPath {
            package: p.name.clone(),
            path: p.path.clone(),
            version: p.version.clone(),
            runtime: runtime.map(|r| (r.name, r.options.into_iter().collect())),
        });
    }
    Ok(out)
}

/// Engine options from the command line and the stack.
pub(super) fn options(
    ws: &Workspace,
    stack: &Stack,
    operation: Operation,
    args: &DeployArgs,
    display: Display,
) -> Result<Options> {
    // As Pulumi's: the config is checked against the project's declarations only when the
    // program runs, and never with --skip-config-validation.
    let runs_program =
        args.run_program || matches!(operation, Operation::Preview | Operation::Update);
    let config = stack.resolve_config(&ws.project, runs_program && !args.skip_config_validation)?;
    let gates = approval_settings(ws, stack, args, display)?;
    // Read once before the run, as Pulumi's `up` and `preview` read it (a DIY backend's
    // organization is `organization`).
    let autonaming = match operation {
        Operation::Update | Operation::Preview => {
            let ctx = AutonamingContext {
                organization: "organization".into(),
                project: ws.project.name.clone(),
                stack: stack.name.clone(),
            };
            Autonaming::from_config(&config.values, &ctx)
                .context("getting autonaming config")?
                .map(Arc::new)
        }
        _ => None,
    };
    Ok(Options {
        stack: stack.name.clone(),
        project: ws.project.name.clone(),
        operation,
        parallel: args
            .parallel
            .unwrap_or_else(stepdeck::engine::run::deployment::default_parallel),
        parallel_diff: args.parallel_diff,
        continue_on_error: args.continue_on_error,
        approvals: gates.approvals,
        decisions: gates.decisions,
        preview_declines: Vec::new(),
        unattended: gates.unattended,
        pause_before: args.pause_before.clone(),
        targets: args
            .targets
            .iter()
            .chain(&args.target_replace)
            .cloned()
            .collect(),
        excludes: args.excludes.clone(),
        replace: args
            .replace
            .iter()
            .chain(&args.target_replace)
            .cloned()
            .collect(),
        target_dependents: args.target_dependents,
        exclude_dependents: args.exclude_dependents,
        refresh: args.refresh,
        ignore_protect: args.ignore_protect,
        clear_pending_creates: args.clear_pending_creates,
        config: config.values,
        secret_keys: config.secret_keys,
        dry_run: args.preview_only,
        plan: match (&args.plan, operation) {
            // The preview of `up --plan` checks the plan too, so a violation shows before `y`.
            (Some(path), Operation::Update | Operation::Preview) => {
                Some(Arc::new(super::plan::load(path, ws, stack)?))
            }
            _ => None,
        },
        strict_plan: args.strict,
        record_plan: args.save_plan.is_some(),
        autonaming,
    })
}

/// What the plain and JSON displays show besides the defaults: `--show-sames`,
/// `--show-replacement-steps`, `--diff`, `--debug`, `--show-policy-remediations`, the `--event-log` file, and what
/// `preview --import-file` collects.
pub(super) struct Shown {
    pub visibility: Visibility,
    pub diff: bool,
    pub suppress_outputs: bool,
    pub event_log: Option<CheckedOutput<std::fs::File>>,
    /// `--event-log tcp://HOST:PORT`: the Automation API's event server.
    pub event_server: Option<String>,
    /// `--debug`: debug messages too.
    pub debug: bool,
    /// `--show-policy-remediations`: each remediation on its own line.
    pub policy_remediations: bool,
    /// `preview --import-file`: the creates, collected as the events go by.
    pub imports: Option<Arc<parking_lot::Mutex<ImportFileBuilder>>>,
    /// `--output json`: the summary line standard output gets instead of the progress.
    pub summary: Option<SummaryJson>,
}

impl Shown {
    /// The display choices of the command line; creates the event log file.
    pub(super) fn from_args(args: &OutputArgs) -> Result<Shown> {
        let (event_log, event_server) = match &args.event_log {
            None => (None, None),
            Some(EventLogTarget::File(p)) => (
                Some(
                    std::fs::File::create(p)
                        .map(|f| CheckedOutput::new(p.display().to_string(), "the event log", f))
                        .with_context(|| format!("{}: cannot create the event log", p.display()))?,
                ),
                None,
            ),
            Some(EventLogTarget::Grpc(address)) => (None, Some(address.clone())),
        };
        Ok(Shown {
            visibility: Visibility {
                show_sames: args.show_sames,
                show_replacement_steps: args.show_replacement_steps,
            },
            diff: args.diff,
            suppress_outputs: args.suppress_outputs,
            event_log,
            event_server,
            debug: false,
            policy_remediations: args.show_policy_remediations,
            imports: None,
            summary: args
                .output_format
                .is_some()
                .then(|| SummaryJson::new(args.show_sames)),
        })
    }

    /// Flags only the plain and JSON displays honour: the console is not opened with them.
    fn needs_plain(args: &OutputArgs) -> bool {
        args.event_log.is_some()
            || args.diff
            || args.expect_no_changes
            || args.output_format.is_some()
    }
}

/// Runs one deployment with its output driven by `display`; returns the result and the
/// outputs that could not be written (the run went on regardless).
pub(super) async fn drive(
    deployment: Deployment,
    events: UnboundedReceiver<EngineEvent>,
    display: Display,
    config: BTreeMap<String, String>,
    shown: Shown,
    program: Option<Box<dyn Program>>,
) -> (DeploymentResult, Vec<WriteFailed>) {
    let control = deployment.control();
    let interrupts = tokio::spawn(cancel_on_ctrl_c(control));
    let printer = tokio::spawn(print(events, display, config, shown));
    let result = deployment.run(program).await;
    interrupts.abort();
    let failed = printer.await.unwrap_or_default();
    (result, failed)
}

/// Cancels the run on every SIGINT (Ctrl-C, or `cancel` from another process) and, as
/// Pulumi's does, every SIGTERM.
pub(super) async fn cancel_on_ctrl_c(control: Control) {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate()).ok();
    loop {
        let terminated = async {
            match term.as_mut() {
                Some(t) => t.recv().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            interrupted = tokio::signal::ctrl_c() => {
                if interrupted.is_err() {
                    return;
                }
            }
            Some(()) = terminated => {}
        }
        control.cancel();
    }
}

/// Shows the events: plain lines, or under `--json` the preview digest or the engine-event
/// stream (stdout then carries JSON only); the event log gets the stream in every display.
/// Returns the outputs that could not be written.
async fn print(
    mut events: UnboundedReceiver<EngineEvent>,
    display: Display,
    config: BTreeMap<String, String>,
    shown: Shown,
) -> Vec<WriteFailed> {
    let json = display == Display::Json;
    let what = if json {
        "the engine events"
    } else {
        "the progress"
    };
    let mut summary = shown.summary;
    let mut stdout = CheckedOutput::new("standard output", what, std::io::stdout());
    // Under `--output json` the progress goes to standard error: stdout is the summary's.
    let mut stderr = CheckedOutput::new("standard error", what, std::io::stderr());
    let mut log = shown.event_log;
    let server = match &shown.event_server {
        Some(address) => open_event_server(address).await,
        None => None,
    };
    // The engine-event stream is built only for a reader: the event log, or `--json`.
    let mut writer = (json || log.is_some() || server.is_some() || summary.is_some())
        .then(|| EventWriter::new(config.clone()));
    let mut digest = PreviewDigest::new(shown.visibility);
    // One of the two writes to standard output, whichever the display is.
    let mut summaries = Vec::new();
    let (mut printer, mut json_out) = if json {
        (None, Some(&mut stdout))
    } else {
        let progress: &mut (dyn std::io::Write + Send) = if summary.is_some() {
            &mut stderr
        } else {
            &mut stdout
        };
        let printer = ProgressPrinter::new(progress)
            .with_display(shown.visibility, shown.diff)
            .with_debug(shown.debug)
            .with_policy_remediations(shown.policy_remediations);
        (Some(printer), None)
    };
    let mut preview = false;
    let mut emit = |v: Stamped, preview: bool| {
        let text = v.value.to_string();
        if let Some(log) = &mut log {
            log.line(&text);
        }
        if let Some(server) = &server {
            server.send(&text);
        }
        if let Some(out) = json_out.as_mut().filter(|_| !preview && !v.internal) {
            out.line(&text);
        }
        if let Some(line) = summary.as_mut().and_then(|s| s.event(&v.value, v.internal)) {
            summaries.push(line);
        }
    };
    while let Some(e) = events.recv().await {
        if let EngineEvent::Prelude { preview: p, .. } = &e {
            preview = *p;
        }
        if let Some(imports) = &shown.imports {
            imports.lock().event(&e);
        }
        for v in writer.iter_mut().flat_map(|w| w.event(&e)) {
            emit(v, preview);
        }
        if json && preview {
            digest.event(&e);
        }
        let stack_outputs = matches!(&e, EngineEvent::ResourceOutputs { urn, .. } if urn.type_() == ROOT_STACK_TYPE);
        if let Some(p) = &mut printer
            && !(shown.suppress_outputs && stack_outputs)
        {
            let _ = p.event(&e);
        }
    }
    if let Some(mut writer) = writer {
        emit(writer.finish().into(), preview);
    }
    // Every event is delivered before the command ends: the client reads them as it waits.
    if let Some(server) = server
        && let Err(e) = server.finish().await
    {
        eprintln!("warning: {e}; not every engine event was delivered");
    }
    if let Some(out) = json_out.filter(|_| preview) {
        let text = serde_json::to_string_pretty(&digest.to_json(&config)).unwrap_or_default();
        out.line(&text);
    }
    drop(printer);
    for line in &summaries {
        stdout.line(line);
    }
    let log = log.map(CheckedOutput::finish);
    [log, Some(stdout.finish()), Some(stderr.finish())]
        .into_iter()
        .flatten()
        .filter_map(Result::err)
        .collect()
}

/// The Automation API's event server, or (as Pulumi goes on without it) a warning saying why
/// the events will not reach it.
async fn open_event_server(address: &str) -> Option<EventStream> {
    match EventStream::open(address).await {
        Ok(stream) => Some(stream),
        Err(e) => {
            eprintln!("warning: {e}; the engine events are not sent");
            None
        }
    }
}

/// Outputs that could not be written, as the command's error (after the run, which went on).
fn written(failed: Vec<WriteFailed>) -> Result<()> {
    let mut failed = failed.into_iter().map(|w| w.to_string());
    match failed.next() {
        None => Ok(()),
        Some(first) => Err(anyhow::anyhow!(
            "{}",
            std::iter::once(first)
                .chain(failed)
                .collect::<Vec<_>>()
                .join("; ")
        )),
    }
}

/// The outcome of `operation` as this command's result: a failed run exits 1, a cancelled
/// one 8 (`update canceled`, as Pulumi says).
pub(super) fn conclude(result: &DeploymentResult, operation: Operation) -> Result<()> {
    match &result.outcome {
        Outcome::Succeeded => Ok(()),
        Outcome::Failed(e) => Err(DeploymentFailed(format!("the deployment failed: {e}")).into()),
        Outcome::Cancelled => Err(Cancelled(operation_name(operation)).into()),
        Outcome::Terminated => Err(DeploymentFailed(
            "the deployment was terminated; run `stepdeck refresh` to reconcile what was in flight"
                .into(),
        )
        .into()),
    }
}

/// `preview --save-plan FILE`: writes the plan the (successful) preview recorded.
pub(super) fn save_plan(
    ws: &Workspace,
    stack: &Stack,
    args: &DeployArgs,
    result: &mut DeploymentResult,
) -> Result<()> {
    let (Some(path), Some(plan)) = (&args.save_plan, result.plan.take()) else {
        return Ok(());
    };
    super::plan::save(path, ws, stack, plan)?;
    // Pulumi's note on how to use the plan, unless the output is JSON.
    if !args.json {
        let path = path.display();
        outln!(
            "Update plan written to '{path}'\nRun `stepdeck up --plan='{path}'` to constrain the update to the operations planned by this preview"
        )?;
    }
    Ok(())
}

/// `--expect-no-changes`: a preview, update or refresh that changed anything (Pulumi's
/// `HasChanges`: any step but same and reads; for a refresh, drift) fails with exit code 7.
fn expect_no_changes(
    args: &OutputArgs,
    operation: Operation,
    result: &DeploymentResult,
) -> Result<()> {
    if !args.expect_no_changes || !has_changes(&result.counts) {
        return Ok(());
    }
    let name = match operation {
        Operation::Preview => "preview",
        Operation::Refresh => "refresh",
        Operation::Update | Operation::Destroy => "update",
    };
    Err(ChangesNotExpected(name).into())
}

/// `--config KEY=VALUE` (with `--config-path`, paths): sets each value in the stack's
/// settings and saves them, as Pulumi does before running.
fn apply_config_args(ws: &Workspace, stack: &mut Stack, args: &DeployArgs) -> Result<()> {
    if args.config.is_empty() {
        return Ok(());
    }
    let values = args
        .config
        .iter()
        .map(|pair| {
            let (key, value) = pair
                .split_once('=')
                .ok_or_else(|| usage(format!("--config {pair:?}: expected KEY=VALUE")))?;
            let new = NewConfigValue::Text {
                text: value,
                type_: None,
            };
            Ok((key.to_string(), new))
        })
        .collect::<Result<Vec<_>>>()?;
    super::config::set_values(ws, stack, &values, args.config_path)
}

/// The stack a deployment command runs on, opened with the command line's config applied,
/// and how the run is shown.
pub(super) struct Opened {
    pub ws: Workspace,
    pub stack: Stack,
    pub display: Display,
}

/// Opens the stack of `preview`, `up`, `destroy` or `refresh` and checks the arguments.
pub(super) fn open(
    dir: &Path,
    backend: Option<&str>,
    operation: Operation,
    args: &DeployArgs,
) -> Result<Opened> {
    check_flags(operation, args)?;
    let display = Display::choose(
        args.json,
        args.non_interactive || Shown::needs_plain(&args.output) || args.import_file.is_some(),
    );
    if display == Display::Console {
        held_notices::hold();
    }
    let ws = Workspace::open(dir, backend)?.with_config_file(args.config_file.clone());
    if let Some(range) = &ws.project.required_pulumi_version {
        check_version_range(range, super::about::VERSION)?;
    }
    let creates = matches!(operation, Operation::Preview | Operation::Update);
    let mut stack = ws.stack(args.stack.stack.as_deref(), creates)?;
    stack.remember_salt()?;
    super::policy_packs::check(operation, args)?;
    apply_config_args(&ws, &mut stack, args)?;
    let confirmed = args.yes || args.skip_preview || args.preview_only;
    if operation != Operation::Preview && !confirmed && display != Display::Console {
        return Err(usage(
            "--yes or --skip-preview or --preview-only must be passed in to proceed when running in non-interactive mode",
        ));
    }
    if let Some(plan) = &args.plan
        && !plan.exists()
    {
        return Err(anyhow!(
            "open {}: no such file or directory",
            plan.display()
        ));
    }
    if args.save_plan.is_some() && operation != Operation::Preview {
        return Err(usage("--save-plan applies to preview"));
    }
    if args.plan.is_some() && operation != Operation::Update {
        return Err(usage("--plan applies to up"));
    }
    if args.serve.serve.is_some() && operation == Operation::Preview {
        return Err(usage("--serve applies to up, destroy and refresh"));
    }
    Ok(Opened { ws, stack, display })
}

/// Refuses flags that do not apply to `operation` or that stepdeck does not support yet, in
/// Pulumi's words where Pulumi refuses them too.
fn check_flags(operation: Operation, args: &DeployArgs) -> Result<()> {
    let only = |on: bool, flag: &str, ops: &[Operation], names: &str| {
        if on && !ops.contains(&operation) {
            Err(usage(format!("{flag} applies to {names}")))
        } else {
            Ok(())
        }
    };
    use Operation::{Destroy, Preview, Refresh, Update};
    only(
        args.output.expect_no_changes,
        "--expect-no-changes",
        &[Preview, Update, Refresh],
        "preview, up and refresh",
    )?;
    only(
        args.preview_only,
        "--preview-only",
        &[Destroy, Refresh],
        "destroy and refresh",
    )?;
    only(args.remove, "--remove", &[Destroy], "destroy")?;
    only(
        args.exclude_protected,
        "--exclude-protected",
        &[Destroy],
        "destroy",
    )?;
    only(
        args.import_file.is_some(),
        "--import-file",
        &[Preview],
        "preview",
    )?;
    if args.preview_only && args.skip_preview {
        return Err(usage(
            "--skip-preview and --preview-only cannot be used together",
        ));
    }
    if args.preview_only && args.yes {
        return Err(usage("--yes and --preview-only cannot be used together"));
    }
    if args.exclude_protected && !args.targets.is_empty() {
        return Err(usage("you cannot specify --target and --exclude-protected"));
    }
    if !args.import_pending_creates.is_empty() {
        return Err(usage(
            "--import-pending-creates is not supported: run `refresh` to read pending creates, or drop them with --clear-pending-creates",
        ));
    }
    Ok(())
}

/// Runs a deployment with the plain or JSON display (and serves its console when asked).
pub(super) async fn run(
    Opened { ws, stack, display }: &Opened,
    operation: Operation,
    args: DeployArgs,
    serving: Option<ServeSession>,
) -> Result<()> {
    let display = *display;
    let opts = options(ws, stack, operation, &args, display)?;
    let (sink, events) = EventSink::channel();
    let (events, recording) = super::recording::tee(events, opts.dry_run);
    let config = shown_config(&opts);
    let mut shown = Shown::from_args(&args.output)?;
    shown.debug = args.debug;
    let imports = args
        .import_file
        .as_ref()
        .map(|_| Arc::new(parking_lot::Mutex::new(ImportFileBuilder::new())));
    shown.imports = imports.clone();
    let run = Run {
        options: opts,
        meta: RunMeta::from_args(&args),
    };
    let notes = sink.clone();
    let served_options = run.options.clone();
    let unwritten = Mutex::new(Vec::new());
    let result = execute(ws, stack, run, sink, &recording, |d, p| {
        let events = match &serving {
            Some(s) => s.consume((d.control(), notes), &served_options, Vec::new(), events),
            None => events,
        };
        async {
            let (result, failed) = drive(d, events, display, config, shown, p).await;
            *unwritten.lock().unwrap_or_else(PoisonError::into_inner) = failed;
            result
        }
    })
    .await;
    let unwritten = written(
        unwritten
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner),
    );
    if let Some(s) = serving
        && let Some(line) = s.finish().await
    {
        eprintln!("{line}");
    }
    // The run's own failure comes first; an output that could not be written is still said.
    let concluded = result.and_then(|r| conclude(&r, operation).map(|()| r));
    let mut result = match (concluded, unwritten) {
        (Ok(r), unwritten) => {
            unwritten?;
            r
        }
        (Err(e), Err(w)) => return Err(e.context(w.to_string())),
        (Err(e), Ok(())) => return Err(e),
    };
    save_plan(ws, stack, &args, &mut result)?;
    if let (Some(path), Some(imports)) = (&args.import_file, imports) {
        write_import_file(path, stack, &imports.lock())?;
    }
    expect_no_changes(&args.output, operation, &result)
}

/// Writes `preview --import-file`: Pulumi's import file, secrets encrypted.
fn write_import_file(path: &Path, stack: &Stack, imports: &ImportFileBuilder) -> Result<()> {
    for warning in imports.warnings() {
        eprintln!("warning: {warning}");
    }
    let mut file = imports.to_json();
    encrypt_secrets(&mut file, stack.crypter.as_ref())
        .map_err(|e| anyhow!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(
        &mut out,
        serde_json::ser::PrettyFormatter::with_indent(b"    "),
    );
    serde::Serialize::serialize(&file, &mut ser)?;
    out.push(b'\n');
    std::fs::write(path, out).with_context(|| format!("writing {}", path.display()))
}

/// Runs a deployment against the stack's state: previews read it, the others lock the stack,
/// journal every step, compact at the end and record the update in the stack's history, with
/// the events `recording` kept of it.
/// `run` drives the deployment (and its display). The result's snapshot is empty but for
/// previews: the stack's state is its backend's.
pub(super) async fn execute<F, Fut>(
    ws: &Workspace,
    stack: &Stack,
    Run {
        options: opts,
        meta,
    }: Run,
    sink: EventSink,
    recording: &Recording,
    run: F,
) -> Result<DeploymentResult>
where
    F: FnOnce(Deployment, Option<Box<dyn Program>>) -> Fut,
    Fut: std::future::Future<Output = DeploymentResult>,
{
    let runs_program =
        meta.run_program || matches!(opts.operation, Operation::Preview | Operation::Update);
    held_notices::release(&sink);
    let imports = meta.import.is_some();
    let prepared = prepare(
        ws,
        &sink,
        runs_program && !imports,
        meta.client.as_deref(),
        &opts.config,
        &meta.debug,
    )?;
    let program = match &meta.import {
        Some(plan) => {
            Some(Box::new(super::import::program::ImportProgram(plan.clone())) as Box<dyn Program>)
        }
        None => prepared.program,
    };
    let crypter = stack.crypter.as_ref();
    let packs = super::policy_packs::load_for(ws, stack, &opts, &meta.policy_packs, &sink).await?;
    if opts.is_preview() {
        let base = ws.backend.load(&stack.reference, crypter)?.snapshot;
        let d = Deployment::new(opts, base, prepared.factory, Box::new(NullJournal), sink)
            .with_analyzers(packs.into_analyzers());
        return Ok(run(d, program).await);
    }
    let lock = ws.backend.lock(&stack.reference, opts.operation.as_str())?;
    warn_if_broke_stale(&lock);
    held_notices::release(&sink);
    let (base, journal) = ws.backend.begin_deployment(&lock, crypter)?;
    report_notices(&lock);
    held_notices::release(&sink);
    let kind = if imports {
        "import"
    } else {
        update_kind(opts.operation)
    };
    let started = chrono::Utc::now().timestamp();
    let d = Deployment::new(opts, base, prepared.factory, journal, sink)
        .with_analyzers(packs.into_analyzers());
    let mut result = run(d, program).await;
    // The run's snapshot is what its journal replays to: the backend stores it instead of
    // replaying the journal, and nothing reads it after that.
    let snapshot = std::mem::take(&mut result.snapshot);
    ws.backend
        .finish_deployment_from(&lock, crypter, &snapshot)?;
    report_notices(&lock);
    stepdeck::memory::free_in_background(snapshot);
    let record = UpdateRecord {
        kind: kind.to_string(),
        start_time: started,
        message: meta.message.clone().unwrap_or_default(),
        environment: meta.environment.clone(),
        config: recorded_config(stack),
        result: if result.outcome.is_success() {
            "succeeded"
        } else {
            "failed"
        }
        .to_string(),
        end_time: chrono::Utc::now().timestamp(),
        version: 0,
        resource_changes: result
            .counts
            .iter()
            .filter(|(_, n)| **n > 0)
            .map(|(op, n)| (op.as_str().to_string(), *n))
            .collect(),
    };
    let record = ws.backend.record_update(&lock, record)?;
    ws.backend
        .record_update_events(&lock, record.version, &recording.finish())?;
    Ok(result)
}

/// The stack's configuration as the history records it: secrets (and objects holding
/// secure leaves) keep their ciphertext.
fn recorded_config(stack: &Stack) -> BTreeMap<String, RecordedConfig> {
    stack
        .settings
        .config
        .iter()
        .map(|(key, value)| {
            let secret = value.has_secret();
            let recorded = match value {
                ConfigValue::Secure(ct) => RecordedConfig {
                    string: ct.clone(),
                    secret,
                    object: false,
                },
                ConfigValue::Plain(v) => RecordedConfig {
                    string: value_text(v),
                    secret,
                    object: v.is_object() || v.is_array(),
                },
            };
            (key.to_string(), recorded)
        })
        .collect()
}

/// The operation as Pulumi names it in messages (`preview canceled`).
pub(super) fn operation_name(operation: Operation) -> &'static str {
    match operation {
        Operation::Preview => "preview",
        Operation::Update => "update",
        Operation::Destroy => "destroy",
        Operation::Refresh => "refresh",
    }
}

/// The update kind Pulumi names an operation by (in the history and in "the update was aborted").
pub(super) fn update_kind(operation: Operation) -> &'static str {
    match operation {
        Operation::Preview | Operation::Update => "update",
        Operation::Destroy => "destroy",
        Operation::Refresh => "refresh",
    }
}
