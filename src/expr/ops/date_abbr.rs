//! Zone names `$dateFromString` reads inside a date string, as the server's
//! date library (timelib) does: military letters (`A` is UTC+1, `N` UTC-1,
//! `Z` UTC; no `J`), `GMT+hh[:mm]`, and the common abbreviations of its
//! table (`EST`, `PDT`, `CEST`…), matched without regard to case.

/// Abbreviation → offset in minutes (daylight-saving names include the hour).
const ABBREVIATIONS: &[(&str, i64)] = &[
    ("UTC", 0),
    ("UT", 0),
    ("GMT", 0),
    ("WET", 0),
    ("WEST", 60),
    ("BST", 60),
    ("CET", 60),
    ("CEST", 120),
    ("MET", 60),
    ("MEST", 120),
    ("EET", 120),
    ("EEST", 180),
    ("MSK", 180),
    ("EST", -300),
    ("EDT", -240),
    ("CST", -360),
    ("CDT", -300),
    ("MST", -420),
    ("MDT", -360),
    ("PST", -480),
    ("PDT", -420),
    ("AKST", -540),
    ("AKDT", -480),
    ("HST", -600),
    ("AST", -240),
    ("ADT", -180),
    ("NST", -210),
    ("NDT", -150),
    ("JST", 540),
    ("KST", 540),
    ("HKT", 480),
    ("AWST", 480),
    ("ACST", 570),
    ("ACDT", 630),
    ("AEST", 600),
    ("AEDT", 660),
    ("NZST", 720),
    ("NZDT", 780),
];

/// What a zone name in a date string means.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum ZoneText {
    /// `+02:00`, `GMT+2`: a UTC offset, in seconds.
    Offset(i64),
    /// A name (abbreviation or military letter), with its offset in seconds.
    Abbr(i64),
}

/// `+hh`, `+hhmm`, `+hh:mm` (also one-digit hours after `GMT`), in seconds.
fn offset(t: &str) -> Option<i64> {
    let sign = match t.as_bytes().first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let rest = &t[1..];
    let (h, m) = match rest.split_once(':') {
        Some((h, m)) => (h, m),
        None if rest.len() > 2 => rest.split_at(rest.len() - 2),
        None => (rest, "0"),
    };
    let ok = |s: &str, max: usize| {
        !s.is_empty() && s.len() <= max && s.bytes().all(|b| b.is_ascii_digit())
    };
    if !ok(h, 2) || !ok(m, 2) {
        return None;
    }
    let (h, m): (i64, i64) = (h.parse().ok()?, m.parse().ok()?);
    Some(sign * (h * 3600 + m * 60))
}

/// The zone a date string ends with, or None when timelib would not know it.
pub(crate) fn zone_from_text(t: &str) -> Option<ZoneText> {
    if let Some(o) = offset(t) {
        return Some(ZoneText::Offset(o));
    }
    let upper = t.to_ascii_uppercase();
    if let Some(rest) = upper.strip_prefix("GMT").filter(|r| !r.is_empty()) {
        return offset(rest).map(ZoneText::Offset);
    }
    if let [letter] = upper.as_bytes() {
        let hours = match letter {
            b'A'..=b'I' => i64::from(letter - b'A') + 1,
            b'K'..=b'M' => i64::from(letter - b'K') + 10,
            b'N'..=b'Y' => -(i64::from(letter - b'N') + 1),
            b'Z' => 0,
            _ => return None,
        };
        return Some(ZoneText::Abbr(hours * 3600));
    }
    ABBREVIATIONS
        .iter()
        .find(|(name, _)| *name == upper)
        .map(|(_, minutes)| ZoneText::Abbr(minutes * 60))
}

#[cfg(test)]
mod tests {
    use super::{zone_from_text, ZoneText};

    #[test]
    fn names() {
        assert_eq!(zone_from_text("A"), Some(ZoneText::Abbr(3600)));
        assert_eq!(zone_from_text("L"), Some(ZoneText::Abbr(11 * 3600)));
        assert_eq!(zone_from_text("P"), Some(ZoneText::Abbr(-3 * 3600)));
        assert_eq!(zone_from_text("J"), None);
        assert_eq!(zone_from_text("cest"), Some(ZoneText::Abbr(7200)));
        assert_eq!(zone_from_text("GMT+02:00"), Some(ZoneText::Offset(7200)));
        assert_eq!(zone_from_text("GMT+2"), Some(ZoneText::Offset(7200)));
        assert_eq!(zone_from_text("+0330"), Some(ZoneText::Offset(12600)));
        assert_eq!(zone_from_text("XYZ"), None);
    }
}
