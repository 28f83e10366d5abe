//! `preview`, `up`, `destroy` and `refresh`: one deployment of a stack, shown in the console,
//! as plain progress lines, or as JSON.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Result;
use stepdeck::engine::{
    ApprovalPolicy, Control, Deployment, DeploymentResult, EngineEvent, EventSink, Journal,
    NullJournal, Operation, Options, Outcome, Program, ProviderFactory,
};
use stepdeck::output::json::{EventWriter, PreviewDigest};
use stepdeck::output::plain::ProgressPrinter;
use stepdeck::rpc::language_host::{Runtime, SdkProgram};
use stepdeck::rpc::plugin::PluginContext;
use stepdeck::rpc::plugin_providers::PluginProviders;
use stepdeck::yaml::YamlProgram;
use tokio::sync::mpsc::UnboundedReceiver;

use super::args::{ApprovalArg, DeployArgs};
use super::errors::{DeploymentFailed, usage};
use super::workspace::{Stack, Workspace, provider_factory};

/// How a deployment is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Display {
    Console,
    Plain,
    Json,
}

impl Display {
    pub fn choose(json: bool, non_interactive: bool) -> Display {
        if json {
            Display::Json
        } else if non_interactive
            || !std::io::stdout().is_terminal()
            || !std::io::stdin().is_terminal()
        {
            Display::Plain
        } else {
            Display::Console
        }
    }
}

/// A project's program and the providers it may load.
pub struct Prepared {
    pub program: Box<dyn Program>,
    pub factory: Arc<dyn ProviderFactory>,
}

/// Loads the project's program (YAML in-process, or a Python/Node SDK program over gRPC) and
/// the provider factory: built-in providers first, then plugins found for the project.
pub fn prepare(ws: &Workspace, events: &EventSink) -> Result<Prepared> {
    let project = &ws.project;
    let (program, python, dir): (Box<dyn Program>, PathBuf, PathBuf) =
        match project.runtime.name.as_str() {
            "yaml" => {
                let program = YamlProgram::load(project).map_err(|e| usage(e.to_string()))?;
                (
                    Box::new(program),
                    PathBuf::from("python3"),
                    project.program_dir(),
                )
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
                (Box::new(sdk), python, dir)
            }
            other => {
                return Err(usage(format!(
                    "{}: runtime `{other}` is not supported (supported: yaml, python, nodejs)",
                    project.dir.join("Pulumi.yaml").display()
                )));
            }
        };
    let ctx = PluginContext::new(dir, &project.name, python, events.clone());
    let factory = Arc::new(PluginProviders::new(provider_factory(&ws.backend), ctx));
    Ok(Prepared { program, factory })
}

/// Engine options from the command line and the stack.
pub fn options(
    ws: &Workspace,
    stack: &Stack,
    operation: Operation,
    args: &DeployArgs,
    display: Display,
) -> Result<Options> {
    let config = stack.resolve_config(&ws.project)?;
    let approval = match (args.approve_replacements, display) {
        (Some(ApprovalArg::Ask), Display::Console) | (None, Display::Console) => {
            ApprovalPolicy::Ask
        }
        (Some(ApprovalArg::Ask), _) => {
            return Err(usage(
                "--approve-replacements ask needs the console; use auto or decline with --non-interactive or --json",
            ));
        }
        (Some(ApprovalArg::Decline), _) => ApprovalPolicy::Decline,
        (Some(ApprovalArg::Auto), _) | (None, _) => ApprovalPolicy::Auto,
    };
    if args.parallel == Some(0) {
        return Err(usage("--parallel must be at least 1"));
    }
    Ok(Options {
        stack: stack.name.clone(),
        project: ws.project.name.clone(),
        operation,
        parallel: args
            .parallel
            .unwrap_or_else(stepdeck::engine::deployment::default_parallel),
        parallel_diff: args.parallel_diff,
        continue_on_error: args.continue_on_error,
        approval,
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
    })
}

/// Runs one deployment with its output driven by `display`; returns the result.
pub async fn drive(
    deployment: Deployment,
    events: UnboundedReceiver<EngineEvent>,
    display: Display,
    config: BTreeMap<String, String>,
    program: Option<Box<dyn Program>>,
) -> DeploymentResult {
    let control = deployment.control();
    let interrupts = tokio::spawn(cancel_on_ctrl_c(control));
    let printer = tokio::spawn(print(events, display, config));
    let result = deployment.run(program).await;
    interrupts.abort();
    let _ = printer.await;
    result
}

async fn cancel_on_ctrl_c(control: Control) {
    while tokio::signal::ctrl_c().await.is_ok() {
        control.cancel();
    }
}

async fn print(
    mut events: UnboundedReceiver<EngineEvent>,
    display: Display,
    config: BTreeMap<String, String>,
) {
    let stdout = std::io::stdout();
    match display {
        Display::Json => {
            let mut digest = PreviewDigest::default();
            let mut writer = EventWriter::default();
            let mut preview = false;
            while let Some(e) = events.recv().await {
                if let EngineEvent::Prelude { preview: p, .. } = &e {
                    preview = *p;
                }
                if preview {
                    digest.event(&e);
                } else if let Some(v) = writer.event(&e) {
                    let _ = writeln!(&stdout, "{v}");
                }
            }
            if preview {
                let text =
                    serde_json::to_string_pretty(&digest.to_json(&config)).unwrap_or_default();
                let _ = writeln!(&stdout, "{text}");
            }
        }
        _ => {
            let mut printer = ProgressPrinter::new(stdout);
            while let Some(e) = events.recv().await {
                let _ = printer.event(&e);
            }
        }
    }
}

/// The configuration as displays may show it: secret values masked.
fn shown_config(opts: &Options) -> BTreeMap<String, String> {
    opts.config
        .iter()
        .map(|(k, v)| {
            let shown = if opts.secret_keys.contains(k) {
                "[secret]".to_string()
            } else {
                v.clone()
            };
            (k.clone(), shown)
        })
        .collect()
}

/// The outcome as this command's result: a failed or cancelled run exits 1.
pub fn conclude(result: &DeploymentResult) -> Result<()> {
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

/// `preview`, `up`, `destroy`, `refresh` from the command line.
pub async fn run(
    dir: &Path,
    backend: Option<&str>,
    operation: Operation,
    args: DeployArgs,
) -> Result<()> {
    let display = Display::choose(args.json, args.non_interactive);
    let ws = Workspace::open(dir, backend)?;
    let creates = matches!(operation, Operation::Preview | Operation::Update);
    let mut stack = ws.stack(args.stack.stack.as_deref(), creates)?;
    stack.remember_salt(ws.dir())?;
    if operation != Operation::Preview && !args.yes && display != Display::Console {
        return Err(usage(
            "--yes must be passed in to proceed when running in non-interactive mode",
        ));
    }
    if display == Display::Console {
        return super::console::run(&ws, &stack, operation, &args).await;
    }
    let opts = options(&ws, &stack, operation, &args, display)?;
    let (sink, events) = EventSink::channel();
    let config = shown_config(&opts);
    let result = execute(&ws, &stack, opts, sink, |d, p| {
        drive(d, events, display, config, p)
    })
    .await?;
    conclude(&result)
}

/// Runs a deployment against the stack's state: previews read it, the others lock the stack,
/// journal every step and compact at the end. `run` drives the deployment (and its display).
pub async fn execute<F, Fut>(
    ws: &Workspace,
    stack: &Stack,
    opts: Options,
    sink: EventSink,
    run: F,
) -> Result<DeploymentResult>
where
    F: FnOnce(Deployment, Option<Box<dyn Program>>) -> Fut,
    Fut: std::future::Future<Output = DeploymentResult>,
{
    let prepared = prepare(ws, &sink)?;
    let program = matches!(opts.operation, Operation::Preview | Operation::Update)
        .then_some(prepared.program);
    let crypter = stack.crypter.as_ref();
    if opts.is_preview() {
        let base = ws.backend.load(&stack.reference, crypter)?.snapshot;
        let d = Deployment::new(opts, base, prepared.factory, Box::new(NullJournal), sink);
        return Ok(run(d, program).await);
    }
    let lock = ws.backend.lock(&stack.reference, opts.operation.as_str())?;
    if let Some(stale) = lock.broke_stale() {
        eprintln!(
            "warning: removed a stale lock left by pid {} on {} ({} since {})",
            stale.pid, stale.hostname, stale.operation, stale.time
        );
    }
    let (base, journal) = ws.backend.begin_deployment(&lock, crypter)?;
    let journal: Box<dyn Journal> = Box::new(journal);
    let d = Deployment::new(opts, base, prepared.factory, journal, sink);
    let result = run(d, program).await;
    ws.backend.finish_deployment(&lock, crypter)?;
    Ok(result)
}
