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
        rfc3339((self.0)())
    }
}

/// 10000-01-01T00:00:00Z in Unix seconds: the first instant whose year has five digits.
const YEAR_10000: i64 = 253_402_300_800;

/// `at.to_rfc3339()`, written into a fixed template: every created and modified resource records
/// one, and chrono's general formatter cost a thousand instructions each.
fn rfc3339(at: DateTime<Utc>) -> String {
    let (seconds, nanos) = (at.timestamp(), at.timestamp_subsec_nanos());
    // Before 1970, from the year 10000 on, or in a leap second: chrono writes those.
    if !(0..YEAR_10000).contains(&seconds) || nanos >= 1_000_000_000 {
        return at.to_rfc3339();
    }
    let (year, month, day) = civil_date(seconds / 86_400);
    let time = (seconds % 86_400) as u32;
    // "YYYY-MM-DDTHH:MM:SS", up to ".nnnnnnnnn", then "+00:00".
    let mut text = *b"0000-00-00T00:00:00.000000000+00:00";
    for (pos, n) in [
        (0, year / 100),
        (2, year % 100),
        (5, month),
        (8, day),
        (11, time / 3600),
        (14, time / 60 % 60),
        (17, time % 60),
    ] {
        text[pos] = b'0' + (n / 10) as u8;
        text[pos + 1] = b'0' + (n % 10) as u8;
    }
    // As chrono's `AutoSi`: no fraction, or milli-, micro- or nanoseconds, whichever is exact.
    let (mut fraction, digits) = match (nanos % 1_000_000, nanos % 1_000) {
        _ if nanos == 0 => (0, 0),
        (0, _) => (nanos / 1_000_000, 3),
        (_, 0) => (nanos / 1_000, 6),
        _ => (nanos, 9),
    };
    for pos in (20..20 + digits).rev() {
        text[pos] = b'0' + (fraction % 10) as u8;
        fraction /= 10;
    }
    let end = if digits == 0 { 19 } else { 20 + digits };
    text.copy_within(29.., end);
    let len = end + 6;
    String::from_utf8(text[..len].to_vec()).expect("digits and separators are ASCII")
}

/// The proleptic Gregorian date `days` after 1970-01-01 (not before it), by whole 400-year
/// eras of 146,097 days as in Howard Hinnant's `civil_from_days`.
fn civil_date(days: i64) -> (u32, u32, u32) {
    let days = days as u32 + 719_468;
    let era = days / 146_097;
    let day_of_era = days % 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400 + u32::from(month <= 2);
    (year, month, day)
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
    use chrono::{NaiveDate, TimeZone};

    use super::*;

    #[test]
    fn a_timestamp_is_written_as_chrono_writes_it() {
        let mut instants = vec![
            Utc.timestamp_opt(0, 0).unwrap(),
            Utc.with_ymd_and_hms(9999, 12, 31, 23, 59, 59).unwrap(),
            Utc.from_utc_datetime(
                &NaiveDate::from_ymd_opt(2016, 12, 31)
                    .unwrap()
                    .and_hms_nano_opt(23, 59, 59, 1_500_000_000)
                    .unwrap(),
            ),
            Utc.with_ymd_and_hms(-44, 3, 15, 12, 0, 0).unwrap(),
            Utc.with_ymd_and_hms(1969, 12, 31, 23, 59, 59).unwrap(),
            Utc.with_ymd_and_hms(10_000, 1, 1, 0, 0, 0).unwrap(),
        ];
        // Every fraction shape: none, milli, micro, nano, and leading zeros in each.
        let fractions = [
            0,
            7_000_000,
            120_000_000,
            4_000,
            987_654_000,
            1,
            123_456_789,
            50,
        ];
        let mut seconds: i64 = 1_764_370_000;
        for (i, nanos) in fractions.iter().cycle().take(400).enumerate() {
            seconds = seconds
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(i as i64);
            let at = seconds.rem_euclid(YEAR_10000);
            instants.push(Utc.timestamp_opt(at, *nanos).unwrap());
        }
        // Around the leap days of ordinary, century and 400-year leap years.
        for (year, month, day) in [(1972, 2, 29), (2000, 2, 29), (2100, 2, 28), (2400, 2, 29)] {
            let noon = Utc.with_ymd_and_hms(year, month, day, 12, 0, 0).unwrap();
            instants.extend([
                noon - chrono::Days::new(1),
                noon,
                noon + chrono::Days::new(1),
            ]);
        }
        for at in instants {
            assert_eq!(rfc3339(at), at.to_rfc3339(), "{at:?}");
        }
    }
}
