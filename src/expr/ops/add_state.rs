//! `$add`'s running sum: the widest operand type wins, int64 overflow spills
//! into a double, and a date absorbs the numbers added to it.
use super::decimal as dm;
use crate::error::{Error, Result};
use crate::text::shell::type_name;
use crate::value::numeric::{
    coerce_dec, coerce_i64, dec_bson, f64_to_dec34, int_or_long, numeric_width, round_sig, to_f64,
    Dec, DEC_DIGITS,
};
use bigdecimal::BigDecimal;
use bson::{Bson, DateTime};

/// Running sum of `$add` (AddState): a long total that spills into a double on
/// overflow, a double total, a decimal total, and at most one date.
pub(crate) struct AddState {
    long: i64,
    double: f64,
    dec: BigDecimal,
    dec_special: Option<Dec>,
    width: u8,
    /// Once a date is met: the date's milliseconds plus everything added,
    /// each operand rounded on its own (the server's addToDateValue).
    date: Option<i64>,
}

impl AddState {
    pub fn new() -> AddState {
        AddState {
            long: 0,
            double: 0.0,
            dec: BigDecimal::from(0),
            dec_special: None,
            width: 0,
            date: None,
        }
    }

    pub fn add(&mut self, v: &Bson) -> Result<()> {
        let old = self.width;
        let operand = match v {
            Bson::DateTime(d) => {
                if self.date.is_some() {
                    return Err(Error::location(
                        16612,
                        "only one date allowed in an $add expression",
                    ));
                }
                // The numbers added so far become milliseconds, then the date.
                let before = date_millis(&self.value()?)?;
                self.date = Some(checked_date_add(before, d.timestamp_millis())?);
                return Ok(());
            }
            other => {
                let Some(w) = numeric_width(other) else {
                    return Err(Error::type_mismatch(format!(
                        "$add only supports numeric or date types, not {}",
                        type_name(other)
                    )));
                };
                if let Some(ms) = self.date {
                    self.date = Some(checked_date_add(ms, date_millis(other)?)?);
                    return Ok(());
                }
                self.width = self.width.max(w);
                other.clone()
            }
        };
        if old != self.width {
            match self.width {
                2 => self.double = self.long as f64,
                3 if old <= 1 => self.dec = BigDecimal::from(self.long),
                3 => self.set_dec(f64_to_dec34(self.double)),
                _ => {}
            }
        }
        match self.width {
            0 | 1 => {
                let x = coerce_i64(&operand).unwrap_or(0);
                match self.long.checked_add(x) {
                    Some(s) => self.long = s,
                    None => {
                        self.width = 2;
                        self.double = self.long as f64 + x as f64;
                    }
                }
            }
            2 => self.double += to_f64(&operand).unwrap_or(0.0),
            _ => {
                let d = coerce_dec(&operand).unwrap_or(Dec::NaN);
                self.add_dec(d);
            }
        }
        Ok(())
    }

    fn set_dec(&mut self, d: Dec) {
        match d {
            Dec::Finite(b) => self.dec = b,
            other => self.dec_special = Some(other),
        }
    }

    fn add_dec(&mut self, d: Dec) {
        match (self.dec_special.clone(), d) {
            (Some(Dec::NaN), _) => {}
            (_, Dec::NaN) => self.dec_special = Some(Dec::NaN),
            (Some(Dec::Inf(a)), Dec::Inf(b)) if a != b => self.dec_special = Some(Dec::NaN),
            (Some(s), _) => self.dec_special = Some(s),
            (None, Dec::Inf(b)) => self.dec_special = Some(Dec::Inf(b)),
            // Each addition rounds to Decimal128's 34 digits, as the server's
            // `decimalTotal.add(...)` does: [1E34, 1, -1E34] adds up to 0E+1.
            (None, Dec::Finite(b)) => self.dec = round_sig(&(&self.dec + b), DEC_DIGITS),
        }
    }

    fn dec_value(&self) -> Dec {
        match &self.dec_special {
            Some(s) => s.clone(),
            None => Dec::Finite(self.dec.clone()),
        }
    }

    pub fn value(&self) -> Result<Bson> {
        if let Some(ms) = self.date {
            return Ok(Bson::DateTime(DateTime::from_millis(ms)));
        }
        Ok(match self.width {
            0 => int_or_long(self.long),
            1 => Bson::Int64(self.long),
            2 => Bson::Double(self.double),
            _ => dec_bson(&self.dec_value()),
        })
    }
}

fn date_overflow() -> Error {
    Error::overflow("date overflow")
}

fn checked_date_add(ms: i64, by: i64) -> Result<i64> {
    ms.checked_add(by).ok_or_else(date_overflow)
}

/// A number added to a date, as milliseconds (the server's addToDateValue):
/// a double rounds half away from zero (llround) and must lie in the long
/// range, a decimal rounds half to even and must be finite and in range.
fn date_millis(v: &Bson) -> Result<i64> {
    match v {
        Bson::Double(x) => {
            if !(*x >= i64::MIN as f64 && *x < i64::MAX as f64) {
                return Err(date_overflow());
            }
            Ok(x.round() as i64)
        }
        Bson::Decimal128(_) => {
            let d = coerce_dec(v).unwrap_or(Dec::NaN);
            dm::dec_to_i64_round(&d).ok_or_else(date_overflow)
        }
        other => Ok(coerce_i64(other).unwrap_or(0)),
    }
}
