//! Running sums as MongoDB's `$sum`/`$avg` keep them (accumulator_sum.cpp), for
//! `$group`, windows and the expression forms alike:
//! the result type is the widest input type (int < long < double < decimal),
//! an int total that leaves int32 becomes a long and a long total that leaves
//! int64 becomes a double; doubles are added with a double-double
//! (compensated) summation so `0.1 + 0.2 + 0.3` rounds as the server does.
use crate::value::numeric::{decode_decimal, round_sig, to_f64, Dec, DEC_DIGITS};
use bigdecimal::BigDecimal;
use bson::{Bson, Decimal128};
use std::str::FromStr;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Width {
    Int,
    Long,
    Double,
    Decimal,
}

#[derive(Clone, Debug)]
pub struct SumState {
    width: Width,
    ints: i128,
    /// Double-double total of the double inputs: `hi + lo`.
    hi: f64,
    lo: f64,
    /// Infinities and NaNs, kept apart so they do not poison the compensation term.
    special: f64,
    dec: Option<BigDecimal>,
    dec_special: Option<Dec>,
}

impl Default for SumState {
    fn default() -> Self {
        SumState {
            width: Width::Int,
            ints: 0,
            hi: 0.0,
            lo: 0.0,
            special: 0.0,
            dec: None,
            dec_special: None,
        }
    }
}

/// Knuth's two-sum: `a + b = s + err` exactly.
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let err = (a - (s - bb)) + (b - bb);
    (s, err)
}

impl SumState {
    /// Add a value; non-numbers are ignored (returns false).
    pub fn add(&mut self, v: &Bson) -> bool {
        match v {
            Bson::Int32(i) => self.ints += i128::from(*i),
            Bson::Int64(i) => {
                self.width = self.width.max(Width::Long);
                self.ints += i128::from(*i);
            }
            Bson::Double(d) => {
                self.width = self.width.max(Width::Double);
                self.add_double(*d);
            }
            Bson::Decimal128(d) => {
                self.width = Width::Decimal;
                match decode_decimal(d) {
                    Dec::Finite(b) => {
                        // Each addition rounds to Decimal128's 34 digits, as the
                        // server's `decimalTotal.add(...)` does: [1E34, 1, -1E34] sums to 0.
                        let total = self.dec.take().unwrap_or_default() + b;
                        self.dec = Some(round_sig(&total, DEC_DIGITS));
                    }
                    special => {
                        self.dec_special = Some(match (self.dec_special.take(), special) {
                            (None, s) => s,
                            (Some(Dec::Inf(a)), Dec::Inf(b)) if a == b => Dec::Inf(a),
                            _ => Dec::NaN,
                        })
                    }
                }
            }
            _ => return false,
        }
        true
    }

    fn add_double(&mut self, d: f64) {
        if !d.is_finite() {
            self.special += d;
            return;
        }
        let (s, e) = two_sum(self.hi, d);
        let lo = self.lo + e;
        let (hi, lo) = two_sum(s, lo);
        self.hi = hi;
        self.lo = lo;
    }

    pub fn width(&self) -> Width {
        self.width
    }

    /// The non-decimal total as a double (ints and doubles together).
    pub fn to_f64(&self) -> f64 {
        if self.special != 0.0 || self.special.is_nan() {
            return self.special + self.hi;
        }
        let ih = self.ints as f64;
        let il = (self.ints - ih as i128) as f64;
        let (s, e) = two_sum(self.hi, ih);
        let lo = self.lo + e + il;
        s + lo
    }

    /// The sum as MongoDB reports it.
    pub fn result(&self) -> Bson {
        match self.width {
            Width::Int | Width::Long => match i64::try_from(self.ints) {
                Ok(n) => match (self.width, i32::try_from(n)) {
                    (Width::Int, Ok(i)) => Bson::Int32(i),
                    _ => Bson::Int64(n),
                },
                Err(_) => Bson::Double(self.to_f64()),
            },
            Width::Double => Bson::Double(self.to_f64()),
            Width::Decimal => self.decimal_total(),
        }
    }

    /// Everything added as a decimal.
    pub fn decimal_total(&self) -> Bson {
        if let Some(s) = &self.dec_special {
            return special_decimal(s);
        }
        if self.special != 0.0 || self.special.is_nan() {
            return f64_decimal(self.special);
        }
        let mut total = self.dec.clone().unwrap_or_default() + BigDecimal::from(self.ints);
        for part in [self.hi, self.lo] {
            if let Ok(b) = BigDecimal::try_from(part) {
                total += b;
            }
        }
        big_to_bson(&total)
    }
}

fn special_decimal(d: &Dec) -> Bson {
    let text = match d {
        Dec::NaN => "NaN",
        Dec::Inf(true) => "Infinity",
        Dec::Inf(false) => "-Infinity",
        Dec::Finite(b) => return big_to_bson(b),
    };
    Decimal128::from_str(text).map_or(Bson::Null, Bson::Decimal128)
}

/// A double as a Decimal128 (for results MongoDB computes in decimal).
pub fn f64_to_decimal(f: f64) -> Bson {
    match BigDecimal::try_from(f) {
        Ok(b) if f.is_finite() => big_to_bson(&b.with_prec(15).normalized()),
        _ => f64_decimal(f),
    }
}

fn f64_decimal(f: f64) -> Bson {
    special_decimal(&crate::value::numeric::f64_to_dec(f))
}

/// A BigDecimal rounded to Decimal128's 34 significant digits (half to
/// even; beyond the exponent range ±Infinity or a zero).
pub fn big_to_bson(b: &BigDecimal) -> Bson {
    crate::value::numeric::dec_bson(&Dec::Finite(b.clone()))
}

/// Any number as a decimal value (for `$avg` of decimals).
pub fn to_big(v: &Bson) -> Option<BigDecimal> {
    match crate::value::numeric::to_dec(v)? {
        Dec::Finite(b) => Some(b),
        _ => None,
    }
}

/// `$avg`: a double (a decimal when any input was one); null without numbers.
pub fn avg(s: &SumState, count: u64) -> Bson {
    if count == 0 {
        return Bson::Null;
    }
    if s.width() == Width::Decimal {
        return match s.decimal_total() {
            Bson::Decimal128(d) => match to_big(&Bson::Decimal128(d)) {
                Some(total) => big_to_bson(&(total / BigDecimal::from(count))),
                None => Bson::Decimal128(d),
            },
            other => other,
        };
    }
    Bson::Double(s.to_f64() / count as f64)
}

/// Counts are Int32 when they fit (`$count`, `$sortByCount`), as `$sum: 1` gives.
pub fn count_value(n: usize) -> Bson {
    i32::try_from(n).map_or(Bson::Int64(n as i64), Bson::Int32)
}

/// A number as f64 for `$stdDev*`, `$avg` and window arithmetic.
pub fn as_f64(v: &Bson) -> Option<f64> {
    to_f64(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sum(vals: &[Bson]) -> Bson {
        let mut s = SumState::default();
        for v in vals {
            s.add(v);
        }
        s.result()
    }

    #[test]
    fn widening() {
        assert_eq!(sum(&[Bson::Int32(1), Bson::Int32(2)]), Bson::Int32(3));
        assert_eq!(
            sum(&[Bson::Int32(i32::MAX), Bson::Int32(1)]),
            Bson::Int64(i64::from(i32::MAX) + 1)
        );
        assert_eq!(sum(&[Bson::Int64(1), Bson::Int32(2)]), Bson::Int64(3));
        assert_eq!(
            sum(&[Bson::Int64(i64::MAX), Bson::Int64(1)]),
            Bson::Double(9.223_372_036_854_776e18)
        );
        assert_eq!(sum(&[Bson::Int32(1), Bson::Double(0.5)]), Bson::Double(1.5));
        assert_eq!(sum(&[]), Bson::Int32(0));
        assert_eq!(
            sum(&[Bson::Double(0.1), Bson::Double(0.2), Bson::Double(0.3)]),
            Bson::Double(0.6)
        );
        let d = Decimal128::from_str("1.5").unwrap_or_else(|_| unreachable!());
        assert_eq!(
            sum(&[Bson::Int32(1), Bson::Decimal128(d)]).to_string(),
            Bson::Decimal128(Decimal128::from_str("2.5").unwrap_or_else(|_| unreachable!()))
                .to_string()
        );
    }
}
