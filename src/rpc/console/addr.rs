//! Where the console protocol is served or reached: `host:port`, a bare port (bound on
//! localhost: nothing is exposed beyond this machine unless an address says so), or
//! `unix:/path`.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

/// A console protocol address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConsoleAddress {
    /// `host:port`.
    Tcp(String),
    /// A Unix socket, reachable by whoever its file permissions allow (we create it 0600).
    Unix(PathBuf),
}

/// An address that is neither `host:port`, a port, nor `unix:/path`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad console address {given:?}: {reason} (expected host:port, a port, or unix:/path)")]
pub struct AddressError {
    pub given: String,
    pub reason: String,
}

impl FromStr for ConsoleAddress {
    type Err = AddressError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let fail = |reason: &str| AddressError {
            given: s.to_string(),
            reason: reason.to_string(),
        };
        if let Some(path) = s.strip_prefix("unix:") {
            if path.is_empty() {
                return Err(fail("the socket path is empty"));
            }
            let path = std::path::absolute(path).map_err(|e| fail(&e.to_string()))?;
            return Ok(ConsoleAddress::Unix(path));
        }
        let (host, port) = match s.rsplit_once(':') {
            Some((host, port)) => (host, port),
            None => ("", s),
        };
        port.parse::<u16>()
            .map_err(|_| fail("the port is not a number from 0 to 65535"))?;
        let host = if host.is_empty() { "127.0.0.1" } else { host };
        Ok(ConsoleAddress::Tcp(format!("{host}:{port}")))
    }
}

impl fmt::Display for ConsoleAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConsoleAddress::Tcp(a) => f.write_str(a),
            ConsoleAddress::Unix(p) => write!(f, "unix:{}", p.display()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<ConsoleAddress, AddressError> {
        s.parse()
    }

    #[test]
    fn a_bare_port_binds_localhost_only() {
        assert_eq!(
            parse("7070"),
            Ok(ConsoleAddress::Tcp("127.0.0.1:7070".into()))
        );
        assert_eq!(
            parse(":7070"),
            Ok(ConsoleAddress::Tcp("127.0.0.1:7070".into()))
        );
    }

    #[test]
    fn an_explicit_host_and_a_socket_are_taken_as_given() {
        assert_eq!(
            parse("0.0.0.0:80"),
            Ok(ConsoleAddress::Tcp("0.0.0.0:80".into()))
        );
        assert_eq!(
            parse("unix:/tmp/deck.sock"),
            Ok(ConsoleAddress::Unix("/tmp/deck.sock".into()))
        );
    }

    #[test]
    fn a_bad_port_or_an_empty_socket_path_is_refused_with_the_address() {
        let e = parse("host:http").unwrap_err();
        assert!(e.to_string().contains("\"host:http\""), "{e}");
        assert!(parse("unix:").is_err());
    }
}
