//! Inline programs (`--client=ADDR`): the Automation API runs the program in its own process,
//! behind a LanguageRuntime server at ADDR. We serve the resource monitor as for any program
//! and ask that server to `Run` the program against it, as Pulumi does for its `client`
//! runtime; no process is started.

use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use tokio::sync::watch;

use super::language_host::BAIL_MESSAGE;
use crate::engine::{EventSink, Program, ProgramError, ResourceMonitor, Severity};
use crate::rpc::monitor::{DEFAULT_ORGANIZATION, serve_on_loopback};
use crate::rpc::pulumirpc::language_runtime_client::LanguageRuntimeClient;
use crate::rpc::pulumirpc::{ProgramInfo, RunRequest};
use crate::rpc::transport::server::{connect, connect_error_text};

/// A program run by the language runtime server at an address (the Automation API's).
pub struct ClientProgram {
    address: String,
    root_directory: PathBuf,
    program_directory: PathBuf,
    entry_point: String,
    events: EventSink,
}

impl ClientProgram {
    /// The program served at `address` (`host:port`) for the project in `root_directory`.
    pub fn new(
        address: impl Into<String>,
        root_directory: impl Into<PathBuf>,
        events: EventSink,
    ) -> ClientProgram {
        let root_directory = root_directory.into();
        ClientProgram {
            address: address.into(),
            program_directory: root_directory.clone(),
            root_directory,
            entry_point: ".".into(),
            events,
        }
    }

    /// The `Run` request: the monitor and engine at `monitor`, the stack's decrypted config.
    fn request(&self, monitor: &ResourceMonitor, served: &str) -> RunRequest {
        let info = monitor.info();
        let text = |p: &std::path::Path| p.to_string_lossy().into_owned();
        RunRequest {
            project: info.project.clone(),
            stack: info.stack.clone(),
            pwd: text(&self.program_directory),
            program: self.entry_point.clone(),
            args: vec![served.to_string()],
            config: info.config.clone().into_iter().collect(),
            dry_run: info.dry_run,
            parallel: i32::try_from(info.parallel).unwrap_or(i32::MAX),
            monitor_address: served.to_string(),
            query_mode: false,
            config_secret_keys: info.secret_keys.clone(),
            organization: DEFAULT_ORGANIZATION.into(),
            info: Some(ProgramInfo {
                root_directory: text(&self.root_directory),
                program_directory: text(&self.program_directory),
                entry_point: self.entry_point.clone(),
                options: Some(prost_types::Struct {
                    fields: [(
                        "address".to_string(),
                        prost_types::Value {
                            kind: Some(prost_types::value::Kind::StringValue(self.address.clone())),
                        },
                    )]
                    .into(),
                }),
            }),
            loader_target: String::new(),
            attach_debugger: false,
            mapper_target: String::new(),
        }
    }

    async fn call_run(&self, monitor: &ResourceMonitor, served: &str) -> Result<(), ProgramError> {
        let unreachable = |e: &dyn std::fmt::Display| {
            ProgramError(format!(
                "cannot reach the language runtime service at {} (--client): {e}",
                self.address
            ))
        };
        let channel = connect(&self.address)
            .await
            .map_err(|e| unreachable(&connect_error_text(&e)))?;
        let mut client = LanguageRuntimeClient::new(channel)
            .max_decoding_message_size(crate::rpc::MAX_MESSAGE_SIZE)
            .max_encoding_message_size(crate::rpc::MAX_MESSAGE_SIZE);
        let response = client
            .run(self.request(monitor, served))
            .await
            .map_err(|status| ProgramError(status.message().to_string()))?
            .into_inner();
        if response.bail {
            return Err(ProgramError(BAIL_MESSAGE.into()));
        }
        if !response.error.is_empty() {
            self.events.diag(
                None,
                Severity::Error,
                format!("an unhandled error occurred: {}", response.error),
            );
            return Err(ProgramError(BAIL_MESSAGE.into()));
        }
        Ok(())
    }
}

#[async_trait]
impl Program for ClientProgram {
    async fn run(self: Box<Self>, monitor: ResourceMonitor) -> Result<(), ProgramError> {
        let refused = Arc::new(watch::Sender::new(false));
        let (addr, server) = serve_on_loopback(
            monitor.clone(),
            self.events.clone(),
            DEFAULT_ORGANIZATION,
            refused.clone(),
        )
        .await
        .map_err(|e| ProgramError(format!("cannot start the resource monitor: {e}")))?;
        let result = self.call_run(&monitor, &addr.to_string()).await;
        let _ = tokio::time::timeout(std::time::Duration::from_secs(5), server.shutdown()).await;
        // After the engine refused a registration, its error is the run's.
        if *refused.borrow() {
            return Ok(());
        }
        result
    }
}
