//! Backend URLs: where stacks' state lives, `file://DIR` or `postgres://…`. The type keeps
//! the URL the user gave (a password masked) so that errors and `stack ls` can show it back.

use std::fmt;
use std::path::{Path, PathBuf};

use super::error::StateError;
use super::postgres::url::PgUrl;

/// The backend used when neither `--backend` nor the environment names one.
pub const DEFAULT_BACKEND_URL: &str = "file://~/.stepdeck";
/// The environment variable that selects a backend, like Pulumi's `PULUMI_BACKEND_URL`.
pub const BACKEND_URL_ENV: &str = "STEPDECK_BACKEND_URL";

/// A parsed backend URL: the text as given (its password masked) and what it names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BackendUrl {
    url: String,
    scheme: Scheme,
}

/// The store a URL names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// A directory (`~` expanded); state goes in its `.stepdeck/` subdirectory.
    File(PathBuf),
    /// A PostgreSQL database and the table prefix within it.
    Postgres(PgUrl),
}

impl BackendUrl {
    /// Parses `file://DIR`; `~` and `~/…` expand to the home directory.
    pub fn parse(url: &str) -> Result<BackendUrl, StateError> {
        Self::parse_with_home(url, std::env::var_os("HOME").map(PathBuf::from).as_deref())
    }

    /// The flag's URL if given, else `STEPDECK_BACKEND_URL` if set and not empty, else the default.
    pub fn resolve(explicit: Option<&str>) -> Result<BackendUrl, StateError> {
        let env = std::env::var(BACKEND_URL_ENV)
            .ok()
            .filter(|s| !s.is_empty());
        BackendUrl::parse(explicit.or(env.as_deref()).unwrap_or(DEFAULT_BACKEND_URL))
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

    /// The directory a `file://` URL names; state goes in its `.stepdeck/` subdirectory.
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
        let e = BackendUrl::parse_with_home("file://~/x", None).unwrap_err();
        assert!(e.to_string().contains("HOME"), "{e}");
    }
}
