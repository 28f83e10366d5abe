//! `postgres://USER:PASSWORD@HOST:PORT/DB?table=NAME&sslmode=MODE&sslrootcert=FILE`: the
//! server, the database and Pulumi's state table (`pulumi_state` unless `?table=` names
//! another, as in Pulumi), beside which stepdeck keeps its own tables, prefixed `stepdeck_`,
//! or `NAME_` when `?table=` is given. A host starting with `/` (written `%2F…`) is the
//! directory of the server's Unix socket.

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
    /// Parses the URL; the error says which part is wrong.
    pub fn parse(url: &str) -> Result<PgUrl, String> {
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
            None => (
                std::env::var("USER").unwrap_or_else(|_| "postgres".into()),
                None,
            ),
        };
        let (host, port) = match hostport.rsplit_once(':') {
            Some((h, p)) if !h.ends_with(']') || h.starts_with('[') => (
                h,
                p.parse::<u16>()
                    .map_err(|_| format!("port {p:?} is not a number from 1 to 65535"))?,
            ),
            _ => (hostport, 5432),
        };
        let mut host = decode(host.trim_start_matches('[').trim_end_matches(']'))?;
        if host.is_empty() {
            host = "localhost".into();
        }
        let dbname = decode(db)?;
        if dbname.is_empty() {
            return Err("no database name after the host (postgres://…/DB)".into());
        }
        let mut parsed = PgUrl {
            user,
            password,
            host,
            port,
            dbname,
            table: DEFAULT_TABLE.into(),
            prefix: DEFAULT_PREFIX.into(),
            sslmode: SslMode::Prefer,
            sslrootcert: None,
        };
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let value = decode(value)?;
            match key {
                "table" => {
                    check_table(&value)?;
                    parsed.prefix.clone_from(&value);
                    parsed.table = value;
                }
                "sslmode" => {
                    parsed.sslmode = match value.as_str() {
                        "disable" => SslMode::Disable,
                        "prefer" | "allow" => SslMode::Prefer,
                        "require" => SslMode::Require,
                        "verify-ca" | "verify-full" => SslMode::VerifyFull,
                        other => {
                            return Err(format!(
                                "sslmode {other:?} is not one of disable, prefer, require, verify-ca, verify-full"
                            ));
                        }
                    }
                }
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

    /// What Pulumi puts before every key: the URL's path (the database name) and a `/`.
    pub fn key_prefix(&self) -> String {
        format!("{}/", self.dbname)
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
        let u = PgUrl::parse(
            "postgres://ops:p%40ss@db.example:6543/state?table=team_a&sslmode=verify-full",
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
        let u = PgUrl::parse("postgresql://ops@%2Ftmp%2Fpg/state").unwrap();
        assert_eq!((u.host.as_str(), u.port), ("/tmp/pg", 5432));
        assert_eq!(u.table, DEFAULT_TABLE);
        assert_eq!(u.prefix, DEFAULT_PREFIX);
        assert_eq!(u.key_prefix(), "state/");
    }

    #[test]
    fn bad_parts_are_named() {
        for (url, says) in [
            ("postgres://u@h:99999/db", "port"),
            ("postgres://u@h:5432", "database"),
            ("postgres://u@h/db?table=Drop;", "table"),
            ("postgres://u@h/db?sslmode=maybe", "sslmode"),
            ("postgres://u@h/db?colour=red", "colour"),
            ("postgres://u%zz@h/db", "percent"),
        ] {
            let e = PgUrl::parse(url).unwrap_err();
            assert!(e.contains(says), "{url}: {e}");
        }
    }
}
