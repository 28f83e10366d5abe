//! Node.js under its inspector, as Pulumi's Node.js language host starts it: `--inspect-brk` on
//! a free port from 9229, the program stopped before its first line until a debugger attaches.
//! The run announces it once Node says its inspector listens (its stderr line, which also
//! gives the WebSocket address a CDP client connects to).

use serde_json::{Map, Value, json};

use super::free_port::next_free_port;
use crate::engine::{EngineEvent, EventSink};

/// Node's own default inspector port, which editors attach to without being told.
const PREFERRED_PORT: u16 = 9229;
const LISTENING: &str = "Debugger listening on ";

/// The inspector one Node.js process is started with.
#[derive(Clone, Debug)]
pub struct NodeInspector {
    port: u16,
    /// What editors show for the session (`Pulumi: Program (nodejs)`).
    name: String,
}

impl NodeInspector {
    /// An inspector on the first free port from 9229.
    pub fn new(name: impl Into<String>) -> NodeInspector {
        NodeInspector {
            port: next_free_port(PREFERRED_PORT),
            name: name.into(),
        }
    }

    /// Node's flag: listen, and stop before the first line until a debugger attaches.
    pub fn arg(&self) -> String {
        format!("--inspect-brk=127.0.0.1:{}", self.port)
    }

    /// Watches the stderr of the process `pid` for the inspector's own lines.
    pub fn output(self, pid: Option<u32>, events: EventSink) -> InspectorOutput {
        InspectorOutput {
            inspector: self,
            pid,
            events,
        }
    }
}

/// A Node.js process's stderr as its inspector writes to it.
pub struct InspectorOutput {
    inspector: NodeInspector,
    pid: Option<u32>,
    events: EventSink,
}

impl InspectorOutput {
    /// Whether `line` is the inspector's own (not shown as the program's output); its
    /// "listening" line announces the wait for a debugger.
    pub fn consumes(&self, line: &str) -> bool {
        if let Some(url) = line.strip_prefix(LISTENING) {
            self.events.send(self.announcement(url.trim()));
            return true;
        }
        line.starts_with("For help, see: https://nodejs.org/")
            || line == "Debugger attached."
            || line == "Waiting for the debugger to disconnect..."
    }

    /// The launch configuration of Pulumi's Node.js host (`type: node`, `request: attach`), the
    /// port only when it is not 9229, as Pulumi's.
    fn announcement(&self, url: &str) -> EngineEvent {
        let port = url
            .strip_prefix("ws://")
            .and_then(|rest| rest.split('/').next())
            .and_then(|host| host.rsplit(':').next())
            .and_then(|p| p.parse::<u16>().ok())
            .unwrap_or(self.inspector.port);
        let mut config: Map<String, Value> = json!({
            "name": self.inspector.name,
            "type": "node",
            "request": "attach",
            "continueOnAttach": true,
            "skipFiles": ["<node_internals>/**"],
        })
        .as_object()
        .cloned()
        .unwrap_or_default();
        let mut message = String::from("on");
        if let Some(pid) = self.pid {
            config.insert("processId".into(), pid.into());
            message.push_str(&format!(" process id {pid},"));
        }
        if port != PREFERRED_PORT {
            config.insert("port".into(), port.into());
        }
        message.push_str(&format!(" inspector {url}"));
        EngineEvent::StartDebugging { config, message }
    }
}
