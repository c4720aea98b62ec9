//! Numbers across BSON's four numeric types. Comparison is by exact value
//! (an Int64 above 2^53 against a Double compares correctly); Decimal128 goes
//! through `bigdecimal` because `bson::Decimal128` only stores bytes.
use bigdecimal::BigDecimal;
use bson::{Bson, Decimal128};
use std::cmp::Ordering;
use std::str::FromStr;

/// A Decimal128 decoded for arithmetic and comparison.
#[derive(Clone, Debug, PartialEq)]
pub enum Dec {
    NaN,
    Inf(bool),
    Finite(BigDecimal),
}

/// Decode a Decimal128 through its canonical string form.
pub fn decode_decimal(d: &Decimal128) -> Dec {
    let text = d.to_string();
    match text.as_str() {
        "NaN" | "-NaN" => Dec::NaN,
        "Infinity" | "+Infinity" => Dec::Inf(true),
        "-Infinity" => Dec::Inf(false),
        _ => BigDecimal::from_str(&text).map_or(Dec::NaN, Dec::Finite),
    }
}

/// Is this value one of the four numeric types?
pub fn is_number(v: &Bson) -> bool {
    matches!(
        v,
        Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) | Bson::Decimal128(_)
    )
}

/// Compare two numeric values by exact value. NaN is equal to NaN and below
/// every other number (MongoDB's sort order). Returns None for non-numbers.
pub fn compare_numbers(a: &Bson, b: &Bson) -> Option<Ordering> {
    use Bson::*;
    Some(match (a, b) {
        (Int32(x), Int32(y)) => x.cmp(y),
        (Int32(x), Int64(y)) => i64::from(*x).cmp(y),
        (Int64(x), Int32(y)) => x.cmp(&i64::from(*y)),
        (Int64(x), Int64(y)) => x.cmp(y),
        (Double(x), Double(y)) => cmp_f64(*x, *y),
        (Int32(x), Double(y)) => cmp_i64_f64(i64::from(*x), *y),
        (Int64(x), Double(y)) => cmp_i64_f64(*x, *y),
        (Double(x), Int32(y)) => cmp_i64_f64(i64::from(*y), *x).reverse(),
        (Double(x), Int64(y)) => cmp_i64_f64(*y, *x).reverse(),
        (Decimal128(x), _) => cmp_dec(&decode_decimal(x), &to_dec(b)?),
        (_, Decimal128(y)) => cmp_dec(&to_dec(a)?, &decode_decimal(y)),
        _ => return None,
    })
}

/// Any numeric value as a decimal (exactly, for integers and doubles).
pub fn to_dec(v: &Bson) -> Option<Dec> {
    Some(match v {
        Bson::Int32(x) => Dec::Finite(BigDecimal::from(*x)),
        Bson::Int64(x) => Dec::Finite(BigDecimal::from(*x)),
        Bson::Double(x) => f64_to_dec(*x),
        Bson::Decimal128(d) => decode_decimal(d),
        _ => return None,
    })
}

pub fn f64_to_dec(x: f64) -> Dec {
    if x.is_nan() {
        Dec::NaN
    } else if x.is_infinite() {
        Dec::Inf(x > 0.0)
    } else {
        BigDecimal::try_from(x).map_or(Dec::NaN, Dec::Finite)
    }
}

fn cmp_dec(a: &Dec, b: &Dec) -> Ordering {
    use Dec::*;
    match (a, b) {
        (NaN, NaN) => Ordering::Equal,
        (NaN, _) => Ordering::Less,
        (_, NaN) => Ordering::Greater,
        (Inf(x), Inf(y)) => x.cmp(y),
        (Inf(pos), _) => {
            if *pos {
                Ordering::Greater
            } else {
                Ordering::Less
            }
        }
        (_, Inf(pos)) => {
            if *pos {
                Ordering::Less
            } else {
                Ordering::Greater
            }
        }
        (Finite(x), Finite(y)) => x.cmp(y),
    }
}

pub fn cmp_f64(x: f64, y: f64) -> Ordering {
    match (x.is_nan(), y.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        // -0.0 == 0.0 as MongoDB compares them.
        _ => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
    }
}

/// Exact comparison of an integer with a double, without rounding the integer.
pub fn cmp_i64_f64(i: i64, f: f64) -> Ordering {
    if f.is_nan() {
        return Ordering::Greater;
    }
    // 2^63 is exactly representable; every i64 is below it.
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if f >= TWO_63 {
        return Ordering::Less;
    }
    if f < -TWO_63 {
        return Ordering::Greater;
    }
    let t = f.trunc();
    // t is integral and in range, so the cast is exact.
    let ti = t as i64;
    match i.cmp(&ti) {
        Ordering::Equal => {
            let frac = f - t;
            if frac > 0.0 {
                Ordering::Less
            } else if frac < 0.0 {
                Ordering::Greater
            } else {
                Ordering::Equal
            }
        }
        other => other,
    }
}

/// A numeric value as f64 (lossy for large Int64 and Decimal128).
pub fn to_f64(v: &Bson) -> Option<f64> {
    match v {
        Bson::Int32(x) => Some(f64::from(*x)),
        Bson::Int64(x) => Some(*x as f64),
        Bson::Double(x) => Some(*x),
        Bson::Decimal128(d) => d.to_string().parse::<f64>().ok().or(Some(f64::NAN)),
        _ => None,
    }
}

/// A numeric value as i64 when it is integral and in range (no rounding).
pub fn to_i64_exact(v: &Bson) -> Option<i64> {
    match v {
        Bson::Int32(x) => Some(i64::from(*x)),
        Bson::Int64(x) => Some(*x),
        Bson::Double(x)
            if x.fract() == 0.0 && *x >= -9.223372036854776e18 && *x < 9.223372036854776e18 =>
        {
            Some(*x as i64)
        }
        Bson::Decimal128(d) => match decode_decimal(d) {
            Dec::Finite(b) if b.is_integer() => {
                i64::try_from(b.with_scale(0).into_bigint_and_exponent().0).ok()
            }
            _ => None,
        },
        _ => None,
    }
}

/// Decimal128 keeps 34 significant digits.
pub const DEC_DIGITS: u64 = 34;

/// Encode a decimal as a `bson::Decimal128`, rounding to 34 significant digits
/// (ties to even); too large becomes ±Infinity, too small 0.
pub fn dec_to_decimal128(d: &Dec) -> Decimal128 {
    let text = match d {
        Dec::NaN => "NaN".to_string(),
        Dec::Inf(true) => "Infinity".to_string(),
        Dec::Inf(false) => "-Infinity".to_string(),
        Dec::Finite(b) => {
            let b = round_sig(b, DEC_DIGITS);
            let (int, scale) = b.as_bigint_and_exponent();
            let text = format!("{int}E{}", -scale);
            if let Ok(v) = Decimal128::from_str(&text) {
                return v;
            }
            // Out of the exponent range: below the smallest subnormal rounds to a
            // representable scale, above the largest overflows.
            if scale > 0 {
                let r = b.with_scale_round(6176, bigdecimal::RoundingMode::HalfEven);
                let (int, scale) = r.as_bigint_and_exponent();
                format!("{int}E{}", -scale)
            } else if b.sign() == bigdecimal::num_bigint::Sign::Minus {
                "-Infinity".to_string()
            } else {
                "Infinity".to_string()
            }
        }
    };
    Decimal128::from_str(&text)
        .or_else(|_| Decimal128::from_str("0"))
        .unwrap_or_else(|_| Decimal128::from_bytes([0; 16]))
}

/// Whether a number's sign bit is set: negative values, and the negative
/// zeros of doubles and decimals (`NumberDecimal("-0")`).
pub fn sign_bit(v: &Bson) -> bool {
    match v {
        Bson::Int32(i) => *i < 0,
        Bson::Int64(i) => *i < 0,
        Bson::Double(x) => x.is_sign_negative(),
        // The top bit of the little-endian encoding, in every form.
        Bson::Decimal128(d) => d.bytes()[15] & 0x80 != 0,
        _ => false,
    }
}

/// A product's or quotient's decimal: a zero takes the XOR of the operands'
/// signs (`negative`) as IEEE 754 decimal arithmetic does (-0 × 5 = -0,
/// -5 × 0 = -0, 0 / -5 = -0), its exponent kept; `Dec` has no signed zero.
pub fn signed_product_bson(d: &Dec, negative: bool) -> Bson {
    let out = dec_to_decimal128(d);
    let zero = matches!(d, Dec::Finite(b) if b.sign() == bigdecimal::num_bigint::Sign::NoSign);
    if zero && negative {
        let mut bytes = out.bytes();
        bytes[15] |= 0x80;
        return Bson::Decimal128(Decimal128::from_bytes(bytes));
    }
    Bson::Decimal128(out)
}

/// A decimal as a BSON value.
pub fn dec_bson(d: &Dec) -> Bson {
    Bson::Decimal128(dec_to_decimal128(d))
}

/// Round to `digits` significant digits, ties to even.
pub fn round_sig(b: &BigDecimal, digits: u64) -> BigDecimal {
    if b.digits() <= digits {
        return b.clone();
    }
    match std::num::NonZeroU64::new(digits) {
        Some(p) => b.with_precision_round(p, bigdecimal::RoundingMode::HalfEven),
        None => b.clone(),
    }
}

/// MongoDB's `Decimal128(double)`: 15 significant digits, trailing zeros kept
/// (`2.5` → `2.50000000000000`). Used by `coerceToDecimal`, `$toDecimal`.
pub fn f64_to_dec15(x: f64) -> Dec {
    if x.is_nan() {
        return Dec::NaN;
    }
    if x.is_infinite() {
        return Dec::Inf(x > 0.0);
    }
    if x == 0.0 {
        return Dec::Finite(BigDecimal::from(0));
    }
    BigDecimal::from_str(&format!("{x:.14e}")).map_or(Dec::NaN, Dec::Finite)
}

/// `Decimal128(double, kRoundTo34Digits)`: the exact binary value to 34 digits.
pub fn f64_to_dec34(x: f64) -> Dec {
    match f64_to_dec(x) {
        Dec::Finite(b) => Dec::Finite(round_sig(&b, DEC_DIGITS)),
        other => other,
    }
}

/// A decimal as f64 (nearest).
pub fn dec_to_f64(d: &Dec) -> f64 {
    match d {
        Dec::NaN => f64::NAN,
        Dec::Inf(true) => f64::INFINITY,
        Dec::Inf(false) => f64::NEG_INFINITY,
        Dec::Finite(b) => b.to_string().parse::<f64>().unwrap_or(f64::NAN),
    }
}

/// MongoDB's `coerceToDecimal`: integers exactly, doubles to 15 digits.
pub fn coerce_dec(v: &Bson) -> Option<Dec> {
    match v {
        Bson::Double(x) => Some(f64_to_dec15(*x)),
        other => to_dec(other),
    }
}

/// Int32 if it fits, else Int64 (`Value::createIntOrLong`).
pub fn int_or_long(i: i64) -> Bson {
    match i32::try_from(i) {
        Ok(x) => Bson::Int32(x),
        Err(_) => Bson::Int64(i),
    }
}

/// Numeric type width: Int32 < Int64 < Double < Decimal128 (`getWidestNumeric`).
pub fn numeric_width(v: &Bson) -> Option<u8> {
    match v {
        Bson::Int32(_) => Some(0),
        Bson::Int64(_) => Some(1),
        Bson::Double(_) => Some(2),
        Bson::Decimal128(_) => Some(3),
        _ => None,
    }
}

/// A numeric value as i64, truncating doubles/decimals (`coerceToLong`); saturates.
pub fn coerce_i64(v: &Bson) -> Option<i64> {
    match v {
        Bson::Int32(x) => Some(i64::from(*x)),
        Bson::Int64(x) => Some(*x),
        Bson::Double(x) => Some(if x.is_nan() { 0 } else { *x as i64 }),
        Bson::Decimal128(_) => to_f64(v).map(|x| if x.is_nan() { 0 } else { x as i64 }),
        _ => None,
    }
}

/// A double as the server's `StringBuilder` prints it (`str::stream() <<
/// double`): C's `%g`, six significant digits, exponent form outside
/// 1e-4..1e6. Used by `$type`'s error texts and `coerceToString`.
pub fn printf_g(x: f64) -> String {
    printf_g_digits(x, 6)
}

/// C's `%.<digits>g` (`digits` ≥ 1 significant digits).
pub fn printf_g_digits(x: f64, digits: usize) -> String {
    let digits = digits.max(1);
    if x.is_nan() {
        return "nan".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    let sci = format!("{x:.*e}", digits - 1);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let trim = |s: &str| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if exp < -4 || exp >= digits as i32 {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa), exp.abs())
    } else {
        let decimals = usize::try_from(digits as i32 - 1 - exp).unwrap_or(0);
        trim(&format!("{x:.decimals$}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printf_g_matches_c() {
        for (x, s) in [
            (99.0, "99"),
            (2.5, "2.5"),
            (1e20, "1e+20"),
            (12345678.0, "1.23457e+07"),
            (123456.0, "123456"),
            (0.0001, "0.0001"),
            (0.00001234, "1.234e-05"),
            (-0.0, "-0"),
            (-2.0, "-2"),
            (f64::NAN, "nan"),
            (1234567.5, "1.23457e+06"),
            (0.30000000000000004, "0.3"),
            (999999.5, "1e+06"),
            (-1.5e-300, "-1.5e-300"),
        ] {
            assert_eq!(printf_g(x), s, "{x}");
        }
    }

    #[test]
    fn exact_cross_type() {
        let big = Bson::Int64((1 << 53) + 1);
        let d = Bson::Double((1u64 << 53) as f64);
        assert_eq!(compare_numbers(&big, &d), Some(Ordering::Greater));
        assert_eq!(
            compare_numbers(&Bson::Int32(1), &Bson::Double(1.0)),
            Some(Ordering::Equal)
        );
        assert_eq!(
            compare_numbers(&Bson::Double(f64::NAN), &Bson::Int32(i32::MIN)),
            Some(Ordering::Less)
        );
        let dec = Bson::Decimal128(Decimal128::from_str("1.0").unwrap_or_else(|_| unreachable!()));
        assert_eq!(
            compare_numbers(&dec, &Bson::Int32(1)),
            Some(Ordering::Equal)
        );
        assert_eq!(
            compare_numbers(&Bson::Double(0.5), &Bson::Int32(0)),
            Some(Ordering::Greater)
        );
        assert_eq!(
            compare_numbers(&Bson::Double(-0.5), &Bson::Int64(0)),
            Some(Ordering::Less)
        );
        assert_eq!(to_i64_exact(&Bson::Double(3.0)), Some(3));
    }
}
