//! The approval timestamp, in RFC 3339 UTC, without a date-time dependency.
//!
//! `SOURCE_DATE_EPOCH` (the reproducible-builds convention) pins the clock, so tests and
//! reproducible pipelines get identical lockfiles.

use std::time::{SystemTime, UNIX_EPOCH};

use crate::error::Error;

pub fn now() -> Result<String, Error> {
    let seconds = match std::env::var("SOURCE_DATE_EPOCH") {
        Ok(value) => value.trim().parse::<u64>().map_err(|_| {
            Error::new(format!(
                "SOURCE_DATE_EPOCH must be a whole number of seconds, found `{value}`"
            ))
        })?,
        Err(_) => SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0),
    };
    Ok(rfc3339(seconds))
}

/// `YYYY-MM-DDTHH:MM:SSZ` for seconds since the Unix epoch (proleptic Gregorian calendar).
pub fn rfc3339(seconds: u64) -> String {
    let days = seconds / 86_400;
    let rem = seconds % 86_400;
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Howard Hinnant's days-to-civil algorithm, for days since 1970-01-01 (never negative here).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::rfc3339;

    #[test]
    fn formats_known_instants() {
        let cases = [
            (0, "1970-01-01T00:00:00Z"),
            (951_782_400, "2000-02-29T00:00:00Z"),
            (1_700_000_000, "2023-11-14T22:13:20Z"),
            (1_798_761_599, "2026-12-31T23:59:59Z"),
            (4_107_542_400, "2100-03-01T00:00:00Z"),
        ];
        for (seconds, want) in cases {
            assert_eq!(rfc3339(seconds), want);
        }
    }
}
