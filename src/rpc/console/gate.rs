//! Which connections the console server holds, so that no client, with a token or without,
//! can take the descriptors the deployment needs (its journal, its plugins, its program's
//! sockets). At most `max_connections` are held; at most `max_tokenless_per_peer` of them
//! from one address before they present a valid token, and each has `token_deadline` to
//! present one or is closed. When a cap is reached, the oldest connection without a token
//! makes room for the new one; when none can, the new one is shed (accepted and closed at
//! once, so a flood drains instead of queueing in front of a real watcher). While the process
//! has less than a quarter of its descriptor limit free (`descriptors`), every cap counts as
//! reached: a connection is held only in place of one without a token. Running out of
//! descriptors in `accept` closes the oldest connection without a token and backs off instead
//! of spinning.

use std::collections::BTreeMap;
use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use futures::Stream;
use futures::task::AtomicWaker;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream, UnixListener, UnixStream};
use tokio::time::Sleep;
use tonic::transport::server::Connected;

use super::descriptors;

/// The gate's limits (part of the server's `Limits`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct GateLimits {
    /// Connections held at once, with a token or without.
    pub(crate) max_connections: usize,
    /// Connections from one address that have not yet presented a valid token.
    pub(crate) max_tokenless_per_peer: usize,
    /// How long a connection has to present a valid token before it is closed.
    pub(crate) token_deadline: Duration,
}

/// How long accepting pauses when the process is short of descriptors: long enough not to
/// spin, short enough that a watcher waits little once descriptors are free again.
const BACKOFF: Duration = Duration::from_millis(100);

/// Where a connection comes from: its IP address, or this machine's Unix socket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Peer {
    Ip(IpAddr),
    Local,
}

/// One held connection as the gate sees it.
struct Held {
    id: u64,
    peer: Peer,
    /// It presented a valid token: it is never closed to make room, and has no deadline.
    proven: AtomicBool,
    /// Closed to make room: its next read or write fails.
    closing: AtomicBool,
    /// Its connection's task, woken when it is closed to make room.
    waker: AtomicWaker,
}

/// A held connection's ticket, travelling with each of its requests (tonic's connect info) so
/// that the token check can mark the connection proven.
#[derive(Clone)]
pub(crate) struct Admission(Arc<Held>);

impl Admission {
    /// The connection presented a valid token: it stays.
    pub(crate) fn prove(&self) {
        self.0.proven.store(true, Ordering::SeqCst);
    }
}

/// The connections held, and how many were turned away.
pub(crate) struct Gate {
    limits: GateLimits,
    /// Held connections in the order they were admitted (oldest first).
    held: Mutex<BTreeMap<u64, Arc<Held>>>,
    next_id: AtomicU64,
    /// Connections still open, those closed to make room included until their task lets go.
    open: AtomicUsize,
    shed: AtomicU64,
    /// Called once, the first time the gate turns a connection away or holds accepting back.
    first_refusal: Mutex<Option<Box<dyn FnOnce() + Send>>>,
}

impl Gate {
    /// A gate with `limits`; `first_refusal` runs the first time it turns anyone away.
    pub(crate) fn new(
        limits: GateLimits,
        first_refusal: impl FnOnce() + Send + 'static,
    ) -> Arc<Gate> {
        Arc::new(Gate {
            limits,
            held: Mutex::new(BTreeMap::new()),
            next_id: AtomicU64::new(0),
            open: AtomicUsize::new(0),
            shed: AtomicU64::new(0),
            first_refusal: Mutex::new(Some(Box::new(first_refusal))),
        })
    }

    /// Connections turned away so far: shed on arrival, closed to make room, or closed for
    /// presenting no valid token in time.
    pub(crate) fn shed(&self) -> u64 {
        self.shed.load(Ordering::SeqCst)
    }

    fn refused(&self) {
        let first = self
            .first_refusal
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(f) = first {
            f();
        }
    }

    fn count_shed(&self) {
        self.shed.fetch_add(1, Ordering::SeqCst);
        self.refused();
    }

    /// Admits a connection from `peer`, closing the oldest connection without a token when a
    /// cap is reached (every cap, when the process is `short` of descriptors); `None` when the
    /// new one must be shed.
    fn admit(&self, peer: Peer, short: bool) -> Option<Admission> {
        let GateLimits {
            max_connections,
            max_tokenless_per_peer,
            ..
        } = self.limits;
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        let tokenless = |h: &Held| !h.proven.load(Ordering::SeqCst);
        let of_peer = held
            .values()
            .filter(|h| h.peer == peer && tokenless(h))
            .count();
        if of_peer >= max_tokenless_per_peer {
            let oldest = held
                .values()
                .find(|h| h.peer == peer && tokenless(h))
                .map(|h| h.id);
            if !self.make_room(&mut held, oldest) {
                return None;
            }
        }
        if short || held.len() >= max_connections {
            let oldest = held.values().find(|h| tokenless(h)).map(|h| h.id);
            if !self.make_room(&mut held, oldest) {
                return None;
            }
        }
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let h = Arc::new(Held {
            id,
            peer,
            proven: AtomicBool::new(false),
            closing: AtomicBool::new(false),
            waker: AtomicWaker::new(),
        });
        held.insert(id, h.clone());
        self.open.fetch_add(1, Ordering::SeqCst);
        Some(Admission(h))
    }

    /// Closes the connection `victim` to make room; false (shed the newcomer) without one.
    fn make_room(&self, held: &mut BTreeMap<u64, Arc<Held>>, victim: Option<u64>) -> bool {
        self.count_shed();
        let Some(victim) = victim.and_then(|id| held.remove(&id)) else {
            return false;
        };
        victim.closing.store(true, Ordering::SeqCst);
        victim.waker.wake();
        true
    }

    /// Closes the oldest connection without a token, if any (the process ran out of
    /// descriptors).
    fn close_oldest_tokenless(&self) {
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        let oldest = held
            .values()
            .find(|h| !h.proven.load(Ordering::SeqCst))
            .map(|h| h.id);
        if oldest.is_some() {
            self.make_room(&mut held, oldest);
        }
    }

    /// Connections closed to make room whose task has not yet let go of them.
    fn closing(&self) -> usize {
        let held = self
            .held
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len();
        self.open.load(Ordering::SeqCst).saturating_sub(held)
    }

    fn release(&self, id: u64) {
        self.held
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&id);
        self.open.fetch_sub(1, Ordering::SeqCst);
    }
}

/// An admitted connection: its reads and writes fail once it is closed to make room or its
/// deadline for a token passed, which makes the server drop it (closing its descriptor).
pub(crate) struct AdmittedIo<IO> {
    io: IO,
    admission: Admission,
    /// Until it presents a valid token.
    deadline: Option<Pin<Box<Sleep>>>,
    gate: Arc<Gate>,
}

impl<IO> AdmittedIo<IO> {
    fn new(io: IO, admission: Admission, gate: Arc<Gate>) -> AdmittedIo<IO> {
        let deadline = Some(Box::pin(tokio::time::sleep(gate.limits.token_deadline)));
        AdmittedIo {
            io,
            admission,
            deadline,
            gate,
        }
    }

    /// Whether the connection may still be used; while it has no token, registers for the
    /// wake-up that ends it (its deadline, or being closed to make room).
    fn still_open(&mut self, cx: &mut Context<'_>) -> io::Result<()> {
        let held = &self.admission.0;
        let closed = || {
            io::Error::new(
                io::ErrorKind::ConnectionAborted,
                "closed by the console server: no valid token",
            )
        };
        if held.closing.load(Ordering::SeqCst) {
            return Err(closed());
        }
        if held.proven.load(Ordering::SeqCst) {
            self.deadline = None;
        }
        let Some(deadline) = &mut self.deadline else {
            return Ok(());
        };
        held.waker.register(cx.waker());
        if held.closing.load(Ordering::SeqCst) {
            return Err(closed());
        }
        if deadline.as_mut().poll(cx).is_ready() {
            held.closing.store(true, Ordering::SeqCst);
            self.gate.count_shed();
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "no valid token in time",
            ));
        }
        Ok(())
    }
}

impl<IO> Drop for AdmittedIo<IO> {
    fn drop(&mut self) {
        self.gate.release(self.admission.0.id);
    }
}

impl<IO: AsyncRead + Unpin> AsyncRead for AdmittedIo<IO> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if let Err(e) = self.still_open(cx) {
            return Poll::Ready(Err(e));
        }
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<IO: AsyncWrite + Unpin> AsyncWrite for AdmittedIo<IO> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if let Err(e) = self.still_open(cx) {
            return Poll::Ready(Err(e));
        }
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

impl<IO> Connected for AdmittedIo<IO> {
    type ConnectInfo = Admission;

    fn connect_info(&self) -> Admission {
        self.admission.clone()
    }
}

/// A listening socket the gate accepts from.
pub(crate) trait Accepting: Send + 'static {
    type Io: AsyncRead + AsyncWrite + Unpin + Send + 'static;

    /// The next connection and where it comes from.
    fn accept(&self) -> impl Future<Output = io::Result<(Self::Io, Peer)>> + Send;
}

impl Accepting for TcpListener {
    type Io = TcpStream;

    async fn accept(&self) -> io::Result<(TcpStream, Peer)> {
        let (stream, from) = TcpListener::accept(self).await?;
        Ok((stream, Peer::Ip(from.ip())))
    }
}

impl Accepting for UnixListener {
    type Io = UnixStream;

    async fn accept(&self) -> io::Result<(UnixStream, Peer)> {
        let (stream, _) = UnixListener::accept(self).await?;
        Ok((stream, Peer::Local))
    }
}

/// What to do after `accept` failed: try again at once (the connection was aborted before we
/// took it), or after a pause (out of descriptors or memory, or anything else: a listener
/// that keeps failing must not spin).
fn pause_after(e: &io::Error) -> Option<Duration> {
    match e.kind() {
        io::ErrorKind::ConnectionAborted
        | io::ErrorKind::ConnectionReset
        | io::ErrorKind::Interrupted
        | io::ErrorKind::WouldBlock => None,
        _ => Some(BACKOFF),
    }
}

/// The connections the gate admits from `listener`, for the server to serve. The stream never
/// ends and never fails: what cannot be accepted waits in the kernel's queue.
pub(crate) fn admitted<L: Accepting>(
    listener: L,
    gate: Arc<Gate>,
) -> impl Stream<Item = io::Result<AdmittedIo<L::Io>>> {
    futures::stream::unfold((listener, gate), |(listener, gate)| async move {
        loop {
            let_closed_connections_go(&gate).await;
            match listener.accept().await {
                Ok((io, peer)) => {
                    let short = !descriptors::plenty_free();
                    if let Some(admission) = gate.admit(peer, short) {
                        let io = AdmittedIo::new(io, admission, gate.clone());
                        return Some((Ok(io), (listener, gate)));
                    }
                }
                Err(e) => {
                    if let Some(pause) = pause_after(&e) {
                        if descriptors::out_of_descriptors(&e) {
                            gate.close_oldest_tokenless();
                        }
                        gate.refused();
                        tokio::time::sleep(pause).await;
                    }
                }
            }
        }
    })
}

/// Most turns given to connections closed to make room before accepting again.
const CLOSING_TURNS: usize = 64;

/// Lets the tasks of connections closed to make room run and close them before another is
/// accepted: a flood's evictions must not pile up descriptors. Bounded, in case a task is
/// slow to run.
async fn let_closed_connections_go(gate: &Gate) {
    for _ in 0..CLOSING_TURNS {
        if gate.closing() == 0 {
            return;
        }
        tokio::task::yield_now().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    const LOCAL: Peer = Peer::Local;

    fn gate(max_connections: usize, max_tokenless_per_peer: usize) -> Arc<Gate> {
        Gate::new(
            GateLimits {
                max_connections,
                max_tokenless_per_peer,
                token_deadline: Duration::from_secs(10),
            },
            || {},
        )
    }

    fn ip(last: u8) -> Peer {
        Peer::Ip(IpAddr::from([10, 0, 0, last]))
    }

    fn closing(a: &Admission) -> bool {
        a.0.closing.load(Ordering::SeqCst)
    }

    #[test]
    fn at_the_cap_the_oldest_connection_without_a_token_makes_room() {
        let g = gate(3, 10);
        let first = g.admit(ip(1), false).unwrap();
        let second = g.admit(ip(2), false).unwrap();
        let third = g.admit(ip(3), false).unwrap();
        first.prove();
        let fourth = g.admit(ip(4), false).unwrap();
        assert!(!closing(&first), "a proven connection stays");
        assert!(closing(&second), "the oldest without a token goes");
        assert!(!closing(&third) && !closing(&fourth));
        assert_eq!(g.shed(), 1);
    }

    #[test]
    fn when_every_connection_presented_a_token_a_newcomer_is_shed() {
        let g = gate(2, 10);
        let held: Vec<Admission> = (0..2).map(|i| g.admit(ip(i), false).unwrap()).collect();
        held.iter().for_each(Admission::prove);
        assert!(g.admit(ip(9), false).is_none());
        assert!(held.iter().all(|a| !closing(a)));
        assert_eq!(g.shed(), 1);
    }

    #[test]
    fn one_address_makes_room_among_its_own_connections_only() {
        let g = gate(64, 2);
        let other = g.admit(ip(1), false).unwrap();
        let a = g.admit(ip(2), false).unwrap();
        let b = g.admit(ip(2), false).unwrap();
        let c = g.admit(ip(2), false).unwrap();
        assert!(closing(&a), "its own oldest goes");
        assert!(!closing(&other) && !closing(&b) && !closing(&c));
    }

    #[test]
    fn short_of_descriptors_a_newcomer_only_takes_the_place_of_one_without_a_token() {
        let g = gate(64, 64);
        let proven = g.admit(ip(1), false).unwrap();
        proven.prove();
        let tokenless = g.admit(ip(2), false).unwrap();
        let newcomer = g.admit(ip(3), true).unwrap();
        assert!(closing(&tokenless) && !closing(&proven));
        newcomer.prove();
        assert!(
            g.admit(ip(4), true).is_none(),
            "nothing left to close: shed"
        );
        assert_eq!(g.shed(), 2);
    }

    #[test]
    fn the_first_refusal_is_reported_once() {
        let reports = Arc::new(AtomicUsize::new(0));
        let counted = reports.clone();
        let g = Gate::new(
            GateLimits {
                max_connections: 1,
                max_tokenless_per_peer: 1,
                token_deadline: Duration::from_secs(10),
            },
            move || {
                counted.fetch_add(1, Ordering::SeqCst);
            },
        );
        let kept: Vec<Option<Admission>> = (0..5).map(|_| g.admit(LOCAL, false)).collect();
        assert_eq!(g.shed(), 4);
        assert_eq!(reports.load(Ordering::SeqCst), 1);
        drop(kept);
    }

    /// A gate whose connections have `deadline` to present a token.
    fn gate_with_deadline(deadline: Duration) -> Arc<Gate> {
        Gate::new(
            GateLimits {
                max_connections: 8,
                max_tokenless_per_peer: 8,
                token_deadline: deadline,
            },
            || {},
        )
    }

    #[tokio::test]
    async fn a_connection_without_a_token_is_closed_at_its_deadline() {
        let g = gate_with_deadline(Duration::from_millis(20));
        let (client, server) = tokio::io::duplex(64);
        let mut io = AdmittedIo::new(server, g.admit(LOCAL, false).unwrap(), g.clone());
        let mut buf = [0u8; 8];
        // Nothing is ever sent: the read ends only because the deadline passed.
        let e = io.read(&mut buf).await.unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::TimedOut);
        assert_eq!(g.shed(), 1);
        drop((io, client));
        assert_eq!(g.open.load(Ordering::SeqCst), 0, "its place is free");
    }

    #[tokio::test]
    async fn a_proven_connection_lets_go_of_its_deadline() {
        let g = gate_with_deadline(Duration::from_secs(10));
        let (mut client, server) = tokio::io::duplex(64);
        let admission = g.admit(LOCAL, false).unwrap();
        let mut io = AdmittedIo::new(server, admission.clone(), g.clone());
        admission.prove();
        client.write_all(b"hello").await.unwrap();
        let mut buf = [0u8; 5];
        io.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"hello");
        assert!(io.deadline.is_none(), "nothing left to close it");
    }

    #[tokio::test]
    async fn a_connection_closed_to_make_room_fails_its_pending_read() {
        let g = gate(1, 8);
        let (_client, server) = tokio::io::duplex(64);
        let mut io = AdmittedIo::new(server, g.admit(LOCAL, false).unwrap(), g.clone());
        let mut buf = [0u8; 8];
        let reading = tokio::spawn(async move { io.read(&mut buf).await });
        tokio::task::yield_now().await;
        let _newcomer = g.admit(LOCAL, false).unwrap();
        let e = reading.await.unwrap().unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::ConnectionAborted);
    }

    #[test]
    fn running_out_of_descriptors_pauses_accepting_and_an_aborted_connection_does_not() {
        let emfile = io::Error::from_raw_os_error(libc::EMFILE);
        assert_eq!(pause_after(&emfile), Some(BACKOFF));
        let aborted = io::Error::from(io::ErrorKind::ConnectionAborted);
        assert_eq!(pause_after(&aborted), None);
    }
}
