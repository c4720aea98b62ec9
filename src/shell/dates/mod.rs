//! Dates as mongosh reads them: `ISODate("…")` (mongosh's own grammar),
//! `new Date(…)` (JavaScript's Date constructor; local time is the run's time
//! zone, UTC by default), and `Date()` strings.

/// JavaScript's time value limit (±100,000,000 days).
const MAX_TIME: f64 = 8.64e15;

mod v8;
mod v8_scan;

use crate::tzdb::Tz;
use crate::value::calendar::{days_from_civil, MS_PER_DAY};

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

/// JavaScript `Date.parse`, as V8 reads date strings (see `v8.rs`); local
/// times are in `tz` (`None`: UTC).
pub fn parse_js_date(s: &str, tz: Option<Tz>) -> Option<i64> {
    v8::parse(s, tz)
}

/// A local time value in `tz` as a UTC time value, as ECMAScript's `UTC(t)`:
/// a local time that happens twice (autumn) is the earlier instant; one
/// skipped by a change (spring) takes the offset from before the change.
pub fn local_to_utc(local: f64, tz: Option<Tz>) -> f64 {
    let Some(tz) = tz else {
        return local;
    };
    if !local.is_finite() {
        return local;
    }
    let secs = (local / 1000.0).floor() as i64;
    let before = i64::from(tz.offset_at(secs - 86_400));
    let after = i64::from(tz.offset_at(secs + 86_400));
    let offset = [before, after]
        .into_iter()
        .filter(|&o| i64::from(tz.offset_at(secs - o)) == o)
        .max() // the larger offset is the earlier instant
        .unwrap_or(before);
    local - offset as f64 * 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::calendar::{iso_string, js_date_string};
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
        assert_eq!(parse_js_date("2023-10-26T15:47:03.434Z", None), Some(T));
        assert_eq!(parse_js_date("2023", None), Some(1_672_531_200_000));
        assert_eq!(parse_js_date("+002023-10-26T15:47:03.434Z", None), Some(T));
        assert_eq!(
            parse_js_date("Thu, 26 Oct 2023 15:47:03 +0000", None),
            Some(T - 434)
        );
        assert_eq!(parse_js_date("nonsense", None), None);
        assert_eq!(
            make_date([2023.0, 9.0, 26.0, 15.0, 47.0, 3.0, 434.0]),
            Some(T)
        );
        assert_eq!(
            make_date([2023.0, 21.0, 26.0, 15.0, 47.0, 3.0, 434.0]),
            parse_js_date("2024-10-26T15:47:03.434Z", None)
        );
        assert_eq!(
            js_date_string(T, None),
            "Thu Oct 26 2023 15:47:03 GMT+0000 (Coordinated Universal Time)"
        );
        assert_eq!(iso_string(T).as_deref(), Some("2023-10-26T15:47:03.434Z"));
    }
}
