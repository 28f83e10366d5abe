//! `--serve`: a deployment also served to watchers elsewhere over the console protocol: the
//! address, the tokens and TLS from the command line, and the run's events teed to the
//! watchers on their way to the local display.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;
use stepdeck::engine::{Control, EngineEvent, EventSink, Options};
use stepdeck::file_limits::{self, SMALL_FILE};
use stepdeck::rpc::console::addr::ConsoleAddress;
use stepdeck::rpc::console::server::{Briefing, Limits, Served, ServingConsole, TlsFiles, serve};
use stepdeck::rpc::console::tee::tee;
use stepdeck::rpc::console::token::{Tokens, random_token};
use tokio::sync::mpsc::UnboundedReceiver;

use super::args::ServeArgs;
use super::display::shown_config;
use super::errors::usage;

/// A console being served for the deployment this command runs.
pub(super) struct ServeSession {
    served: Arc<Served>,
    serving: ServingConsole,
    approval_timeout: Option<Duration>,
}

/// How long the end of a deployment waits for its watchers to read the summary.
const DRAIN: Duration = Duration::from_secs(3);

fn token_from_file(path: &Path) -> Result<String> {
    let text = file_limits::read_to_string(path, SMALL_FILE).map_err(|e| {
        usage(format!(
            "{}: cannot read the token: {}",
            path.display(),
            e.into_io()
        ))
    })?;
    let token = text.trim().to_string();
    if token.is_empty() || !token.chars().all(|c| c.is_ascii_graphic()) {
        return Err(usage(format!(
            "{}: the token must be one line of printable ASCII",
            path.display()
        )));
    }
    Ok(token)
}

/// A token from its file, else its environment variable; `None` when neither gives one.
fn given_token(file: Option<&Path>, var: &str) -> Result<Option<String>> {
    if let Some(path) = file {
        return token_from_file(path).map(Some);
    }
    match std::env::var(var) {
        Ok(t) if !t.trim().is_empty() => Ok(Some(t.trim().to_string())),
        _ => Ok(None),
    }
}

/// Binds the address and starts serving (before the deployment, so a bad address or
/// certificate fails the command first); prints generated tokens once on standard error.
pub(super) async fn start(args: &ServeArgs) -> Result<Option<ServeSession>> {
    let Some(address) = &args.serve else {
        return Ok(None);
    };
    let address: ConsoleAddress = address
        .parse()
        .map_err(|e| usage(format!("--serve: {e}")))?;
    let control = given_token(args.serve_token_file.as_deref(), "STEPDECK_SERVE_TOKEN")?;
    let watch = given_token(
        args.serve_watch_token_file.as_deref(),
        "STEPDECK_SERVE_WATCH_TOKEN",
    )?;
    let tokens = Tokens {
        control: control.clone().unwrap_or_else(random_token),
        watch: watch.clone().unwrap_or_else(random_token),
    };
    if tokens.control == tokens.watch {
        return Err(usage(
            "the watch-only token must differ from the token that may act",
        ));
    }
    let tls = args
        .serve_tls_cert
        .clone()
        .zip(args.serve_tls_key.clone())
        .map(|(cert, key)| TlsFiles { cert, key });
    let served = Served::new();
    let serving = serve(
        &address,
        tokens.clone(),
        tls.as_ref(),
        Limits::default(),
        served.clone(),
    )
    .await?;
    eprintln!("Serving the console on {}", serving.address);
    if control.is_none() {
        eprintln!("  token (may act):  {}", tokens.control);
    }
    if watch.is_none() {
        eprintln!("  token (watch only): {}", tokens.watch);
    }
    Ok(Some(ServeSession {
        served,
        serving,
        approval_timeout: args.approval_timeout.map(Duration::from_secs),
    }))
}

impl ServeSession {
    /// Serves the deployment behind `control` and `notes` run with `options` (after a preview
    /// that planned `preview_plan`, `Expected::encode`d; empty without one); returns the local
    /// display's stream (see `console_tee::tee`).
    pub(super) fn consume(
        &self,
        deployment: (Control, EventSink),
        options: &Options,
        preview_plan: Vec<u8>,
        events: UnboundedReceiver<EngineEvent>,
    ) -> UnboundedReceiver<EngineEvent> {
        let briefing = Briefing {
            config: shown_config(options),
            preview_plan,
        };
        tee(
            &self.served,
            deployment,
            briefing,
            events,
            self.approval_timeout,
        )
    }

    /// Lets the watchers read to the end (at most a few seconds), then stops serving; returns
    /// how many connections the server turned away, as a line for standard error once the
    /// display is done (the run's log said when it began, once).
    pub(super) async fn finish(self) -> Option<String> {
        self.served.hub.drained(DRAIN).await;
        let turned_away = self.serving.turned_away();
        drop(self.serving);
        (turned_away > 0).then(|| {
            format!(
                "The console server turned away {turned_away} connection{} (no valid token in \
                 time, or over its limits).",
                if turned_away == 1 { "" } else { "s" }
            )
        })
    }
}
