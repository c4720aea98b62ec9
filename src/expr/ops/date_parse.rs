//! Parsing date strings (`$dateFromString`, `$toDate`).
use crate::error::{Error, Result};
use bson::DateTime;

/// Parse an ISO-8601-like date string.
pub(crate) fn parse_date_string(
    s: &str,
    _tz: Option<&str>,
    _format: Option<&str>,
) -> Result<DateTime> {
    let t = chrono::DateTime::parse_from_rfc3339(s).map_err(|_| {
        Error::new(
            241,
            "ConversionFailure",
            format!("Error parsing date string '{s}'"),
        )
    })?;
    Ok(DateTime::from_millis(t.timestamp_millis()))
}
