//! Date helpers shared by the date operators and conversions.
use bson::DateTime;
use chrono::{DateTime as CDateTime, Utc};

/// `%Y-%m-%dT%H:%M:%S.%LZ` in UTC (MongoDB's default date string).
pub(crate) fn iso_string(d: DateTime) -> String {
    match CDateTime::<Utc>::from_timestamp_millis(d.timestamp_millis()) {
        Some(t) => t.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string(),
        None => d.timestamp_millis().to_string(),
    }
}
