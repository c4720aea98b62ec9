//! `$expMovingAvg`: its weight (from `N` or `alpha`, a Decimal128 as the
//! server keeps it) and the running average over a sorted partition, in
//! Decimal128 arithmetic (accumulator_exp_moving_avg.cpp).
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/expMovingAvg/
use super::functions::{object_arg, SortInfo};
use crate::aggregate::operand::Operand;
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Scope};
use crate::value::numeric::{
    dec_bson, dec_to_f64, f64_to_dec, f64_to_dec15, is_number, round_sig, to_dec, to_f64, Dec,
    DEC_DIGITS,
};
use bigdecimal::BigDecimal;
use bson::{Bson, Document};

const TWO_FIELDS: &str = "$expMovingAvg sub object must have exactly two fields: An 'input' field, and either an 'N' field or an 'alpha' field";

#[derive(Clone, Debug)]
pub struct ExpMovingAvg {
    input: Operand,
    /// Decimal128, as the server computes (accumulator_exp_moving_avg.cpp).
    alpha: BigDecimal,
}

impl ExpMovingAvg {
    /// `{input, N}` or `{input, alpha}`, under an explicit sortBy.
    pub(super) fn compile(arg: &Bson, sort: SortInfo, ctx: &CompileCtx) -> Result<ExpMovingAvg> {
        let o = object_arg(
            arg,
            "$expMovingAvg must have exactly one argument that is an object",
        )?;
        if o.len() != 2 || !o.contains_key("input") {
            return Err(Error::failed_to_parse(TWO_FIELDS));
        }
        if sort.fields.is_none() {
            return Err(Error::failed_to_parse(
                "$expMovingAvg requires an explicit 'sortBy'",
            ));
        }
        let input = Operand::compile(o.get("input").unwrap_or(&Bson::Null), ctx)?;
        let alpha = if let Some(n) = o.get("N") {
            let Some(f) = to_f64(n).filter(|_| is_number(n)) else {
                return Err(Error::failed_to_parse(
                    "'N' field must be an integer, but found type",
                ));
            };
            if f.fract() != 0.0 {
                return Err(Error::failed_to_parse(format!(
                    "'N' field must be an integer, but found  N: {}. To use a non-integer, use the 'alpha' argument instead",
                    crate::text::shell::inline(n)
                )));
            }
            if f <= 0.0 {
                return Err(Error::failed_to_parse(format!(
                    "'N' must be greater than zero. Got {f}"
                )));
            }
            // Decimal128(2).divide(Decimal128(N + 1)), 34 digits.
            round_sig(
                &(BigDecimal::from(2) / BigDecimal::from(f as i64 + 1)),
                DEC_DIGITS,
            )
        } else if let Some(a) = o.get("alpha") {
            let Some(f) = to_f64(a).filter(|_| is_number(a)) else {
                return Err(Error::failed_to_parse("'alpha' must be a number"));
            };
            if !(f > 0.0 && f < 1.0) {
                return Err(Error::failed_to_parse(format!(
                    "'alpha' must be between 0 and 1 (exclusive), found alpha: {}",
                    crate::text::shell::inline(a)
                )));
            }
            // BSONElement::numberDecimal(): a double to 15 digits.
            match a {
                Bson::Double(x) => dec_finite(f64_to_dec15(*x)),
                other => dec_finite(to_dec(other).unwrap_or(Dec::NaN)),
            }
        } else {
            return Err(Error::failed_to_parse(format!(
                "Got unrecognized field in $expMovingAvg{TWO_FIELDS}"
            )));
        };
        Ok(ExpMovingAvg { input, alpha })
    }

    /// One value per document of a sorted partition: Decimal128 arithmetic
    /// (34 digits), a double result unless a decimal was seen so far.
    pub(super) fn values(&self, docs: &[&Document], scope: &Scope) -> Result<Vec<Option<Bson>>> {
        let mut out = Vec::with_capacity(docs.len());
        let alpha = &self.alpha;
        let rest = round_sig(&(BigDecimal::from(1) - alpha), DEC_DIGITS);
        let alpha_f = dec_to_f64(&Dec::Finite(alpha.clone()));
        let mut cur: Option<Dec> = None;
        let mut dec = false;
        for d in docs {
            let v = self.input.eval(d, scope)?;
            if let Some(x) = v.as_deref().filter(|x| is_number(x)) {
                dec |= matches!(x, Bson::Decimal128(_));
                // coerceToDecimal: a double to 15 digits.
                let x = match x {
                    Bson::Double(f) => f64_to_dec15(*f),
                    other => to_dec(other).unwrap_or(Dec::NaN),
                };
                cur = Some(match (cur.take(), x) {
                    (None, x) => x,
                    (Some(Dec::Finite(c)), Dec::Finite(x)) => {
                        let a = round_sig(&(x * alpha), DEC_DIGITS);
                        let b = round_sig(&(c * &rest), DEC_DIGITS);
                        Dec::Finite(round_sig(&(a + b), DEC_DIGITS))
                    }
                    // NaN and infinities: double arithmetic gives the same class.
                    (Some(c), x) => {
                        f64_to_dec(dec_to_f64(&x) * alpha_f + dec_to_f64(&c) * (1.0 - alpha_f))
                    }
                });
            }
            out.push(Some(match &cur {
                None => Bson::Null,
                Some(c) if dec => dec_bson(c),
                Some(c) => Bson::Double(dec_to_f64(c)),
            }));
        }
        Ok(out)
    }
}

/// A finite decimal, or zero (callers have checked the value is a number in range).
fn dec_finite(d: Dec) -> BigDecimal {
    match d {
        Dec::Finite(b) => b,
        _ => BigDecimal::from(0),
    }
}
