//! JavaScript number semantics the reader needs: literal values, mongosh's
//! Int32-or-Double typing, `Number(string)`, `parseInt`, and `Number#toString`.
use bson::Bson;

/// The value of a numeric literal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NumLit {
    Float(f64),
    /// A BigInt literal (`10n`); the driver serialises BigInt as Int64.
    Big(i64),
}

/// Value of a literal as the lexer delimited it (`1_000`, `0x1F`, `017`, `.5`, `10n`).
pub fn number_literal(text: &str) -> Option<NumLit> {
    // Fast path for the common case: a short plain integer.
    let b = text.as_bytes();
    if !b.is_empty()
        && b.len() <= 15
        && (b.len() == 1 || b[0] != b'0')
        && b.iter().all(u8::is_ascii_digit)
    {
        return Some(NumLit::Float(
            b.iter().fold(0u64, |a, d| a * 10 + u64::from(d - b'0')) as f64,
        ));
    }
    let cleaned;
    let text = if text.contains('_') {
        cleaned = text.replace('_', "");
        cleaned.as_str()
    } else {
        text
    };
    let (digits, radix) = split_radix(text);
    if let Some(big) = digits.strip_suffix('n') {
        let v = i128::from_str_radix(big, radix).ok()?;
        return i64::try_from(v).ok().map(NumLit::Big);
    }
    if radix != 10 {
        return Some(NumLit::Float(radix_value(digits, radix)?));
    }
    // Sloppy-mode legacy octal: `017` is 15, while `018` is decimal 18.
    if text.len() > 1 && text.starts_with('0') && text.bytes().all(|b| (b'0'..b'8').contains(&b)) {
        return Some(NumLit::Float(radix_value(&text[1..], 8)?));
    }
    text.parse::<f64>().ok().map(NumLit::Float)
}

fn split_radix(text: &str) -> (&str, u32) {
    let b = text.as_bytes();
    if b.len() >= 2 && b[0] == b'0' {
        match b[1] {
            b'x' | b'X' => return (&text[2..], 16),
            b'o' | b'O' => return (&text[2..], 8),
            b'b' | b'B' => return (&text[2..], 2),
            _ => {}
        }
    }
    (text, 10)
}

/// Digits in a radix, rounded once (u128 holds up to 128 bits exactly).
fn radix_value(digits: &str, radix: u32) -> Option<f64> {
    if digits.is_empty() {
        return None;
    }
    if let Ok(v) = u128::from_str_radix(digits, radix) {
        return Some(v as f64);
    }
    let mut f = 0.0f64;
    for c in digits.chars() {
        f = f * f64::from(radix) + f64::from(c.to_digit(radix)?);
    }
    Some(f)
}

/// mongosh stores a number that converts to a 32-bit integer as Int32 and any
/// other as Double (https://www.mongodb.com/docs/mongodb-shell/reference/data-types/).
/// `-0` stays a Double: the JS BSON serialiser checks `Object.is(value, -0)`.
pub fn typed_number(f: f64) -> Bson {
    if f.fract() == 0.0
        && (f64::from(i32::MIN)..=f64::from(i32::MAX)).contains(&f)
        && !(f == 0.0 && f.is_sign_negative())
    {
        Bson::Int32(f as i32)
    } else {
        Bson::Double(f)
    }
}

/// JavaScript `Number(string)` (StringToNumber).
pub fn js_string_to_number(s: &str) -> f64 {
    let t = s.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    if t.is_empty() {
        return 0.0;
    }
    match t {
        "Infinity" | "+Infinity" => return f64::INFINITY,
        "-Infinity" => return f64::NEG_INFINITY,
        _ => {}
    }
    let (digits, radix) = split_radix(t);
    if radix != 10 {
        return radix_value(digits, radix)
            .filter(|_| digits.bytes().all(|b| b.is_ascii_alphanumeric()))
            .unwrap_or(f64::NAN);
    }
    // Rust also reads "inf"/"nan"; JavaScript does not.
    if !t
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
    {
        return f64::NAN;
    }
    t.parse::<f64>().unwrap_or(f64::NAN)
}

/// JavaScript `parseInt(string, 10)`: leading whitespace, sign, then digits.
pub fn js_parse_int(s: &str) -> f64 {
    let t = s.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let end = t
        .bytes()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(t.len());
    if end == 0 {
        return f64::NAN;
    }
    let v = t[..end].parse::<f64>().unwrap_or(f64::NAN);
    if neg {
        -v
    } else {
        v
    }
}

/// JavaScript ToInt32: truncate, wrap modulo 2^32; NaN and infinities are 0.
pub fn to_int32(f: f64) -> i32 {
    if !f.is_finite() {
        return 0;
    }
    let m = f.trunc().rem_euclid(4294967296.0);
    (m as u32) as i32
}

/// JavaScript `Number.prototype.toString()` (shortest round-trip digits).
pub fn js_number_to_string(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        };
    }
    if f == 0.0 {
        return "0".into();
    }
    let sign = if f < 0.0 { "-" } else { "" };
    // `{:e}` gives the shortest digits: "1.2345e-7".
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let k = digits.len() as i64;
    let n = exp.parse::<i64>().unwrap_or(0) + 1;
    let body = if k <= n && n <= 21 {
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        format!("{}.{}", &digits[..n as usize], &digits[n as usize..])
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat((-n) as usize))
    } else {
        let e = n - 1;
        let esign = if e < 0 { '-' } else { '+' };
        if k == 1 {
            format!("{digits}e{esign}{}", e.abs())
        } else {
            format!("{}.{}e{esign}{}", &digits[..1], &digits[1..], e.abs())
        }
    };
    format!("{sign}{body}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals() {
        assert_eq!(number_literal("1_000"), Some(NumLit::Float(1000.0)));
        assert_eq!(number_literal("017"), Some(NumLit::Float(15.0)));
        assert_eq!(number_literal("018"), Some(NumLit::Float(18.0)));
        assert_eq!(number_literal("0b101"), Some(NumLit::Float(5.0)));
        assert_eq!(number_literal(".5"), Some(NumLit::Float(0.5)));
        assert_eq!(number_literal("5."), Some(NumLit::Float(5.0)));
        assert_eq!(number_literal("0x10n"), Some(NumLit::Big(16)));
        assert_eq!(number_literal("99999999999999999999n"), None);
    }

    #[test]
    fn to_string_like_js() {
        for (f, s) in [
            (1.0, "1"),
            (1.5, "1.5"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (1e-7, "1e-7"),
            (0.000001, "0.000001"),
            (-2.5e-10, "-2.5e-10"),
            (123456789.125, "123456789.125"),
            (0.1 + 0.2, "0.30000000000000004"),
        ] {
            assert_eq!(js_number_to_string(f), s);
        }
    }

    #[test]
    fn conversions() {
        assert_eq!(to_int32(2147483648.0), i32::MIN);
        assert_eq!(to_int32(-1.9), -1);
        assert_eq!(js_parse_int(" 12.9abc"), 12.0);
        assert!(js_parse_int("x").is_nan());
        assert_eq!(js_string_to_number(" 0x10 "), 16.0);
        assert_eq!(js_string_to_number(""), 0.0);
        assert!(js_string_to_number("inf").is_nan());
    }
}
