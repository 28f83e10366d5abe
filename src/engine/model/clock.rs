//! The time the engine records on resources (`created`, `modified`): the system clock, or a
//! fixed one a test injects so that recorded states compare exactly.

use std::fmt;
use std::sync::Arc;

use chrono::{DateTime, Utc};

/// A source of the current time, shared by every step of a deployment.
#[derive(Clone)]
pub struct Clock(Arc<dyn Fn() -> DateTime<Utc> + Send + Sync>);

impl Clock {
    pub fn system() -> Clock {
        Clock(Arc::new(Utc::now))
    }

    /// Always the same instant.
    pub fn fixed(at: DateTime<Utc>) -> Clock {
        Clock(Arc::new(move || at))
    }

    /// Now, as the state records it: RFC 3339 in UTC, `+00:00`, with as many fraction digits
    /// (none, 3, 6 or 9) as the instant needs.
    pub fn timestamp(&self) -> String {
        (self.0)().to_rfc3339()
    }
}

impl Default for Clock {
    fn default() -> Clock {
        Clock::system()
    }
}

impl fmt::Debug for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Clock")
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    #[test]
    fn a_timestamp_has_the_digits_its_instant_needs() {
        let at = |nanos| Clock::fixed(Utc.timestamp_opt(1_764_370_000, nanos).unwrap());
        assert_eq!(at(0).timestamp(), "2025-11-28T22:46:40+00:00");
        assert_eq!(at(120_000_000).timestamp(), "2025-11-28T22:46:40.120+00:00");
        assert_eq!(at(4_000).timestamp(), "2025-11-28T22:46:40.000004+00:00");
        assert_eq!(at(50).timestamp(), "2025-11-28T22:46:40.000000050+00:00");
    }
}
