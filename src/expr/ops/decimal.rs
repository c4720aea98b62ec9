//! Decimal128 arithmetic on `Dec` (bigdecimal), with IEEE special values.
//! Results are rounded to 34 significant digits when encoded.
use crate::value::numeric::{round_sig, Dec, DEC_DIGITS};
use bigdecimal::{BigDecimal, RoundingMode};
use std::str::FromStr;

/// Working precision for transcendental functions (a few guard digits).
const WORK: u64 = 40;

fn zero() -> BigDecimal {
    BigDecimal::from(0)
}

pub(crate) fn is_zero(d: &Dec) -> bool {
    matches!(d, Dec::Finite(b) if b == &zero())
}
pub(crate) fn is_negative(d: &Dec) -> bool {
    match d {
        Dec::Finite(b) => b < &zero(),
        Dec::Inf(pos) => !pos,
        Dec::NaN => false,
    }
}
pub(crate) fn is_positive(d: &Dec) -> bool {
    match d {
        Dec::Finite(b) => b > &zero(),
        Dec::Inf(pos) => *pos,
        Dec::NaN => false,
    }
}
pub(crate) fn is_one(d: &Dec) -> bool {
    matches!(d, Dec::Finite(b) if b == &BigDecimal::from(1))
}

pub(crate) fn add(a: &Dec, b: &Dec) -> Dec {
    match (a, b) {
        (Dec::NaN, _) | (_, Dec::NaN) => Dec::NaN,
        (Dec::Inf(x), Dec::Inf(y)) if x != y => Dec::NaN,
        (Dec::Inf(x), _) | (_, Dec::Inf(x)) => Dec::Inf(*x),
        // One Decimal128 operation: rounded to 34 digits (half to even).
        (Dec::Finite(x), Dec::Finite(y)) => Dec::Finite(round_sig(&(x + y), DEC_DIGITS)),
    }
}

pub(crate) fn neg(a: &Dec) -> Dec {
    match a {
        Dec::NaN => Dec::NaN,
        Dec::Inf(x) => Dec::Inf(!x),
        Dec::Finite(b) => Dec::Finite(-b),
    }
}

pub(crate) fn sub(a: &Dec, b: &Dec) -> Dec {
    add(a, &neg(b))
}

pub(crate) fn abs(a: &Dec) -> Dec {
    match a {
        Dec::Inf(_) => Dec::Inf(true),
        Dec::Finite(b) => Dec::Finite(b.abs()),
        Dec::NaN => Dec::NaN,
    }
}

/// `x × y` with the IEEE exponent (the sum of the operands'): bigdecimal's
/// `&x * &y` returns the other operand normalized when one equals 1, so
/// 1.00 × 3 came out as 3, not 3.00.
pub(crate) fn mul_exact(x: &BigDecimal, y: &BigDecimal) -> BigDecimal {
    let (xi, xs) = x.as_bigint_and_exponent();
    let (yi, ys) = y.as_bigint_and_exponent();
    BigDecimal::new(xi * yi, xs + ys)
}

pub(crate) fn mul(a: &Dec, b: &Dec) -> Dec {
    match (a, b) {
        (Dec::NaN, _) | (_, Dec::NaN) => Dec::NaN,
        (Dec::Inf(_), other) | (other, Dec::Inf(_)) if is_zero(other) => Dec::NaN,
        (Dec::Finite(x), Dec::Finite(y)) => Dec::Finite(round_sig(&mul_exact(x, y), DEC_DIGITS)),
        _ => Dec::Inf(is_negative(a) == is_negative(b)),
    }
}

/// IEEE division: an exact quotient keeps the ideal exponent (exp(a) - exp(b)),
/// an inexact one has 34 digits.
pub(crate) fn div(a: &Dec, b: &Dec) -> Dec {
    match (a, b) {
        (Dec::NaN, _) | (_, Dec::NaN) => Dec::NaN,
        (Dec::Inf(_), Dec::Inf(_)) => Dec::NaN,
        (Dec::Inf(x), _) => Dec::Inf(*x != is_negative(b)),
        (Dec::Finite(_), Dec::Inf(_)) => Dec::Finite(zero()),
        (Dec::Finite(x), Dec::Finite(y)) => {
            if y == &zero() {
                return if x == &zero() {
                    Dec::NaN
                } else {
                    Dec::Inf((x < &zero()) == (y < &zero()))
                };
            }
            let q = round_sig(&(x / y), DEC_DIGITS);
            let ideal = x.fractional_digit_count() - y.fractional_digit_count();
            if &(&q * y) != x {
                return Dec::Finite(q);
            }
            // Exact: trailing zeros stripped, then padded back toward the ideal exponent.
            let n = q.normalized();
            let cur = n.fractional_digit_count();
            let room = (DEC_DIGITS as i64 - n.digits() as i64).max(0);
            let target = if ideal > cur {
                cur + (ideal - cur).min(room)
            } else {
                cur
            };
            Dec::Finite(n.with_scale(target))
        }
    }
}

/// Remainder with the sign of the dividend (`Decimal128::modulo`).
pub(crate) fn rem(a: &Dec, b: &Dec) -> Dec {
    match (a, b) {
        (Dec::Finite(x), Dec::Finite(y)) if y != &zero() => Dec::Finite(x % y),
        (Dec::Finite(_), Dec::Inf(_)) => a.clone(),
        _ => Dec::NaN,
    }
}

/// Round to `places` digits after the point (negative: before it).
pub(crate) fn quantize(d: &Dec, places: i64, mode: RoundingMode) -> Dec {
    match d {
        Dec::Finite(b) => Dec::Finite(b.with_scale_round(places, mode)),
        other => other.clone(),
    }
}

/// A decimal to i64 rounding half to even; None when out of range or not finite.
pub(crate) fn dec_to_i64_round(d: &Dec) -> Option<i64> {
    match d {
        Dec::Finite(b) => {
            let r = b.with_scale_round(0, RoundingMode::HalfEven);
            let (int, _) = r.as_bigint_and_exponent();
            i64::try_from(int).ok()
        }
        _ => None,
    }
}

/// A decimal to i64 truncating toward zero; None when out of range or not finite.
pub(crate) fn dec_to_i64_trunc(d: &Dec) -> Option<i64> {
    match d {
        Dec::Finite(b) => {
            let r = b.with_scale_round(0, RoundingMode::Down);
            let (int, _) = r.as_bigint_and_exponent();
            i64::try_from(int).ok()
        }
        _ => None,
    }
}

pub(crate) fn sqrt(d: &Dec) -> Dec {
    match d {
        Dec::Finite(b) if b >= &zero() => {
            let ctx = bigdecimal::Context::default()
                .with_prec(WORK)
                .unwrap_or_default();
            match b.sqrt_with_context(&ctx) {
                Some(r) => {
                    let r = round_sig(&r, DEC_DIGITS);
                    let n = r.normalized();
                    // An exact root prints without padding zeros (sqrt(4) = 2).
                    if &(&n * &n) == b {
                        Dec::Finite(if n.fractional_digit_count() < 0 {
                            n.with_scale(0)
                        } else {
                            n
                        })
                    } else {
                        Dec::Finite(r)
                    }
                }
                None => Dec::NaN,
            }
        }
        Dec::Inf(true) => Dec::Inf(true),
        _ => Dec::NaN,
    }
}

pub(crate) fn exp(d: &Dec) -> Dec {
    match d {
        Dec::Finite(b) => {
            // Past e^±14000 the result leaves Decimal128's range.
            if b > &BigDecimal::from(14_200) {
                return Dec::Inf(true);
            }
            if b < &BigDecimal::from(-14_200) {
                return Dec::Finite(zero());
            }
            let ctx = bigdecimal::Context::default()
                .with_prec(WORK)
                .unwrap_or_default();
            Dec::Finite(round_sig(&b.exp_with_context(&ctx), DEC_DIGITS))
        }
        Dec::Inf(true) => Dec::Inf(true),
        Dec::Inf(false) => Dec::Finite(zero()),
        Dec::NaN => Dec::NaN,
    }
}

/// Natural logarithm: an f64 estimate refined by Newton steps on e^y = x.
pub(crate) fn ln(d: &Dec) -> Dec {
    match d {
        Dec::Finite(b) if b > &zero() => {
            if b == &BigDecimal::from(1) {
                return Dec::Finite(zero());
            }
            // Scale into f64 range: x = m * 10^k.
            let k = b.order_of_magnitude();
            let m = b * BigDecimal::new(1.into(), k); // b / 10^k
            let ln10 = ln10();
            let mf = m.to_string().parse::<f64>().unwrap_or(1.0);
            let mut y = BigDecimal::from_str(&format!("{:e}", mf.ln())).unwrap_or_else(|_| zero());
            let ctx = bigdecimal::Context::default()
                .with_prec(WORK)
                .unwrap_or_default();
            for _ in 0..4 {
                let e = y.exp_with_context(&ctx);
                // Newton: y += (m - e^y) / e^y
                let step = ((&m - &e) / &e).with_prec(WORK);
                y = (&y + step).with_prec(WORK);
            }
            let r = y + ln10 * BigDecimal::from(k);
            Dec::Finite(round_sig(&r, DEC_DIGITS))
        }
        Dec::Inf(true) => Dec::Inf(true),
        Dec::Finite(b) if b == &zero() => Dec::Inf(false),
        _ => Dec::NaN,
    }
}

fn ln10() -> BigDecimal {
    BigDecimal::from_str("2.302585092994045684017991454684364207601101488628772976033")
        .unwrap_or_else(|_| zero())
}

pub(crate) fn log10(d: &Dec) -> Dec {
    if let Dec::Finite(b) = d {
        // Exact powers of ten give exact integers.
        let n = b.normalized();
        let (int, scale) = n.as_bigint_and_exponent();
        if int == 1.into() {
            return Dec::Finite(BigDecimal::from(-scale));
        }
    }
    match ln(d) {
        Dec::Finite(l) => Dec::Finite(round_sig(&(l / ln10()), DEC_DIGITS)),
        other => other,
    }
}

pub(crate) fn pow(b: &Dec, e: &Dec) -> Dec {
    match (b, e) {
        (Dec::Finite(x), Dec::Finite(y)) => {
            if y.is_integer() && y.abs() <= 10_000 {
                let n = i64::try_from(y.with_scale(0).as_bigint_and_exponent().0).unwrap_or(0);
                let ctx = bigdecimal::Context::default()
                    .with_prec(WORK)
                    .unwrap_or_default();
                if x == &zero() {
                    return Dec::Finite(if n == 0 { BigDecimal::from(1) } else { zero() });
                }
                let r = x.powi_with_context(n, &ctx);
                return Dec::Finite(round_sig(&r, DEC_DIGITS));
            }
            if x < &zero() {
                return Dec::NaN;
            }
            // x^y = e^(y ln x)
            match ln(b) {
                Dec::Finite(l) => exp(&Dec::Finite(l * y)),
                other => other,
            }
        }
        _ => {
            let (xf, yf) = (
                crate::value::numeric::dec_to_f64(b),
                crate::value::numeric::dec_to_f64(e),
            );
            crate::value::numeric::f64_to_dec(xf.powf(yf))
        }
    }
}
