//! A policy pack's process from its start to the port it prints: what it writes to standard
//! error meanwhile is kept, so that a pack that crashes, exits, prints something else or
//! does not answer in time fails with its own last words; once started its output goes out
//! as diagnostics, and dropping the process kills it.
//!
//! Pulumi waits for the port without a deadline; stepdeck gives a pack's whole start-up one
//! (`STEPDECK_POLICY_PACK_TIMEOUT`, default 120 s: a TypeScript pack that type-checks took 25 s
//! on a loaded two-core machine), because a pack that hangs before answering would otherwise
//! hold the run, and the operator, forever before anything happens.

use std::collections::VecDeque;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::process::{Child, Command};
use tokio::time::Instant;

use super::launch::PackCommand;
use crate::engine::{EventSink, Severity};

/// The default start-up deadline of a pack.
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(120);
/// The variable that sets it, in seconds.
pub const STARTUP_TIMEOUT_VAR: &str = "STEPDECK_POLICY_PACK_TIMEOUT";
/// Lines of a failed pack's standard error its error quotes.
const STDERR_TAIL: usize = 20;

/// The start-up deadline: `STEPDECK_POLICY_PACK_TIMEOUT` seconds, else the default.
pub fn startup_timeout() -> Result<Duration, String> {
    match std::env::var(STARTUP_TIMEOUT_VAR) {
        Err(_) => Ok(DEFAULT_STARTUP_TIMEOUT),
        Ok(text) => text
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|s| s.is_finite() && *s > 0.0)
            .map(Duration::from_secs_f64)
            .ok_or_else(|| {
                format!("{STARTUP_TIMEOUT_VAR}={text:?}: expected a number of seconds above 0")
            }),
    }
}

/// Why a pack did not start.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StartError {
    #[error("cannot run {program}: {reason}")]
    Spawn { program: String, reason: String },
    #[error("it exited before printing its port ({status}){}", quoted(.stderr))]
    Exited { status: String, stderr: Vec<String> },
    #[error("it wrote an invalid port to stdout: {line:?}{}", quoted(.stderr))]
    NotAPort { line: String, stderr: Vec<String> },
    #[error("it did not start within {seconds}s ({var} sets the limit){}", quoted(.stderr), var = STARTUP_TIMEOUT_VAR)]
    TimedOut { seconds: f64, stderr: Vec<String> },
}

fn quoted(lines: &[String]) -> String {
    if lines.is_empty() {
        return String::new();
    }
    let mut out = String::from("; its output:");
    for l in lines {
        out.push_str("\n    ");
        out.push_str(l);
    }
    out
}

/// Standard error's last lines until the pack started (`None` after: lines then go out as
/// diagnostics), behind one lock so that no line falls between the two.
#[derive(Clone)]
struct Tail(Arc<Mutex<Option<VecDeque<String>>>>);

impl Tail {
    fn new() -> Tail {
        Tail(Arc::new(Mutex::new(Some(VecDeque::new()))))
    }

    /// Keeps a line while the pack starts; says false once it started.
    fn keep(&self, line: &str) -> bool {
        let mut t = self.0.lock();
        let Some(t) = t.as_mut() else {
            return false;
        };
        if t.len() == STDERR_TAIL {
            t.pop_front();
        }
        t.push_back(line.to_string());
        true
    }

    fn lines(&self) -> Vec<String> {
        self.0
            .lock()
            .as_ref()
            .map(|t| t.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// The pack started: the lines kept so far, and no more kept.
    fn take(&self) -> Vec<String> {
        self.0.lock().take().map(Vec::from).unwrap_or_default()
    }
}

/// A started pack; dropping it kills the process.
pub struct PackProcess {
    child: Child,
    port: u16,
}

impl PackProcess {
    /// Starts the pack and reads its port, by `deadline` (`timeout` is what it allowed, for
    /// the message). Output lines after the port go to `events` as info diagnostics naming
    /// `label`.
    pub async fn start(
        cmd: &PackCommand,
        deadline: Instant,
        timeout: Duration,
        events: EventSink,
        label: &str,
    ) -> Result<PackProcess, StartError> {
        let spawn_error = |reason: String| StartError::Spawn {
            program: cmd.program.display().to_string(),
            reason,
        };
        let mut command = Command::new(&cmd.program);
        command
            .args(&cmd.args)
            .current_dir(&cmd.cwd)
            .envs(cmd.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        for name in &cmd.env_remove {
            command.env_remove(name);
        }
        let mut child = command.spawn().map_err(|e| spawn_error(e.to_string()))?;
        let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
            return Err(spawn_error("its output could not be read".into()));
        };
        let tail = Tail::new();
        let mut stderr_done = tokio::spawn(relay_stderr(
            stderr,
            tail.clone(),
            events.clone(),
            label.to_string(),
        ));
        let mut stdout = BufReader::new(stdout);
        let mut first = String::new();
        let read = tokio::time::timeout_at(deadline, stdout.read_line(&mut first)).await;
        let port = match read {
            Err(_) => Err(StartError::TimedOut {
                seconds: timeout.as_secs_f64(),
                stderr: tail.lines(),
            }),
            Ok(Err(e)) => Err(spawn_error(format!("reading its port failed: {e}"))),
            Ok(Ok(0)) => {
                let status = tokio::time::timeout_at(deadline, child.wait()).await;
                // What it wrote last arrives with the end of its standard error.
                let _ = tokio::time::timeout_at(deadline, &mut stderr_done).await;
                Err(StartError::Exited {
                    status: match status {
                        Ok(Ok(s)) => s.to_string(),
                        Ok(Err(e)) => e.to_string(),
                        Err(_) => "it closed its standard output".to_string(),
                    },
                    stderr: tail.lines(),
                })
            }
            Ok(Ok(_)) => first
                .trim()
                .parse::<u16>()
                .ok()
                .filter(|p| *p > 0)
                .ok_or_else(|| StartError::NotAPort {
                    line: first.trim().to_string(),
                    stderr: tail.lines(),
                }),
        };
        let port = match port {
            Ok(port) => port,
            Err(e) => {
                // Gone before we return: nothing of a pack that failed to start outlives us.
                let _ = child.kill().await;
                return Err(e);
            }
        };
        for line in tail.take() {
            events.diag(None, Severity::Info, format!("{label}: {line}"));
        }
        tokio::spawn(relay(stdout.into_inner(), events, label.to_string()));
        Ok(PackProcess { child, port })
    }

    /// The port the pack serves gRPC on (127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Stops the process (it is reaped in the background).
    pub fn kill(&mut self) {
        let _ = self.child.start_kill();
    }

    /// How the process ended, if it did.
    pub fn exit_status(&mut self) -> Option<String> {
        match self.child.try_wait() {
            Ok(Some(s)) => Some(s.to_string()),
            _ => None,
        }
    }
}

/// Keeps standard error's lines while the pack starts, then relays them as diagnostics.
async fn relay_stderr(
    stream: impl AsyncRead + Unpin,
    tail: Tail,
    events: EventSink,
    label: String,
) {
    let mut lines = BufReader::new(stream).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        if !tail.keep(&line) {
            events.diag(None, Severity::Info, format!("{label}: {line}"));
        }
    }
}

async fn relay(stream: impl AsyncRead + Unpin, events: EventSink, label: String) {
    let mut lines = BufReader::new(stream).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        events.diag(None, Severity::Info, format!("{label}: {line}"));
    }
}
