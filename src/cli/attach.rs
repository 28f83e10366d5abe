//! `stepdeck attach ADDR`: the console of a deployment served elsewhere (`up --serve`), fed
//! from its stream and acting on it remotely; or, with `--json`, its engine events as
//! Pulumi's JSON event stream.

use std::collections::BTreeMap;

use anyhow::{Result, anyhow};
use stepdeck::app::preset::Expected;
use stepdeck::app::{ConsoleMode, Steering, Title};
use stepdeck::console::Console;
use stepdeck::engine::EngineEvent;
use stepdeck::engine::run::approval::ApprovalKind;
use stepdeck::engine::run::control::local_operator;
use stepdeck::engine::run::events::CascadeId;
use stepdeck::file_limits::{self, SMALL_FILE};
use stepdeck::output::event_stream::EventWriter;
use stepdeck::rpc::console::addr::ConsoleAddress;
use stepdeck::rpc::console::client::{AttachOptions, RemoteActions, ServedEvent, attach};
use stepdeck::rpc::console_proto::Action;

use super::args::AttachArgs;
use super::errors::{DeploymentFailed, usage};
use super::stdout::{out, outln};

/// The console's actions, sent to the served deployment, and whether the token may act.
/// Leaving only detaches.
struct RemoteSteering(RemoteActions, bool);

impl Steering for RemoteSteering {
    fn pause(&self) {
        self.0.send(Action::Pause, 0);
    }

    fn resume(&self) {
        self.0.send(Action::Resume, 0);
    }

    fn is_paused(&self) -> bool {
        self.0.is_paused()
    }

    fn approve(&self, cascade: CascadeId) {
        self.0.send(Action::Approve, cascade);
    }

    fn decline(&self, cascade: CascadeId) {
        self.0.send(Action::Decline, cascade);
    }

    fn approve_all(&self) {
        self.0.send(Action::ApproveAll, 0);
    }

    fn approve_kind(&self, kind: ApprovalKind) {
        self.0.send_kind(Action::ApproveKind, kind);
    }

    fn step_once(&self) {
        self.0.send(Action::Step, 0);
    }

    fn cancel(&self) {
        self.0.send(Action::Cancel, 0);
    }

    fn terminate(&self) {
        self.0.send(Action::Terminate, 0);
    }

    fn owns_deployment(&self) -> bool {
        false
    }

    fn may_act(&self) -> bool {
        self.1
    }
}

fn token(args: &AttachArgs) -> Result<String> {
    let (text, from) = match &args.token_file {
        Some(path) => (
            file_limits::read_to_string(path, SMALL_FILE).map_err(|e| {
                usage(format!(
                    "{}: cannot read the token: {}",
                    path.display(),
                    e.into_io()
                ))
            })?,
            path.display().to_string(),
        ),
        None => (
            std::env::var("STEPDECK_TOKEN").unwrap_or_default(),
            "STEPDECK_TOKEN".to_string(),
        ),
    };
    let token = text.trim();
    if token.is_empty() {
        return Err(usage(format!(
            "no token: {from} is empty (give the token the serving side printed with --token-file or STEPDECK_TOKEN)"
        )));
    }
    Ok(token.to_string())
}

/// `stepdeck attach`: refuses early (bad address, no token, wrong token) before the console
/// opens.
pub(super) async fn run(args: AttachArgs) -> Result<()> {
    let address: ConsoleAddress = args.address.parse().map_err(|e| usage(format!("{e}")))?;
    let opts = AttachOptions {
        address: address.clone(),
        token: token(&args)?,
        client: args.name.clone().unwrap_or_else(local_operator),
        tls_ca: args.tls_ca.clone(),
        tls_domain: args.tls_domain.clone(),
    };
    if !args.json {
        // The first reply comes once the deployment has begun: say what we wait for.
        eprintln!("attaching to {address} (waiting for its run to start)…");
    }
    let attached = attach(opts).await?;
    if args.json {
        drop(attached.actions);
        return print_json(attached.events, attached.config).await;
    }
    let expected = Expected::decode(&attached.preview_plan)
        .map_err(|e| anyhow!("{address} sent a preview plan this stepdeck cannot read: {e}"))?;
    let mut console = Console::enter()?;
    console.expect(expected);
    let title = Title {
        operation: "attach".into(),
        stack: address.to_string(),
        project: String::new(),
        phase: None,
    };
    let steering = RemoteSteering(attached.actions, attached.may_act);
    let left = console
        .session(attached.events, steering, ConsoleMode::Live, title, false)
        .await;
    let report = console.take_report();
    drop(console);
    if let Some(report) = report {
        out!("{report}")?;
    }
    left?;
    Ok(())
}

/// Prints the stream as Pulumi's engine events, one JSON object a line; fails unless the
/// served deployment ended with a successful summary.
async fn print_json(
    mut events: tokio::sync::mpsc::UnboundedReceiver<ServedEvent>,
    config: BTreeMap<String, String>,
) -> Result<()> {
    let mut writer = EventWriter::new(config);
    let mut outcome = None;
    while let Some((e, _)) = events.recv().await {
        if let EngineEvent::Summary { outcome: o, .. } = &e {
            outcome = Some(o.clone());
        }
        for v in writer.event(&e).into_iter().filter(|v| !v.internal) {
            outln!("{}", v.value)?;
        }
    }
    outln!("{}", writer.finish())?;
    match outcome {
        Some(o) if o.is_success() => Ok(()),
        Some(o) => Err(DeploymentFailed(format!("the served deployment ended: {o:?}")).into()),
        None => {
            Err(DeploymentFailed("the stream ended before the deployment's summary".into()).into())
        }
    }
}
