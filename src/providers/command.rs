//! The `command` provider: `command:local:Command` of the `pulumi-command` package, running
//! real processes on create, update and delete, with `triggers` forcing a replacement, the
//! files its `assetPaths`/`archivePaths` select as `assets`/`archive` (`command_assets`), and
//! its `command:local:run` function. The command's output is kept in `stdout`/`stderr`, and the
//! streams its `logging` option chooses are shown line by line while it runs (`command_log`).
//!
//! Secrets: what the command produced (`stdout`, `stderr`, `assets`, `archive`) is secret when
//! any input holds a secret (or the previous output it is given in its environment was secret),
//! since the command may print what it was given; an input echoed back stays as it was given.
//! This is the rule of pulumi-command 0.8.2 and 0.9.0, whose every output depended on every
//! input (its issue 256); 0.9.1 on flow secrets only name to name, which leaves a secret the
//! command printed in plain text in the state.

use std::process::Stdio;
use std::time::Duration;

use async_trait::async_trait;
use tokio::io::AsyncWriteExt;
use tokio::sync::watch;

use super::command_assets::{glob_archive, glob_assets};
use super::command_log::{CommandLog, Logging};
use super::input_diff::{changed_inputs, diff_result};
use super::input_fields::{FieldError, check_known, opt_bool, opt_str, opt_str_list, opt_str_map};
use crate::engine::provider::{
    CheckFailure, CheckRequest, CheckResult, CreateRequest, CreateResult, DeleteRequest,
    DiffRequest, DiffResult, ProviderError, ReadRequest, ReadResult, UpdateRequest,
};
use crate::engine::{EventSink, PropertyMap, PropertyValue, Provider, Urn};

/// The type token of a local command.
pub const LOCAL_COMMAND: &str = "command:local:Command";
/// The package's `run` function: runs a command when invoked and returns what it printed.
pub const LOCAL_RUN: &str = "command:local:run";

const INPUTS: &[&str] = &[
    "addPreviousOutputInEnv",
    "archivePaths",
    "assetPaths",
    "create",
    "delete",
    "dir",
    "environment",
    "interpreter",
    "logging",
    "stdin",
    "triggers",
    "update",
];
/// How much of a failed command's output its error carries.
const TAIL_LINES: usize = 20;

/// How to run one command line, read from the resource's inputs.
struct Invocation {
    interpreter: Vec<String>,
    dir: Option<String>,
    environment: Vec<(String, String)>,
    stdin: Option<String>,
    /// `PULUMI_COMMAND_STDOUT`/`STDERR` from the previous run, when `addPreviousOutputInEnv`.
    previous: Option<(String, String)>,
    asset_paths: Option<Vec<String>>,
    archive_paths: Option<Vec<String>>,
    logging: Logging,
}

impl Invocation {
    fn from_inputs(inputs: &PropertyMap, previous: &PropertyMap) -> Result<Invocation, FieldError> {
        let interpreter = opt_str_list(inputs, "interpreter")?
            .filter(|i| !i.is_empty())
            .unwrap_or_else(|| vec!["/bin/sh".into(), "-c".into()]);
        let add_previous = opt_bool(inputs, "addPreviousOutputInEnv")?.unwrap_or(true);
        let prev = |k: &str| {
            previous
                .get(k)
                .and_then(PropertyValue::as_str)
                .unwrap_or("")
                .to_string()
        };
        Ok(Invocation {
            interpreter,
            dir: opt_str(inputs, "dir")?,
            environment: opt_str_map(inputs, "environment")?.unwrap_or_default(),
            stdin: opt_str(inputs, "stdin")?.filter(|s| !s.is_empty()),
            previous: add_previous.then(|| (prev("stdout"), prev("stderr"))),
            asset_paths: opt_str_list(inputs, "assetPaths")?,
            archive_paths: opt_str_list(inputs, "archivePaths")?,
            logging: Logging::from_inputs(inputs)?,
        })
    }
}

/// What a finished command printed, with one trailing newline removed as the package does,
/// and the files its `assetPaths`/`archivePaths` selected.
#[derive(Default)]
struct Output {
    stdout: String,
    stderr: String,
    assets: Option<PropertyValue>,
    archive: Option<PropertyValue>,
}

impl Output {
    /// The outputs: the inputs, what the command printed and the files it selected, secret
    /// when `secret` (see [`tainted`]).
    fn into_outputs(self, inputs: &PropertyMap, secret: bool) -> PropertyMap {
        let mut out = with_output(inputs, self.stdout.into(), self.stderr.into());
        out.extend(self.assets.map(|a| ("assets".to_string(), a)));
        out.extend(self.archive.map(|a| ("archive".to_string(), a)));
        if secret {
            hide_produced(&mut out);
        }
        out
    }
}

/// The outputs the command itself produces, as opposed to its inputs echoed back.
const PRODUCED: [&str; 4] = ["stdout", "stderr", "assets", "archive"];

/// Whether what the command produces must be secret: an input holds a secret, or the previous
/// output the command gets in `PULUMI_COMMAND_STDOUT`/`STDERR` was secret.
fn tainted(inputs: &PropertyMap, previous: &PropertyMap) -> bool {
    inputs.values().any(PropertyValue::contains_secrets)
        || (opt_bool(inputs, "addPreviousOutputInEnv")
            .ok()
            .flatten()
            .unwrap_or(true)
            && ["stdout", "stderr"].iter().any(|k| {
                previous
                    .get(*k)
                    .is_some_and(PropertyValue::contains_secrets)
            }))
}

/// Wraps the produced outputs that are known and not secret yet (an unknown hides nothing).
fn hide_produced(outputs: &mut PropertyMap) {
    for key in PRODUCED {
        if let Some(v) = outputs.get_mut(key)
            && !v.is_secret()
            && !v.contains_unknowns()
        {
            *v = PropertyValue::Secret(Box::new(std::mem::take(v)));
        }
    }
}

fn trim_newline(mut s: String) -> String {
    if s.ends_with('\n') {
        s.pop();
    }
    s
}

fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    lines[lines.len().saturating_sub(TAIL_LINES)..].join("\n")
}

/// The `command` provider. `cancel` kills the processes it is running.
pub struct CommandProvider {
    cancel_tx: watch::Sender<bool>,
    /// Where the lines `logging` chooses go while a command runs.
    events: EventSink,
}

impl Default for CommandProvider {
    fn default() -> Self {
        CommandProvider::new()
    }
}

fn check_type(urn: &Urn) -> Result<(), ProviderError> {
    if urn.type_() == LOCAL_COMMAND {
        Ok(())
    } else {
        Err(ProviderError::Failed(format!(
            "unknown command resource type `{}` (for {}); the built-in command provider has {LOCAL_COMMAND}",
            urn.type_(),
            urn.name()
        )))
    }
}

fn unique_id(name: &str) -> String {
    let mut bytes = [0u8; 4];
    rand::Rng::fill(&mut rand::rng(), &mut bytes[..]);
    format!("{name}{}", hex::encode(bytes))
}

fn with_output(inputs: &PropertyMap, stdout: PropertyValue, stderr: PropertyValue) -> PropertyMap {
    let mut out = inputs.clone();
    out.insert("stdout".into(), stdout);
    out.insert("stderr".into(), stderr);
    out
}

fn bad(e: FieldError) -> ProviderError {
    ProviderError::Failed(e.to_string())
}

impl CommandProvider {
    /// A provider with nothing running; after `cancel` it refuses to start more commands.
    pub fn new() -> CommandProvider {
        CommandProvider {
            cancel_tx: watch::channel(false).0,
            events: EventSink::none(),
        }
    }

    /// A provider that shows its commands' output on the deployment's events.
    pub fn with_events(events: EventSink) -> CommandProvider {
        CommandProvider {
            events,
            ..CommandProvider::new()
        }
    }

    /// Runs `command` for the resource `urn` (none for `command:local:run`) to completion;
    /// the child is killed if this future is dropped, the provider is cancelled, or `timeout`
    /// (seconds, 0 = none) passes.
    async fn run(
        &self,
        urn: Option<&Urn>,
        command: &str,
        how: &Invocation,
        timeout: f64,
    ) -> Result<Output, ProviderError> {
        let (program, args) = how
            .interpreter
            .split_first()
            .ok_or_else(|| ProviderError::Failed("`interpreter` is empty".into()))?;
        let mut cmd = tokio::process::Command::new(program);
        cmd.args(args)
            .arg(command)
            .stdin(if how.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        if let Some(dir) = &how.dir {
            cmd.current_dir(dir);
        }
        cmd.envs(how.environment.iter().map(|(k, v)| (k, v)));
        if let Some((out, err)) = &how.previous {
            if !out.is_empty() {
                cmd.env("PULUMI_COMMAND_STDOUT", out);
            }
            if !err.is_empty() {
                cmd.env("PULUMI_COMMAND_STDERR", err);
            }
        }
        let mut child = cmd.spawn().map_err(|e| {
            let place = how
                .dir
                .as_deref()
                .map(|d| format!(" in {d}"))
                .unwrap_or_default();
            ProviderError::Failed(format!(
                "cannot start `{program}`{place} to run {command:?}: {e}"
            ))
        })?;
        let stdin = child.stdin.take();
        let input = how.stdin.clone().unwrap_or_default();
        let feed = async move {
            if let Some(mut s) = stdin {
                // A command that exits without reading its input is not an error.
                let _ = s.write_all(input.as_bytes()).await;
            }
        };
        let log = CommandLog {
            events: self.events.clone(),
            urn: urn.cloned(),
        };
        let read_out = log.pump(child.stdout.take(), how.logging.stdout);
        let read_err = log.pump(child.stderr.take(), how.logging.stderr);
        let finished = async {
            let (_, out, err, status) = tokio::join!(feed, read_out, read_err, child.wait());
            (out, err, status)
        };
        let mut cancelled = self.cancel_tx.subscribe();
        let limit = if timeout > 0.0 {
            Duration::from_secs_f64(timeout)
        } else {
            Duration::MAX
        };
        let (out, err, status) = tokio::select! {
            r = finished => r,
            _ = cancelled.wait_for(|c| *c) => return Err(ProviderError::Cancelled),
            _ = tokio::time::sleep(limit) => {
                return Err(ProviderError::Failed(format!(
                    "command {command:?} did not finish within {timeout} s and was killed"
                )));
            }
        };
        let status =
            status.map_err(|e| ProviderError::Failed(format!("waiting for {command:?}: {e}")))?;
        let stdout = String::from_utf8_lossy(&out).into_owned();
        let stderr = String::from_utf8_lossy(&err).into_owned();
        if !status.success() {
            let code = status
                .code()
                .map(|c| format!("exit status {c}"))
                .unwrap_or_else(|| "a signal".to_string());
            let shown = if stderr.trim().is_empty() {
                &stdout
            } else {
                &stderr
            };
            return Err(ProviderError::Failed(format!(
                "command {command:?} failed with {code}:\n{}",
                tail(shown)
            )));
        }
        let dir = match &how.dir {
            Some(d) => std::path::PathBuf::from(d),
            None => std::env::current_dir()
                .map_err(|e| ProviderError::Failed(format!("no working directory: {e}")))?,
        };
        let collected = |field: &str, e: String| ProviderError::Failed(format!("{field}: {e}"));
        let assets = match &how.asset_paths {
            Some(globs) => Some(PropertyValue::Object(
                glob_assets(&dir, globs)
                    .map_err(|e| collected("assetPaths", e))?
                    .into_iter()
                    .collect(),
            )),
            None => None,
        };
        let archive = match &how.archive_paths {
            Some(globs) => {
                Some(glob_archive(&dir, globs).map_err(|e| collected("archivePaths", e))?)
            }
            None => None,
        };
        Ok(Output {
            stdout: trim_newline(stdout),
            stderr: trim_newline(stderr),
            assets,
            archive,
        })
    }
}

#[async_trait]
impl Provider for CommandProvider {
    fn resource_types(&self) -> Vec<String> {
        vec![LOCAL_COMMAND.to_string()]
    }

    async fn check(&self, req: CheckRequest) -> Result<CheckResult, ProviderError> {
        check_type(&req.urn)?;
        let news = &req.news;
        let mut failures = Vec::new();
        for key in news.keys() {
            if !INPUTS.contains(&key.as_str()) {
                failures.push(CheckFailure {
                    property: key.clone(),
                    reason: format!("unknown input; expected one of {}", INPUTS.join(", ")),
                });
            }
        }
        let f = &mut failures;
        for k in ["create", "update", "delete", "dir", "stdin"] {
            check_known(news, k, f, opt_str);
        }
        check_known(news, "interpreter", f, opt_str_list);
        check_known(news, "environment", f, opt_str_map);
        check_known(news, "addPreviousOutputInEnv", f, opt_bool);
        if let Some(Some(l)) = check_known(news, "logging", f, opt_str)
            && let Err(reason) = Logging::parse(Some(&l))
        {
            f.push(CheckFailure {
                property: "logging".into(),
                reason,
            });
        }
        for k in ["assetPaths", "archivePaths"] {
            check_known(news, k, f, opt_str_list);
        }
        if let Some(t) = news.get("triggers")
            && !t.contains_unknowns()
            && t.as_array().is_none()
            && *t != PropertyValue::Null
        {
            f.push(CheckFailure {
                property: "triggers".into(),
                reason: "expected a list".into(),
            });
        }
        Ok(CheckResult {
            inputs: req.news,
            failures,
        })
    }

    async fn diff(&self, req: DiffRequest) -> Result<DiffResult, ProviderError> {
        check_type(&req.urn)?;
        let changes = changed_inputs(&req.old_inputs, &req.new_inputs, &req.ignore_changes);
        Ok(diff_result(changes, |k| k == "triggers", false, Vec::new()))
    }

    async fn create(&self, req: CreateRequest) -> Result<CreateResult, ProviderError> {
        check_type(&req.urn)?;
        if req.preview {
            // The command may not be known yet; nothing runs in a preview anyway.
            let (out, err) = if given(&req.inputs, "create") {
                (PropertyValue::Unknown, PropertyValue::Unknown)
            } else {
                (PropertyValue::string(""), PropertyValue::string(""))
            };
            return Ok(CreateResult {
                id: String::new(),
                outputs: unknown_files(with_output(&req.inputs, out, err), &req.inputs),
            });
        }
        let command = opt_str(&req.inputs, "create").map_err(bad)?;
        let output = match command {
            Some(c) => {
                let how = Invocation::from_inputs(&req.inputs, &PropertyMap::new()).map_err(bad)?;
                self.run(Some(&req.urn), &c, &how, req.timeout).await?
            }
            None => Output::default(),
        };
        let secret = tainted(&req.inputs, &PropertyMap::new());
        Ok(CreateResult {
            id: unique_id(req.urn.name()),
            outputs: output.into_outputs(&req.inputs, secret),
        })
    }

    async fn read(&self, req: ReadRequest) -> Result<ReadResult, ProviderError> {
        check_type(&req.urn)?;
        Ok(ReadResult {
            id: req.id,
            inputs: req.inputs,
            outputs: req.state,
        })
    }

    /// Runs `update`, or `create` again when there is no `update`; with neither, keeps the
    /// previous output.
    async fn update(&self, req: UpdateRequest) -> Result<PropertyMap, ProviderError> {
        check_type(&req.urn)?;
        if req.preview && (given(&req.new_inputs, "update") || given(&req.new_inputs, "create")) {
            let out = with_output(
                &req.new_inputs,
                PropertyValue::Unknown,
                PropertyValue::Unknown,
            );
            return Ok(unknown_files(out, &req.new_inputs));
        }
        let command = match opt_str(&req.new_inputs, "update").map_err(bad)? {
            Some(u) => Some(u),
            None => opt_str(&req.new_inputs, "create").map_err(bad)?,
        };
        let old = |k: &str| req.old_outputs.get(k).cloned().unwrap_or_else(|| "".into());
        let secret = tainted(&req.new_inputs, &req.old_outputs);
        let Some(command) = command else {
            let mut out = with_output(&req.new_inputs, old("stdout"), old("stderr"));
            for k in ["assets", "archive"] {
                out.extend(req.old_outputs.get(k).map(|v| (k.to_string(), v.clone())));
            }
            if secret {
                hide_produced(&mut out);
            }
            return Ok(out);
        };
        let how = Invocation::from_inputs(&req.new_inputs, &req.old_outputs).map_err(bad)?;
        let output = self
            .run(Some(&req.urn), &command, &how, req.timeout)
            .await?;
        Ok(output.into_outputs(&req.new_inputs, secret))
    }

    async fn delete(&self, req: DeleteRequest) -> Result<(), ProviderError> {
        check_type(&req.urn)?;
        let inputs = if req.outputs.is_empty() {
            &req.inputs
        } else {
            &req.outputs
        };
        let Some(command) = opt_str(inputs, "delete").map_err(bad)? else {
            return Ok(());
        };
        let how = Invocation::from_inputs(inputs, &req.outputs).map_err(bad)?;
        self.run(Some(&req.urn), &command, &how, req.timeout)
            .await
            .map(|_| ())
    }

    async fn invoke(&self, token: &str, args: &PropertyMap) -> Result<PropertyMap, ProviderError> {
        if token != LOCAL_RUN {
            return Err(ProviderError::Failed(format!(
                "unknown function `{token}`; the built-in command provider has {LOCAL_RUN}"
            )));
        }
        let command = opt_str(args, "command")
            .map_err(bad)?
            .ok_or_else(|| ProviderError::Failed("`command` is required".into()))?;
        let how = Invocation::from_inputs(args, &PropertyMap::new()).map_err(bad)?;
        let output = self.run(None, &command, &how, 0.0).await?;
        Ok(output.into_outputs(args, tainted(args, &PropertyMap::new())))
    }

    async fn cancel(&self) -> Result<(), ProviderError> {
        self.cancel_tx.send_replace(true);
        Ok(())
    }
}

/// A preview's outputs: `assets` and `archive` are not known before the command runs.
fn unknown_files(mut outputs: PropertyMap, inputs: &PropertyMap) -> PropertyMap {
    for (input, output) in [("assetPaths", "assets"), ("archivePaths", "archive")] {
        if given(inputs, input) {
            outputs.insert(output.into(), PropertyValue::Unknown);
        }
    }
    outputs
}

/// Whether an input is set (to anything, known or not).
fn given(inputs: &PropertyMap, key: &str) -> bool {
    inputs
        .get(key)
        .is_some_and(|v| !matches!(v, PropertyValue::Null))
}
