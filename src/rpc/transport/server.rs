//! Where our gRPC services listen. The resource monitor and the engine service accept
//! registrations that end up in the stack's journal, so they are served on a Unix socket inside
//! a directory only we can enter (mode 0700, created fresh for each server); the program and
//! the plugins we start get the `unix:` address, other users cannot reach it, and it is gone
//! when the server stops. Provider plugins get the same services on loopback TCP instead
//! (`serve_loopback`): gRPC's C core, which Python plugins use, sends a Unix socket's path as the
//! HTTP/2 `:authority`, which our HTTP/2 server refuses as malformed, and a plugin's SDK makes
//! its channels itself; only connections from our own user are served there.

use std::fmt;
use std::future::Future;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::task::{Context, Poll};

use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, UnixListener, UnixStream};
use tokio::sync::oneshot;
use tonic::codegen::Service;
use tonic::codegen::http::Uri;
use tonic::transport::server::{Router, TcpIncoming};
use tonic::transport::{Channel, Endpoint};

use super::loopback_peer::is_ours;
use crate::private_dir::PrivateDir;

/// File name of the socket inside the private directory.
const SOCKET_NAME: &str = "grpc.sock";
/// Linux limits a socket path to 107 bytes; a longer temp dir falls back to `/tmp`.
const MAX_SOCKET_PATH: usize = 100;

/// A running gRPC server (on one or more listeners); dropping it (or calling `shutdown`) stops
/// it and removes its socket.
pub struct ServerHandle {
    stops: Vec<oneshot::Sender<()>>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
    dir: Option<PrivateDir>,
}

impl ServerHandle {
    /// Stops accepting calls and waits for the server tasks to end.
    pub async fn shutdown(mut self) {
        for stop in self.stops.drain(..) {
            let _ = stop.send(());
        }
        for task in self.tasks.drain(..) {
            let _ = task.await;
        }
        self.dir.take();
    }

    /// One handle for this server and `other` (the same services on another listener).
    pub fn and(mut self, mut other: ServerHandle) -> ServerHandle {
        self.stops.append(&mut other.stops);
        self.tasks.append(&mut other.tasks);
        self.dir = self.dir.take().or(other.dir.take());
        self
    }

    /// Serves `router` on `incoming` until the handle stops it.
    fn spawn<S, IO, E>(router: Router, incoming: S, dir: Option<PrivateDir>) -> ServerHandle
    where
        S: futures::Stream<Item = Result<IO, E>> + Send + 'static,
        IO: tokio::io::AsyncRead
            + tokio::io::AsyncWrite
            + tonic::transport::server::Connected
            + Unpin
            + Send
            + 'static,
        E: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let _ = router
                .serve_with_incoming_shutdown(incoming, async {
                    let _ = stopped.await;
                })
                .await;
        });
        ServerHandle {
            stops: vec![stop],
            tasks: vec![task],
            dir,
        }
    }
}

impl Drop for ServerHandle {
    fn drop(&mut self) {
        for stop in self.stops.drain(..) {
            let _ = stop.send(());
        }
    }
}

/// The address of a server on a private Unix socket, written as gRPC targets are
/// (`unix:/abs/path`), which both SDKs, Go plugins and `connect` accept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrivateAddress {
    socket: PathBuf,
}

impl PrivateAddress {
    /// The socket file.
    pub fn socket(&self) -> &Path {
        &self.socket
    }
}

impl fmt::Display for PrivateAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unix:{}", self.socket.display())
    }
}

/// A fresh private directory for a socket, under a base short enough for its path.
fn socket_dir() -> std::io::Result<PrivateDir> {
    let mut base = std::env::temp_dir();
    if base.as_os_str().len() + 40 > MAX_SOCKET_PATH {
        base = PathBuf::from("/tmp");
    }
    PrivateDir::create_in(&base, "stepdeck-rpc")
}

/// Serves the router on a fresh private Unix socket until the handle stops it.
pub async fn serve_private(router: Router) -> std::io::Result<(PrivateAddress, ServerHandle)> {
    let dir = socket_dir()?;
    let socket = dir.path().join(SOCKET_NAME);
    let listener = UnixListener::bind(&socket)?;
    std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o600))?;
    let incoming = futures::stream::unfold(listener, |listener| async move {
        let conn = listener.accept().await.map(|(stream, _)| stream);
        Some((conn, listener))
    });
    Ok((
        PrivateAddress { socket },
        ServerHandle::spawn(router, incoming, Some(dir)),
    ))
}

/// Serves the router on 127.0.0.1 (an ephemeral port) to connections from our own user only,
/// for the provider plugins we start (see the module's comment); others are closed unanswered.
pub async fn serve_loopback(
    router: Router,
) -> std::io::Result<(std::net::SocketAddr, ServerHandle)> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let incoming = futures::stream::unfold(listener, move |listener| async move {
        loop {
            match listener.accept().await {
                Ok((stream, peer)) if is_ours(addr, peer) => {
                    let _ = stream.set_nodelay(true);
                    return Some((Ok(stream), listener));
                }
                Ok(_) => continue,
                Err(e) => return Some((Err(e), listener)),
            }
        }
    });
    Ok((addr, ServerHandle::spawn(router, incoming, None)))
}

/// Binds 127.0.0.1:0 and serves the router until the handle stops it (for stand-ins of
/// provider plugins, which listen on TCP as real plugins do).
pub async fn serve_router(router: Router) -> std::io::Result<(std::net::SocketAddr, ServerHandle)> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    Ok((
        addr,
        ServerHandle::spawn(router, TcpIncoming::from(listener), None),
    ))
}

/// Dials a Unix socket for every connection the channel makes.
#[derive(Clone)]
struct UnixConnector(PathBuf);

impl Service<Uri> for UnixConnector {
    type Response = TokioIo<UnixStream>;
    type Error = std::io::Error;
    type Future = Pin<Box<dyn Future<Output = std::io::Result<Self::Response>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _uri: Uri) -> Self::Future {
        let path = self.0.clone();
        Box::pin(async move { UnixStream::connect(path).await.map(TokioIo::new) })
    }
}

/// The socket of a gRPC target written `unix:/path` (or `unix:///path`); `None` for `host:port`.
pub(in crate::rpc) fn unix_socket(target: &str) -> Option<&Path> {
    let path = target.strip_prefix("unix:")?;
    Some(Path::new(path.strip_prefix("//").unwrap_or(path)))
}

/// Connects to a gRPC target as the SDKs write it: `unix:/path` or `host:port`.
pub async fn connect(target: &str) -> Result<Channel, tonic::transport::Error> {
    match unix_socket(target) {
        Some(path) => {
            Endpoint::from_static("http://localhost")
                .connect_with_connector(UnixConnector(path.to_path_buf()))
                .await
        }
        None => {
            Endpoint::from_shared(format!("http://{target}"))?
                .connect()
                .await
        }
    }
}
