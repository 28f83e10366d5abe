//! The connection side of the PostgreSQL backend: a private runtime that drives the
//! connections (so the backend can be used from synchronous code and from inside another
//! runtime alike), TLS through rustls, and a small pool of idle connections.

use std::future::Future;
use std::sync::Arc;

use parking_lot::Mutex;
use std::time::Duration;

use tokio::runtime::{Handle, Runtime};
use tokio_postgres::{Client, IsolationLevel, Transaction};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::url::{PgUrl, SslMode};

/// Idle connections kept for reuse; more are opened when needed and closed when returned.
const POOL_SIZE: usize = 4;
/// How long to wait for the server to accept a connection.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// A database the backend talks to.
pub(crate) struct Db {
    runtime: Option<Runtime>,
    handle: Handle,
    config: tokio_postgres::Config,
    tls: Option<MakeRustlsConnect>,
    idle: Mutex<Vec<Client>>,
    /// The backend URL with its password masked, for messages.
    pub(crate) url: String,
}

impl Drop for Db {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// A pooled connection: returned to the pool when dropped, unless it broke.
pub(crate) struct Conn {
    db: Arc<Db>,
    client: Option<Client>,
}

impl std::ops::Deref for Conn {
    type Target = Client;
    fn deref(&self) -> &Client {
        self.client
            .as_ref()
            .expect("a pooled connection is present until dropped")
    }
}

impl std::ops::DerefMut for Conn {
    fn deref_mut(&mut self) -> &mut Client {
        self.client
            .as_mut()
            .expect("a pooled connection is present until dropped")
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        if let Some(client) = self.client.take()
            && !client.is_closed()
        {
            let mut idle = self.db.idle.lock();
            if idle.len() < POOL_SIZE {
                idle.push(client);
            }
        }
    }
}

impl Db {
    /// Sets up the runtime and TLS for `url`; connects nothing yet.
    pub(crate) fn new(url: &PgUrl) -> Result<Arc<Db>, String> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("stepdeck-postgres")
            .enable_all()
            .build()
            .map_err(|e| format!("starting the database runtime: {e}"))?;
        let mut config = tokio_postgres::Config::new();
        config
            .user(&url.user)
            .dbname(&url.dbname)
            .port(url.port)
            .application_name("stepdeck")
            .connect_timeout(CONNECT_TIMEOUT);
        if url.host.starts_with('/') {
            config.host_path(&url.host);
        } else {
            config.host(&url.host);
        }
        if let Some(p) = &url.password {
            config.password(p);
        }
        let tls = match url.sslmode {
            SslMode::Disable => {
                config.ssl_mode(tokio_postgres::config::SslMode::Disable);
                None
            }
            SslMode::Prefer => {
                config.ssl_mode(tokio_postgres::config::SslMode::Prefer);
                Some(tls_config(url, false)?)
            }
            SslMode::Require => {
                config.ssl_mode(tokio_postgres::config::SslMode::Require);
                Some(tls_config(url, false)?)
            }
            SslMode::VerifyFull => {
                config.ssl_mode(tokio_postgres::config::SslMode::Require);
                Some(tls_config(url, true)?)
            }
        };
        Ok(Arc::new(Db {
            handle: runtime.handle().clone(),
            runtime: Some(runtime),
            config,
            tls,
            idle: Mutex::new(Vec::new()),
            url: url.redacted(),
        }))
    }

    /// Runs `fut` to completion on the calling thread (queries only talk to the connection
    /// tasks, which run on the backend's own runtime).
    pub(crate) fn block_on<T>(&self, fut: impl Future<Output = T>) -> T {
        futures::executor::block_on(fut)
    }

    /// Runs `fut` on the backend's runtime (for work that needs tokio's timers or sockets).
    pub(crate) fn spawn<T: Send + 'static>(
        &self,
        fut: impl Future<Output = T> + Send + 'static,
    ) -> tokio::task::JoinHandle<T> {
        self.handle.spawn(fut)
    }

    /// A connection from the pool, or a new one.
    pub(crate) async fn get(self: &Arc<Self>) -> Result<Conn, String> {
        let reused = {
            let mut idle = self.idle.lock();
            idle.retain(|c| !c.is_closed());
            idle.pop()
        };
        let client = match reused {
            Some(c) => c,
            None => self.connect().await?,
        };
        Ok(Conn {
            db: self.clone(),
            client: Some(client),
        })
    }

    /// Opens a connection; its driver task runs on the backend's runtime.
    async fn connect(&self) -> Result<Client, String> {
        let config = self.config.clone();
        let tls = self.tls.clone();
        let connected = self
            .handle
            .spawn(async move {
                match tls {
                    Some(tls) => {
                        let (client, conn) = config.connect(tls).await?;
                        tokio::spawn(conn);
                        Ok(client)
                    }
                    None => {
                        let (client, conn) = config.connect(tokio_postgres::NoTls).await?;
                        tokio::spawn(conn);
                        Ok(client)
                    }
                }
            })
            .await
            .map_err(|e| format!("the database runtime stopped: {e}"))?;
        connected.map_err(|e: tokio_postgres::Error| describe(&e))
    }
}

/// A read-only repeatable-read transaction on `conn`: reads that see one moment of the
/// database, never a compaction or a removal half done.
pub(crate) async fn read_only(conn: &mut Conn) -> Result<Transaction<'_>, String> {
    conn.build_transaction()
        .isolation_level(IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()
        .await
        .map_err(|e| describe(&e))
}

/// With `verify`, trusts `sslrootcert` when given, else the built-in web roots; without,
/// encrypts and accepts any certificate (libpq's `prefer` and `require`).
fn tls_config(url: &PgUrl, verify: bool) -> Result<MakeRustlsConnect, String> {
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject;
    if !verify {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ClientConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(Unverified(provider)))
            .with_no_client_auth();
        return Ok(MakeRustlsConnect::new(config));
    }
    let mut roots = rustls::RootCertStore::empty();
    match &url.sslrootcert {
        Some(path) => {
            let certs = CertificateDer::pem_file_iter(path)
                .map_err(|e| format!("sslrootcert {}: {e}", path.display()))?;
            for cert in certs {
                let cert = cert.map_err(|e| format!("sslrootcert {}: {e}", path.display()))?;
                roots
                    .add(cert)
                    .map_err(|e| format!("sslrootcert {}: {e}", path.display()))?;
            }
        }
        None => roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
    }
    let config = rustls::ClientConfig::builder()
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(MakeRustlsConnect::new(config))
}

/// Accepts the server's certificate unchecked but still checks that the handshake is signed
/// by it: encryption against eavesdroppers, not authentication (libpq's `require`).
#[derive(Debug)]
struct Unverified(Arc<rustls::crypto::CryptoProvider>);

impl rustls::client::danger::ServerCertVerifier for Unverified {
    fn verify_server_cert(
        &self,
        _end_entity: &rustls::pki_types::CertificateDer<'_>,
        _intermediates: &[rustls::pki_types::CertificateDer<'_>],
        _server_name: &rustls::pki_types::ServerName<'_>,
        _ocsp_response: &[u8],
        _now: rustls::pki_types::UnixTime,
    ) -> Result<rustls::client::danger::ServerCertVerified, rustls::Error> {
        Ok(rustls::client::danger::ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &rustls::pki_types::CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &rustls::pki_types::CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// A driver error in words: the server's own message (with its SQLSTATE) when it sent one,
/// else the chain of causes (refused connection, timeout, closed socket).
pub(crate) fn describe(e: &tokio_postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        let hint = match db.code().code() {
            "28P01" | "28000" => " (check the user and password in the backend URL)",
            "42501" => {
                " (the database role may not write here: it needs INSERT, UPDATE and DELETE on the stepdeck tables)"
            }
            "3D000" => " (create the database first, or fix its name in the backend URL)",
            _ => "",
        };
        return format!("{}: {}{hint}", db.code().code(), db.message());
    }
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    if e.is_closed() || text.contains("connect") {
        text.push_str(" (is the server running and reachable?)");
    }
    text
}
