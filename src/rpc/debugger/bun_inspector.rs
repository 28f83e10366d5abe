//! bun under its inspector, as Pulumi's Node.js language host starts it in bun mode:
//! `BUN_INSPECT=ws://127.0.0.1:<port>?wait=1` (a free port from 9229; the program waits until
//! a client sends WebKit's `Inspector.initialized`) and `BUN_INSPECT_NOTIFY=tcp://…`, an
//! address bun connects to once its inspector listens. The run announces it then.

use std::time::Duration;

use serde_json::json;

use super::free_port::next_free_port;
use crate::engine::EngineEvent;

/// The port Node's editors attach to by default; Pulumi's bun mode starts from it too.
const PREFERRED_PORT: u16 = 9229;
/// How long bun may take to say its inspector listens (Pulumi's bound).
const READY_TIMEOUT: Duration = Duration::from_secs(10);

/// Why bun's inspector could not be made ready.
#[derive(Debug, thiserror::Error)]
pub enum BunInspectorError {
    #[error("cannot listen for bun's inspector notification: {0}")]
    Notify(std::io::Error),
    #[error("timed out waiting for bun inspector to be ready")]
    NotReady,
}

/// The inspector one bun process is started with, and the socket bun reports its readiness to.
#[derive(Debug)]
pub struct BunInspector {
    port: u16,
    notify: std::net::TcpListener,
    /// What editors show for the session (`Pulumi: Program (bun)`).
    name: String,
}

impl BunInspector {
    /// An inspector on the first free port from 9229, with a notification socket on any port.
    pub fn new(name: impl Into<String>) -> Result<BunInspector, BunInspectorError> {
        let notify =
            std::net::TcpListener::bind(("127.0.0.1", 0)).map_err(BunInspectorError::Notify)?;
        notify
            .set_nonblocking(true)
            .map_err(BunInspectorError::Notify)?;
        Ok(BunInspector {
            port: next_free_port(PREFERRED_PORT),
            notify,
            name: name.into(),
        })
    }

    /// The environment that starts bun's inspector, waiting for a client.
    pub fn env(&self) -> Result<[(&'static str, String); 2], BunInspectorError> {
        let notify = self
            .notify
            .local_addr()
            .map_err(BunInspectorError::Notify)?;
        Ok([
            ("BUN_INSPECT", format!("{}?wait=1", self.url())),
            ("BUN_INSPECT_NOTIFY", format!("tcp://{notify}")),
        ])
    }

    fn url(&self) -> String {
        format!("ws://127.0.0.1:{}", self.port)
    }

    /// Waits until bun connects to the notification socket: its inspector listens then.
    pub async fn ready(&self) -> Result<(), BunInspectorError> {
        let listener = tokio::net::TcpListener::from_std(
            self.notify.try_clone().map_err(BunInspectorError::Notify)?,
        )
        .map_err(BunInspectorError::Notify)?;
        match tokio::time::timeout(READY_TIMEOUT, listener.accept()).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => Err(BunInspectorError::Notify(e)),
            Err(_) => Err(BunInspectorError::NotReady),
        }
    }

    /// The launch configuration of Pulumi's host in bun mode (`type: bun`, `request: attach`,
    /// the inspector's `url`), its message naming the process and a port other than 9229.
    pub fn announcement(&self, pid: Option<u32>) -> EngineEvent {
        let config = json!({
            "name": self.name,
            "type": "bun",
            "request": "attach",
            "url": self.url(),
        });
        let mut message = String::from("on");
        if let Some(pid) = pid {
            message.push_str(&format!(" process id {pid}"));
        }
        if self.port != PREFERRED_PORT {
            message.push_str(&format!(" and port {}", self.port));
        }
        EngineEvent::StartDebugging {
            config: config.as_object().cloned().unwrap_or_default(),
            message,
        }
    }
}
