//! The watching side of the console protocol: connects with a token, turns the served
//! stream back into `EngineEvent`s (reconnecting where it left off when the connection
//! drops), and sends the operator's actions.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use prost::Message;
use tokio::sync::mpsc::{self, UnboundedReceiver, UnboundedSender};
use tonic::codegen::InterceptedService;
use tonic::metadata::MetadataValue;
use tonic::service::Interceptor;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint};
use tonic::{Request, Status, Streaming};

use crate::engine::run::approval::ApprovalKind;
use crate::engine::run::events::CascadeId;
use crate::engine::{EngineEvent, Severity};

use super::addr::ConsoleAddress;
use super::names::KnownNames;
use super::server::PROTOCOL_VERSION;
use super::wire::{frames, from_wire};
use crate::file_limits::{self, SMALL_FILE};
use crate::rpc::console_proto::console_client::ConsoleClient;
use crate::rpc::{MAX_MESSAGE_SIZE, console_proto as pb};

/// How to reach a served console and who we say we are.
#[derive(Clone, Debug)]
pub struct AttachOptions {
    pub address: ConsoleAddress,
    pub token: String,
    /// Recorded with every action ("alice@laptop").
    pub client: String,
    /// Verify the server's certificate with this CA (PEM) and speak TLS.
    pub tls_ca: Option<PathBuf>,
    /// The name the certificate must carry (default: the address's host).
    pub tls_domain: Option<String>,
}

/// Why attaching failed.
#[derive(Debug, thiserror::Error)]
pub enum AttachError {
    /// Said in the OS's words once (the transport's layers are not a source chain to print).
    #[error("cannot connect to {address}: {}{}", root_cause(.error), hint(.error))]
    Connect {
        address: String,
        error: tonic::transport::Error,
    },
    #[error("{path}: cannot read the CA certificate: {source}")]
    Ca {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the token cannot be sent: it must be printable ASCII")]
    Token,
    #[error("{address} refused to be watched: {}", .status.message())]
    Refused { address: String, status: Status },
    #[error("{address} speaks console protocol {got}, this stepdeck speaks {PROTOCOL_VERSION}")]
    Version { address: String, got: u32 },
    #[error("{address} ended the stream before saying hello")]
    NoHello { address: String },
}

/// The innermost error (the OS's words), not each layer's prefix over it.
fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut e = e;
    while let Some(source) = e.source() {
        e = source;
    }
    e.to_string()
}

/// What a refused connection means here: no run serves a console at that address (yet).
fn hint(e: &(dyn std::error::Error + 'static)) -> &'static str {
    let mut e = Some(e);
    while let Some(cause) = e {
        if let Some(io) = cause.downcast_ref::<std::io::Error>()
            && matches!(
                io.kind(),
                std::io::ErrorKind::ConnectionRefused | std::io::ErrorKind::NotFound
            )
        {
            return " (nothing serves a console there: start the run with `--serve` first)";
        }
        e = cause.source();
    }
    ""
}

/// Adds `authorization: Bearer <token>` to every call.
#[derive(Clone)]
pub struct Bearer(MetadataValue<tonic::metadata::Ascii>);

impl Interceptor for Bearer {
    fn call(&mut self, mut req: Request<()>) -> Result<Request<()>, Status> {
        req.metadata_mut().insert("authorization", self.0.clone());
        Ok(req)
    }
}

/// A console protocol client that sends the token with every call.
pub type Client = ConsoleClient<InterceptedService<Channel, Bearer>>;

/// A served event and when the served run saw it, on this machine's clock; `None` for what
/// this side says itself (a refused action, a lost connection), which happens now.
pub type ServedEvent = (EngineEvent, Option<Instant>);

/// The served deployment's events, and the way to act on it.
pub struct Attached {
    pub events: UnboundedReceiver<ServedEvent>,
    pub actions: RemoteActions,
    /// Whether our token may act (a watch-only token's actions are refused).
    pub may_act: bool,
    /// The deployment's configuration as displays show it (for the JSON prelude).
    pub config: BTreeMap<String, String>,
    /// The preview's plan the served run is counted against (empty without a preview).
    pub preview_plan: Vec<u8>,
}

/// Sends actions without waiting; a refused one comes back as a warning in the events.
pub struct RemoteActions {
    tx: UnboundedSender<(pb::Action, CascadeId, String)>,
    paused: Arc<AtomicBool>,
}

impl RemoteActions {
    /// Queues `action` (about `cascade` for an approval or a decline) for the server.
    pub fn send(&self, action: pb::Action, cascade: CascadeId) {
        let _ = self.tx.send((action, cascade, String::new()));
    }

    /// Queues an action about every waiting gate of `kind`.
    pub fn send_kind(&self, action: pb::Action, kind: ApprovalKind) {
        let _ = self.tx.send((action, 0, kind.as_str().to_string()));
    }

    /// Whether the served deployment is paused, as its stream last said.
    pub fn is_paused(&self) -> bool {
        self.paused.load(Ordering::SeqCst)
    }
}

async fn channel(opts: &AttachOptions) -> Result<Channel, AttachError> {
    let connect_error = |error| AttachError::Connect {
        address: opts.address.to_string(),
        error,
    };
    match (&opts.address, &opts.tls_ca) {
        (ConsoleAddress::Tcp(addr), Some(ca)) => {
            let pem = file_limits::read(ca, SMALL_FILE).map_err(|e| AttachError::Ca {
                path: ca.clone(),
                source: e.into_io(),
            })?;
            let host = addr.rsplit_once(':').map_or(addr.as_str(), |(h, _)| h);
            let domain = opts.tls_domain.clone().unwrap_or_else(|| host.to_string());
            let tls = ClientTlsConfig::new()
                .ca_certificate(Certificate::from_pem(pem))
                .domain_name(domain);
            Endpoint::from_shared(format!("https://{addr}"))
                .and_then(|e| e.tls_config(tls))
                .map_err(connect_error)?
                .connect()
                .await
                .map_err(connect_error)
        }
        _ => crate::rpc::transport::server::connect(&opts.address.to_string())
            .await
            .map_err(connect_error),
    }
}

fn note(severity: Severity, message: String) -> ServedEvent {
    let note = EngineEvent::Diagnostic {
        urn: None,
        severity,
        message,
        ephemeral: false,
    };
    (note, None)
}

/// Connects (nothing is called yet, so the token is not checked).
pub async fn client(opts: &AttachOptions) -> Result<Client, AttachError> {
    let bearer = MetadataValue::try_from(format!("Bearer {}", opts.token))
        .map_err(|_| AttachError::Token)?;
    Ok(
        ConsoleClient::with_interceptor(channel(opts).await?, Bearer(bearer))
            .max_decoding_message_size(MAX_MESSAGE_SIZE),
    )
}

/// Connects, checks the token and the protocol version, and starts receiving events.
pub async fn attach(opts: AttachOptions) -> Result<Attached, AttachError> {
    let client = client(&opts).await?;
    let refused = |status| AttachError::Refused {
        address: opts.address.to_string(),
        status,
    };
    let mut stream = watch(&client, &opts.client, 0).await.map_err(refused)?;
    let hello = match stream.message().await.map_err(refused)? {
        Some(pb::WatchReply {
            item: Some(pb::watch_reply::Item::Hello(h)),
        }) => h,
        _ => {
            return Err(AttachError::NoHello {
                address: opts.address.to_string(),
            });
        }
    };
    if hello.protocol != PROTOCOL_VERSION {
        return Err(AttachError::Version {
            address: opts.address.to_string(),
            got: hello.protocol,
        });
    }
    let (events, rx) = mpsc::unbounded_channel();
    let paused = Arc::new(AtomicBool::new(false));
    // The served run's first event, on our clock: what its events' stamps count from.
    let elapsed = Duration::from_millis(hello.elapsed_ms);
    let origin = Instant::now()
        .checked_sub(elapsed)
        .unwrap_or_else(Instant::now);
    tokio::spawn(pump(
        client.clone(),
        opts.clone(),
        (stream, origin),
        events.clone(),
        paused.clone(),
    ));
    let (tx, actions) = mpsc::unbounded_channel();
    tokio::spawn(act(client, opts.client, actions, events));
    Ok(Attached {
        events: rx,
        actions: RemoteActions { tx, paused },
        may_act: hello.may_act,
        config: hello.config.into_iter().collect(),
        preview_plan: hello.preview_plan,
    })
}

async fn watch(
    client: &Client,
    name: &str,
    from: u64,
) -> Result<Streaming<pb::WatchReply>, Status> {
    let req = pb::WatchRequest {
        client: name.to_string(),
        from,
    };
    Ok(client.clone().watch(req).await?.into_inner())
}

/// Attempts to get the stream back after the connection dropped, about 30 seconds in all.
const RECONNECTS: u32 = 30;

/// Receives the stream until the deployment ends; reconnects (asking for the events after
/// the last one received) when the connection drops.
async fn pump(
    client: Client,
    opts: AttachOptions,
    (mut stream, origin): (Streaming<pb::WatchReply>, Instant),
    events: UnboundedSender<ServedEvent>,
    paused: Arc<AtomicBool>,
) {
    let mut next: u64 = 0;
    let mut known = KnownNames::default();
    // The summary is the served run's last event: a connection that breaks after it (the
    // serving process exiting) has nothing left to deliver.
    let mut summarized = false;
    loop {
        match stream.message().await {
            Ok(Some(pb::WatchReply {
                item: Some(pb::watch_reply::Item::Events(batch)),
            })) => {
                if let Err(e) = known.learn(batch.names_first, &batch.names) {
                    let _ = events.send(note(Severity::Error, e.to_string()));
                }
                if batch.first < next {
                    continue;
                }
                next = batch.next;
                for frame in frames(&batch.runs) {
                    let decoded = frame.map_err(|e| e.to_string()).and_then(|bytes| {
                        pb::Event::decode(bytes)
                            .map_err(|e| format!("an event that does not decode: {e}"))
                            .and_then(|e| {
                                let at = origin + Duration::from_millis(e.at_ms);
                                let event = from_wire(&e, &known).map_err(|e| e.to_string())?;
                                Ok((event, Some(at)))
                            })
                    });
                    let e = match decoded {
                        Ok(e) => e,
                        Err(e) => note(Severity::Error, e),
                    };
                    match e.0 {
                        EngineEvent::Summary { .. } => summarized = true,
                        EngineEvent::Paused => paused.store(true, Ordering::SeqCst),
                        EngineEvent::Resumed | EngineEvent::CancelRequested { .. } => {
                            paused.store(false, Ordering::SeqCst)
                        }
                        _ => {}
                    }
                    if events.send(e).is_err() {
                        return;
                    }
                }
            }
            Ok(Some(_)) => {}
            Ok(None) => return,
            Err(_) if summarized => return,
            Err(status) => {
                // Dropped for falling behind: say so, and catch up from where we were.
                if status.code() == tonic::Code::Aborted {
                    let _ = events.send(note(Severity::Warning, status.message().to_string()));
                }
                let mut resumed = None;
                for attempt in 0..RECONNECTS {
                    tokio::time::sleep(Duration::from_millis(200 * u64::from(attempt.min(5) + 1)))
                        .await;
                    if let Ok(s) = watch(&client, &opts.client, next).await {
                        resumed = Some(s);
                        break;
                    }
                }
                match resumed {
                    Some(s) => stream = s,
                    None => {
                        let message = format!(
                            "lost the connection to {}: {}",
                            opts.address,
                            status.message()
                        );
                        let _ = events.send(note(Severity::Error, message));
                        return;
                    }
                }
            }
        }
    }
}

/// Sends each action; a refusal (a watch-only token, too many actions) is reported to the
/// operator as a warning in the log.
async fn act(
    client: Client,
    name: String,
    mut actions: UnboundedReceiver<(pb::Action, CascadeId, String)>,
    events: UnboundedSender<ServedEvent>,
) {
    while let Some((action, cascade, kind)) = actions.recv().await {
        let req = pb::ActRequest {
            client: name.clone(),
            action: action as i32,
            cascade,
            kind,
        };
        if let Err(status) = client.clone().act(req).await {
            let _ = events.send(note(Severity::Warning, status.message().to_string()));
        }
    }
}
