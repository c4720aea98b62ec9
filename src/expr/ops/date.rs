//! Calendar arithmetic for the date operators: time zones (Olson names via
//! `crate::tzdb`, a compact copy of chrono-tz's tables, or `±hh[:mm]` offsets),
//! civil date ↔ day number (proleptic Gregorian, any i64 millisecond), local date parts, ISO weeks and
//! `$dateToString` formatting. Mirrors MongoDB's date_time_support.cpp.
use crate::error::{Error, Result};
use crate::expr::value::err;
use bson::DateTime;

pub(crate) use crate::value::calendar::{
    civil_from_days, days_from_civil, days_in_month, is_leap, MS_PER_DAY,
};

/// A time zone argument.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Zone {
    Utc,
    /// A fixed offset in seconds east of UTC.
    Offset(i64),
    Named(crate::tzdb::Tz),
}

impl Zone {
    /// An Olson identifier or a UTC offset (`+04:45`, `-0530`, `+03`); else error 40485.
    pub fn parse(s: &str) -> Result<Zone> {
        if s == "UTC" {
            return Ok(Zone::Utc);
        }
        if let Some(tz) = crate::tzdb::Tz::parse(s) {
            return Ok(Zone::Named(tz));
        }
        if let Some(off) = parse_utc_offset(s) {
            return Ok(if off == 0 {
                Zone::Utc
            } else {
                Zone::Offset(off)
            });
        }
        Err(err(
            40485,
            format!("unrecognized time zone identifier: \"{s}\""),
        ))
    }

    pub fn is_utc(&self) -> bool {
        matches!(self, Zone::Utc)
    }

    /// Seconds east of UTC in effect at a UTC instant.
    pub fn offset_at(&self, utc_ms: i64) -> i64 {
        match self {
            Zone::Utc => 0,
            Zone::Offset(s) => *s,
            Zone::Named(tz) => {
                let secs = utc_ms.div_euclid(1000);
                // Outside chrono's range (±262,000 years) the offset was 0: kept.
                if crate::value::calendar::in_chrono_range(secs.div_euclid(86_400)) {
                    i64::from(tz.offset_at(secs))
                } else {
                    0
                }
            }
        }
    }

    /// The UTC instant of a local wall-clock time. Ambiguous times (the
    /// hour repeated when clocks go back) take the first occurrence. A time
    /// the clocks skip has no instant: timelib reads it with the offset from
    /// before the jump, so it lands after the jump by the skipped amount
    /// (02:30 on a New York spring-forward day is 07:30Z, 03:30 EDT; 02:30 in
    /// Berlin is 01:30Z, 03:30 CEST), as PHP's DateTime (also timelib) does.
    pub fn local_to_utc(&self, local_ms: i64) -> i64 {
        let first = self.offset_at(local_ms);
        let second = self.offset_at(local_ms.saturating_sub(first * 1000));
        let utc = local_ms.saturating_sub(second * 1000);
        let actual = self.offset_at(utc);
        if actual == second {
            return utc;
        }
        // In a gap the two offsets met are the ones before and after the
        // jump; clocks spring forward, so the earlier one is the smaller.
        local_ms.saturating_sub(second.min(actual) * 1000)
    }
}

/// `±HH`, `±HHMM`, `±HH:MM` (TimeZoneDatabase::parseUtcOffset).
fn parse_utc_offset(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let sign = match b.first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let digits = |r: &[u8]| -> Option<i64> {
        if r.iter().all(u8::is_ascii_digit) {
            std::str::from_utf8(r).ok()?.parse().ok()
        } else {
            None
        }
    };
    let (h, m) = match b.len() {
        3 => (digits(&b[1..3])?, 0),
        5 => (digits(&b[1..3])?, digits(&b[3..5])?),
        6 if b[3] == b':' => (digits(&b[1..3])?, digits(&b[4..6])?),
        _ => return None,
    };
    Some(sign * (h * 3600 + m * 60))
}

/// Local calendar parts of an instant.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Parts {
    pub year: i64,
    pub month: i64,
    pub day: i64,
    pub hour: i64,
    pub minute: i64,
    pub second: i64,
    pub millis: i64,
    /// 0 = Sunday .. 6 = Saturday.
    pub dow: i64,
    /// 1..=366.
    pub doy: i64,
    /// Seconds east of UTC in effect.
    pub offset: i64,
}

impl Parts {
    pub fn of(utc_ms: i64, zone: &Zone) -> Parts {
        let offset = zone.offset_at(utc_ms);
        let local = utc_ms.saturating_add(offset * 1000);
        let days = local.div_euclid(MS_PER_DAY);
        let in_day = local.rem_euclid(MS_PER_DAY);
        let (year, month, day) = civil_from_days(days);
        Parts {
            year,
            month,
            day,
            hour: in_day / 3_600_000,
            minute: in_day / 60_000 % 60,
            second: in_day / 1000 % 60,
            millis: in_day % 1000,
            dow: (days + 4).rem_euclid(7),
            doy: days - days_from_civil(year, 1, 1) + 1,
            offset,
        }
    }

    /// ISO day of week: 1 = Monday .. 7 = Sunday.
    pub fn iso_dow(&self) -> i64 {
        (self.dow + 6) % 7 + 1
    }

    /// `$week`: weeks start on Sunday; days before the first Sunday are week 0.
    pub fn week(&self) -> i64 {
        (self.doy - (self.dow + 1) + 7) / 7
    }

    /// (ISO week-numbering year, ISO week).
    pub fn iso_week(&self) -> (i64, i64) {
        let w = (self.doy - self.iso_dow() + 10) / 7;
        if w < 1 {
            (self.year - 1, iso_weeks_in_year(self.year - 1))
        } else if w > iso_weeks_in_year(self.year) {
            (self.year + 1, 1)
        } else {
            (self.year, w)
        }
    }
}

fn iso_weeks_in_year(y: i64) -> i64 {
    // Jan 1's ISO weekday (1 = Monday).
    let jan1 = (days_from_civil(y, 1, 1) + 3).rem_euclid(7) + 1;
    if jan1 == 4 || (jan1 == 3 && is_leap(y)) {
        53
    } else {
        52
    }
}

/// The day number of an ISO week date.
pub(crate) fn days_from_iso(year: i64, week: i64, dow: i64) -> i64 {
    let jan4 = days_from_civil(year, 1, 4);
    let jan4_dow = (jan4 + 3).rem_euclid(7) + 1;
    jan4 - (jan4_dow - 1) + (week - 1) * 7 + (dow - 1)
}

/// Local milliseconds from (possibly out-of-range) parts, normalising overflow
/// the way timelib does (month 13 is January of the next year, day 0 the last day before).
pub(crate) fn local_ms_from_parts(
    year: i64,
    month: i64,
    day: i64,
    hour: i64,
    minute: i64,
    second: i64,
    millis: i64,
) -> Option<i64> {
    let m0 = month.checked_sub(1)?;
    let y = year.checked_add(m0.div_euclid(12))?;
    let m = m0.rem_euclid(12) + 1;
    let days = days_from_civil(y, m, 1).checked_add(day.checked_sub(1)?)?;
    days.checked_mul(MS_PER_DAY)?
        .checked_add(hour.checked_mul(3_600_000)?)?
        .checked_add(minute.checked_mul(60_000)?)?
        .checked_add(second.checked_mul(1000)?)?
        .checked_add(millis)
}

/// `%Y-%m-%dT%H:%M:%S.%LZ` in UTC (MongoDB's default date string).
pub(crate) fn iso_string(d: DateTime) -> String {
    let p = Parts::of(d.timestamp_millis(), &Zone::Utc);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        p.year, p.month, p.day, p.hour, p.minute, p.second, p.millis
    )
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

pub(crate) fn month_name(m: i64) -> &'static str {
    MONTHS
        .get((m - 1).clamp(0, 11) as usize)
        .copied()
        .unwrap_or("")
}

/// Specifiers `$dateToString` accepts.
const TO_STRING_SPECS: &str = "bBdGHjLmMSwuUVYzZ";
/// Specifiers `$dateFromString` accepts.
pub(crate) const FROM_STRING_SPECS: &str = "bBdGHjLmMSuVYzZ";

/// Every `%` must be followed by a known specifier (codes 18535/18536).
pub(crate) fn validate_format(format: &str, allowed: &str) -> Result<()> {
    let mut it = format.chars();
    while let Some(c) = it.next() {
        if c != '%' {
            continue;
        }
        match it.next() {
            None => return Err(err(18535, "Unmatched '%' at end of format string")),
            Some('%') => {}
            Some(s) if allowed.contains(s) => {}
            Some(s) => {
                return Err(err(
                    18536,
                    format!("Invalid format character '%{s}' in format string"),
                ))
            }
        }
    }
    Ok(())
}

pub(crate) fn validate_to_string_format(format: &str) -> Result<()> {
    validate_format(format, TO_STRING_SPECS)
}

/// Format a date (`$dateToString`); years outside 0..9999 cannot be printed (18537).
pub(crate) fn format_date(format: &str, utc_ms: i64, zone: &Zone) -> Result<String> {
    let p = Parts::of(utc_ms, zone);
    let mut out = String::with_capacity(format.len() + 16);
    let mut it = format.chars();
    let year_check = |y: i64| -> Result<()> {
        if (0..=9999).contains(&y) {
            Ok(())
        } else {
            Err(err(
                18537,
                format!(
                    "Could not convert date to string: date component was outside the supported range of 0-9999: {y}"
                ),
            ))
        }
    };
    while let Some(c) = it.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let Some(s) = it.next() else { break };
        match s {
            '%' => out.push('%'),
            'Y' => {
                year_check(p.year)?;
                out.push_str(&format!("{:04}", p.year));
            }
            'G' => {
                let (y, _) = p.iso_week();
                year_check(y)?;
                out.push_str(&format!("{y:04}"));
            }
            'm' => out.push_str(&format!("{:02}", p.month)),
            'd' => out.push_str(&format!("{:02}", p.day)),
            'H' => out.push_str(&format!("{:02}", p.hour)),
            'M' => out.push_str(&format!("{:02}", p.minute)),
            'S' => out.push_str(&format!("{:02}", p.second)),
            'L' => out.push_str(&format!("{:03}", p.millis)),
            'j' => out.push_str(&format!("{:03}", p.doy)),
            'w' => out.push_str(&(p.dow + 1).to_string()),
            'u' => out.push_str(&p.iso_dow().to_string()),
            'U' => out.push_str(&format!("{:02}", p.week())),
            'V' => out.push_str(&format!("{:02}", p.iso_week().1)),
            'b' => out.push_str(&month_name(p.month)[..3]),
            'B' => out.push_str(month_name(p.month)),
            'z' => {
                let o = p.offset;
                out.push(if o < 0 { '-' } else { '+' });
                out.push_str(&format!("{:02}{:02}", o.abs() / 3600, o.abs() / 60 % 60));
            }
            'Z' => out.push_str(&(p.offset / 60).to_string()),
            other => {
                return Err(err(
                    18536,
                    format!("Invalid format character '%{other}' in format string"),
                ))
            }
        }
    }
    Ok(out)
}

/// Error for dates that leave the representable range.
pub(crate) fn overflow(what: &str) -> Error {
    err(5166406, format!("{what} overflowed"))
}
