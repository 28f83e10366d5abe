//! `preview`, `up`, `destroy` and `refresh`: one deployment of a stack, shown in the console,
//! as plain progress lines, or as JSON.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use anyhow::{Context, Result};
use stepdeck::engine::model::urn::ROOT_STACK_TYPE;
use stepdeck::engine::{
    Control, Deployment, DeploymentResult, EngineEvent, EventSink, NullJournal, Operation, Options,
    Outcome, Program, ProviderFactory,
};
use stepdeck::output::checked_output::{CheckedOutput, WriteFailed};
use stepdeck::output::digest::PreviewDigest;
use stepdeck::output::event_stream::EventWriter;
use stepdeck::output::plain::ProgressPrinter;
use stepdeck::output::summary::has_changes;
use stepdeck::output::visibility::Visibility;
use stepdeck::project::config::value_text;
use stepdeck::project::{ConfigValue, NewConfigValue};
use stepdeck::rpc::plugin::PluginContext;
use stepdeck::rpc::plugin::providers::PluginProviders;
use stepdeck::rpc::program::language_host::{Runtime, SdkProgram};
use stepdeck::state::{RecordedConfig, UpdateRecord};
use stepdeck::yaml::YamlProgram;
use tokio::sync::mpsc::UnboundedReceiver;

use super::approvals::approval_settings;
use super::args::{DeployArgs, OutputArgs};
use super::display::{Display, shown_config};
use super::errors::{ChangesNotExpected, DeploymentFailed, usage};
use super::held_notices;
use super::serve::ServeSession;
use super::workspace::{Stack, Workspace, provider_factory, report_notices, warn_if_broke_stale};

/// What a run records and loads beyond the engine's options: the history message and
/// whether destroy or refresh runs the program (`--run-program`).
#[derive(Clone, Debug, Default)]
pub(super) struct RunMeta {
    pub message: Option<String>,
    pub run_program: bool,
}

/// A deployment as the command line runs it: the engine's options and what the CLI adds.
pub(super) struct Run {
    pub options: Options,
    pub meta: RunMeta,
}

impl RunMeta {
    pub(super) fn from_args(args: &DeployArgs) -> RunMeta {
        RunMeta {
            message: args.message.clone(),
            run_program: args.run_program,
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
/// the project. Without `run_program` the program is never read, as Pulumi's destroy and
/// refresh never evaluate it: a stack whose program no longer loads can still be destroyed.
pub(super) fn prepare(ws: &Workspace, events: &EventSink, run_program: bool) -> Result<Prepared> {
    let project = &ws.project;
    let (program, python, dir): (Option<Box<dyn Program>>, PathBuf, PathBuf) =
        match project.runtime.name.as_str() {
            "yaml" => {
                let program: Option<Box<dyn Program>> = if run_program {
                    let yaml = YamlProgram::load(project).map_err(|e| usage(e.to_string()))?;
                    Some(Box::new(yaml))
                } else {
                    None
                };
                (program, PathBuf::from("python3"), project.program_dir())
            }
            name @ ("python" | "nodejs") => {
                let options: serde_json::Map<String, serde_json::Value> = project
                    .runtime
                    .options
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                let runtime =
                    Runtime::from_project(name, &options).map_err(|e| usage(e.to_string()))?;
                let mut sdk = SdkProgram::new(runtime, &project.dir, events.clone());
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
                    "{}: runtime `{other}` is not supported (supported: yaml, python, nodejs)",
                    project.dir.join("Pulumi.yaml").display()
                )));
            }
        };
    let ctx = PluginContext::new(dir, &project.name, python, events.clone());
    let factory = Arc::new(PluginProviders::new(
        provider_factory(ws, events.clone()),
        ctx,
    ));
    Ok(Prepared { program, factory })
}

/// Engine options from the command line and the stack.
pub(super) fn options(
    ws: &Workspace,
    stack: &Stack,
    operation: Operation,
    args: &DeployArgs,
    display: Display,
) -> Result<Options> {
    let config = stack.resolve_config(&ws.project)?;
    let gates = approval_settings(ws, stack, args, display)?;
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
        dry_run: false,
        plan: match (&args.plan, operation) {
            // The preview of `up --plan` checks the plan too, so a violation shows before `y`.
            (Some(path), Operation::Update | Operation::Preview) => {
                Some(Arc::new(super::plan::load(path, ws, stack)?))
            }
            _ => None,
        },
        strict_plan: args.strict,
        record_plan: args.save_plan.is_some(),
    })
}

/// What the plain and JSON displays show besides the defaults: `--show-sames`,
/// `--show-replacement-steps`, `--diff`, and the `--event-log` file.
pub(super) struct Shown {
    pub visibility: Visibility,
    pub diff: bool,
    pub suppress_outputs: bool,
    pub event_log: Option<CheckedOutput<std::fs::File>>,
}

impl Shown {
    /// The display choices of the command line; creates the event log file.
    pub(super) fn from_args(args: &OutputArgs) -> Result<Shown> {
        let event_log = args
            .event_log
            .as_ref()
            .map(|p| {
                std::fs::File::create(p)
                    .map(|f| CheckedOutput::new(p.display().to_string(), "the event log", f))
                    .with_context(|| format!("{}: cannot create the event log", p.display()))
            })
            .transpose()?;
        Ok(Shown {
            visibility: Visibility {
                show_sames: args.show_sames,
                show_replacement_steps: args.show_replacement_steps,
            },
            diff: args.diff,
            suppress_outputs: args.suppress_outputs,
            event_log,
        })
    }

    /// Flags only the plain and JSON displays honour: the console is not opened with them.
    fn needs_plain(args: &OutputArgs) -> bool {
        args.event_log.is_some() || args.diff || args.expect_no_changes
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

async fn cancel_on_ctrl_c(control: Control) {
    while tokio::signal::ctrl_c().await.is_ok() {
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
    let mut stdout = CheckedOutput::new("standard output", what, std::io::stdout());
    let mut log = shown.event_log;
    // The engine-event stream is built only for a reader: the event log, or `--json`.
    let mut writer = (json || log.is_some()).then(|| EventWriter::new(config.clone()));
    let mut digest = PreviewDigest::new(shown.visibility);
    // One of the two writes to standard output, whichever the display is.
    let (mut printer, mut json_out) = if json {
        (None, Some(&mut stdout))
    } else {
        let printer = ProgressPrinter::new(&mut stdout).with_display(shown.visibility, shown.diff);
        (Some(printer), None)
    };
    let mut preview = false;
    let mut emit = |v: serde_json::Value, preview: bool| {
        let text = v.to_string();
        if let Some(log) = &mut log {
            log.line(&text);
        }
        if let Some(out) = json_out.as_mut().filter(|_| !preview) {
            out.line(&text);
        }
    };
    while let Some(e) = events.recv().await {
        if let EngineEvent::Prelude { preview: p, .. } = &e {
            preview = *p;
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
        emit(writer.finish(), preview);
    }
    if let Some(out) = json_out.filter(|_| preview) {
        let text = serde_json::to_string_pretty(&digest.to_json(&config)).unwrap_or_default();
        out.line(&text);
    }
    let log = log.map(CheckedOutput::finish);
    [log, Some(stdout.finish())]
        .into_iter()
        .flatten()
        .filter_map(Result::err)
        .collect()
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

/// The outcome as this command's result: a failed or cancelled run exits 1.
pub(super) fn conclude(result: &DeploymentResult) -> Result<()> {
    match &result.outcome {
        Outcome::Succeeded => Ok(()),
        Outcome::Failed(e) => Err(DeploymentFailed(format!("the deployment failed: {e}")).into()),
        Outcome::Cancelled => Err(DeploymentFailed("the deployment was cancelled".into()).into()),
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
    match (&args.save_plan, result.plan.take()) {
        (Some(path), Some(plan)) => super::plan::save(path, ws, stack, plan),
        _ => Ok(()),
    }
}

/// `--expect-no-changes`: a preview or update that changed anything (Pulumi's `HasChanges`:
/// any step but same and reads) fails with exit code 7.
fn expect_no_changes(
    args: &OutputArgs,
    operation: Operation,
    result: &DeploymentResult,
) -> Result<()> {
    if !args.expect_no_changes || !has_changes(&result.counts) {
        return Ok(());
    }
    let name = if operation == Operation::Preview {
        "preview"
    } else {
        "update"
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
    let display = Display::choose(
        args.json,
        args.non_interactive || Shown::needs_plain(&args.output),
    );
    if display == Display::Console {
        held_notices::hold();
    }
    let ws = Workspace::open(dir, backend)?;
    let creates = matches!(operation, Operation::Preview | Operation::Update);
    let mut stack = ws.stack(args.stack.stack.as_deref(), creates)?;
    stack.remember_salt(ws.dir())?;
    if args.output.expect_no_changes && !matches!(operation, Operation::Preview | Operation::Update)
    {
        return Err(usage("--expect-no-changes applies to preview and up"));
    }
    if args.run_program && !matches!(operation, Operation::Destroy | Operation::Refresh) {
        return Err(usage("--run-program applies to destroy and refresh"));
    }
    apply_config_args(&ws, &mut stack, args)?;
    if operation != Operation::Preview && !args.yes && display != Display::Console {
        return Err(usage(
            "--yes must be passed in to proceed when running in non-interactive mode",
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

/// Runs a deployment with the plain or JSON display (and serves its console when asked).
pub(super) async fn run(
    Opened { ws, stack, display }: Opened,
    operation: Operation,
    args: DeployArgs,
    serving: Option<ServeSession>,
) -> Result<()> {
    let opts = options(&ws, &stack, operation, &args, display)?;
    let (sink, events) = EventSink::channel();
    let config = shown_config(&opts);
    let shown = Shown::from_args(&args.output)?;
    let run = Run {
        options: opts,
        meta: RunMeta::from_args(&args),
    };
    let notes = sink.clone();
    let served_options = run.options.clone();
    let unwritten = Mutex::new(Vec::new());
    let result = execute(&ws, &stack, run, sink, |d, p| {
        let events = match &serving {
            Some(s) => s.consume((d.control(), notes), &served_options, events),
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
    let concluded = result.and_then(|r| conclude(&r).map(|()| r));
    let mut result = match (concluded, unwritten) {
        (Ok(r), unwritten) => {
            unwritten?;
            r
        }
        (Err(e), Err(w)) => return Err(e.context(w.to_string())),
        (Err(e), Ok(())) => return Err(e),
    };
    save_plan(&ws, &stack, &args, &mut result)?;
    expect_no_changes(&args.output, operation, &result)
}

/// Runs a deployment against the stack's state: previews read it, the others lock the stack,
/// journal every step, compact at the end and record the update in the stack's history.
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
    run: F,
) -> Result<DeploymentResult>
where
    F: FnOnce(Deployment, Option<Box<dyn Program>>) -> Fut,
    Fut: std::future::Future<Output = DeploymentResult>,
{
    let runs_program =
        meta.run_program || matches!(opts.operation, Operation::Preview | Operation::Update);
    held_notices::release(&sink);
    let prepared = prepare(ws, &sink, runs_program)?;
    let program = prepared.program;
    let crypter = stack.crypter.as_ref();
    if opts.is_preview() {
        let base = ws.backend.load(&stack.reference, crypter)?.snapshot;
        let d = Deployment::new(opts, base, prepared.factory, Box::new(NullJournal), sink);
        return Ok(run(d, program).await);
    }
    let lock = ws.backend.lock(&stack.reference, opts.operation.as_str())?;
    warn_if_broke_stale(&lock);
    held_notices::release(&sink);
    let (base, journal) = ws.backend.begin_deployment(&lock, crypter)?;
    report_notices(&lock);
    held_notices::release(&sink);
    let kind = update_kind(opts.operation);
    let started = chrono::Utc::now().timestamp();
    let d = Deployment::new(opts, base, prepared.factory, journal, sink);
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
        environment: BTreeMap::new(),
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
    ws.backend.record_update(&lock, record)?;
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

/// The update kind Pulumi names an operation by (in the history and in "the update was aborted").
pub(super) fn update_kind(operation: Operation) -> &'static str {
    match operation {
        Operation::Preview | Operation::Update => "update",
        Operation::Destroy => "destroy",
        Operation::Refresh => "refresh",
    }
}
