//! Dates as mongosh reads them: `ISODate("…")` (mongosh's own grammar),
//! `new Date(…)` (JavaScript's Date constructor, in UTC since the playground
//! has no local time zone), and `Date()` strings.

/// JavaScript's time value limit (±100,000,000 days).
const MAX_TIME: f64 = 8.64e15;
const MS_PER_DAY: i64 = 86_400_000;

mod v8;

/// Days since 1970-01-01 of a proleptic Gregorian date (month 1-12).
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

/// JavaScript MakeDay/MakeTime/TimeClip: components may overflow (month 12 is
/// next January); `None` for an invalid date.
pub fn make_date(parts: [f64; 7]) -> Option<i64> {
    if parts.iter().any(|p| !p.is_finite()) {
        return None;
    }
    let [y, m, d, h, mi, s, ms] = parts.map(f64::trunc);
    let ym = y + (m / 12.0).floor();
    if ym.abs() > 400_000.0 {
        return None;
    }
    let mn = m.rem_euclid(12.0);
    let days = days_from_civil(ym as i64, mn as i64 + 1, 1) as f64 + d - 1.0;
    let t = days * MS_PER_DAY as f64 + h * 3_600_000.0 + mi * 60_000.0 + s * 1000.0 + ms;
    time_clip(t)
}

pub fn time_clip(t: f64) -> Option<i64> {
    (t.is_finite() && t.abs() <= MAX_TIME).then(|| t.trunc() as i64)
}

/// A small cursor over ASCII date text.
struct Cur<'a> {
    b: &'a [u8],
    i: usize,
}

impl Cur<'_> {
    fn digits(&mut self, n: usize) -> Option<i64> {
        let s = self.b.get(self.i..self.i + n)?;
        if !s.iter().all(u8::is_ascii_digit) {
            return None;
        }
        self.i += n;
        Some(s.iter().fold(0, |a, &d| a * 10 + i64::from(d - b'0')))
    }
    fn eat(&mut self, c: u8) -> bool {
        let hit = self.b.get(self.i) == Some(&c);
        if hit {
            self.i += 1;
        }
        hit
    }
    fn peek_digit(&self) -> bool {
        self.b.get(self.i).is_some_and(u8::is_ascii_digit)
    }
    fn done(&self) -> bool {
        self.i == self.b.len()
    }
    /// `.ddd…` → milliseconds (further digits truncated, as V8 does).
    fn fraction(&mut self) -> Option<i64> {
        if !self.eat(b'.') {
            return Some(0);
        }
        let start = self.i;
        while self.peek_digit() {
            self.i += 1;
        }
        let digits = &self.b[start..self.i];
        if digits.is_empty() {
            return None;
        }
        Some((0..3).fold(0, |a, k| {
            a * 10 + digits.get(k).map_or(0, |d| i64::from(d - b'0'))
        }))
    }
    /// `Z`, `±HH:mm`, `±HHmm` or `±HH` → offset in minutes; `None` inside when absent.
    fn zone(&mut self) -> Option<Option<i64>> {
        if self.eat(b'Z') {
            return Some(Some(0));
        }
        let sign = if self.eat(b'+') {
            1
        } else if self.eat(b'-') {
            -1
        } else {
            return Some(None);
        };
        let h = self.digits(2)?;
        self.eat(b':');
        let m = if self.peek_digit() {
            self.digits(2)?
        } else {
            0
        };
        (h < 24 && m < 60).then_some(Some(sign * (h * 60 + m)))
    }
}

/// Validate fields and build the time value.
#[allow(clippy::too_many_arguments)]
fn assemble(
    y: i64,
    mo: i64,
    d: i64,
    h: i64,
    mi: i64,
    s: i64,
    ms: i64,
    zone_min: i64,
) -> Option<i64> {
    // JavaScript's Date (which mongosh's ISODate calls) takes any day 1-31 and
    // rolls over: 2021-02-29 is March 1st.
    let valid = (1..=12).contains(&mo)
        && (1..=31).contains(&d)
        && (h < 24 || (h == 24 && mi == 0 && s == 0 && ms == 0))
        && mi < 60
        && s < 60;
    if !valid {
        return None;
    }
    let days = days_from_civil(y, mo, d);
    let t = days as f64 * MS_PER_DAY as f64
        + (h * 3_600_000 + mi * 60_000 + s * 1000 + ms - zone_min * 60_000) as f64;
    time_clip(t)
}

/// mongosh's `ISODate(string)`: `YYYY-MM-DD` (dashes optional), then optionally
/// `T` or space, `HH[:mm[:ss[.fff]]]` and a zone (`Z`, `±HH[:mm]`; none means UTC).
/// Range 0000-01-01 to 9999-12-31, as mongosh checks.
pub fn parse_isodate(s: &str) -> Option<i64> {
    let mut c = Cur {
        b: s.as_bytes(),
        i: 0,
    };
    let y = c.digits(4)?;
    c.eat(b'-');
    let mo = c.digits(2)?;
    c.eat(b'-');
    let d = c.digits(2)?;
    let (mut h, mut mi, mut sec, mut ms, mut zone) = (0, 0, 0, 0, 0);
    if !c.done() {
        if !(c.eat(b'T') || c.eat(b' ')) {
            return None;
        }
        h = c.digits(2)?;
        let save = c.i;
        c.eat(b':');
        if c.peek_digit() {
            mi = c.digits(2)?;
            let save = c.i;
            c.eat(b':');
            if c.peek_digit() {
                sec = c.digits(2)?;
                ms = c.fraction()?;
            } else {
                c.i = save;
            }
        } else {
            c.i = save;
        }
        zone = c.zone()?.unwrap_or(0);
    }
    if !c.done() {
        return None;
    }
    let t = assemble(y, mo, d, h, mi, sec, ms, zone)?;
    (-62_167_219_200_000..=253_402_300_799_999)
        .contains(&t)
        .then_some(t)
}

/// JavaScript `Date.parse`, as V8 reads date strings (see `v8.rs`).
pub fn parse_js_date(s: &str) -> Option<i64> {
    v8::parse(s)
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
    /// Days since Sunday.
    weekday: i64,
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
    let (y, m, d) = crate::output::ejson_text::civil_from_days(days);
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
    let (year, month, day) = crate::output::ejson_text::civil_from_days(days);
    Some(Utc {
        year,
        month,
        day,
        ms: millis.rem_euclid(MS_PER_DAY),
        weekday: (days + 4).rem_euclid(7), // 1970-01-01 was a Thursday
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

/// `Date()` called without `new`: the current time as JavaScript prints it (in UTC).
pub fn js_date_string(millis: i64) -> String {
    const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let Some(t) = utc(millis) else {
        return "Invalid Date".to_string();
    };
    let name = |names: &[&'static str], i: i64| {
        usize::try_from(i)
            .ok()
            .and_then(|i| names.get(i).copied())
            .unwrap_or_default()
    };
    format!(
        "{} {} {:02} {} {} GMT+0000 (Coordinated Universal Time)",
        name(&DAYS, t.weekday),
        name(&MONTHS, t.month - 1),
        t.day,
        t.year(),
        t.time()
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
            assert_eq!(
                js_date_string(m),
                theirs.map_or("Invalid Date".to_string(), |t| t
                    .format("%a %b %d %Y %H:%M:%S GMT+0000 (Coordinated Universal Time)")
                    .to_string()),
                "{m}"
            );
        }
    }

    const T: i64 = 1_698_335_223_434; // 2023-10-26T15:47:03.434Z

    #[test]
    fn isodate_forms() {
        assert_eq!(parse_isodate("2023-10-26T15:47:03.434Z"), Some(T));
        assert_eq!(parse_isodate("2023-10-26T15:47:03.434"), Some(T));
        assert_eq!(parse_isodate("20231026T154703.434Z"), Some(T));
        assert_eq!(parse_isodate("2023-10-26T17:47:03.434+02:00"), Some(T));
        assert_eq!(parse_isodate("2023-10-26"), Some(1_698_278_400_000));
        assert_eq!(
            parse_isodate("2023-11-02T11:43:10"),
            Some(1_698_925_390_000)
        );
        assert_eq!(parse_isodate("2023-10-26T15:47Z"), Some(T - 3434));
        // As JavaScript's Date: day 30 of February is March 2nd.
        assert_eq!(parse_isodate("2023-02-30"), parse_isodate("2023-03-02"));
        for bad in [
            "2023-13-01",
            "2023-02-32",
            "2023-10-26Z",
            "x",
            "2023-10-26T",
            "10000-01-01",
            "2023-10-26T15:47:03.Z",
        ] {
            assert_eq!(parse_isodate(bad), None, "{bad}");
        }
    }

    #[test]
    fn js_dates() {
        assert_eq!(parse_js_date("2023-10-26T15:47:03.434Z"), Some(T));
        assert_eq!(parse_js_date("2023"), Some(1_672_531_200_000));
        assert_eq!(parse_js_date("+002023-10-26T15:47:03.434Z"), Some(T));
        assert_eq!(
            parse_js_date("Thu, 26 Oct 2023 15:47:03 +0000"),
            Some(T - 434)
        );
        assert_eq!(parse_js_date("nonsense"), None);
        assert_eq!(
            make_date([2023.0, 9.0, 26.0, 15.0, 47.0, 3.0, 434.0]),
            Some(T)
        );
        assert_eq!(
            make_date([2023.0, 21.0, 26.0, 15.0, 47.0, 3.0, 434.0]),
            parse_js_date("2024-10-26T15:47:03.434Z")
        );
        assert_eq!(
            js_date_string(T),
            "Thu Oct 26 2023 15:47:03 GMT+0000 (Coordinated Universal Time)"
        );
        assert_eq!(iso_string(T).as_deref(), Some("2023-10-26T15:47:03.434Z"));
    }
}
