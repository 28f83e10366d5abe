//! Times as Pulumi's CLI prints them in JSON (`cmd.FormatTime`): UTC with milliseconds and a
//! literal `Z`, `2024-05-01T12:34:56.000Z`, the one layout the Python Automation API parses.

use chrono::{DateTime, Utc};

const LAYOUT: &str = "%Y-%m-%dT%H:%M:%S%.3fZ";

/// A Unix time in seconds.
pub(super) fn pulumi_time_secs(secs: i64) -> String {
    DateTime::<Utc>::from_timestamp(secs, 0)
        .unwrap_or_default()
        .format(LAYOUT)
        .to_string()
}

/// An RFC 3339 time (any offset); text that is not one is passed through unchanged.
pub(super) fn pulumi_time(rfc3339: &str) -> String {
    DateTime::parse_from_rfc3339(rfc3339)
        .map(|t| t.with_timezone(&Utc).format(LAYOUT).to_string())
        .unwrap_or_else(|_| rfc3339.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn always_three_fractional_digits_in_utc() {
        assert_eq!(pulumi_time_secs(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            pulumi_time("2024-05-01T14:34:56.789123+02:00"),
            "2024-05-01T12:34:56.789Z"
        );
        assert_eq!(
            pulumi_time("2024-05-01T12:34:56Z"),
            "2024-05-01T12:34:56.000Z"
        );
    }
}
