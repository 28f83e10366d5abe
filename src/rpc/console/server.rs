//! Serves a deployment's console over the console protocol: one more consumer of its
//! `EngineEvent`s (through the `EventHub`) and one more caller of its `Control`. Every call
//! needs a token; a watch-only token may not act; watchers, message sizes and the rate of
//! actions are limited, and so are connections (`gate`): nothing a client does can
//! take the descriptors the deployment needs.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use futures::Stream;
use tokio::net::{TcpListener, UnixListener};
use tokio::sync::mpsc::{self, error::SendTimeoutError};
use tokio::sync::oneshot;
use tonic::service::Interceptor;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::server::Router;
use tonic::transport::{Identity, Server, ServerTlsConfig};
use tonic::{Request, Response, Status};

use crate::engine::run::approval::{ApprovalKind, RuleError};
use crate::engine::run::events::{Decider, PAUSED_BY_NOTE, RESUMED_BY_NOTE};
use crate::engine::{Control, EventSink, Severity};

use super::addr::ConsoleAddress;
use super::gate::{Accepting, Admission, Gate, GateLimits, admitted};
use super::hub::{EventHub, WatcherSlot};
use super::token::{Role, Tokens};
use crate::file_limits::{self, SMALL_FILE};
use crate::rpc::console_proto as pb;
use crate::rpc::console_proto::console_server::{Console, ConsoleServer};

/// The protocol version `Hello` announces (7: a debugger's wait, `start_debugging`; 6: `Hello` carries the preview's plan; 5: events
/// carry their times; 4: events travel in runs, each preceded by its
/// length; 3: events refer to URNs, types and provider references by number, see
/// `console_names`; 2 numbered URNs only).
pub const PROTOCOL_VERSION: u32 = 7;

/// What the server allows, so that no watcher can make the deployment pay for it.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Largest request accepted (requests are tiny; events go the other way).
    pub max_request_bytes: usize,
    /// Watchers at once.
    pub max_watchers: usize,
    /// Actions a second, over all clients (a burst of twice as many is allowed).
    pub actions_per_second: u32,
    /// How long a watcher may leave its bounded buffer full before it is dropped.
    pub stall: Duration,
    /// After a reply that took everything there was, how long a watcher waits before it reads
    /// again: an isolated event still goes out at once, while a busy run's events go out about
    /// 20 times a second (what a console redraws) instead of a reply (a wake-up, an encoding,
    /// a write) per burst.
    pub gather: Duration,
    /// Connections held at once (watchers, and clients yet to present a token).
    pub max_connections: usize,
    /// Connections from one address yet to present a valid token.
    pub max_tokenless_per_peer: usize,
    /// How long a connection has to present a valid token before it is closed.
    pub token_deadline: Duration,
}

impl Limits {
    fn gate(&self) -> GateLimits {
        GateLimits {
            max_connections: self.max_connections,
            max_tokenless_per_peer: self.max_tokenless_per_peer,
            token_deadline: self.token_deadline,
        }
    }
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_request_bytes: 16 * 1024,
            max_watchers: 16,
            actions_per_second: 10,
            stall: Duration::from_secs(10),
            gather: Duration::from_millis(50),
            max_connections: 64,
            max_tokenless_per_peer: 16,
            token_deadline: Duration::from_secs(10),
        }
    }
}

/// A certificate and its key (PEM files) for serving over TLS.
#[derive(Clone, Debug)]
pub struct TlsFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
}

/// Why the console could not be served.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("cannot listen on {address}: {source}")]
    Listen {
        address: String,
        source: std::io::Error,
    },
    #[error("{path}: cannot read the TLS {what}: {source}")]
    Tls {
        path: PathBuf,
        what: &'static str,
        source: std::io::Error,
    },
    #[error("the TLS configuration is refused: {0}")]
    TlsConfig(#[from] tonic::transport::Error),
}

/// What the service serves and acts on; the deployment arrives once it exists (the address
/// is bound before, so that a bad one fails the command at once).
pub struct Served {
    pub hub: Arc<EventHub>,
    deployment: OnceLock<Begun>,
    /// Why the server turns connections away, once it began to (noted once in the run's log).
    turning_away: OnceLock<String>,
    turning_away_noted: AtomicBool,
}

/// The served deployment, once it exists.
struct Begun {
    control: Control,
    /// Where who-did-what notes go: its own event stream, so that every display and every
    /// watcher records them.
    notes: EventSink,
    briefing: Briefing,
}

/// What every watcher is told before the events.
#[derive(Clone, Debug, Default)]
pub struct Briefing {
    /// The configuration as displays show it.
    pub config: BTreeMap<String, String>,
    /// The preview's plan the operator's console counts the run against, in the console's own
    /// encoding (see `Hello.preview_plan`), so that every watcher counts alike.
    pub preview_plan: Vec<u8>,
}

impl Served {
    /// Nothing served yet: the hub fills once the deployment begins.
    pub fn new() -> Arc<Served> {
        Arc::new(Served {
            hub: EventHub::new(),
            deployment: OnceLock::new(),
            turning_away: OnceLock::new(),
            turning_away_noted: AtomicBool::new(false),
        })
    }

    /// The running deployment's control, event sink and shown configuration; set once.
    pub fn begin(&self, control: Control, notes: EventSink, briefing: Briefing) {
        let _ = self.deployment.set(Begun {
            control,
            notes,
            briefing,
        });
        self.note_turning_away();
    }

    /// The server began turning connections away: says so once in the run's log (when the
    /// run begins, if that is later), with the limits, not once per connection.
    fn turned_away(&self, note: String) {
        let _ = self.turning_away.set(note);
        self.note_turning_away();
    }

    fn note_turning_away(&self) {
        let (Some(note), Some(begun)) = (self.turning_away.get(), self.deployment.get()) else {
            return;
        };
        if !self.turning_away_noted.swap(true, Ordering::SeqCst) {
            begun.notes.diag(None, Severity::Warning, note.clone());
        }
    }
}

struct ConsoleService {
    served: Arc<Served>,
    limits: Limits,
    bucket: Mutex<Bucket>,
}

/// A token bucket for actions.
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl ConsoleService {
    fn take_action_token(&self) -> bool {
        let rate = f64::from(self.limits.actions_per_second);
        let mut b = self.bucket.lock().unwrap_or_else(PoisonError::into_inner);
        let now = Instant::now();
        b.tokens = (b.tokens + now.duration_since(b.at).as_secs_f64() * rate).min(2.0 * rate);
        b.at = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// A client's name as recorded: printable, at most 64 characters.
fn who(client: &str) -> String {
    let name: String = client
        .chars()
        .filter(|c| !c.is_control())
        .take(64)
        .collect();
    if name.trim().is_empty() {
        "an unnamed client".to_string()
    } else {
        name
    }
}

fn action_name(a: pb::Action) -> &'static str {
    match a {
        pb::Action::Unspecified => "nothing",
        pb::Action::Pause => "pause",
        pb::Action::Resume => "resume",
        pb::Action::Approve => "approve",
        pb::Action::Decline => "decline",
        pb::Action::ApproveAll => "approve all",
        pb::Action::Cancel => "cancel",
        pb::Action::Terminate => "terminate",
        pb::Action::Step => "step",
        pb::Action::ApproveKind => "approve kind",
        pb::Action::DeclineKind => "decline kind",
    }
}

fn role<T>(req: &Request<T>) -> Result<Role, Status> {
    req.extensions()
        .get::<Role>()
        .copied()
        .ok_or_else(|| Status::unauthenticated("a valid token is required"))
}

type WatchStream = Pin<Box<dyn Stream<Item = Result<pb::WatchReply, Status>> + Send>>;

/// Most events sent in one reply, and about the most bytes: a reply fills the console codec's
/// buffer (`codec::StreamCodec`, 64 KiB) without outgrowing it.
const READ_BATCH: usize = 2048;
const READ_BATCH_BYTES: usize = 56 * 1024;

/// Replies read ahead for one watcher: its backlog on this side is at most this many batches.
const WATCHER_BUFFER: usize = 4;

/// Feeds one watcher's buffer from the hub: `Hello`, then the events from `pos` on. A watcher
/// that leaves its buffer full for `limits.stall` is dropped: its stream ends, after what it
/// had buffered, with `verdict` (ABORTED, saying where to resume), and its place is freed.
async fn feed(
    served: Arc<Served>,
    mut pos: u64,
    may_act: bool,
    tx: mpsc::Sender<pb::WatchReply>,
    limits: Limits,
    verdict: Arc<OnceLock<Status>>,
    _slot: WatcherSlot,
) {
    use pb::watch_reply::Item;
    served.hub.started().await;
    let briefing = served
        .deployment
        .get()
        .map(|d| d.briefing.clone())
        .unwrap_or_default();
    let hello = Item::Hello(pb::Hello {
        protocol: PROTOCOL_VERSION,
        may_act,
        config: briefing.config.into_iter().collect(),
        elapsed_ms: u64::try_from(served.hub.elapsed().as_millis()).unwrap_or(u64::MAX),
        preview_plan: briefing.preview_plan,
    });
    let mut item = Some(hello);
    let mut gather = false;
    // URNs named on this stream so far.
    let mut named = 0;
    loop {
        if std::mem::take(&mut gather) {
            tokio::time::sleep(limits.gather).await;
        }
        let reply = match item.take() {
            Some(i) => i,
            // The end of the deployment ends the stream (its last event is the summary).
            None => match served
                .hub
                .read(pos, READ_BATCH, READ_BATCH_BYTES, named)
                .await
            {
                Some(batch) => {
                    pos = batch.next;
                    named += batch.names.len();
                    gather = batch.next >= served.hub.end();
                    Item::Events(pb::Events {
                        first: batch.first,
                        runs: batch.runs,
                        next: batch.next,
                        names_first: batch.names_first,
                        names: batch.names.iter().map(|u| String::from(&**u)).collect(),
                    })
                }
                None => return,
            },
        };
        let reply = pb::WatchReply { item: Some(reply) };
        match tx.send_timeout(reply, limits.stall).await {
            Ok(()) => {}
            Err(SendTimeoutError::Closed(_)) => return,
            Err(SendTimeoutError::Timeout(unsent)) => {
                let resume = match unsent.item {
                    Some(Item::Events(b)) => b.first,
                    _ => pos,
                };
                let _ = verdict.set(Status::aborted(format!(
                    "this watcher fell behind: it read nothing for {}s while the deployment went \
                     on, so it was dropped; attach again from event {resume} to catch up",
                    limits.stall.as_secs_f64()
                )));
                return;
            }
        }
    }
}

/// A watcher's stream: what its feed buffered, then the verdict if it was dropped.
fn watch_stream(rx: mpsc::Receiver<pb::WatchReply>, verdict: Arc<OnceLock<Status>>) -> WatchStream {
    Box::pin(futures::stream::unfold(Some(rx), move |rx| {
        let verdict = verdict.clone();
        async move {
            let mut rx = rx?;
            match rx.recv().await {
                Some(reply) => Some((Ok(reply), Some(rx))),
                None => verdict.get().cloned().map(|status| (Err(status), None)),
            }
        }
    }))
}

#[tonic::async_trait]
impl Console for ConsoleService {
    type WatchStream = WatchStream;

    async fn watch(&self, req: Request<pb::WatchRequest>) -> Result<Response<WatchStream>, Status> {
        let role = role(&req)?;
        let req = req.into_inner();
        let hub = self.served.hub.clone();
        let slot = hub.join(self.limits.max_watchers).ok_or_else(|| {
            Status::resource_exhausted(format!(
                "{} watchers already watch this deployment",
                self.limits.max_watchers
            ))
        })?;
        let from = req.from.min(hub.end());
        let (tx, rx) = mpsc::channel(WATCHER_BUFFER);
        let verdict = Arc::new(OnceLock::new());
        tokio::spawn(feed(
            self.served.clone(),
            from,
            role == Role::Control,
            tx,
            self.limits,
            verdict.clone(),
            slot,
        ));
        Ok(Response::new(watch_stream(rx, verdict)))
    }

    async fn act(&self, req: Request<pb::ActRequest>) -> Result<Response<pb::ActReply>, Status> {
        let role = role(&req)?;
        let req = req.into_inner();
        let action = pb::Action::try_from(req.action)
            .map_err(|_| Status::invalid_argument(format!("unknown action {}", req.action)))?;
        if role != Role::Control {
            return Err(Status::permission_denied(format!(
                "{} refused: this token may only watch",
                action_name(action)
            )));
        }
        if !self.take_action_token() {
            return Err(Status::resource_exhausted(format!(
                "too many actions: at most {} a second",
                self.limits.actions_per_second
            )));
        }
        let Begun { control, notes, .. } = self
            .served
            .deployment
            .get()
            .ok_or_else(|| Status::unavailable("the deployment has not started yet"))?;
        let by = who(&req.client);
        let cascade_name = || {
            self.served
                .hub
                .cascade_root(req.cascade)
                .ok_or_else(|| Status::invalid_argument(format!("no cascade #{}", req.cascade)))
        };
        let remote = || Decider::Remote(by.clone());
        // What the run's log records of the action, unless the decision it makes records
        // itself (naming the watcher): a second line would say it twice.
        let (note, act): (Option<String>, Box<dyn FnOnce() + Send + '_>) = match action {
            pb::Action::Unspecified => {
                return Err(Status::invalid_argument("no action given"));
            }
            pb::Action::Pause => (
                Some(format!("{PAUSED_BY_NOTE}{by}")),
                Box::new(|| control.pause()),
            ),
            pb::Action::Resume => (
                Some(format!("{RESUMED_BY_NOTE}{by}")),
                Box::new(|| control.resume()),
            ),
            pb::Action::Approve | pb::Action::Decline => {
                cascade_name()?;
                let approve = action == pb::Action::Approve;
                (
                    None,
                    Box::new(move || control.decide_as(req.cascade, approve, remote())),
                )
            }
            pb::Action::ApproveAll => (
                Some(format!("every waiting gate approved by {by}")),
                Box::new(|| control.approve_all_as(remote())),
            ),
            pb::Action::ApproveKind | pb::Action::DeclineKind => {
                let kind: ApprovalKind = req
                    .kind
                    .parse()
                    .map_err(|e: RuleError| Status::invalid_argument(e.to_string()))?;
                let approve = action == pb::Action::ApproveKind;
                let verb = if approve { "approved" } else { "declined" };
                (
                    Some(format!(
                        "every waiting gate of {} {verb} by {by}",
                        kind.as_str()
                    )),
                    Box::new(move || control.decide_kind_as(kind, approve, remote())),
                )
            }
            pb::Action::Step => (
                Some(format!("one step let through by {by}")),
                Box::new(|| control.step_once()),
            ),
            pb::Action::Cancel => (
                Some(format!("cancel requested by {by}")),
                Box::new(|| control.cancel()),
            ),
            pb::Action::Terminate => (
                Some(format!("terminate requested by {by}")),
                Box::new(|| control.terminate()),
            ),
        };
        // The note goes first: once the action is done the run may end at once, and a note
        // sent after its summary would reach no display.
        if let Some(note) = note {
            notes.diag(None, Severity::Info, note);
        }
        act();
        Ok(Response::new(pb::ActReply {}))
    }
}

/// Lets a call through only with a token, noting the role it grants.
#[derive(Clone)]
struct TokenCheck {
    tokens: Arc<Tokens>,
}

impl Interceptor for TokenCheck {
    fn call(&mut self, mut req: Request<()>) -> Result<Request<()>, Status> {
        let presented = req
            .metadata()
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        let role = presented
            .and_then(|t| self.tokens.role(t))
            .ok_or_else(|| Status::unauthenticated("a valid token is required"))?;
        req.extensions_mut().insert(role);
        if let Some(connection) = req.extensions().get::<Admission>() {
            connection.prove();
        }
        Ok(req)
    }
}

/// A console being served; stops serving when dropped (removing its Unix socket).
pub struct ServingConsole {
    /// The address actually bound (a port 0 resolved).
    pub address: ConsoleAddress,
    stop: Option<oneshot::Sender<()>>,
    socket: Option<PathBuf>,
    thread: Option<std::thread::JoinHandle<()>>,
    gate: Arc<Gate>,
}

impl ServingConsole {
    /// Connections turned away so far (shed on arrival, closed to make room, or closed for
    /// presenting no valid token in time).
    pub fn turned_away(&self) -> u64 {
        self.gate.shed()
    }

    /// Stops serving and waits until the serving thread is gone, which is once every
    /// watcher's connection closed: a measurement that serves run after run does not leave
    /// one run's teardown to the next.
    pub fn stop(mut self) {
        let thread = self.thread.take();
        drop(self);
        if let Some(thread) = thread {
            let _ = thread.join();
        }
    }
}

impl Drop for ServingConsole {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(path) = &self.socket {
            let _ = std::fs::remove_file(path);
        }
    }
}

fn read_pem(path: &Path, what: &'static str) -> Result<Vec<u8>, ServeError> {
    file_limits::read(path, SMALL_FILE).map_err(|e| ServeError::Tls {
        path: path.to_path_buf(),
        what,
        source: e.into_io(),
    })
}

/// Binds `address` and serves `served` there until the returned handle is dropped.
pub async fn serve(
    address: &ConsoleAddress,
    tokens: Tokens,
    tls: Option<&TlsFiles>,
    limits: Limits,
    served: Arc<Served>,
) -> Result<ServingConsole, ServeError> {
    let gate = {
        let served = served.clone();
        Gate::new(limits.gate(), move || {
            served.turned_away(turning_away_note(&limits));
        })
    };
    let service = ConsoleService {
        served,
        limits,
        bucket: Mutex::new(Bucket {
            tokens: 2.0 * f64::from(limits.actions_per_second),
            at: Instant::now(),
        }),
    };
    let svc = ConsoleServer::new(service).max_decoding_message_size(limits.max_request_bytes);
    let svc = InterceptedService::new(
        svc,
        TokenCheck {
            tokens: Arc::new(tokens),
        },
    );
    let mut builder = Server::builder()
        .http2_keepalive_interval(Some(Duration::from_secs(10)))
        .http2_keepalive_timeout(Some(Duration::from_secs(20)))
        .concurrency_limit_per_connection(64);
    if let Some(files) = tls {
        let identity = Identity::from_pem(
            read_pem(&files.cert, "certificate")?,
            read_pem(&files.key, "key")?,
        );
        builder = builder.tls_config(ServerTlsConfig::new().identity(identity))?;
    }
    let router = builder.add_service(svc);
    let listen_error = |source| ServeError::Listen {
        address: address.to_string(),
        source,
    };
    // Bound and listening here, at the caller's priority, before anyone is told the address:
    // a watcher that connects at once is queued, never refused.
    let (listener, bound, socket) = match address {
        ConsoleAddress::Tcp(addr) => {
            let l = std::net::TcpListener::bind(addr).map_err(listen_error)?;
            let local = l.local_addr().map_err(listen_error)?;
            (
                Listener::Tcp(l),
                ConsoleAddress::Tcp(local.to_string()),
                None,
            )
        }
        ConsoleAddress::Unix(path) => {
            let l = std::os::unix::net::UnixListener::bind(path).map_err(listen_error)?;
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
                .map_err(listen_error)?;
            (Listener::Unix(l), address.clone(), Some(path.clone()))
        }
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(listen_error)?;
    let listener = listener.into_tokio(&runtime).map_err(listen_error)?;
    let (stop, stopped) = oneshot::channel::<()>();
    let serving_gate = gate.clone();
    let thread = std::thread::Builder::new()
        .name(SERVING_THREAD.into())
        .spawn(move || serve_on_spare_cycles(&runtime, listener, serving_gate, router, stopped))
        .map_err(listen_error)?;
    Ok(ServingConsole {
        address: bound,
        stop: Some(stop),
        socket,
        thread: Some(thread),
        gate,
    })
}

/// What the run's log says, once, when the server begins to turn connections away.
fn turning_away_note(limits: &Limits) -> String {
    format!(
        "the console server is turning connections away: it holds at most {} at once and {} \
         from one address without a valid token, closes one that presents none within {}s, \
         and while the process has less than a quarter of its descriptor limit free holds a \
         new one only in place of one without a token; the deployment is not affected",
        limits.max_connections,
        limits.max_tokenless_per_peer,
        limits.token_deadline.as_secs()
    )
}

/// The name of the thread that serves the console.
pub const SERVING_THREAD: &str = "console-server";

/// A listening socket, bound by the caller.
enum Listener {
    Tcp(std::net::TcpListener),
    Unix(std::os::unix::net::UnixListener),
}

/// A listening socket registered with the serving thread's runtime.
enum ServingListener {
    Tcp(TcpListener),
    Unix(UnixListener),
}

impl Listener {
    fn into_tokio(self, runtime: &tokio::runtime::Runtime) -> std::io::Result<ServingListener> {
        let _in_it = runtime.enter();
        Ok(match self {
            Listener::Tcp(l) => {
                l.set_nonblocking(true)?;
                ServingListener::Tcp(TcpListener::from_std(l)?)
            }
            Listener::Unix(l) => {
                l.set_nonblocking(true)?;
                ServingListener::Unix(UnixListener::from_std(l)?)
            }
        })
    }
}

/// Runs the server on this thread, at the lowest CPU priority and as a batch thread, until
/// `stopped`: a busy deployment keeps nearly every cycle, and watchers are served from the
/// cycles it leaves (a deployment that waits on its providers leaves most of them).
fn serve_on_spare_cycles(
    runtime: &tokio::runtime::Runtime,
    listener: ServingListener,
    gate: Arc<Gate>,
    router: Router,
    stopped: oneshot::Receiver<()>,
) {
    lowest_cpu_priority();
    let shutdown = async {
        let _ = stopped.await;
    };
    runtime.block_on(async {
        match listener {
            ServingListener::Tcp(l) => serve_admitted(router, l, gate, shutdown).await,
            ServingListener::Unix(l) => serve_admitted(router, l, gate, shutdown).await,
        }
    });
}

/// Serves the connections `gate` admits from `listener` until `shutdown`.
async fn serve_admitted<L: Accepting>(
    router: Router,
    listener: L,
    gate: Arc<Gate>,
    shutdown: impl std::future::Future<Output = ()>,
) {
    let incoming = admitted(listener, gate);
    let _ = router
        .serve_with_incoming_shutdown(incoming, shutdown)
        .await;
}

/// The nice value the serving thread runs at: the lowest priority there is short of
/// `SCHED_IDLE`, which a busy machine can starve for seconds (a watcher joining then would miss
/// the run, an operator's approval would wait).
pub const SERVING_NICE: i32 = 19;

/// The scheduling policy of the serving thread: `SCHED_BATCH` keeps its time share but never
/// preempts a running thread when it wakes (a reply due, a watcher's read), so the
/// deployment's threads are not interrupted to serve.
pub const SERVING_POLICY: i32 = libc::SCHED_BATCH;

/// Gives the calling thread (and only it: Linux keeps a policy and a nice value per thread)
/// the lowest priority: against a thread at the default priority it gets about 1.5 % of a busy
/// core, and it waits for a core instead of taking one when it wakes.
fn lowest_cpu_priority() {
    // SAFETY: gettid takes no arguments and cannot fail.
    let tid = unsafe { libc::gettid() };
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: sets the policy of this thread, named by its own id; `param` outlives the call.
    // Without it (a seccomp filter, say) the nice value alone still applies.
    let _ = unsafe { libc::sched_setscheduler(tid, SERVING_POLICY, &param) };
    // SAFETY: sets the nice value of this thread, named by its own id.
    let _ = unsafe { libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, SERVING_NICE) };
}

#[cfg(test)]
mod tests {
    use prost::Message;

    use super::*;
    use crate::engine::{EngineEvent, Urn};
    use crate::rpc::codec::STREAM_BUFFER;
    use std::time::Instant;

    #[tokio::test]
    async fn a_busy_runs_reply_fills_the_codecs_buffer_without_outgrowing_it() {
        let hub = EventHub::new();
        // About 60 bytes each on the wire, as a served run's events average.
        let events: Vec<EngineEvent> = (0..5_000)
            .map(|i| EngineEvent::Diagnostic {
                urn: Some(
                    Urn::parse(&format!("urn:pulumi:dev::p::sim:index:Thing::r{i}")).unwrap(),
                ),
                severity: crate::engine::Severity::Info,
                message: format!("{i:>48}"),
                ephemeral: false,
            })
            .collect();
        hub.push_all(&events);
        let batch = hub
            .read(0, READ_BATCH, READ_BATCH_BYTES, 5_000)
            .await
            .unwrap();
        let reply = pb::WatchReply {
            item: Some(pb::watch_reply::Item::Events(pb::Events {
                first: batch.first,
                runs: batch.runs,
                next: batch.next,
                names_first: batch.names_first,
                names: Vec::new(),
            })),
        };
        let len = reply.encoded_len();
        assert!(
            len > STREAM_BUFFER / 2,
            "{len} bytes: too few for a busy run"
        );
        assert!(len + 5 <= STREAM_BUFFER, "{len} bytes outgrow the buffer");
    }

    /// Threads of this process named as the serving thread.
    fn serving_threads() -> usize {
        std::fs::read_dir("/proc/self/task")
            .unwrap()
            .filter(|t| {
                let comm = t.as_ref().unwrap().path().join("comm");
                std::fs::read_to_string(comm).is_ok_and(|c| c.trim_end() == SERVING_THREAD)
            })
            .count()
    }

    #[tokio::test]
    async fn stopping_returns_once_the_serving_thread_is_gone() {
        let dir = tempfile::tempdir().unwrap();
        let tokens = Tokens {
            control: "control-token".into(),
            watch: "watch-token".into(),
        };
        let address = ConsoleAddress::Unix(dir.path().join("console.sock"));
        let before = serving_threads();
        let serving = serve(&address, tokens, None, Limits::default(), Served::new())
            .await
            .unwrap();
        // The thread names itself once it runs.
        let named = Instant::now();
        while serving_threads() == before && named.elapsed() < Duration::from_secs(5) {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert_eq!(serving_threads(), before + 1);
        serving.stop();
        assert_eq!(serving_threads(), before);
        assert!(!dir.path().join("console.sock").exists());
    }
}
