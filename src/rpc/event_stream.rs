//! `--event-log tcp://HOST:PORT`: the engine events sent to the Automation API's
//! `pulumirpc.Events` server, as Pulumi's CLI sends them: one `StreamEvents` call per command,
//! each event a JSON line in order, then the end of the stream, whose answer is awaited so
//! that every event has arrived before the command exits.

use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::rpc::pulumirpc::EventRequest;
use crate::rpc::pulumirpc::events_client::EventsClient;
use crate::rpc::transport::server::{connect, connect_error_text};

/// Why the events could not all be delivered.
#[derive(Debug, thiserror::Error)]
#[error("the Automation API's event server at {address}: {reason}")]
pub struct EventStreamError {
    address: String,
    reason: String,
}

/// An open `StreamEvents` call: lines sent are queued in order; `finish` ends the stream.
pub struct EventStream {
    address: String,
    lines: mpsc::UnboundedSender<EventRequest>,
    call: JoinHandle<Result<(), String>>,
}

impl EventStream {
    /// Dials `address` (`host:port`, `localhost` resolved) and opens the call.
    pub async fn open(address: &str) -> Result<EventStream, EventStreamError> {
        let failed = |reason: String| EventStreamError {
            address: address.to_string(),
            reason,
        };
        let channel = connect(address)
            .await
            .map_err(|e| failed(connect_error_text(&e)))?;
        let (lines, queued) = mpsc::unbounded_channel();
        let mut client =
            EventsClient::new(channel).max_encoding_message_size(crate::rpc::MAX_MESSAGE_SIZE);
        let call = tokio::spawn(async move {
            client
                .stream_events(futures::stream::unfold(queued, |mut q| async move {
                    q.recv().await.map(|line| (line, q))
                }))
                .await
                .map(|_| ())
                .map_err(|status| status.message().to_string())
        });
        Ok(EventStream {
            address: address.to_string(),
            lines,
            call,
        })
    }

    /// Queues one event (its JSON text; a newline is added, as Pulumi's encoder ends each).
    pub fn send(&self, json: &str) {
        // A call that ended early reports why in `finish`.
        let _ = self.lines.send(EventRequest {
            event: format!("{json}\n"),
        });
    }

    /// Ends the stream and waits for the server's answer.
    pub async fn finish(self) -> Result<(), EventStreamError> {
        drop(self.lines);
        let failed = |reason: String| EventStreamError {
            address: self.address.clone(),
            reason,
        };
        match self.call.await {
            Ok(result) => result.map_err(failed),
            Err(e) => Err(failed(e.to_string())),
        }
    }
}
