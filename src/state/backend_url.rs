//! Backend URLs: where stacks' state lives, `file://DIR` or `postgres://…`. The type keeps
//! the URL the user gave (a password masked) so that errors and `stack ls` can show it back.

use std::fmt;
use std::path::{Path, PathBuf};

use super::error::StateError;
use super::postgres::url::PgUrl;

/// The backend used when neither `--backend` nor the environment names one.
pub const DEFAULT_BACKEND_URL: &str = "file://~/.stepdeck";
/// The environment variable that selects a backend, stepdeck's alias of Pulumi's.
pub const BACKEND_URL_ENV: &str = "STEPDECK_BACKEND_URL";
/// Pulumi's variable for the backend, honoured so that a Pulumi user's setup selects it here.
pub const PULUMI_BACKEND_URL_ENV: &str = "PULUMI_BACKEND_URL";

/// A parsed backend URL: the text as given (its password masked) and what it names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BackendUrl {
    url: String,
    scheme: Scheme,
}

/// The store a URL names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// A directory (`~` expanded); state goes in its `.pulumi/` subdirectory (Pulumi's DIY layout).
    File(PathBuf),
    /// A PostgreSQL database and the table prefix within it.
    Postgres(PgUrl),
}

impl BackendUrl {
    /// Parses `file://DIR`; `~` and `~/…` expand to the home directory.
    pub fn parse(url: &str) -> Result<BackendUrl, StateError> {
        Self::parse_with_home(url, std::env::var_os("HOME").map(PathBuf::from).as_deref())
    }

    /// The URL the flag names, else `STEPDECK_BACKEND_URL`, else `PULUMI_BACKEND_URL` (empty
    /// variables count as unset): the sources Pulumi's order puts above any file.
    pub fn named_by_flag_or_env(explicit: Option<&str>) -> Option<String> {
        let var = |name| std::env::var(name).ok().filter(|s: &String| !s.is_empty());
        explicit
            .map(str::to_string)
            .or_else(|| var(BACKEND_URL_ENV))
            .or_else(|| var(PULUMI_BACKEND_URL_ENV))
    }

    /// Parses a URL read from a file, the error saying where it came from (`source`).
    pub fn parse_from(url: &str, source: &str) -> Result<BackendUrl, StateError> {
        BackendUrl::parse(url).map_err(|e| match e {
            StateError::BadUrl { url, reason } => StateError::BadUrl {
                url,
                reason: format!("{reason} ({source})"),
            },
            other => other,
        })
    }

    fn parse_with_home(url: &str, home: Option<&Path>) -> Result<BackendUrl, StateError> {
        let bad = |reason: &str| StateError::BadUrl {
            url: url.to_string(),
            reason: reason.to_string(),
        };
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            let pg = PgUrl::parse(url).map_err(|reason| bad(&reason))?;
            return Ok(BackendUrl {
                url: pg.redacted(),
                scheme: Scheme::Postgres(pg),
            });
        }
        let Some(rest) = url.strip_prefix("file://") else {
            return Err(match url.split_once("://") {
                Some(("https" | "http", _)) => bad(
                    "Pulumi Cloud and other http(s) backends are not supported, and no other \
                     backend is used in their place; use file://DIR or \
                     postgres://USER:PASSWORD@HOST:PORT/DB",
                ),
                Some((scheme, _)) => bad(&format!(
                    "the {scheme}:// scheme is not supported; use file://DIR or postgres://USER:PASSWORD@HOST:PORT/DB"
                )),
                None => bad("expected file://DIR or postgres://USER:PASSWORD@HOST:PORT/DB"),
            });
        };
        if rest.is_empty() {
            return Err(bad("no directory after file://"));
        }
        let dir = if rest == "~" || rest.starts_with("~/") {
            let home = home.ok_or_else(|| bad("cannot expand ~: HOME is not set"))?;
            home.join(rest.trim_start_matches('~').trim_start_matches('/'))
        } else {
            PathBuf::from(rest)
        };
        Ok(BackendUrl {
            url: url.to_string(),
            scheme: Scheme::File(dir),
        })
    }

    /// The URL as the user wrote it, for messages.
    pub fn as_str(&self) -> &str {
        &self.url
    }

    /// What the URL names.
    pub fn scheme(&self) -> &Scheme {
        &self.scheme
    }

    /// The directory a `file://` URL names; state goes in its `.pulumi/` subdirectory (Pulumi's DIY layout).
    pub fn dir(&self) -> Option<&Path> {
        match &self.scheme {
            Scheme::File(dir) => Some(dir),
            Scheme::Postgres(_) => None,
        }
    }
}

impl fmt::Display for BackendUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.url)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_urls_expand_home() {
        let home = Path::new("/home/op");
        let u = BackendUrl::parse_with_home("file://~/.stepdeck", Some(home)).unwrap();
        assert_eq!(u.dir().unwrap(), Path::new("/home/op/.stepdeck"));
        assert_eq!(u.as_str(), "file://~/.stepdeck");
        let u = BackendUrl::parse_with_home("file://~", Some(home)).unwrap();
        assert_eq!(u.dir().unwrap(), home);
        let u = BackendUrl::parse_with_home("file:///var/state", Some(home)).unwrap();
        assert_eq!(u.dir().unwrap(), Path::new("/var/state"));
        let u = BackendUrl::parse_with_home("file://rel/dir", None).unwrap();
        assert_eq!(u.dir().unwrap(), Path::new("rel/dir"));
    }

    #[test]
    fn other_schemes_are_rejected_naming_the_url() {
        for url in ["s3://bucket", "https://app.pulumi.com", "/tmp/x", "file://"] {
            let e = BackendUrl::parse_with_home(url, None)
                .unwrap_err()
                .to_string();
            assert!(e.contains(&format!("{url:?}")), "{e}");
        }
        let e = BackendUrl::parse_with_home("https://api.pulumi.com", None).unwrap_err();
        assert!(e.to_string().contains("Pulumi Cloud"), "{e}");
        let e = BackendUrl::parse_with_home("file://~/x", None).unwrap_err();
        assert!(e.to_string().contains("HOME"), "{e}");
    }
}
