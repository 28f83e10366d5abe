//! An in-process program (YAML) whose remote components need the resource monitor served:
//! the component provider registers the component's children through the monitor's gRPC
//! address, as Pulumi's engine serves it to every program. The monitor is served on loopback
//! for the run, and its address recorded for the Construct requests.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use tokio::sync::watch;

use crate::engine::{EventSink, Program, ProgramError, ResourceMonitor};
use crate::rpc::monitor::{DEFAULT_ORGANIZATION, serve_on_loopback};

/// How long the served monitor may take to stop once the program ended.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// `inner`, run with the monitor also served over gRPC.
pub struct ServedProgram {
    inner: Box<dyn Program>,
    events: EventSink,
}

impl ServedProgram {
    /// Serves the monitor while `inner` runs; the service's diagnostics go to `events`.
    pub fn new(inner: Box<dyn Program>, events: EventSink) -> ServedProgram {
        ServedProgram { inner, events }
    }
}

#[async_trait]
impl Program for ServedProgram {
    async fn run(self: Box<Self>, monitor: ResourceMonitor) -> Result<(), ProgramError> {
        let refused = Arc::new(watch::Sender::new(false));
        let (addr, server) = serve_on_loopback(
            monitor.clone(),
            self.events.clone(),
            DEFAULT_ORGANIZATION,
            refused,
        )
        .await
        .map_err(|e| ProgramError(format!("cannot start the resource monitor: {e}")))?;
        monitor.set_endpoint(addr.to_string());
        let result = self.inner.run(monitor).await;
        let _ = tokio::time::timeout(SHUTDOWN_GRACE, server.shutdown()).await;
        result
    }
}
