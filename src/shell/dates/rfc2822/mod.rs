//! `Date.parse` of RFC 2822 dates (`Tue, 1 Nov 2022 10:00:00 +0100`): chrono's
//! `DateTime::parse_from_rfc2822`, rule for rule (see its `parse_rfc2822`), written
//! here to keep chrono's general parser out of the page's wasm. The test compares
//! the two on many strings.
use crate::value::calendar::{days_from_civil, days_in_month, MS_PER_DAY};

/// Milliseconds since the epoch, or None where chrono gives an error.
pub fn parse(s: &str) -> Option<i64> {
    let mut s = s.trim_start();
    let mut weekday = None;
    if let Some(w) = three_letters(s, &["mon", "tue", "wed", "thu", "fri", "sat", "sun"]) {
        s = s.get(3..)?.strip_prefix(',')?;
        weekday = Some(w);
    }
    let (day, rest) = number(s.trim_start(), 1, 2)?;
    let rest = space(rest)?;
    let month = three_letters(
        rest,
        &[
            "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
        ],
    )? + 1;
    let rest = space(rest.get(3..)?)?;
    let (mut year, after) = number(rest, 2, usize::MAX)?;
    match (rest.len() - after.len(), year) {
        (2, 0..=49) => year += 2000,
        (2, 50..=99) | (3, _) => year += 1900,
        _ => {}
    }
    let year = i64::from(i32::try_from(year).ok()?);
    let (hour, rest) = number(space(after)?, 2, 2)?;
    let rest = rest.trim_start().strip_prefix(':')?.trim_start();
    let (minute, mut rest) = number(rest, 2, 2)?;
    let mut second = 0;
    if let Some(r) = rest.trim_start().strip_prefix(':') {
        (second, rest) = number(r, 2, 2)?;
    }
    let (offset, mut rest) = zone(space(rest)?)?;
    while let Some(r) = comment(rest) {
        rest = r;
    }
    if !rest.is_empty()
        || !(1..=31).contains(&day)
        || !(0..=23).contains(&hour)
        || !(0..=59).contains(&minute)
        || !(0..=60).contains(&second)
        || day > days_in_month(year, month)
    {
        return None;
    }
    // chrono's dates: years -262143 to 262142, before and after the offset.
    let range = days_from_civil(-262_143, 1, 1)..=days_from_civil(262_142, 12, 31);
    let days = days_from_civil(year, month, day);
    if !range.contains(&days) || weekday.is_some_and(|w| w != (days + 3).rem_euclid(7)) {
        return None;
    }
    if offset.abs() >= 86_400 {
        return None;
    }
    // A leap second (:60) is the next second, as chrono counts it.
    let local = days * MS_PER_DAY + ((hour * 60 + minute) * 60 + second) * 1000;
    let utc = local - offset * 1000;
    let utc_second = utc.div_euclid(1000) - i64::from(second == 60);
    range
        .contains(&utc_second.div_euclid(86_400))
        .then_some(utc)
}

fn three_letters(s: &str, names: &[&str]) -> Option<i64> {
    let head = s.as_bytes().get(..3)?.to_ascii_lowercase();
    let i = names.iter().position(|n| n.as_bytes() == head.as_slice())?;
    i64::try_from(i).ok()
}

/// chrono's `scan::number`: `min` to `max` ASCII digits (more are left), fitting an i64.
fn number(s: &str, min: usize, max: usize) -> Option<(i64, &str)> {
    let n_digits = s.bytes().take(max).take_while(u8::is_ascii_digit).count();
    if n_digits < min {
        return None;
    }
    let (digits, rest) = s.split_at(n_digits);
    let n = digits.bytes().try_fold(0i64, |n, c| {
        n.checked_mul(10)?.checked_add(i64::from(c - b'0'))
    })?;
    Some((n, rest))
}

/// At least one white space character.
fn space(s: &str) -> Option<&str> {
    let t = s.trim_start();
    (t.len() < s.len()).then_some(t)
}

/// `+hhmm`, `-hhmm`, or a name: GMT, UT, Z, the North American zones, or one
/// military letter (as -0000). Seconds east of UTC.
fn zone(s: &str) -> Option<(i64, &str)> {
    let letters = s.bytes().take_while(u8::is_ascii_alphabetic).count();
    if letters > 0 {
        let (name, rest) = s.split_at(letters);
        let hours = match name.to_ascii_lowercase().as_str() {
            "gmt" | "ut" | "z" => 0,
            "edt" => -4,
            "est" | "cdt" => -5,
            "cst" | "mdt" => -6,
            "mst" | "pdt" => -7,
            "pst" => -8,
            n if n.len() == 1 && n != "j" => 0,
            _ => return None,
        };
        return Some((hours * 3600, rest));
    }
    let (sign, rest) = match s.as_bytes().first()? {
        b'+' => (1, s.get(1..)?),
        b'-' => (-1, s.get(1..)?),
        _ => return None,
    };
    let b = rest.as_bytes();
    let digit = |i: usize, max: u8| {
        b.get(i)
            .filter(|c| (b'0'..=max).contains(c))
            .map(|c| i64::from(c - b'0'))
    };
    let hours = digit(0, b'9')? * 10 + digit(1, b'9')?;
    let minutes = digit(2, b'5')? * 10 + digit(3, b'9')?;
    Some((sign * (hours * 3600 + minutes * 60), rest.get(4..)?))
}

/// A comment after optional white space: `( ... )`, nested, `\` escaping one byte.
fn comment(s: &str) -> Option<&str> {
    let s = s.trim_start();
    let mut bytes = s.bytes().enumerate();
    if bytes.next()?.1 != b'(' {
        return None;
    }
    let mut depth = 1usize;
    let mut escaped = false;
    for (i, c) in bytes {
        if escaped {
            escaped = false;
        } else if c == b'\\' {
            escaped = true;
        } else if c == b'(' {
            depth += 1;
        } else if c == b')' {
            depth -= 1;
            if depth == 0 {
                return s.get(i + 1..);
            }
        }
    }
    None
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;
