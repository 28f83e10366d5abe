//! The `pulumirpc.Engine` service: where programs and plugins send log messages and announce a
//! debugger's wait, and where the Node SDK records the root stack resource.

use tonic::{Request, Response, Status};

use crate::engine::{EngineEvent, EventSink, ResourceMonitor, Severity, Urn};
use crate::rpc::pulumirpc::engine_server::Engine;
use crate::rpc::pulumirpc::{
    GetRootResourceRequest, GetRootResourceResponse, LogRequest, LogSeverity,
    RequirePulumiVersionRequest, RequirePulumiVersionResponse, SetRootResourceRequest,
    SetRootResourceResponse, StartDebuggingRequest,
};

/// Serves Engine for one deployment; without a monitor (plugins' log-only engine) the root
/// resource calls report that there is no program.
#[derive(Clone)]
pub struct EngineService {
    monitor: Option<ResourceMonitor>,
    events: EventSink,
}

impl EngineService {
    /// Logs go to `events`; the root resource is read from and written to `monitor`.
    pub fn new(monitor: Option<ResourceMonitor>, events: EventSink) -> EngineService {
        EngineService { monitor, events }
    }
}

/// The engine's severity for a wire severity (absent on the wire = DEBUG).
pub fn severity_of(s: LogSeverity) -> Severity {
    match s {
        LogSeverity::Debug => Severity::Debug,
        LogSeverity::Info => Severity::Info,
        LogSeverity::Warning => Severity::Warning,
        LogSeverity::Error => Severity::Error,
    }
}

#[tonic::async_trait]
impl Engine for EngineService {
    async fn log(&self, req: Request<LogRequest>) -> Result<Response<()>, Status> {
        let req = req.into_inner();
        let severity = LogSeverity::try_from(req.severity)
            .map(severity_of)
            .map_err(|_| {
                Status::invalid_argument(format!(
                    "LogRequest.severity: unknown value {}",
                    req.severity
                ))
            })?;
        let urn = if req.urn.is_empty() {
            None
        } else {
            Some(
                Urn::parse(&req.urn)
                    .map_err(|e| Status::invalid_argument(format!("LogRequest.urn: {e}")))?,
            )
        };
        self.events.send(EngineEvent::Diagnostic {
            urn,
            severity,
            message: req.message,
            ephemeral: req.ephemeral,
        });
        Ok(Response::new(()))
    }

    async fn get_root_resource(
        &self,
        _req: Request<GetRootResourceRequest>,
    ) -> Result<Response<GetRootResourceResponse>, Status> {
        let urn = self
            .monitor
            .as_ref()
            .and_then(ResourceMonitor::root)
            .map(|u| u.to_string())
            .unwrap_or_default();
        Ok(Response::new(GetRootResourceResponse { urn }))
    }

    async fn set_root_resource(
        &self,
        req: Request<SetRootResourceRequest>,
    ) -> Result<Response<SetRootResourceResponse>, Status> {
        let monitor = self
            .monitor
            .as_ref()
            .ok_or_else(|| Status::failed_precondition("no program is running on this engine"))?;
        let urn = Urn::parse(&req.into_inner().urn)
            .map_err(|e| Status::invalid_argument(format!("SetRootResourceRequest.urn: {e}")))?;
        monitor
            .set_root(urn)
            .map_err(|f| Status::invalid_argument(format!("SetRootResourceRequest.{f}")))?;
        Ok(Response::new(SetRootResourceResponse {}))
    }

    /// A program or plugin started under a debugger by its own launcher announces where to
    /// attach (Pulumi's host server: a status line and a `StartDebuggingEvent`).
    async fn start_debugging(
        &self,
        req: Request<StartDebuggingRequest>,
    ) -> Result<Response<()>, Status> {
        let req = req.into_inner();
        let config = req
            .config
            .as_ref()
            .map(crate::rpc::marshal::struct_to_json)
            .unwrap_or_default();
        self.events.send(EngineEvent::StartDebugging {
            config,
            message: req.message,
        });
        Ok(Response::new(()))
    }

    async fn require_pulumi_version(
        &self,
        _req: Request<RequirePulumiVersionRequest>,
    ) -> Result<Response<RequirePulumiVersionResponse>, Status> {
        Ok(Response::new(RequirePulumiVersionResponse {}))
    }
}

/// Serves a log-only Engine for provider plugins, which take an engine address as their
/// argument even when no program runs; on loopback TCP, as plugins are given every address.
pub async fn serve_engine(
    events: EventSink,
) -> std::io::Result<(
    std::net::SocketAddr,
    crate::rpc::transport::server::ServerHandle,
)> {
    let router = tonic::transport::Server::builder().add_service(
        crate::rpc::pulumirpc::engine_server::EngineServer::new(EngineService::new(None, events))
            .max_decoding_message_size(crate::rpc::MAX_MESSAGE_SIZE)
            .max_encoding_message_size(crate::rpc::MAX_MESSAGE_SIZE),
    );
    crate::rpc::transport::server::serve_loopback(router).await
}
