//! Python under debugpy, as Pulumi's Python language host starts it: `-m debugpy --listen` on a
//! free port from 58791 with `--wait-for-client`, its logs in a private directory; the run
//! announces it once debugpy's server log says it accepts a client.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::json;

use super::free_port::next_free_port;
use crate::engine::EngineEvent;
use crate::private_dir::make_private_dir;

/// Pulumi's Python debug port, chosen by it arbitrarily.
const PREFERRED_PORT: u16 = 58791;
/// How long debugpy may take to listen (Pulumi's bound too).
const READY_TIMEOUT: Duration = Duration::from_secs(60);
const READY_POLL: Duration = Duration::from_millis(50);
const READY_LINE: &str = "Adapter is accepting incoming client connections";

/// Why debugpy could not be made ready.
#[derive(Debug, thiserror::Error)]
pub enum DebugpyError {
    #[error("cannot create debugpy's log directory {dir}: {source}")]
    LogDir {
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "debugpy did not listen within {READY_TIMEOUT:?} (is debugpy installed? `python -m pip install debugpy`)"
    )]
    NotReady,
}

/// The debugpy one Python process is started with; its log directory goes when it is dropped.
#[derive(Debug)]
pub struct Debugpy {
    port: u16,
    log_dir: PathBuf,
    /// What editors show for the session (`Pulumi: Program (Python)`).
    name: String,
}

impl Debugpy {
    /// A debugpy on the first free port from 58791, logging to a new private directory.
    pub fn new(name: impl Into<String>) -> Result<Debugpy, DebugpyError> {
        let log_dir = std::env::temp_dir().join(format!(
            "stepdeck-debugpy-{}",
            uuid::Uuid::new_v4().simple()
        ));
        make_private_dir(&log_dir, false).map_err(|source| DebugpyError::LogDir {
            dir: log_dir.clone(),
            source,
        })?;
        Ok(Debugpy {
            port: next_free_port(PREFERRED_PORT),
            log_dir,
            name: name.into(),
        })
    }

    /// The interpreter's arguments before the program (a script, or `-m module`).
    pub fn args(&self) -> Vec<OsString> {
        let mut args: Vec<OsString> = ["-Xfrozen_modules=off", "-m", "debugpy", "--listen"]
            .map(OsString::from)
            .to_vec();
        args.push(format!("127.0.0.1:{}", self.port).into());
        args.push("--wait-for-client".into());
        args.push("--log-to".into());
        args.push(self.log_dir.clone().into_os_string());
        args
    }

    /// Waits until debugpy in process `pid` accepts a client, as its server log says.
    pub async fn ready(&self, pid: u32) -> Result<(), DebugpyError> {
        let log = self.log_dir.join(format!("debugpy.server-{pid}.log"));
        let watch = async {
            loop {
                if std::fs::read_to_string(&log).is_ok_and(|t| t.contains(READY_LINE)) {
                    return;
                }
                tokio::time::sleep(READY_POLL).await;
            }
        };
        tokio::time::timeout(READY_TIMEOUT, watch)
            .await
            .map_err(|_| DebugpyError::NotReady)
    }

    /// The launch configuration of Pulumi's Python host (`type: python`, `request: attach`,
    /// `connect`).
    pub fn announcement(&self) -> EngineEvent {
        let config = json!({
            "name": self.name,
            "type": "python",
            "request": "attach",
            "connect": {"host": "127.0.0.1", "port": self.port},
            "justMyCode": true,
        });
        EngineEvent::StartDebugging {
            config: config.as_object().cloned().unwrap_or_default(),
            message: format!("debugpy on 127.0.0.1:{}", self.port),
        }
    }
}

impl Drop for Debugpy {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.log_dir);
    }
}
