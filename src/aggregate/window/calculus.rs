//! `$derivative` and `$integral`: slopes and trapezoid areas over a window,
//! in the server's Value arithmetic (doubles, or decimals when a decimal is
//! involved). See https://www.mongodb.com/docs/manual/reference/operator/aggregation/derivative/
//! and https://www.mongodb.com/docs/manual/reference/operator/aggregation/integral/
use crate::aggregate::operand::Operand;
use crate::error::{Error, Result};
use crate::expr::ops::decimal as dops;
use crate::expr::sum::SumState;
use crate::expr::Scope;
use crate::text::shell::type_name;
use crate::value::numeric::{
    dec_bson, f64_to_dec15, is_number, round_sig, to_dec, to_f64, Dec, DEC_DIGITS,
};
use bson::{Bson, Document};

pub(super) fn time_value(k: &Option<Bson>, unit: Option<i64>, what: &str) -> Result<f64> {
    match (unit, k) {
        (Some(_), Some(Bson::DateTime(d))) => Ok(d.timestamp_millis() as f64),
        (Some(_), _) => Err(Error::location(
            if what == "$derivative" {
                5624900
            } else {
                5423901
            },
            format!("{what} with 'unit' expects the sortBy field to be a Date"),
        )),
        (None, Some(Bson::DateTime(_))) => Err(Error::location(
            if what == "$derivative" {
                5624901
            } else {
                5423902
            },
            format!("{what} where the sortBy is a Date requires an 'unit'"),
        )),
        (None, Some(v)) if is_number(v) => Ok(to_f64(v).unwrap_or(0.0)),
        (None, _) => Err(Error::location(
            if what == "$derivative" {
                5624902
            } else {
                5423902
            },
            format!("{what} (with no 'unit') expects the sortBy field to be numeric"),
        )),
    }
}

#[allow(clippy::too_many_arguments)]
pub(super) fn derivative(
    input: &Operand,
    unit: Option<i64>,
    left: &Document,
    right: &Document,
    kl: &Option<Bson>,
    kr: &Option<Bson>,
    scope: &Scope,
) -> Result<Bson> {
    let run = time_value(kr, unit, "$derivative")? - time_value(kl, unit, "$derivative")?;
    // rise = $subtract(right, left) (window_function_exec_derivative.cpp): numbers,
    // or two dates (milliseconds); null or missing fails 5624903; other types are
    // $subtract's TypeMismatch.
    let eval = |d: &Document| -> Result<Option<Bson>> {
        Ok(input.eval(d, scope)?.map(std::borrow::Cow::into_owned))
    };
    let (r, l) = (eval(right)?, eval(left)?);
    let nullish = |v: &Option<Bson>| matches!(v, None | Some(Bson::Null | Bson::Undefined));
    let (yr, yl) = match (&r, &l) {
        (Some(a), Some(b)) if is_number(a) && is_number(b) => (a.clone(), b.clone()),
        (Some(Bson::DateTime(a)), Some(Bson::DateTime(b))) => (
            Bson::Int64(a.timestamp_millis().wrapping_sub(b.timestamp_millis())),
            Bson::Int32(0),
        ),
        _ if nullish(&r) || nullish(&l) => {
            return Err(Error::location(
                5624903,
                "$derivative input must not be null or missing",
            ))
        }
        (Some(a), Some(b)) => {
            return Err(Error::type_mismatch(format!(
                "can't $subtract {} from {}",
                type_name(b),
                type_name(a)
            )))
        }
        _ => return Ok(Bson::Null),
    };
    // With a decimal anywhere the server's Value arithmetic is decimal.
    let decimal_x = unit.is_none()
        && [kl, kr]
            .iter()
            .any(|k| matches!(k, Some(Bson::Decimal128(_))));
    if matches!(yr, Bson::Decimal128(_)) || matches!(yl, Bson::Decimal128(_)) || decimal_x {
        let rise = dsub(&coerce_dec(&yr), &coerce_dec(&yl));
        let run = match unit {
            Some(_) => Dec::Finite(bigdecimal::BigDecimal::from(run as i64)),
            None => dsub(
                &coerce_dec(kr.as_ref().unwrap_or(&Bson::Null)),
                &coerce_dec(kl.as_ref().unwrap_or(&Bson::Null)),
            ),
        };
        if matches!(&run, Dec::Finite(b) if b == &bigdecimal::BigDecimal::from(0)) {
            return Ok(Bson::Null);
        }
        let mut q = dops::div(&rise, &run);
        if let Some(ms) = unit {
            q = round34(dops::mul(
                &q,
                &Dec::Finite(bigdecimal::BigDecimal::from(ms)),
            ));
        }
        return Ok(dec_bson(&q));
    }
    let rise = to_f64(&yr).unwrap_or(0.0) - to_f64(&yl).unwrap_or(0.0);
    if run == 0.0 {
        return Ok(Bson::Null);
    }
    let r = rise / run;
    Ok(Bson::Double(match unit {
        Some(ms) => r * ms as f64,
        None => r,
    }))
}

/// `Value::coerceToDecimal`: doubles to 15 digits, other numbers exactly.
fn coerce_dec(v: &Bson) -> Dec {
    match v {
        Bson::Double(f) => f64_to_dec15(*f),
        other => to_dec(other).unwrap_or(Dec::NaN),
    }
}

fn round34(d: Dec) -> Dec {
    match d {
        Dec::Finite(b) => Dec::Finite(round_sig(&b, DEC_DIGITS)),
        other => other,
    }
}

fn dsub(a: &Dec, b: &Dec) -> Dec {
    round34(dops::sub(a, b))
}

pub(super) fn integral(
    input: &Operand,
    unit: Option<i64>,
    docs: &[&Document],
    keys: &[Option<Bson>],
    scope: &Scope,
) -> Result<Bson> {
    let mut sum = SumState::default();
    let mut prev: Option<(Bson, Bson)> = None;
    for (d, k) in docs.iter().zip(keys) {
        let x = time_value(k, unit, "$integral")?;
        // The x value as the server sees it: milliseconds with a unit, else the number.
        let xv = match (unit, k) {
            (None, Some(v)) => v.clone(),
            _ => Bson::Int64(x as i64),
        };
        let v = input.eval(d, scope)?;
        let y = match v.as_deref() {
            Some(y) if is_number(y) => y.clone(),
            _ => {
                return Err(Error::location(
                    5423900,
                    "The input value of $integral window function must be a vector of 2 value, the first value must be numeric or date type and the second must be numeric.",
                ))
            }
        };
        if let Some((px, py)) = &prev {
            // ((y + py) * (x - px)) / 2.0 in Value arithmetic
            // (window_function_integral.cpp integralOfTwoPointsByTrapezoidalRule).
            let all = [&xv, px, &y, py];
            if all.iter().any(|v| matches!(v, Bson::Decimal128(_))) {
                let delta = dsub(&coerce_dec(&xv), &coerce_dec(px));
                let sum_y = round34(dops::add(&coerce_dec(&y), &coerce_dec(py)));
                let area = round34(dops::mul(&sum_y, &delta));
                sum.add(&dec_bson(&dops::div(&area, &f64_to_dec15(2.0))));
            } else {
                let f = |v: &Bson| to_f64(v).unwrap_or(0.0);
                sum.add(&Bson::Double((f(&y) + f(py)) * (f(&xv) - f(px)) / 2.0));
            }
        }
        prev = Some((xv, y));
    }
    let total = sum.result();
    Ok(match (unit, &total) {
        (Some(ms), Bson::Decimal128(_)) => dec_bson(&dops::div(
            &coerce_dec(&total),
            &Dec::Finite(bigdecimal::BigDecimal::from(ms)),
        )),
        (Some(ms), _) => Bson::Double(to_f64(&total).unwrap_or(0.0) / ms as f64),
        (None, _) => total,
    })
}
