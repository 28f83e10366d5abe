//! Loading the packs of a run, all at once (Pulumi's `loadPolicyPlugins`): each is announced
//! (`PolicyLoad`), started, asked for its info and configured; the engine gets them in the
//! order they finished loading, which is the order Pulumi remediates in. The first failure
//! fails the load (the program never runs); schema errors of every pack are reported together.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use futures::StreamExt;
use futures::stream::FuturesUnordered;
use tokio::time::{Instant, timeout_at};

use super::config_file::{ConfigFile, ConfigFileError};
use super::pack_file::{PackFileError, PackProject};
use super::reconcile::reconcile;
use crate::engine::run::policy::Analyzer;
use crate::engine::{EngineEvent, EventSink, Severity};
use crate::rpc::policy::client::{CallError, PackClient, PackConnection};
use crate::rpc::policy::info::PolicyConfig;
use crate::rpc::policy::launch::{StackIdentity, command};
use crate::rpc::policy::process::{PackProcess, StartError, startup_timeout};
use crate::rpc::transport::server::ServerHandle;

/// One `--policy-pack`, with its `--policy-pack-config` if given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PackRequest {
    /// As given on the command line.
    pub path: String,
    pub config: Option<PathBuf>,
}

/// Why the packs did not load.
#[derive(Debug, thiserror::Error)]
pub enum PolicyLoadError {
    #[error("failed to load Pulumi policy project located at {path:?}: {source}")]
    Project { path: String, source: PackFileError },
    #[error(transparent)]
    ConfigFile(#[from] ConfigFileError),
    #[error(
        "policy pack at {0:?} specifies ESC environments but the current backend does not support them"
    )]
    Environments(String),
    #[error("policy pack {path:?} failed to start: {reason}")]
    Start { path: String, reason: String },
    #[error("policy pack {path:?}: {source}")]
    Call { path: String, source: CallError },
    #[error("policy pack {name:?} at {path:?} does not support config")]
    NoConfig { name: String, path: String },
    #[error("configuring policy pack {name:?} at {path:?}: {source}")]
    Configure {
        name: String,
        path: String,
        source: CallError,
    },
    /// Config that a pack's schemas refuse, every error of every pack, sorted.
    #[error("validating policy config: {}", .0.join("\nvalidating policy config: "))]
    Invalid(Vec<String>),
    #[error("{0}")]
    Timeout(String),
    #[error("cannot serve the engine for policy packs: {0}")]
    Engine(String),
}

impl PolicyLoadError {
    /// Bad input (a pack's files, a config file) rather than a pack that failed.
    pub fn is_input_error(&self) -> bool {
        matches!(
            self,
            PolicyLoadError::Project { .. }
                | PolicyLoadError::ConfigFile(_)
                | PolicyLoadError::Environments(_)
                | PolicyLoadError::NoConfig { .. }
                | PolicyLoadError::Invalid(_)
                | PolicyLoadError::Timeout(_)
        )
    }
}

/// The packs of a run, loaded, in the order they finished loading (the order Pulumi
/// remediates in). The deployment that takes them cancels and drops them when it ends, which
/// stops their processes: nothing else may keep them, or their output would outlive the run.
#[derive(Default)]
pub struct LoadedPacks {
    packs: Vec<PackClient>,
}

impl LoadedPacks {
    /// The packs as the engine consults them.
    pub fn into_analyzers(self) -> Vec<Arc<dyn Analyzer>> {
        self.packs
            .into_iter()
            .map(|p| Arc::new(p) as Arc<dyn Analyzer>)
            .collect()
    }
}

/// A path cleaned as Go's `filepath.Clean` does it (lexically: no `.`, no `x/..`, no doubled
/// or trailing separator).
fn clean(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    let absolute = path.starts_with('/');
    for c in Path::new(path).components() {
        match c {
            Component::Normal(p) => parts.push(p.to_str().unwrap_or_default()),
            Component::ParentDir if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            Component::ParentDir if !absolute => parts.push(".."),
            _ => {}
        }
    }
    let mut cleaned = parts.join("/");
    if absolute {
        cleaned.insert(0, '/');
    }
    if cleaned.is_empty() {
        cleaned.push('.');
    }
    cleaned
}

/// A path cleaned, and shortened past 75 characters to its first two and last two parts
/// (Pulumi's `abbreviateFilePath`): how events name a local pack.
fn abbreviated(path: &str) -> String {
    let cleaned = clean(path);
    if cleaned.len() <= 75 {
        return cleaned;
    }
    let dirs: Vec<&str> = cleaned.split('/').collect();
    if dirs.len() <= 4 {
        return cleaned;
    }
    let mut short: Vec<&str> = dirs[..2].to_vec();
    short.push("...");
    short.extend(&dirs[dirs.len() - 2..]);
    short.join("/")
}

/// What one pack's load produced: the pack, or its schema errors (for the joint report).
enum Loaded {
    Pack(Box<PackClient>),
    Invalid(Vec<String>),
}

async fn load_one(
    request: &PackRequest,
    identity: &StackIdentity,
    (engine_address, engine): (&str, &Arc<ServerHandle>),
    events: &EventSink,
) -> Result<Loaded, PolicyLoadError> {
    events.send(EngineEvent::PolicyLoad {
        path: request.path.clone(),
    });
    let timeout = startup_timeout().map_err(PolicyLoadError::Timeout)?;
    let deadline = Instant::now() + timeout;
    // Go's `filepath.Abs`: absolute and cleaned.
    let abs = std::path::absolute(&request.path)
        .map(|p| PathBuf::from(clean(&p.to_string_lossy())))
        .unwrap_or_else(|_| PathBuf::from(&request.path));
    let shown = abs.display().to_string();
    let start_error = |reason: String| PolicyLoadError::Start {
        path: shown.clone(),
        reason,
    };
    let project = if abs.is_file() {
        let dir = abs.parent().unwrap_or(&abs);
        match PackProject::load(dir) {
            Ok(p) => Some(p),
            Err(PackFileError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(source) => {
                return Err(PolicyLoadError::Project {
                    path: request.path.clone(),
                    source,
                });
            }
        }
    } else {
        Some(
            PackProject::load(&abs).map_err(|source| PolicyLoadError::Project {
                path: request.path.clone(),
                source,
            })?,
        )
    };
    let file = match &request.config {
        Some(path) => Some(ConfigFile::read(path)?),
        None => None,
    };
    if file.as_ref().is_some_and(|f| !f.environments.is_empty()) {
        return Err(PolicyLoadError::Environments(request.path.clone()));
    }
    let runtime = project
        .as_ref()
        .map(|p| &p.runtime)
        .filter(|_| abs.is_dir());
    let cmd =
        command(&abs, runtime, identity, engine_address).map_err(|e| start_error(e.to_string()))?;
    let label = format!("policy pack {}", request.path);
    let late = || {
        start_error(
            StartError::TimedOut {
                seconds: timeout.as_secs_f64(),
                stderr: Vec::new(),
            }
            .to_string(),
        )
    };
    let process = PackProcess::start(&cmd, deadline, timeout, events.clone(), &label)
        .await
        .map_err(|e| start_error(e.to_string()))?;
    let version = project.as_ref().and_then(|p| p.version.clone());
    let description = project.as_ref().and_then(|p| p.description.clone());
    let conn = timeout_at(
        deadline,
        PackConnection::connect(process.port(), version, description),
    )
    .await
    .map_err(|_| late())?
    .map_err(|e| start_error(e.to_string()))?;
    let call = |source| PolicyLoadError::Call {
        path: shown.clone(),
        source,
    };
    timeout_at(deadline, conn.handshake(engine_address, &shown))
        .await
        .map_err(|_| late())?
        .map_err(|e| start_error(e.to_string()))?;
    timeout_at(deadline, conn.configure_stack(identity))
        .await
        .map_err(|_| late())?
        .map_err(|e| start_error(e.to_string()))?;
    timeout_at(deadline, conn.plugin_info())
        .await
        .map_err(|_| late())?
        .map_err(call)?;
    let info = timeout_at(deadline, conn.analyzer_info())
        .await
        .map_err(|_| late())?
        .map_err(call)?;
    let config: BTreeMap<String, PolicyConfig> = if info.supports_config {
        let file = file.map(|f| f.policies).unwrap_or_default();
        match reconcile(&info.policies, &info.initial_config, &file) {
            Ok(c) => c,
            Err(errors) => {
                return Ok(Loaded::Invalid(
                    errors
                        .into_iter()
                        .map(|e| format!("{} {}  {e}", info.name, info.version))
                        .collect(),
                ));
            }
        }
    } else if request.config.is_some() {
        return Err(PolicyLoadError::NoConfig {
            name: info.name,
            path: request.path.clone(),
        });
    } else {
        BTreeMap::new()
    };
    timeout_at(deadline, conn.configure(&config))
        .await
        .map_err(|_| late())?
        .map_err(|source| PolicyLoadError::Configure {
            name: info.name.clone(),
            path: request.path.clone(),
            source,
        })?;
    let event_name = format!("{}|local|{}", info.name, abbreviated(&request.path));
    Ok(Loaded::Pack(Box::new(PackClient::new(
        conn,
        info.for_engine(&config),
        event_name,
        format!("policy pack {shown:?}"),
        process,
        engine.clone(),
    ))))
}

/// Loads every pack at once for a run of the stack `identity` names. A failure stops the
/// others (their processes are killed).
pub async fn load(
    requests: &[PackRequest],
    identity: &StackIdentity,
    events: &EventSink,
) -> Result<LoadedPacks, PolicyLoadError> {
    if requests.is_empty() {
        return Ok(LoadedPacks::default());
    }
    let (address, engine) = crate::rpc::monitor::engine_service::serve_engine(events.clone())
        .await
        .map_err(|e| PolicyLoadError::Engine(e.to_string()))?;
    let engine_address = address.to_string();
    let engine = Arc::new(engine);
    let mut pending: FuturesUnordered<_> = requests
        .iter()
        .map(|r| load_one(r, identity, (&engine_address, &engine), events))
        .collect();
    let mut packs = Vec::new();
    let mut invalid = Vec::new();
    while let Some(loaded) = pending.next().await {
        match loaded? {
            Loaded::Pack(p) => packs.push(*p),
            Loaded::Invalid(errors) => invalid.extend(errors),
        }
    }
    drop(pending);
    if !invalid.is_empty() {
        invalid.sort();
        for e in &invalid {
            events.diag(
                None,
                Severity::Error,
                format!("validating policy config: {e}"),
            );
        }
        return Err(PolicyLoadError::Invalid(invalid));
    }
    Ok(LoadedPacks { packs })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_names_clean_and_shorten_paths_as_pulumi_does() {
        assert_eq!(abbreviated("./policy"), "policy");
        assert_eq!(abbreviated("a//b/../c/"), "a/c");
        assert_eq!(abbreviated("../packs/x"), "../packs/x");
        assert_eq!(abbreviated("/tmp/./p"), "/tmp/p");
        let long = format!("/{}/one/two/three/four/pack", "d".repeat(70));
        assert_eq!(
            abbreviated(&long),
            format!("/{}/.../four/pack", "d".repeat(70))
        );
    }
}
