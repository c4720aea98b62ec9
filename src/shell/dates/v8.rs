//! `new Date(string)` as V8 (mongosh's engine) reads it: its date parser
//! (`src/date/dateparser-inl.h`, `dateparser.cc`) rule for rule. First the
//! ECMAScript date-time format, then, for whatever is left, the legacy parser
//! compatible with Safari (`Jan 7, 2003`, `2003/01/07`, `7 Jan 2003 10:00 PM
//! GMT+0100`). Fields roll over as `MakeDay` does (`2021-02-29` is March 1st);
//! a time without a zone is local time: the run's time zone (UTC by default).
use super::v8_scan::{Kw, Scanner, Tok, MAX_SIGNIFICANT_DIGITS, NONE};
use super::{days_from_civil, time_clip};

struct Day {
    comp: [i32; 3],
    index: usize,
    named_month: i32,
    iso: bool,
}

fn is_month(n: i32) -> bool {
    (1..=12).contains(&n)
}
fn is_day(n: i32) -> bool {
    (1..=31).contains(&n)
}
fn is_hour(n: i32) -> bool {
    (0..=23).contains(&n)
}
fn is_minute(n: i32) -> bool {
    (0..=59).contains(&n)
}

impl Day {
    fn add(&mut self, n: i32) -> bool {
        if self.index == 3 {
            return false;
        }
        self.comp[self.index] = n;
        self.index += 1;
        true
    }
    /// Year, month (1-12), day.
    fn write(mut self) -> Option<(i32, i32, i32)> {
        if self.index < 1 {
            return None;
        }
        while self.index < 3 {
            self.comp[self.index] = 1;
            self.index += 1;
        }
        let c = self.comp;
        let (mut year, month, day) = if self.named_month == NONE {
            if self.iso || !is_day(c[0]) {
                (c[0], c[1], c[2])
            } else {
                (c[2], c[0], c[1])
            }
        } else if !is_day(c[0]) {
            (c[0], self.named_month, c[1])
        } else {
            (c[1], self.named_month, c[0])
        };
        if !self.iso {
            if (0..=49).contains(&year) {
                year += 2000;
            } else if (50..=99).contains(&year) {
                year += 1900;
            }
        }
        (is_month(month) && is_day(day)).then_some((year, month, day))
    }
}

struct Time {
    comp: [i32; 4],
    index: usize,
    hour_offset: i32,
}

impl Time {
    fn is_empty(&self) -> bool {
        self.index == 0
    }
    fn is_expecting(&self, n: i32) -> bool {
        (self.index == 1 && is_minute(n))
            || (self.index == 2 && is_minute(n))
            || (self.index == 3 && (0..=999).contains(&n))
    }
    fn add(&mut self, n: i32) -> bool {
        if self.index == 4 {
            return false;
        }
        self.comp[self.index] = n;
        self.index += 1;
        true
    }
    fn add_final(&mut self, n: i32) -> bool {
        if !self.add(n) {
            return false;
        }
        while self.index < 4 {
            self.comp[self.index] = 0;
            self.index += 1;
        }
        true
    }
    fn write(mut self) -> Option<[i32; 4]> {
        while self.index < 4 {
            self.comp[self.index] = 0;
            self.index += 1;
        }
        let [mut h, m, s, ms] = self.comp;
        if self.hour_offset != NONE {
            if !(0..=12).contains(&h) {
                return None;
            }
            h = h % 12 + self.hour_offset;
        }
        let valid = is_hour(h) && is_minute(m) && is_minute(s) && (0..=999).contains(&ms);
        (valid || (h == 24 && m == 0 && s == 0 && ms == 0)).then_some([h, m, s, ms])
    }
}

struct Zone {
    sign: i32,
    hour: i32,
    minute: i32,
}

impl Zone {
    fn set(&mut self, hours: i32) {
        self.sign = if hours < 0 { -1 } else { 1 };
        self.hour = hours.abs();
        self.minute = 0;
    }
    fn is_expecting(&self, n: i32) -> bool {
        self.hour != NONE && self.minute == NONE && is_minute(n)
    }
    fn is_utc(&self) -> bool {
        self.hour == 0 && self.minute == 0
    }
    fn is_empty(&self) -> bool {
        self.hour == NONE
    }
    /// The offset in seconds; None for local time.
    fn write(&self) -> Option<Option<i64>> {
        if self.sign == NONE {
            return Some(None);
        }
        let h = if self.hour == NONE { 0 } else { self.hour };
        let m = if self.minute == NONE { 0 } else { self.minute };
        let total = i64::from(h) * 3600 + i64::from(m) * 60;
        if total > i64::from(i32::MAX >> 1) {
            return None;
        }
        Some(Some(if self.sign < 0 { -total } else { total }))
    }
}

/// Three significant digits of a fraction, as written (`5` is 500 ms).
fn read_milliseconds(t: Tok) -> i32 {
    let Tok::Number { n, len } = t else {
        return -1;
    };
    match len {
        1 => n * 100,
        2 => n * 10,
        3 => n,
        _ => n / 10i32.pow((len.min(MAX_SIGNIFICANT_DIGITS) - 3) as u32),
    }
}

/// What the ES5 pass returns: the first token it did not use, or failure.
enum Es5 {
    Rest(Tok),
    Invalid,
}

fn parse_es5(sc: &mut Scanner, day: &mut Day, time: &mut Time, tz: &mut Zone) -> Es5 {
    if sc.peek().is_sign() {
        let sign_token = sc.next();
        if !sc.peek().is_fixed(6) {
            return Es5::Rest(sign_token);
        }
        let year = sc.next().number();
        let negative = sign_token == Tok::Symbol(b'-');
        if negative && year == 0 {
            return Es5::Rest(sign_token);
        }
        day.add(if negative { -year } else { year });
    } else if sc.peek().is_fixed(4) {
        day.add(sc.next().number());
    } else {
        return Es5::Rest(sc.next());
    }
    if sc.skip_symbol(b'-') {
        if !sc.peek().is_fixed(2) || !is_month(sc.peek().number()) {
            return Es5::Rest(sc.next());
        }
        day.add(sc.next().number());
        if sc.skip_symbol(b'-') {
            if !sc.peek().is_fixed(2) || !is_day(sc.peek().number()) {
                return Es5::Rest(sc.next());
            }
            day.add(sc.next().number());
        }
    }
    if !matches!(
        sc.peek(),
        Tok::Keyword {
            kw: Kw::TimeSeparator,
            ..
        }
    ) {
        if sc.peek() != Tok::End {
            return Es5::Rest(sc.next());
        }
    } else {
        sc.next();
        let h = sc.peek().number();
        if !sc.peek().is_fixed(2) || !(0..=24).contains(&h) {
            return Es5::Invalid;
        }
        let hour_is_24 = h == 24;
        time.add(sc.next().number());
        if !sc.skip_symbol(b':') {
            return Es5::Invalid;
        }
        let m = sc.peek().number();
        if !sc.peek().is_fixed(2) || !is_minute(m) || (hour_is_24 && m > 0) {
            return Es5::Invalid;
        }
        time.add(sc.next().number());
        if sc.skip_symbol(b':') {
            let s = sc.peek().number();
            if !sc.peek().is_fixed(2) || !is_minute(s) || (hour_is_24 && s > 0) {
                return Es5::Invalid;
            }
            time.add(sc.next().number());
            if sc.skip_symbol(b'.') {
                if !sc.peek().is_number() || (hour_is_24 && sc.peek().number() > 0) {
                    return Es5::Invalid;
                }
                time.add(read_milliseconds(sc.next()));
            }
        }
        if sc.peek().is_keyword_z() {
            sc.next();
            tz.set(0);
        } else if sc.peek().is_sign() {
            tz.sign = if sc.next() == Tok::Symbol(b'+') {
                1
            } else {
                -1
            };
            if sc.peek().is_fixed(4) {
                let hm = sc.next().number();
                let (h, m) = (hm / 100, hm % 100);
                if !is_hour(h) || !is_minute(m) {
                    return Es5::Invalid;
                }
                tz.hour = h;
                tz.minute = m;
            } else {
                if !sc.peek().is_fixed(2) || !is_hour(sc.peek().number()) {
                    return Es5::Invalid;
                }
                tz.hour = sc.next().number();
                if !sc.skip_symbol(b':') {
                    return Es5::Invalid;
                }
                if !sc.peek().is_fixed(2) || !is_minute(sc.peek().number()) {
                    return Es5::Invalid;
                }
                tz.minute = sc.next().number();
            }
        }
        if sc.peek() != Tok::End {
            return Es5::Invalid;
        }
    }
    // A date-only form without a zone is UTC; a date-time form is local time.
    if tz.is_empty() && time.is_empty() {
        tz.set(0);
    }
    day.iso = true;
    Es5::Rest(Tok::End)
}

/// `Date.parse(s)` in milliseconds, or None for an invalid date.
pub fn parse(s: &str, zone: Option<crate::tzdb::Tz>) -> Option<i64> {
    let chars: Vec<char> = s.chars().collect();
    let mut sc = Scanner::new(&chars);
    let mut day = Day {
        comp: [0; 3],
        index: 0,
        named_month: NONE,
        iso: false,
    };
    let mut time = Time {
        comp: [0; 4],
        index: 0,
        hour_offset: NONE,
    };
    let mut tz = Zone {
        sign: NONE,
        hour: NONE,
        minute: NONE,
    };
    let Es5::Rest(mut token) = parse_es5(&mut sc, &mut day, &mut time, &mut tz) else {
        return None;
    };
    let mut has_read_number = day.index > 0;
    while token != Tok::End {
        match token {
            Tok::Number { n, .. } => {
                has_read_number = true;
                if sc.skip_symbol(b':') {
                    if sc.skip_symbol(b':') {
                        if !time.is_empty() {
                            return None;
                        }
                        time.add(n);
                        time.add(0);
                    } else {
                        if !time.add(n) {
                            return None;
                        }
                        if sc.peek() == Tok::Symbol(b'.') {
                            sc.next();
                        }
                    }
                } else if sc.peek() == Tok::Symbol(b'.') && time.is_expecting(n) {
                    sc.next();
                    time.add(n);
                    if !sc.peek().is_number() {
                        return None;
                    }
                    let ms = read_milliseconds(sc.next());
                    if ms < 0 {
                        return None;
                    }
                    time.add_final(ms);
                } else {
                    // V8 consumes a '.' here even when it is not a time separator.
                    sc.skip_symbol(b'.');
                    if !legacy_number(n, &mut sc, &mut day, &mut time, &mut tz) {
                        return None;
                    }
                }
            }
            Tok::Keyword { kw, .. } => match kw {
                Kw::AmPm(v) if !time.is_empty() => time.hour_offset = v,
                Kw::Month(m) => {
                    day.named_month = m;
                    sc.skip_symbol(b'-');
                }
                Kw::Zone(v) if has_read_number => tz.set(v),
                _ => {
                    // Words are ignored before the first number only, and must
                    // be separated from it.
                    if has_read_number || sc.peek().is_number() {
                        return None;
                    }
                }
            },
            t if t.is_sign() && (tz.is_utc() || !time.is_empty()) => {
                tz.sign = if t == Tok::Symbol(b'-') { -1 } else { 1 };
                let (mut n, mut len) = (0, 0);
                if let Tok::Number { n: v, len: l } = sc.peek() {
                    sc.next();
                    n = v;
                    len = l;
                }
                has_read_number = true;
                if sc.peek() == Tok::Symbol(b':') {
                    tz.hour = n;
                    tz.minute = NONE;
                } else if len == 1 || len == 2 {
                    tz.hour = n;
                    tz.minute = 0;
                } else if len == 3 || len == 4 {
                    tz.hour = n / 100;
                    tz.minute = n % 100;
                } else {
                    return None;
                }
            }
            t if (t.is_sign() || t == Tok::Symbol(b')')) && has_read_number => return None,
            _ => {}
        }
        token = sc.next();
    }
    let (y, mo, d) = day.write()?;
    let [h, mi, s, ms] = time.write()?;
    let offset = tz.write()?;
    let parts = [y, mo - 1, d, h, mi, s, ms].map(f64::from);
    let local = local_date(parts)?;
    match offset {
        // Local time is the run's zone; V8 allows ten days past the range before converting.
        None => time_clip(super::local_to_utc(local, zone)),
        Some(secs) => time_clip(local - secs as f64 * 1000.0),
    }
}

/// A number of the legacy grammar that is not followed by `:`: a zone's
/// minutes, the last field of a time, or a date field.
fn legacy_number(n: i32, sc: &mut Scanner, day: &mut Day, time: &mut Time, tz: &mut Zone) -> bool {
    if tz.is_expecting(n) {
        tz.minute = n;
    } else if time.is_expecting(n) {
        time.add_final(n);
        // The end, white space, Z, + or - must follow a time's last field.
        let p = sc.peek();
        if !(p == Tok::End || p == Tok::WhiteSpace || p.is_keyword_z() || p.is_sign()) {
            return false;
        }
    } else {
        if !day.add(n) {
            return false;
        }
        sc.skip_symbol(b'-');
    }
    true
}

/// MakeDate(MakeDay, MakeTime) without TimeClip (the zone is applied first).
fn local_date(parts: [f64; 7]) -> Option<f64> {
    let [y, m, d, h, mi, s, ms] = parts;
    let ym = y + (m / 12.0).floor();
    if ym.abs() > 400_000.0 {
        return None;
    }
    let month_start = days_from_civil(ym as i64, m.rem_euclid(12.0) as i64 + 1, 1) * 86_400_000;
    Some(
        month_start as f64
            + (d - 1.0) * 86_400_000.0
            + h * 3_600_000.0
            + mi * 60_000.0
            + s * 1000.0
            + ms,
    )
}

#[cfg(test)]
mod tests {
    use super::parse;

    fn at(s: &str) -> Option<String> {
        parse(s, None).and_then(crate::value::calendar::iso_string)
    }

    #[test]
    fn es5_forms() {
        assert_eq!(
            at("2023-10-26T15:47:03.434Z").as_deref(),
            Some("2023-10-26T15:47:03.434Z")
        );
        assert_eq!(at("2023").as_deref(), Some("2023-01-01T00:00:00.000Z"));
        assert_eq!(
            at("+002023-10-26T15:47:03Z").as_deref(),
            Some("2023-10-26T15:47:03.000Z")
        );
        assert_eq!(
            at("2023-10-26T17:47:03+02:00").as_deref(),
            Some("2023-10-26T15:47:03.000Z")
        );
        // Day 29 of a 28-day February rolls over; day 32 is not a day.
        assert_eq!(
            at("2021-02-29T07:49:32Z").as_deref(),
            Some("2021-03-01T07:49:32.000Z")
        );
        assert_eq!(at("2021-02-32"), None);
        assert_eq!(
            at("2023-10-26T24:00Z").as_deref(),
            Some("2023-10-27T00:00:00.000Z")
        );
        assert_eq!(at("2023-10-26T24:01Z"), None);
        // Year -0 is not an ES5 year; what is left is read as a legacy date.
        assert_eq!(at("-000000-01-01T00:00Z"), None);
    }

    #[test]
    fn legacy_forms() {
        let cases = [
            ("Jan 7, 2003", "2003-01-07T00:00:00.000Z"),
            ("2003/01/07", "2003-01-07T00:00:00.000Z"),
            ("01/07/2003", "2003-01-07T00:00:00.000Z"),
            ("January 7, 2003 10:30 PM", "2003-01-07T22:30:00.000Z"),
            ("7 January 2003", "2003-01-07T00:00:00.000Z"),
            ("2023-10-26 10:00", "2023-10-26T10:00:00.000Z"),
            (
                "Thu, 26 Oct 2023 15:47:03 +0000",
                "2023-10-26T15:47:03.000Z",
            ),
            (
                "Thu Oct 26 2023 15:47:03 GMT+0200 (Central European Summer Time)",
                "2023-10-26T13:47:03.000Z",
            ),
            ("Oct 26 2023 10:00 EST", "2023-10-26T15:00:00.000Z"),
            ("1/2/70", "1970-01-02T00:00:00.000Z"),
            ("Jan 7", "2001-01-07T00:00:00.000Z"),
            ("12:00 AM Jan 1 2020", "2020-01-01T00:00:00.000Z"),
            ("2020-01-01 12:30:45.5", "2020-01-01T12:30:45.500Z"),
        ];
        for (s, want) in cases {
            assert_eq!(at(s).as_deref(), Some(want), "{s}");
        }
        for bad in [
            "nonsense",
            "Jan 7, 2003 x",
            "2003/13/01",
            "13:00 PM Jan 1 2020",
            "",
        ] {
            assert_eq!(parse(bad, None), None, "{bad}");
        }
    }

    /// Strings whose time values Node 20 (V8) gave with TZ=UTC (`v8_node.tsv`).
    #[test]
    fn agrees_with_node() {
        let mut n = 0;
        for line in include_str!("v8_node.tsv").lines() {
            let Some((s, want)) = line.split_once('\t').filter(|_| !line.starts_with('#')) else {
                continue;
            };
            let want = want.parse::<i64>().ok();
            assert_eq!(parse(s, None), want, "{s:?}");
            n += 1;
        }
        assert!(n > 400);
    }
}
