//! `stepdeck replay FILE` and `stack history --open N`: a finished run opened in the console,
//! read-only, on a timeline to scrub. The run is read from an engine-event stream (an
//! `--event-log` file, `--json` output, or the events the history kept with the update).

use std::io::IsTerminal;
use std::path::Path;

use anyhow::{Context, Result, anyhow, bail};
use stepdeck::app::ConsoleMode;
use stepdeck::app::Title;
use stepdeck::app::replay::{Moment, Timeline};
use stepdeck::console::Console;
use stepdeck::engine::EngineEvent;
use stepdeck::file_limits;
use stepdeck::output::event_log_reader::{RecordedRun, read_event_log};
use stepdeck::state::codec::update_events;

use super::errors;
use super::workspace::Workspace;

/// Opens the run recorded in `path`.
pub(super) async fn replay_file(path: &Path, json: bool, non_interactive: bool) -> Result<()> {
    require_terminal(json, non_interactive)?;
    let text = file_limits::read_to_string(path, file_limits::STATE_DOCUMENT)
        .map_err(|e| e.into_io())
        .with_context(|| format!("reading {}", path.display()))?;
    let run = read_event_log(&text, &path.display().to_string())?;
    show(run, "replay").await
}

/// `stack history --open N`: which update of which stack, and how the command was asked.
pub(super) struct Open<'a> {
    pub stack: Option<&'a str>,
    pub version: u64,
    pub json: bool,
    pub non_interactive: bool,
}

/// Opens update `version` of the stack from the events its history kept.
pub(super) async fn replay_update(dir: &Path, backend: Option<&str>, open: Open<'_>) -> Result<()> {
    require_terminal(open.json, open.non_interactive)?;
    let ws = Workspace::open(dir, backend)?;
    let stack = ws.stack(open.stack, false)?;
    let version = open.version;
    let records = ws.backend.history(&stack.reference)?;
    let Some(record) = records.iter().find(|r| r.version == version) else {
        let last = records.first().map_or(0, |r| r.version);
        return Err(errors::usage(format!(
            "stack {} has no update {version} (its updates are 1 to {last}; see `stack history`)",
            stack.name
        )));
    };
    let Some(bytes) = ws.backend.update_events(&stack.reference, version)? else {
        bail!(
            "update {version} of stack {} kept no events to replay: only the last {} updates keep them",
            stack.name,
            update_events::KEPT_UPDATES
        );
    };
    let text = String::from_utf8(bytes).map_err(|e| {
        anyhow!(
            "update {version} of stack {}: its events are not text: {e}",
            stack.name
        )
    })?;
    let source = format!("update {version} of stack {}", stack.name);
    let run = read_event_log(&text, &source)?;
    show(run, &record.kind).await
}

/// A replay draws the console: without a terminal, or asked for JSON, there is nothing to show.
pub(super) fn require_terminal(json: bool, non_interactive: bool) -> Result<()> {
    if json {
        return Err(errors::usage(
            "a replay opens the console: --json has nothing to print (the event log is already JSON)",
        ));
    }
    if non_interactive || !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        return Err(errors::usage(
            "a replay opens the console and needs a terminal (standard input and output)",
        ));
    }
    Ok(())
}

/// Shows recorded events in the console until the operator leaves it.
pub(super) async fn show(run: RecordedRun, operation: &str) -> Result<()> {
    let RecordedRun { events, lines } = run;
    let preview = events
        .iter()
        .any(|e| matches!(e.event, EngineEvent::Prelude { preview: true, .. }));
    let (stack, project) = events
        .iter()
        .find_map(|e| match &e.event {
            EngineEvent::Prelude { stack, project, .. } => Some((stack.clone(), project.clone())),
            _ => None,
        })
        .unwrap_or_default();
    let mode = if preview {
        ConsoleMode::Preview {
            awaiting_decision: false,
        }
    } else {
        ConsoleMode::Live
    };
    let title = Title {
        operation: operation.to_string(),
        stack,
        project,
        phase: Some("replay".into()),
    };
    let moments = events
        .into_iter()
        .map(|e| Moment {
            at: e.at,
            line: e.line,
            event: e.event,
        })
        .collect();
    let timeline = Timeline::new(moments, lines);
    let mut console = Console::enter()?;
    console.replay(timeline, mode, title).await?;
    Ok(())
}
