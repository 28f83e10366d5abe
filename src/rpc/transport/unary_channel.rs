//! A gRPC client channel for the unary calls the engine makes to plugins and programs (a
//! provider's `Check`, `Diff`, …; a program's callbacks). A call goes straight to the HTTP/2
//! connection, with no task between, and its request is queued whole (headers, then the message
//! with the end of the stream) before the connection writes. Through tonic's `Channel` the same
//! call took three writes to the socket (headers, message, an empty end-of-stream frame), each
//! one waking the peer, and two more hand-offs between tasks. A call that carries a deadline
//! (`grpc-timeout`, from `tonic::Request::set_timeout`) fails with `DEADLINE_EXCEEDED` when it
//! passes, however the peer behaves, as tonic's `Channel` fails it.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use bytes::Bytes;
use http::uri::{Authority, Scheme, Uri};
use http_body::{Body, Frame};
use http_body_util::BodyExt;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpStream, UnixStream};
use tokio::time::{Instant, Sleep, sleep_until, timeout_at};

use super::server::unix_socket;

/// Why a call through the channel failed: its request's body, or the connection.
pub type UnaryError = Box<dyn std::error::Error + Send + Sync>;

/// The flow-control windows hyper gives a client (and so tonic's `Channel`): an answer of a few
/// megabytes arrives without waiting on window updates.
const STREAM_WINDOW: u32 = 2 * 1024 * 1024;
const CONNECTION_WINDOW: u32 = 5 * 1024 * 1024;

/// A connection to one peer; clones share it, as the clones of a tonic `Channel` do.
#[derive(Clone)]
pub struct UnaryChannel {
    send: h2::client::SendRequest<Bytes>,
    /// The `:authority` of every request: the peer's address, or `localhost` over a socket.
    authority: Authority,
}

impl UnaryChannel {
    /// Dials `target` as the SDKs write it (`unix:/path` or `host:port`) and drives the HTTP/2
    /// connection on the runtime until the last clone is dropped or the peer goes away.
    pub async fn connect(target: &str) -> Result<UnaryChannel, UnaryError> {
        match unix_socket(target) {
            Some(path) => {
                let stream = UnixStream::connect(path).await?;
                UnaryChannel::start(stream, Authority::from_static("localhost")).await
            }
            None => {
                let authority = target.parse()?;
                let stream = TcpStream::connect(target).await?;
                stream.set_nodelay(true)?;
                UnaryChannel::start(stream, authority).await
            }
        }
    }

    async fn start<T>(io: T, authority: Authority) -> Result<UnaryChannel, UnaryError>
    where
        T: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let (send, connection) = h2::client::Builder::new()
            .initial_window_size(STREAM_WINDOW)
            .initial_connection_window_size(CONNECTION_WINDOW)
            .enable_push(false)
            .handshake(io)
            .await?;
        tokio::spawn(connection);
        Ok(UnaryChannel { send, authority })
    }
}

impl tower_service::Service<http::Request<tonic::body::Body>> for UnaryChannel {
    type Response = http::Response<Reply>;
    type Error = UnaryError;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, UnaryError>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), UnaryError>> {
        // Each call waits for a stream of its own in `call`, on its own clone.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<tonic::body::Body>) -> Self::Future {
        let send = self.send.clone();
        let authority = self.authority.clone();
        let deadline = grpc_timeout(request.headers()).map(|t| Instant::now() + t);
        Box::pin(async move {
            let exchange = async move {
                let (mut parts, body) = request.into_parts();
                let mut uri = parts.uri.into_parts();
                uri.scheme = Some(Scheme::HTTP);
                uri.authority = Some(authority);
                parts.uri = Uri::from_parts(uri)?;
                // A unary request's body is one encoded message, ready at once.
                let message = body.collect().await?.to_bytes();
                let mut send = send.ready().await?;
                let (response, mut stream) =
                    send.send_request(http::Request::from_parts(parts, ()), false)?;
                stream.send_data(message, true)?;
                Ok::<_, UnaryError>(response.await?)
            };
            let response = match deadline {
                Some(at) => timeout_at(at, exchange)
                    .await
                    .map_err(|_| deadline_exceeded())??,
                None => exchange.await?,
            };
            Ok(response.map(|body| Reply {
                body,
                data_done: false,
                deadline: deadline.map(|at| Box::pin(sleep_until(at))),
            }))
        })
    }
}

/// The timeout a request carries in its `grpc-timeout` header: up to eight digits and a unit
/// (`H`, `M`, `S`, `m`, `u`, `n`); none if it is missing or malformed, as tonic reads it.
pub(super) fn grpc_timeout(headers: &http::HeaderMap) -> Option<Duration> {
    let value = headers.get("grpc-timeout")?.to_str().ok()?;
    let (digits, unit) = value.split_at(value.len().checked_sub(1)?);
    if digits.is_empty() || digits.len() > 8 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u64 = digits.parse().ok()?;
    Some(match unit {
        "H" => Duration::from_secs(n * 3600),
        "M" => Duration::from_secs(n * 60),
        "S" => Duration::from_secs(n),
        "m" => Duration::from_millis(n),
        "u" => Duration::from_micros(n),
        "n" => Duration::from_nanos(n),
        _ => return None,
    })
}

fn deadline_exceeded() -> UnaryError {
    Box::new(tonic::Status::deadline_exceeded(
        "the call's deadline passed before the peer answered",
    ))
}

/// The body of an answer: its message, then the trailers that carry the gRPC status.
pub struct Reply {
    body: h2::RecvStream,
    data_done: bool,
    /// When the call's deadline passes, a body not yet read whole fails.
    deadline: Option<Pin<Box<Sleep>>>,
}

impl Body for Reply {
    type Data = Bytes;
    type Error = UnaryError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, UnaryError>>> {
        if let Some(deadline) = self.deadline.as_mut()
            && deadline.as_mut().poll(cx).is_ready()
        {
            return Poll::Ready(Some(Err(deadline_exceeded())));
        }
        if !self.data_done {
            match ready!(self.body.poll_data(cx)) {
                Some(Ok(data)) => {
                    // Read, so the peer may send as much again.
                    let _ = self.body.flow_control().release_capacity(data.len());
                    return Poll::Ready(Some(Ok(Frame::data(data))));
                }
                Some(Err(e)) => return Poll::Ready(Some(Err(e.into()))),
                None => self.data_done = true,
            }
        }
        Poll::Ready(
            ready!(self.body.poll_trailers(cx))
                .transpose()
                .map(|t| t.map(Frame::trailers).map_err(Into::into)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EventSink;
    use crate::rpc::monitor::engine_service::EngineService;
    use crate::rpc::pulumirpc::engine_client::EngineClient;
    use crate::rpc::pulumirpc::engine_server::EngineServer;
    use crate::rpc::pulumirpc::{LogRequest, LogSeverity};
    use crate::rpc::transport::server::{serve_loopback, serve_private};

    fn router() -> tonic::transport::server::Router {
        tonic::transport::Server::builder().add_service(EngineServer::new(EngineService::new(
            None,
            EventSink::none(),
        )))
    }

    async fn log(channel: UnaryChannel) -> Result<(), tonic::Status> {
        let request = LogRequest {
            severity: LogSeverity::Debug as i32,
            message: "registering resource".into(),
            ..Default::default()
        };
        EngineClient::new(channel).log(request).await.map(drop)
    }

    /// Programs may give their callback servers as `unix:` sockets, plugins as `host:port`.
    #[tokio::test]
    async fn calls_go_through_a_socket_and_over_tcp() {
        let (socket, _private) = serve_private(router()).await.unwrap();
        let channel = UnaryChannel::connect(&format!("unix:{}", socket.socket().display()))
            .await
            .unwrap();
        log(channel).await.unwrap();
        let (addr, _loopback) = serve_loopback(router()).await.unwrap();
        let channel = UnaryChannel::connect(&addr.to_string()).await.unwrap();
        log(channel).await.unwrap();
    }

    /// A peer that answers with something other than HTTP/2 fails the call, and keeps its
    /// socket open all the while: the call must not wait on it.
    #[tokio::test]
    async fn a_peer_that_answers_garbage_fails_the_call() {
        use tokio::io::AsyncWriteExt;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let peer = tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            socket.write_all(b"SSH-2.0-OpenSSH_9.6\r\n").await.unwrap();
            std::future::pending::<()>().await;
        });
        let channel = UnaryChannel::connect(&addr.to_string()).await.unwrap();
        let call = tokio::time::timeout(std::time::Duration::from_secs(10), log(channel)).await;
        assert!(call.expect("an answer").is_err());
        peer.abort();
    }

    /// A peer that goes away fails the calls made after it, instead of leaving them waiting.
    #[tokio::test]
    async fn a_call_to_a_peer_that_went_away_fails() {
        let (addr, server) = serve_loopback(router()).await.unwrap();
        let channel = UnaryChannel::connect(&addr.to_string()).await.unwrap();
        log(channel.clone()).await.unwrap();
        server.shutdown().await;
        let after = tokio::time::timeout(std::time::Duration::from_secs(10), log(channel)).await;
        assert!(after.expect("an answer").is_err());
    }
}
