//! `stepdeck replay FILE` and `stack history --open N`: a finished run opened in the console,
//! read-only, on a timeline to scrub. The run is read from an engine-event stream (an
//! `--event-log` file, `--json` output, or the events the history kept with the update).
//! Pulumi's stream names no dependencies: a file's replay takes them from the state of the
//! stack `--stack` names, else of the stack the file's URNs name in the project of the
//! current directory or of the file's directory, and says where its edges came from.

use std::io::IsTerminal;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result, anyhow, bail};
use stepdeck::app::ConsoleMode;
use stepdeck::app::Title;
use stepdeck::app::replay::Timeline;
use stepdeck::console::Console;
use stepdeck::engine::EngineEvent;
use stepdeck::file_limits;
use stepdeck::output::event_log_export::pulumi_stream;
use stepdeck::output::event_log_reader::{RecordedRun, StateDependencies, read_event_log};
use stepdeck::state::codec::update_events;

use super::errors;
use super::stdout::out;
use super::workspace::Workspace;

/// `stepdeck replay FILE`: the file, and how the command was asked.
pub(super) struct File<'a> {
    pub path: &'a Path,
    /// The stack whose state gives the dependencies (`--stack`).
    pub stack: Option<&'a str>,
    pub backend: Option<&'a str>,
    /// `--cwd`: the project whose stacks are looked in, else the current directory's.
    pub cwd: Option<&'a Path>,
    pub json: bool,
    pub non_interactive: bool,
}

/// Opens the run recorded in a file.
pub(super) async fn replay_file(file: File<'_>) -> Result<()> {
    require_terminal(file.json, file.non_interactive)?;
    let path = file.path;
    let text = file_limits::read_to_string(path, file_limits::STATE_DOCUMENT)
        .map_err(|e| e.into_io())
        .with_context(|| format!("reading {}", path.display()))?;
    let mut run = read_event_log(&text, &path.display().to_string())?;
    let cwd = match file.cwd {
        Some(dir) => dir.to_path_buf(),
        None => std::env::current_dir().context("reading the current directory")?,
    };
    match file.stack {
        Some(stack) => {
            let (name, deps) = state_dependencies(&cwd, file.backend, stack)?;
            if !run.add_dependencies(&name, &deps) {
                return Err(errors::usage(format!(
                    "--stack {stack}: its state holds none of the resources {} records",
                    path.display()
                )));
            }
        }
        None => {
            if let Some(stack) = run.stack().map(str::to_string) {
                for dir in std::iter::once(cwd.as_path()).chain(path.parent()) {
                    if let Ok((name, deps)) = state_dependencies(dir, file.backend, &stack)
                        && run.add_dependencies(&name, &deps)
                    {
                        break;
                    }
                }
            }
        }
    }
    show(run, "replay").await
}

/// The dependencies of each resource of `stack`'s state, in the project of `dir`, and the
/// stack's name as printed.
fn state_dependencies(
    dir: &Path,
    backend: Option<&str>,
    stack: &str,
) -> Result<(String, StateDependencies)> {
    let ws = Workspace::open(dir, backend)?;
    let stack = ws.stack(Some(stack), false)?;
    let snapshot = ws
        .backend
        .load(&stack.reference, stack.crypter.as_ref())?
        .snapshot;
    let deps = snapshot
        .resources
        .iter()
        .map(|r| (r.urn.clone(), Arc::from(r.dependencies.clone())))
        .collect();
    Ok((stack.name, deps))
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
    let kept = kept_events(&ws, open.stack, open.version)?;
    let run = read_event_log(&kept.text, &kept.source)?;
    show(run, &kept.kind).await
}

/// The events the history kept with an update: its record's text, its kind (`update`,
/// `destroy`…) and how errors name it.
struct Kept {
    text: String,
    kind: String,
    source: String,
}

fn kept_events(ws: &Workspace, stack: Option<&str>, version: u64) -> Result<Kept> {
    let stack = ws.stack(stack, false)?;
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
    Ok(Kept {
        text,
        kind: record.kind.clone(),
        source: format!("update {version} of stack {}", stack.name),
    })
}

/// `stack history --export N [FILE]`: update N's events as an event log, to FILE or standard
/// output.
pub(super) fn export(
    ws: &Workspace,
    stack: Option<&str>,
    version: u64,
    file: Option<&Path>,
) -> Result<()> {
    let kept = kept_events(ws, stack, version)?;
    let log = pulumi_stream(&kept.text, &kept.source)?;
    match file {
        Some(path) => {
            std::fs::write(path, log).with_context(|| format!("writing {}", path.display()))?
        }
        None => out!("{log}")?,
    }
    Ok(())
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
    let preview = run
        .events
        .iter()
        .any(|e| matches!(e.event, EngineEvent::Prelude { preview: true, .. }));
    let (stack, project) = run
        .events
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
    let timeline = Timeline::new(run);
    let mut console = Console::enter()?;
    console.replay(timeline, mode, title).await?;
    Ok(())
}
