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

    /// Now, as the state records it (RFC 3339).
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
