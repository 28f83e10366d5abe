//! A real PostgreSQL server for the tests of one test binary: `initdb` into a fresh directory
//! and `pg_ctl start` on a free local port, once per binary; every test gets its own database.
//! As root (initdb refuses root) the server runs as the system user `stepdeck-pg`. A watchdog
//! stops the server and removes its directory when the test binary exits, however it exits.
//! Without PostgreSQL installed, [`server`] returns `None` after printing how to install it.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The superuser's password.
pub(crate) const PASSWORD: &str = "stepdeck-test";
/// A role the server admits only over TLS (when the server has TLS: [`Server::ca_cert`]).
pub(crate) const TLS_ONLY_USER: &str = "tlsonly";
const USER: &str = "stepdeck-pg";

pub(crate) struct Server {
    pub port: u16,
    bin: PathBuf,
    run_as: Option<&'static str>,
    /// The certificate of the test CA that signed the server's (for 127.0.0.1 and localhost),
    /// when `openssl` was there to make them.
    cert: Option<PathBuf>,
    /// The server's log, where what it was told to log goes as it runs.
    log: PathBuf,
}

/// The binaries' directory: Debian's versioned one, else whatever `initdb` is on PATH.
fn bin_dir() -> Option<PathBuf> {
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|b| b.join("initdb").exists())
        .collect();
    versions.sort();
    if let Some(b) = versions.pop() {
        return Some(b);
    }
    let out = Command::new("sh")
        .args(["-c", "command -v initdb"])
        .output()
        .ok()?;
    let path = String::from_utf8(out.stdout).ok()?;
    Path::new(path.trim()).parent().map(Path::to_path_buf)
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

impl Server {
    fn command(&self, tool: &str) -> Command {
        let exe = self.bin.join(tool);
        match self.run_as {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(exe);
                c
            }
            None => Command::new(exe),
        }
    }

    /// Runs SQL as the superuser in `db`; panics with the server's message on failure.
    pub(crate) fn sql(&self, db: &str, sql: &str) -> String {
        let out = self.psql(db, "postgres", PASSWORD, sql);
        assert!(
            out.status.success(),
            "psql {sql:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// Runs SQL as `user` in `db`.
    pub(crate) fn psql(
        &self,
        db: &str,
        user: &str,
        password: &str,
        sql: &str,
    ) -> std::process::Output {
        Command::new(self.bin.join("psql"))
            .args([
                "-X",
                "-q",
                "-t",
                "-A",
                "-v",
                "ON_ERROR_STOP=1",
                "-h",
                "127.0.0.1",
            ])
            .args([
                "-p",
                &self.port.to_string(),
                "-U",
                user,
                "-d",
                db,
                "-c",
                sql,
            ])
            .env("PGPASSWORD", password)
            .stdin(Stdio::null())
            .output()
            .expect("run psql")
    }

    /// A psql session as the superuser in `db`, reading SQL from its stdin: what it takes (an
    /// advisory lock, say) it holds until its stdin is closed and it exits.
    pub(crate) fn session(&self, db: &str) -> std::process::Child {
        Command::new(self.bin.join("psql"))
            .args([
                "-X",
                "-q",
                "-t",
                "-A",
                "-v",
                "ON_ERROR_STOP=1",
                "-h",
                "127.0.0.1",
            ])
            .args(["-p", &self.port.to_string(), "-U", "postgres", "-d", db])
            .env("PGPASSWORD", PASSWORD)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("run psql")
    }

    /// A new, empty database for one test, and its backend URL.
    pub(crate) fn database(&self) -> (String, String) {
        static N: AtomicUsize = AtomicUsize::new(0);
        let name = format!(
            "t{}_{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        );
        self.sql("postgres", &format!("CREATE DATABASE {name}"));
        let url = self.url("postgres", PASSWORD, &name);
        (name, url)
    }

    /// The server's log file.
    pub(crate) fn log(&self) -> &Path {
        &self.log
    }

    /// The test CA's certificate, `None` when the server runs without TLS.
    pub(crate) fn ca_cert(&self) -> Option<&Path> {
        self.cert.as_deref()
    }

    pub(crate) fn url(&self, user: &str, password: &str, db: &str) -> String {
        format!(
            "postgres://{user}:{password}@127.0.0.1:{}/{db}?sslmode=disable",
            self.port
        )
    }
}

/// A test CA (`ca.crt`) and the server's certificate for 127.0.0.1 and localhost signed by it
/// (`server.crt`, `server.key`) in `dir`, if `openssl` runs; returns the CA's certificate.
fn self_signed(dir: &Path) -> Option<PathBuf> {
    let script = "set -e
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=stepdeck-test-ca -keyout ca.key -out ca.crt
openssl req -newkey rsa:2048 -nodes -subj /CN=localhost -keyout server.key -out server.csr
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\n' > server.ext
openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -extfile server.ext -out server.crt
chmod 600 server.key ca.key";
    let made = Command::new("sh")
        .args(["-c", script])
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .ok()?;
    made.success().then(|| dir.join("ca.crt"))
}

/// The binary's server, started on first use; `None` (with a message) without PostgreSQL.
pub(crate) fn server() -> Option<&'static Server> {
    static SERVER: OnceLock<Option<Server>> = OnceLock::new();
    SERVER.get_or_init(start).as_ref()
}

fn start() -> Option<Server> {
    let Some(bin) = bin_dir() else {
        // CI installs PostgreSQL (scripts/test.sh): there a missing server is a failure, not a
        // reason to pass without running these tests.
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "PostgreSQL is not installed and CI=true: the postgres:// tests cannot run"
        );
        eprintln!(
            "PostgreSQL is not installed: skipping the postgres:// tests. Install it with \
             `apt-get install postgresql` (scripts/test.sh does so when run as root)"
        );
        return None;
    };
    let run_as = is_root().then_some(USER);
    if run_as.is_some() {
        let known = Command::new("id").arg("-u").arg(USER).output().unwrap();
        if !known.status.success() {
            let made = Command::new("useradd")
                .args([
                    "--system",
                    "--no-create-home",
                    "--shell",
                    "/usr/sbin/nologin",
                    USER,
                ])
                .status()
                .unwrap();
            assert!(made.success(), "useradd {USER}");
        }
    }
    let dir = std::env::temp_dir().join(format!(
        "stepdeck-pg-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let data = dir.join("data");
    let pwfile = dir.join("pw");
    std::fs::write(&pwfile, PASSWORD).unwrap();
    let cert = self_signed(&dir);
    if let Some(user) = run_as {
        let ok = Command::new("chown")
            .args(["-R", user])
            .arg(&dir)
            .status()
            .unwrap();
        assert!(ok.success(), "chown {}", dir.display());
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut server = Server {
        port,
        bin,
        run_as,
        cert: None,
        log: dir.join("log"),
    };
    let init = server
        .command("initdb")
        .arg("-D")
        .arg(&data)
        .args([
            "-U",
            "postgres",
            "--auth-local=trust",
            "--auth-host=scram-sha-256",
        ])
        .arg(format!("--pwfile={}", pwfile.display()))
        .args(["-E", "UTF8", "--no-sync"])
        .output()
        .unwrap();
    assert!(
        init.status.success(),
        "initdb: {}",
        String::from_utf8_lossy(&init.stderr)
    );
    let mut options = format!(
        "-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200",
        dir.display()
    );
    if cert.is_some() {
        options.push_str(&format!(
            " -c ssl=on -c ssl_cert_file={} -c ssl_key_file={}",
            dir.join("server.crt").display(),
            dir.join("server.key").display()
        ));
        // The TLS-only role: refused without encryption, admitted with it.
        let hba = data.join("pg_hba.conf");
        let rest = std::fs::read_to_string(&hba).unwrap();
        std::fs::write(
            &hba,
            format!(
                "hostnossl all {TLS_ONLY_USER} 127.0.0.1/32 reject\n\
                 hostssl all {TLS_ONLY_USER} 127.0.0.1/32 scram-sha-256\n{rest}"
            ),
        )
        .unwrap();
    }
    server.cert = cert;
    let started = server
        .command("pg_ctl")
        .arg("-D")
        .arg(&data)
        .arg("-l")
        .arg(&server.log)
        .args(["-w", "-o", &options, "start"])
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(
        started.success(),
        "pg_ctl start (see {}/log)",
        dir.display()
    );
    // The watchdog: once this process is gone, stop the server and remove its files. It runs
    // in the background of a shell that exits at once, so nothing is left to wait for.
    let watchdog = format!(
        "(while [ -d /proc/{pid} ]; do sleep 0.5; done; {ctl} -D {data} stop -m immediate; rm -rf {dir}) >/dev/null 2>&1 &",
        pid = std::process::id(),
        ctl = server.bin.join("pg_ctl").display(),
        data = data.display(),
        dir = dir.display(),
    );
    let mut w = match run_as {
        Some(user) => {
            let mut c = Command::new("runuser");
            c.args(["-u", user, "--", "sh", "-c", &watchdog]);
            c
        }
        None => {
            let mut c = Command::new("sh");
            c.args(["-c", &watchdog]);
            c
        }
    };
    let started = w
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("start the server's watchdog");
    assert!(started.success(), "the server's watchdog did not start");
    Some(server)
}
