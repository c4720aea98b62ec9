//! Date strings → dates for `$dateFromString`, `$toDate` and `$convert`.
//! Without a format MongoDB uses timelib's free-form parser; the playground
//! accepts its common forms: ISO 8601 (`2017-02-08`, `2017-02-08T12:10:40.787Z`,
//! space instead of `T`, offsets `±hh[:mm]`, zone names `EST`, `A`, `GMT+2`), `yyyy/mm/dd`, `mm/dd/yyyy` and
//! month names (`Feb 8, 2017`, `8 February 2017`). With a format, the
//! `$dateFromString` specifiers are parsed strictly.
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/dateFromString/
use super::date::{
    days_from_civil, days_from_iso, days_in_month, local_ms_from_parts, validate_format, Zone,
    FROM_STRING_SPECS, MS_PER_DAY,
};
use super::date_abbr::{zone_from_text, ZoneText};
use crate::error::{Error, Result};
use bson::DateTime;
use regex::Regex;
use std::sync::OnceLock;

fn failure(s: &str, why: impl std::fmt::Display) -> Error {
    Error::conversion_failure(format!("Error parsing date string '{s}'; {why}"))
}

/// Zone information found in the string itself.
#[derive(Clone, Debug, PartialEq)]
enum StrZone {
    None,
    /// `+02:00`: timelib's "GMT offset".
    Offset(i64),
    /// `Z`, `UTC`, `GMT`: a zone abbreviation.
    Abbr(String, i64),
}

#[derive(Default, Debug)]
struct Fields {
    year: Option<i64>,
    month: Option<i64>,
    day: Option<i64>,
    hour: Option<i64>,
    minute: Option<i64>,
    second: Option<i64>,
    millis: i64,
    doy: Option<i64>,
    iso_year: Option<i64>,
    iso_week: Option<i64>,
    iso_dow: Option<i64>,
}

fn month_from_name(name: &str) -> Option<i64> {
    let l = name.to_ascii_lowercase();
    if l.len() < 3 {
        return None;
    }
    const N: [&str; 12] = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    N.iter()
        .position(|m| m.starts_with(&l) || (l.len() == 4 && l == "sept" && *m == "september"))
        .map(|i| i as i64 + 1)
}

fn free_form_regexes() -> &'static [Regex] {
    static R: OnceLock<Vec<Regex>> = OnceLock::new();
    R.get_or_init(|| {
        let time = r"(?:[T ]+([0-9]{1,2}):([0-9]{2})(?::([0-9]{2})(?:[.,]([0-9]+))?)?)?";
        let zone = r"[\t\n\x0B\x0C\r ]*([a-z]+(?:[+-][0-9]{1,2}(?::?[0-9]{2})?)?|[+-][0-9]{2}(?::?[0-9]{2})?)?";
        // Constant patterns: compiled once; the order fixes the capture layout below.
        [
            r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})",
            r"([0-9]{4})/([0-9]{1,2})/([0-9]{1,2})",
            r"([0-9]{1,2})/([0-9]{1,2})/([0-9]{4})",
            r"([a-z]{3,9})\.? +([0-9]{1,2})(?:st|nd|rd|th)?,? +([0-9]{4})",
            r"([0-9]{1,2})(?:st|nd|rd|th)?[ -]+([a-z]{3,9})\.?[ -,]+([0-9]{4})",
        ]
        .iter()
        .filter_map(|date| Regex::new(&format!(r"(?i-u)^{date}{time}{zone}$")).ok())
        .collect()
    })
}

fn num(s: Option<regex::Match<'_>>) -> Option<i64> {
    s.and_then(|m| m.as_str().parse().ok())
}

fn zone_of(s: &str, z: Option<regex::Match<'_>>) -> Result<StrZone> {
    let Some(z) = z else { return Ok(StrZone::None) };
    zone_named(s, z.as_str())
}

fn zone_named(s: &str, t: &str) -> Result<StrZone> {
    match zone_from_text(t) {
        Some(ZoneText::Offset(o)) => Ok(StrZone::Offset(o)),
        Some(ZoneText::Abbr(o)) => Ok(StrZone::Abbr(t.to_string(), o)),
        None => Err(failure(
            s,
            "0: The timezone could not be found in the database",
        )),
    }
}

fn parse_free_form(s: &str) -> Result<(Fields, StrZone)> {
    let t = s.trim();
    let res = free_form_regexes();
    for (i, re) in res.iter().enumerate() {
        let Some(c) = re.captures(t) else { continue };
        let (y, m, d) = match i {
            0 | 1 => (num(c.get(1)), num(c.get(2)), num(c.get(3))),
            2 => (num(c.get(3)), num(c.get(1)), num(c.get(2))),
            3 => (
                num(c.get(3)),
                c.get(1).and_then(|m| month_from_name(m.as_str())),
                num(c.get(2)),
            ),
            _ => (
                num(c.get(3)),
                c.get(2).and_then(|m| month_from_name(m.as_str())),
                num(c.get(1)),
            ),
        };
        let (Some(y), Some(m), Some(d)) = (y, m, d) else {
            return Err(failure(
                s,
                "0: The timezone could not be found in the database",
            ));
        };
        let millis = c
            .get(7)
            .map(|f| {
                let digits: String = f.as_str().chars().take(3).collect();
                let scale = 10i64.pow(3 - digits.len() as u32);
                digits.parse::<i64>().unwrap_or(0) * scale
            })
            .unwrap_or(0);
        let f = Fields {
            year: Some(y),
            month: Some(m),
            day: Some(d),
            hour: num(c.get(4)).or(Some(0)),
            minute: num(c.get(5)).or(Some(0)),
            second: num(c.get(6)).or(Some(0)),
            millis,
            ..Fields::default()
        };
        if !(1..=12).contains(&m)
            || !(1..=31).contains(&d)
            || f.hour > Some(24)
            || f.minute > Some(59)
            || f.second > Some(60)
        {
            return Err(failure(s, "0: Unexpected data found."));
        }
        return Ok((f, zone_of(s, c.get(8))?));
    }
    Err(failure(s, "0: Unexpected data found."))
}

/// Read up to `max` digits (at least one).
fn digits(input: &[u8], pos: &mut usize, max: usize) -> Option<i64> {
    let start = *pos;
    while *pos < input.len() && *pos - start < max && input[*pos].is_ascii_digit() {
        *pos += 1;
    }
    if *pos == start {
        return None;
    }
    std::str::from_utf8(&input[start..*pos]).ok()?.parse().ok()
}

fn parse_with_format(s: &str, format: &str) -> Result<(Fields, StrZone)> {
    let input = s.as_bytes();
    let mut pos = 0usize;
    let mut f = Fields::default();
    let mut zone = StrZone::None;
    let mut fmt = format.chars();
    let fail = |pos: usize, msg: &str| {
        let ch = input
            .get(pos)
            .map_or(String::new(), |b| (*b as char).to_string());
        failure(s, format!("{pos}: {msg} '{ch}'"))
    };
    while let Some(c) = fmt.next() {
        if c != '%' {
            let mut buf = [0u8; 4];
            let lit = c.encode_utf8(&mut buf).as_bytes();
            if input.get(pos..pos + lit.len()) != Some(lit) {
                return Err(fail(pos, "The format separator does not match"));
            }
            pos += lit.len();
            continue;
        }
        let Some(spec) = fmt.next() else { break };
        let need = |v: Option<i64>, msg: &str, pos: usize| v.ok_or_else(|| fail(pos, msg));
        match spec {
            '%' => {
                if input.get(pos) != Some(&b'%') {
                    return Err(fail(pos, "The escaped character could not be found"));
                }
                pos += 1;
            }
            'Y' => {
                let p0 = pos;
                let v = digits(input, &mut pos, 4);
                if pos - p0 != 4 {
                    return Err(fail(p0, "A four digit year could not be found"));
                }
                f.year = v;
            }
            'G' => {
                // timelib reads 1 to 4 digits here ("%V.%u.%G" reads "1.1.1").
                let p0 = pos;
                f.iso_year = Some(need(
                    digits(input, &mut pos, 4),
                    "A four digit ISO year could not be found",
                    p0,
                )?);
            }
            'm' => {
                f.month = Some(need(
                    digits(input, &mut pos, 2),
                    "A two digit month could not be found",
                    pos,
                )?)
            }
            'd' => {
                f.day = Some(need(
                    digits(input, &mut pos, 2),
                    "A two digit day could not be found",
                    pos,
                )?)
            }
            'H' => {
                f.hour = Some(need(
                    digits(input, &mut pos, 2),
                    "A two digit hour could not be found",
                    pos,
                )?)
            }
            'M' => {
                f.minute = Some(need(
                    digits(input, &mut pos, 2),
                    "A two digit minute could not be found",
                    pos,
                )?)
            }
            'S' => {
                f.second = Some(need(
                    digits(input, &mut pos, 2),
                    "A two digit second could not be found",
                    pos,
                )?)
            }
            'L' => {
                let p0 = pos;
                let v = need(
                    digits(input, &mut pos, 3),
                    "A three digit millisecond could not be found",
                    pos,
                )?;
                f.millis = v * 10i64.pow(3 - (pos - p0) as u32);
            }
            'j' => {
                f.doy = Some(need(
                    digits(input, &mut pos, 3),
                    "A three digit day-of-year could not be found",
                    pos,
                )?)
            }
            'V' => {
                f.iso_week = Some(need(
                    digits(input, &mut pos, 2),
                    "A two digit ISO week could not be found",
                    pos,
                )?)
            }
            'u' => {
                f.iso_dow = Some(need(
                    digits(input, &mut pos, 1),
                    "A single digit day of week could not be found",
                    pos,
                )?)
            }
            'b' | 'B' => {
                let p0 = pos;
                while pos < input.len() && input[pos].is_ascii_alphabetic() {
                    pos += 1;
                }
                let name = std::str::from_utf8(&input[p0..pos]).unwrap_or("");
                let ok = if spec == 'b' {
                    name.len() == 3
                } else {
                    name.len() >= 3
                };
                let m = month_from_name(name).filter(|_| ok);
                f.month = Some(m.ok_or_else(|| fail(p0, "A textual month could not be found"))?);
            }
            'z' => {
                // A zone name (timelib skips spaces before it): `GMT+02:00`, `CEST`, `A`.
                let mut p = pos;
                while input.get(p).is_some_and(|b| *b == b' ') {
                    p += 1;
                }
                if input.get(p).is_some_and(u8::is_ascii_alphabetic) {
                    let start = p;
                    while input.get(p).is_some_and(u8::is_ascii_alphabetic) {
                        p += 1;
                    }
                    if input.get(p).is_some_and(|b| *b == b'+' || *b == b'-') {
                        p += 1;
                        while input
                            .get(p)
                            .is_some_and(|b| b.is_ascii_digit() || *b == b':')
                        {
                            p += 1;
                        }
                    }
                    let name = std::str::from_utf8(&input[start..p]).unwrap_or("");
                    zone = zone_named(s, name)?;
                    pos = p;
                    continue;
                }
                let p0 = pos;
                let sign = match input.get(pos) {
                    Some(b'+') => 1,
                    Some(b'-') => -1,
                    _ => return Err(fail(p0, "Unexpected data found.")),
                };
                pos += 1;
                let h = need(digits(input, &mut pos, 2), "Unexpected data found.", pos)?;
                if input.get(pos) == Some(&b':') {
                    pos += 1;
                }
                let m = digits(input, &mut pos, 2).unwrap_or(0);
                zone = StrZone::Offset(sign * (h * 3600 + m * 60));
            }
            'Z' => {
                let p0 = pos;
                let sign = match input.get(pos) {
                    Some(b'-') => {
                        pos += 1;
                        -1
                    }
                    Some(b'+') => {
                        pos += 1;
                        1
                    }
                    _ => 1,
                };
                let m = need(digits(input, &mut pos, 4), "Unexpected data found.", p0)?;
                zone = StrZone::Offset(sign * m * 60);
            }
            _ => return Err(fail(pos, "Unexpected data found.")),
        }
    }
    if pos < input.len() {
        return Err(fail(pos, "Trailing data"));
    }
    Ok((f, zone))
}

/// Parse a date string (`$dateFromString`). `zone` is the `timezone` argument
/// (None when not given): a string with its own zone cannot be combined with it.
pub(crate) fn parse_date_string(
    s: &str,
    zone: Option<&Zone>,
    format: Option<&str>,
) -> Result<DateTime> {
    let (mut f, str_zone) = match format {
        Some(fmt) => {
            validate_format(fmt, FROM_STRING_SPECS)?;
            parse_with_format(s, fmt)?
        }
        None => parse_free_form(s)?,
    };
    // timelib fills the unset time fields with 0 once any of them (or none) is given.
    f.hour.get_or_insert(0);
    f.minute.get_or_insert(0);
    f.second.get_or_insert(0);
    // Dates given as ISO week dates or day of year.
    let mut days = None;
    if let Some(y) = f.iso_year.filter(|_| f.year.is_none()) {
        // An ISO year alone is its first week's Monday; a week without a
        // day its Monday ("2017, Week 53" is 2018-01-01), as timelib fills them.
        days = Some(days_from_iso(
            y,
            f.iso_week.unwrap_or(1),
            f.iso_dow.unwrap_or(1),
        ));
    } else if let (Some(y), Some(doy)) = (f.year, f.doy) {
        days = Some(days_from_civil(y, 1, 1) + doy - 1);
    }
    let (Some(h), Some(mi), Some(sec)) = (f.hour, f.minute, f.second) else {
        return Err(incomplete(s));
    };
    // timelib warns about impossible dates and times instead of rolling them
    // over, and the server turns any warning into an error
    // (TimeZoneDatabase::fromString): "2017-02-30", "24:00:00", ":60" fail.
    if let (Some(y), Some(m), Some(d)) = (f.year, f.month, f.day) {
        if days.is_none() && !((1..=12).contains(&m) && (1..=days_in_month(y, m)).contains(&d)) {
            return Err(failure(s, "11: The parsed date was invalid"));
        }
    }
    if !((0..=23).contains(&h) && (0..=59).contains(&mi) && (0..=59).contains(&sec)) {
        return Err(failure(s, "11: The parsed time was invalid"));
    }
    let local = match days {
        Some(d) => d
            .checked_mul(MS_PER_DAY)
            .and_then(|x| x.checked_add(h * 3_600_000 + mi * 60_000 + sec * 1000 + f.millis)),
        None => {
            let (Some(y), Some(m), Some(d)) = (f.year, f.month, f.day) else {
                return Err(incomplete(s));
            };
            local_ms_from_parts(y, m, d, h, mi, sec, f.millis)
        }
    }
    .ok_or_else(|| failure(s, "date out of range"))?;
    let given = zone.filter(|z| !z.is_utc());
    let utc = match (&str_zone, given) {
        (StrZone::Offset(_), Some(_)) => {
            return Err(Error::conversion_failure("you cannot pass in a date/time string with GMT offset together with a timezone argument",
            ))
        }
        (StrZone::Abbr(a, _), Some(_)) => {
            return Err(Error::conversion_failure(format!("you cannot pass in a date/time string with time zone information ('{a}') together with a timezone argument"),
            ))
        }
        (StrZone::Offset(o), None) | (StrZone::Abbr(_, o), None) => local - o * 1000,
        (StrZone::None, Some(z)) => z.local_to_utc(local),
        (StrZone::None, None) => local,
    };
    Ok(DateTime::from_millis(utc))
}

fn incomplete(s: &str) -> Error {
    Error::conversion_failure(format!(
        "an incomplete date/time string has been found, with elements missing: \"{s}\""
    ))
}

#[cfg(test)]
mod tests {
    /// The patterns are ours: all must compile with the regex features the crate
    /// enables (no Unicode Perl classes), or free-form dates would silently fail.
    #[test]
    fn free_form_patterns_compile() {
        assert_eq!(super::free_form_regexes().len(), 5);
    }
}
