//! The proleptic Gregorian calendar of BSON dates: day numbers to and from
//! civil dates (Howard Hinnant's algorithms), and the UTC forms mongosh and
//! JavaScript print (`2023-11-02T11:43:10.000Z`, `Thu Nov 02 2023 …`).

/// Milliseconds in a day.
pub const MS_PER_DAY: i64 = 86_400_000;

// Howard Hinnant's day-number algorithms live with the time-zone tables, the
// lowest module that needs them (value may use tzdb, not the other way round).
pub use crate::tzdb::civil::{civil_from_days, days_from_civil};

pub fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

pub fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// A UTC instant's calendar fields, or None outside chrono's `DateTime` range
/// (years -262143 to 262142), where these strings always stopped (the formats
/// below were chrono's `%a %b %d %Y ...`, written by hand to keep chrono's
/// formatter out of the page's wasm).
struct Utc {
    year: i64,
    month: i64,
    day: i64,
    /// Milliseconds since midnight.
    ms: i64,
}

/// Is this day (since 1970-01-01) within chrono's dates (years -262143 to 262142)?
pub fn in_chrono_range(days: i64) -> bool {
    (days_from_civil(-262_143, 1, 1)..=days_from_civil(262_142, 12, 31)).contains(&days)
}

/// `millis` moved by a number of calendar months, the day clamped to the
/// month's length (chrono's `checked_add_months`/`checked_sub_months` on a UTC
/// `DateTime`, with their limits: None outside its dates or past i32 months).
pub fn add_months(millis: i64, months: i64) -> Option<i64> {
    let days = millis.div_euclid(MS_PER_DAY);
    if !in_chrono_range(days) {
        return None;
    }
    let months = i32::try_from(months).ok().filter(|m| *m != i32::MIN)?;
    let (y, m, d) = civil_from_days(days);
    let total = i32::try_from(y * 12 + m - 1).ok()?.checked_add(months)?;
    let (year, month) = (
        i64::from(total.div_euclid(12)),
        i64::from(total.rem_euclid(12)) + 1,
    );
    let len = match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    let days = days_from_civil(year, month, d.min(len));
    in_chrono_range(days).then(|| days * MS_PER_DAY + millis.rem_euclid(MS_PER_DAY))
}

fn utc(millis: i64) -> Option<Utc> {
    let days = millis.div_euclid(MS_PER_DAY);
    if !in_chrono_range(days) {
        return None;
    }
    let (year, month, day) = civil_from_days(days);
    Some(Utc {
        year,
        month,
        day,
        ms: millis.rem_euclid(MS_PER_DAY),
    })
}

impl Utc {
    /// chrono's `%Y`: four digits, a sign and at least four outside 0-9999.
    fn year(&self) -> String {
        if (0..=9999).contains(&self.year) {
            format!("{:04}", self.year)
        } else {
            format!("{:+05}", self.year)
        }
    }

    /// `HH:MM:SS`
    fn time(&self) -> String {
        let s = self.ms / 1000;
        format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    }

    /// `YYYY-MM-DDTHH:MM:SS.sssZ`
    pub fn iso(&self) -> String {
        format!(
            "{}-{:02}-{:02}T{}.{:03}Z",
            self.year(),
            self.month,
            self.day,
            self.time(),
            self.ms % 1000
        )
    }
}

/// JavaScript's `Date.prototype.toString()` (also `Date()` without `new`) as
/// V8 writes it, in the run's time zone `tz` (UTC when `None`):
/// `Thu Nov 02 2023 12:43:10 GMT+0100 (Central European Standard Time)`;
/// "Invalid Date" outside JavaScript's dates (±8.64e15 ms).
pub fn js_date_string(millis: i64, tz: Option<crate::tzdb::Tz>) -> String {
    const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    const MAX: i64 = 8_640_000_000_000_000;
    if !(-MAX..=MAX).contains(&millis) {
        return "Invalid Date".to_string();
    }
    let (offset, zone) = match tz {
        None => (0, "Coordinated Universal Time"),
        Some(tz) => (
            i64::from(tz.offset_at(millis.div_euclid(1000))),
            tz.display_name(millis),
        ),
    };
    let local = millis + offset * 1000;
    let days = local.div_euclid(MS_PER_DAY);
    let (year, month, day) = civil_from_days(days);
    let s = local.rem_euclid(MS_PER_DAY) / 1000;
    let name = |names: &[&'static str], i: i64| {
        usize::try_from(i)
            .ok()
            .and_then(|i| names.get(i).copied())
            .unwrap_or_default()
    };
    // V8 counts the offset in whole minutes (truncated) and pads negative years to 5 characters.
    let minutes = offset / 60;
    let sign = if minutes < 0 { '-' } else { '+' };
    let year = if year < 0 {
        format!("{year:05}")
    } else {
        format!("{year:04}")
    };
    format!(
        "{} {} {day:02} {year} {:02}:{:02}:{:02} GMT{sign}{:02}{:02} ({zone})",
        name(&DAYS, (days + 4).rem_euclid(7)),
        name(&MONTHS, month - 1),
        s / 3600,
        s / 60 % 60,
        s % 60,
        minutes.abs() / 60,
        minutes.abs() % 60,
    )
}

/// `Date.prototype.toISOString()`.
pub fn iso_string(millis: i64) -> Option<String> {
    utc(millis).map(|t| t.iso())
}

/// `2023-11-02T11:43:10.000Z` for years 0-9999, else None.
pub fn iso_string_4digit(millis: i64) -> Option<String> {
    utc(millis)
        .filter(|t| (0..=9999).contains(&t.year))
        .map(|t| t.iso())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn js_date_strings_as_node_prints_them() {
        // `TZ=UTC node -e 'console.log(new Date(t).toString())'`
        for (t, want) in [
            (
                253_402_300_800_000,
                "Sat Jan 01 10000 00:00:00 GMT+0000 (Coordinated Universal Time)",
            ),
            (
                -62_198_755_200_000,
                "Fri Jan 01 -0001 00:00:00 GMT+0000 (Coordinated Universal Time)",
            ),
            (
                8_640_000_000_000_000,
                "Sat Sep 13 275760 00:00:00 GMT+0000 (Coordinated Universal Time)",
            ),
            (
                -8_640_000_000_000_000,
                "Tue Apr 20 -271821 00:00:00 GMT+0000 (Coordinated Universal Time)",
            ),
        ] {
            assert_eq!(js_date_string(t, None), want, "{t}");
        }
        assert_eq!(js_date_string(8_640_000_000_000_001, None), "Invalid Date");
    }

    /// `src/tzdb/names_node.tsv`: what Node printed for dates around each
    /// zone's 1995 and 2024 changes and from 1900 to 2100.
    #[test]
    fn js_date_strings_in_zones_as_node_prints_them() {
        let mut checked = 0;
        for line in include_str!("../tzdb/names_node.tsv").lines() {
            let mut parts = line.split('\t');
            let (Some(zone), Some(Ok(ms)), Some(want)) = (
                parts.next(),
                parts.next().map(str::parse::<i64>),
                parts.next(),
            ) else {
                continue;
            };
            let tz = crate::tzdb::Tz::parse(zone).unwrap_or_else(|| panic!("{zone}"));
            assert_eq!(js_date_string(ms, Some(tz)), want, "{zone} {ms}");
            checked += 1;
        }
        assert!(checked > 300, "{checked}");
    }

    #[test]
    fn months_added_as_chrono_adds_them() {
        use chrono::{Months, TimeZone};
        let mut x = 99i64;
        let mut cases = vec![
            (951_782_400_000, 1),
            (-62_135_596_800_000, -1),
            (0, i64::from(i32::MAX)),
            (0, -i64::from(i32::MAX)),
            (0, i64::from(i32::MIN)),
            (8_210_266_876_799_999, 1),
            (8_210_266_876_799_999, -1),
            (-8_334_601_228_800_000, -1),
        ];
        for _ in 0..20_000 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let ms = (x >> 12) % 9_000_000_000_000_000;
            let months = match x.rem_euclid(4) {
                0 => (x >> 40) % 30,
                1 => (x >> 20) % 4_000_000,
                2 => (x >> 33) % 3_200_000_000,
                _ => -((x >> 44) % 40),
            };
            cases.push((ms, months));
        }
        for (ms, months) in cases {
            let theirs = chrono::Utc
                .timestamp_millis_opt(ms)
                .single()
                .and_then(|dt| {
                    if months >= 0 {
                        dt.checked_add_months(Months::new(u32::try_from(months).ok()?))
                    } else {
                        dt.checked_sub_months(Months::new(u32::try_from(-months).ok()?))
                    }
                })
                .map(|d| d.timestamp_millis());
            assert_eq!(add_months(ms, months), theirs, "{ms} {months}");
        }
    }

    #[test]
    fn formats_match_chrono() {
        let mut millis: Vec<i64> = vec![
            0,
            -1,
            1,
            951_782_400_000,
            -62_167_219_200_001,
            -62_167_219_200_000,
            253_402_300_799_999,
            253_402_300_800_000,
            -8334601228800000,
            -8334601228800001,
            8210266876799999,
            8210266876800000,
            i64::MIN,
            i64::MAX,
        ];
        let mut x = 12_345i64;
        for _ in 0..20_000 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            millis.push(x >> (x as u64 % 20 + 1));
        }
        for m in millis {
            let theirs = chrono::DateTime::<chrono::Utc>::from_timestamp_millis(m);
            assert_eq!(
                iso_string(m),
                theirs.map(|t| t.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()),
                "{m}"
            );
            // chrono's %Y and V8's years agree in 0-9999.
            if let Some(t) = theirs.filter(|t| (0..=9999).contains(&chrono::Datelike::year(t))) {
                assert_eq!(
                    js_date_string(m, None),
                    t.format("%a %b %d %Y %H:%M:%S GMT+0000 (Coordinated Universal Time)")
                        .to_string(),
                    "{m}"
                );
            }
        }
    }
}
