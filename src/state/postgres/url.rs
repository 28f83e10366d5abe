//! `postgres://USER:PASSWORD@HOST:PORT/DB?table=NAME&sslmode=MODE&sslrootcert=FILE`: the
//! server, the database and Pulumi's state table (`pulumi_state` unless `?table=` names
//! another, as in Pulumi), beside which stepdeck keeps its own tables, prefixed `stepdeck_`,
//! or `NAME_` when `?table=` is given. A host starting with `/` (written `%2F…`) is the
//! directory of the server's Unix socket. What the URL leaves out comes from libpq's
//! variables, as Pulumi's driver takes it: `PGUSER`, `PGPASSWORD`, `PGHOST`, `PGPORT`,
//! `PGDATABASE` (default: the user), `PGSSLMODE`, `PGSSLROOTCERT`; so `postgres://` alone works.

use std::fmt;
use std::path::PathBuf;

/// Pulumi's default state table.
pub const DEFAULT_TABLE: &str = "pulumi_state";
/// The default prefix of stepdeck's own tables (`stepdeck_journal`, `stepdeck_locks`, …).
pub const DEFAULT_PREFIX: &str = "stepdeck";

/// How the connection is encrypted, with libpq's meanings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SslMode {
    /// Plain TCP (or a Unix socket).
    Disable,
    /// TLS if the server offers it, its certificate not checked (libpq's default).
    Prefer,
    /// TLS or no connection, the certificate not checked.
    Require,
    /// TLS with the server's certificate verified (chain and host name) against the built-in
    /// web roots or `sslrootcert` (`verify-ca` is taken as this, stricter, mode).
    VerifyFull,
}

/// A parsed `postgres://` URL.
#[derive(Clone, PartialEq, Eq)]
pub struct PgUrl {
    pub user: String,
    pub password: Option<String>,
    pub host: String,
    pub port: u16,
    pub dbname: String,
    /// The URL's path (the database name as written, empty in `postgres://`): Pulumi prefixes
    /// every key with it.
    pub path: String,
    /// Pulumi's state table: letters, digits and `_`, starting with a letter.
    pub table: String,
    /// The prefix of stepdeck's own tables: [`DEFAULT_PREFIX`], or the table `?table=` names.
    pub prefix: String,
    pub sslmode: SslMode,
    /// A PEM file of CA certificates to trust instead of the built-in roots.
    pub sslrootcert: Option<PathBuf>,
}

impl fmt::Debug for PgUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.redacted())
    }
}

impl PgUrl {
    /// Parses the URL, libpq's variables filling in what it leaves out; the error says which
    /// part is wrong.
    pub fn parse(url: &str) -> Result<PgUrl, String> {
        PgUrl::parse_with(url, |name| {
            std::env::var(name).ok().filter(|v| !v.is_empty())
        })
    }

    /// [`PgUrl::parse`] with the environment given by `var`.
    fn parse_with(url: &str, var: impl Fn(&str) -> Option<String>) -> Result<PgUrl, String> {
        let rest = url
            .strip_prefix("postgres://")
            .or_else(|| url.strip_prefix("postgresql://"))
            .ok_or("expected postgres://USER:PASSWORD@HOST:PORT/DB")?;
        let (rest, query) = rest.split_once('?').unwrap_or((rest, ""));
        let (authority, db) = rest.split_once('/').unwrap_or((rest, ""));
        let (userinfo, hostport) = match authority.rsplit_once('@') {
            Some((u, h)) => (Some(u), h),
            None => (None, authority),
        };
        let (user, password) = match userinfo {
            Some(u) => match u.split_once(':') {
                Some((user, pass)) => (decode(user)?, Some(decode(pass)?)),
                None => (decode(u)?, None),
            },
            None => (String::new(), None),
        };
        let user = match user {
            u if u.is_empty() => var("PGUSER")
                .or_else(|| var("USER"))
                .unwrap_or_else(|| "postgres".into()),
            u => u,
        };
        let password = password.or_else(|| var("PGPASSWORD"));
        let port_of = |p: &str| {
            p.parse::<u16>()
                .map_err(|_| format!("port {p:?} is not a number from 1 to 65535"))
        };
        let (host, port) = match hostport.rsplit_once(':') {
            Some((h, p)) if !h.ends_with(']') || h.starts_with('[') => (h, port_of(p)?),
            _ => (hostport, var("PGPORT").map_or(Ok(5432), |p| port_of(&p))?),
        };
        let mut host = decode(host.trim_start_matches('[').trim_end_matches(']'))?;
        if host.is_empty() {
            host = var("PGHOST").unwrap_or_else(|| "localhost".into());
        }
        let path = decode(db)?;
        let dbname = match &path {
            p if p.is_empty() => var("PGDATABASE").unwrap_or_else(|| user.clone()),
            p => p.clone(),
        };
        let mut parsed = PgUrl {
            user,
            password,
            host,
            port,
            dbname,
            path,
            table: DEFAULT_TABLE.into(),
            prefix: DEFAULT_PREFIX.into(),
            sslmode: SslMode::Prefer,
            sslrootcert: var("PGSSLROOTCERT").map(PathBuf::from),
        };
        if let Some(mode) = var("PGSSLMODE") {
            parsed.sslmode = sslmode(&mode)?;
        }
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let value = decode(value)?;
            match key {
                "table" => {
                    check_table(&value)?;
                    parsed.prefix.clone_from(&value);
                    parsed.table = value;
                }
                "sslmode" => parsed.sslmode = sslmode(&value)?,
                "sslrootcert" => parsed.sslrootcert = Some(PathBuf::from(value)),
                "host" => parsed.host = value,
                other => {
                    return Err(format!(
                        "unknown parameter {other:?} (known: table, sslmode, sslrootcert, host)"
                    ));
                }
            }
        }
        Ok(parsed)
    }

    /// What Pulumi puts before every key: the URL's path and a `/`, nothing when it has none.
    pub fn key_prefix(&self) -> String {
        if self.path.is_empty() {
            String::new()
        } else {
            format!("{}/", self.path)
        }
    }

    /// The URL with its password masked, for messages and `about`.
    pub fn redacted(&self) -> String {
        let password = if self.password.is_some() { ":****" } else { "" };
        let host = if self.host.starts_with('/') {
            self.host.replace('/', "%2F")
        } else {
            self.host.clone()
        };
        format!(
            "postgres://{}{password}@{host}:{}/{}?table={}",
            self.user, self.port, self.dbname, self.table
        )
    }
}

fn sslmode(value: &str) -> Result<SslMode, String> {
    match value {
        "disable" => Ok(SslMode::Disable),
        "prefer" | "allow" => Ok(SslMode::Prefer),
        "require" => Ok(SslMode::Require),
        "verify-ca" | "verify-full" => Ok(SslMode::VerifyFull),
        other => Err(format!(
            "sslmode {other:?} is not one of disable, prefer, require, verify-ca, verify-full"
        )),
    }
}

fn check_table(name: &str) -> Result<(), String> {
    let ok = name.len() <= 40
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "table {name:?} must be lower-case letters, digits and _, starting with a letter, at most 40 long"
        ))
    }
}

/// Percent-decoding of one URL part; a `%` not followed by two hex digits is an error.
fn decode(part: &str) -> Result<String, String> {
    let malformed = part.split('%').skip(1).any(|after| {
        !after
            .as_bytes()
            .get(..2)
            .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit))
    });
    if malformed {
        return Err(format!("bad percent-escape in {part:?}"));
    }
    percent_encoding::percent_decode_str(part)
        .decode_utf8()
        .map(|text| text.into_owned())
        .map_err(|_| format!("{part:?} is not UTF-8 once decoded"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_part_and_masks_the_password() {
        let u = PgUrl::parse_with(
            "postgres://ops:p%40ss@db.example:6543/state?table=team_a&sslmode=verify-full",
            |_| None,
        )
        .unwrap();
        assert_eq!(u.user, "ops");
        assert_eq!(u.password.as_deref(), Some("p@ss"));
        assert_eq!((u.host.as_str(), u.port), ("db.example", 6543));
        assert_eq!(u.dbname, "state");
        assert_eq!((u.table.as_str(), u.prefix.as_str()), ("team_a", "team_a"));
        assert_eq!(u.sslmode, SslMode::VerifyFull);
        assert_eq!(
            u.redacted(),
            "postgres://ops:****@db.example:6543/state?table=team_a"
        );
        let u = PgUrl::parse_with("postgresql://ops@%2Ftmp%2Fpg/state", |_| None).unwrap();
        assert_eq!((u.host.as_str(), u.port), ("/tmp/pg", 5432));
        assert_eq!(u.table, DEFAULT_TABLE);
        assert_eq!(u.prefix, DEFAULT_PREFIX);
        assert_eq!(u.key_prefix(), "state/");
    }

    #[test]
    fn what_the_url_leaves_out_comes_from_libpqs_variables() {
        let env = |name: &str| {
            [
                ("PGUSER", "ops"),
                ("PGPASSWORD", "s3cret"),
                ("PGHOST", "db.example"),
                ("PGPORT", "6543"),
                ("PGDATABASE", "state"),
                ("PGSSLMODE", "disable"),
            ]
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.to_string())
        };
        let u = PgUrl::parse_with("postgres://", env).unwrap();
        assert_eq!(
            (u.user.as_str(), u.password.as_deref()),
            ("ops", Some("s3cret"))
        );
        assert_eq!(
            (u.host.as_str(), u.port, u.dbname.as_str()),
            ("db.example", 6543, "state")
        );
        assert_eq!(u.sslmode, SslMode::Disable);
        assert_eq!(
            u.key_prefix(),
            "",
            "Pulumi prefixes keys with the URL's path only"
        );
        let u = PgUrl::parse_with("postgres://me@h:5432/", |_| None).unwrap();
        assert_eq!((u.dbname.as_str(), u.key_prefix()), ("me", String::new()));
    }

    #[test]
    fn bad_parts_are_named() {
        for (url, says) in [
            ("postgres://u@h:99999/db", "port"),
            ("postgres://u@h/db?table=Drop;", "table"),
            ("postgres://u@h/db?sslmode=maybe", "sslmode"),
            ("postgres://u@h/db?colour=red", "colour"),
            ("postgres://u%zz@h/db", "percent"),
        ] {
            let e = PgUrl::parse_with(url, |_| None).unwrap_err();
            assert!(e.contains(says), "{url}: {e}");
        }
    }
}
