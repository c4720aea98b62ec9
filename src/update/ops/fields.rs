//! Field operators on single values: `$inc`/`$mul` arithmetic with MongoDB's
//! type promotion (SafeNum), `$min`/`$max`, `$currentDate`.
//! https://www.mongodb.com/docs/manual/reference/operator/update/inc/
//! https://www.mongodb.com/docs/manual/reference/operator/update/mul/
use crate::value::numeric::{dec_bson, decode_decimal, sign_bit, signed_product_bson, Dec};
use bigdecimal::{BigDecimal, Zero};
use bson::Bson;
use std::str::FromStr;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arith {
    Add,
    Mul,
}

impl Arith {
    pub fn modifier(self) -> &'static str {
        match self {
            Arith::Add => "$inc",
            Arith::Mul => "$mul",
        }
    }
    pub fn verb(self) -> &'static str {
        match self {
            Arith::Add => "increment",
            Arith::Mul => "multiply",
        }
    }
}

/// `a op b` with SafeNum's promotion: int32 overflow widens to int64, int64
/// overflow is an error (`None`), doubles win over integers, decimals over all.
pub fn arith(op: Arith, a: &Bson, b: &Bson) -> Option<Bson> {
    use Bson::*;
    Some(match (a, b) {
        (Decimal128(_), _) | (_, Decimal128(_)) => decimal_arith(op, a, b)?,
        (Double(_), _) | (_, Double(_)) => {
            let (x, y) = (as_f64(a)?, as_f64(b)?);
            Double(match op {
                Arith::Add => x + y,
                Arith::Mul => x * y,
            })
        }
        (Int32(x), Int32(y)) => {
            let r = match op {
                Arith::Add => x.checked_add(*y),
                Arith::Mul => x.checked_mul(*y),
            };
            match r {
                Some(v) => Int32(v),
                None => {
                    let (x, y) = (i64::from(*x), i64::from(*y));
                    Int64(match op {
                        Arith::Add => x + y,
                        Arith::Mul => x * y,
                    })
                }
            }
        }
        _ => {
            let (x, y) = (as_i64(a)?, as_i64(b)?);
            Int64(match op {
                Arith::Add => x.checked_add(y)?,
                Arith::Mul => x.checked_mul(y)?,
            })
        }
    })
}

fn as_f64(v: &Bson) -> Option<f64> {
    match v {
        Bson::Int32(x) => Some(f64::from(*x)),
        Bson::Int64(x) => Some(*x as f64),
        Bson::Double(x) => Some(*x),
        _ => None,
    }
}

fn as_i64(v: &Bson) -> Option<i64> {
    match v {
        Bson::Int32(x) => Some(i64::from(*x)),
        Bson::Int64(x) => Some(*x),
        _ => None,
    }
}

/// A number as the server's Decimal128 sees it: doubles are rounded to 15
/// significant digits first (Decimal128's kRoundTo15Digits).
fn to_decimal(v: &Bson) -> Option<Dec> {
    match v {
        Bson::Double(x) if x.is_nan() => Some(Dec::NaN),
        Bson::Double(x) if x.is_infinite() => Some(Dec::Inf(*x > 0.0)),
        Bson::Double(x) => BigDecimal::from_str(&format!("{x:.14e}"))
            .ok()
            .map(Dec::Finite),
        Bson::Int32(x) => Some(Dec::Finite(BigDecimal::from(*x))),
        Bson::Int64(x) => Some(Dec::Finite(BigDecimal::from(*x))),
        Bson::Decimal128(d) => Some(decode_decimal(d)),
        _ => None,
    }
}

fn decimal_arith(op: Arith, a: &Bson, b: &Bson) -> Option<Bson> {
    let (x, y) = (to_decimal(a)?, to_decimal(b)?);
    let r = match (op, x, y) {
        (_, Dec::NaN, _) | (_, _, Dec::NaN) => Dec::NaN,
        (Arith::Add, Dec::Inf(p), Dec::Inf(q)) => {
            if p == q {
                Dec::Inf(p)
            } else {
                Dec::NaN
            }
        }
        (Arith::Add, Dec::Inf(p), _) | (Arith::Add, _, Dec::Inf(p)) => Dec::Inf(p),
        (Arith::Add, Dec::Finite(p), Dec::Finite(q)) => {
            let r = &p + &q;
            if r.is_zero() {
                // An exact zero sum keeps the smaller exponent (the sum's
                // scale) and is positive (IEEE 754, rounding to nearest:
                // -1.5 + 1.5 = 0.0), except -0 + -0 = -0.
                let negative = sign_bit(a) && sign_bit(b);
                return Some(signed_product_bson(&Dec::Finite(r), negative));
            }
            Dec::Finite(r)
        }
        (Arith::Mul, Dec::Inf(p), Dec::Inf(q)) => Dec::Inf(p == q),
        (Arith::Mul, Dec::Inf(p), Dec::Finite(q)) | (Arith::Mul, Dec::Finite(q), Dec::Inf(p)) => {
            use bigdecimal::Signed;
            if q.is_zero() {
                Dec::NaN
            } else {
                Dec::Inf(p == q.is_positive())
            }
        }
        (Arith::Mul, Dec::Finite(p), Dec::Finite(q)) => {
            // IEEE 754 decimal multiplication keeps a zero's exponent (the sum
            // of the operands') and sign (their XOR): $mul of a missing field
            // by 1.25 stores 0.00, by -1.5 stores -0.0. The signs come from the
            // operands themselves: `Dec` has no -0.
            let r = crate::expr::ops::decimal::mul_exact(&p, &q);
            return Some(signed_product_bson(
                &Dec::Finite(r),
                sign_bit(a) != sign_bit(b),
            ));
        }
    };
    // Rounded to 34 significant digits, as the server stores a Decimal128.
    Some(dec_bson(&r))
}

/// `$mul` on a missing field stores 0 of the operand's type (operand × int 0).
pub fn zero_like(operand: &Bson) -> Bson {
    arith(Arith::Mul, operand, &Bson::Int32(0)).unwrap_or(Bson::Int32(0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::bson;

    #[test]
    fn decimal_zero_products_keep_exponent_and_sign() {
        let d = |s: &str| Bson::Decimal128(s.parse().unwrap_or_else(|_| unreachable!()));
        assert_eq!(zero_like(&d("1.25")).to_string(), d("0.00").to_string());
        assert_eq!(zero_like(&d("-1.5")).to_string(), d("-0.0").to_string());
        assert_eq!(zero_like(&d("100")).to_string(), d("0").to_string());
        assert_eq!(
            arith(Arith::Add, &d("-1.5"), &d("1.50")).map(|b| b.to_string()),
            Some(d("0.00").to_string())
        );
    }

    #[test]
    fn promotion() {
        assert_eq!(
            arith(Arith::Add, &bson!(i32::MAX), &bson!(1)),
            Some(Bson::Int64(i64::from(i32::MAX) + 1))
        );
        assert_eq!(arith(Arith::Add, &Bson::Int64(i64::MAX), &bson!(1)), None);
        assert_eq!(arith(Arith::Mul, &bson!(3), &bson!(2.5)), Some(bson!(7.5)));
        assert_eq!(zero_like(&Bson::Int64(5)), Bson::Int64(0));
        assert_eq!(zero_like(&bson!(2.5)), bson!(0.0));
        let d = arith(
            Arith::Add,
            &Bson::Decimal128(bson::Decimal128::from_str("1.5").unwrap_or_else(|_| unreachable!())),
            &bson!(1),
        );
        assert_eq!(d.map(|v| v.to_string()), Some("2.5".to_string()));
    }
}
