//! Accumulator arithmetic shared by the expression forms (`{$sum: [...]}`) and
//! `$group`: feed values one at a time, read the result at the end.
//! Non-numeric values are ignored by `Sum`, `Avg` and `StdDev`; null and missing by `MinMax`.
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/sum/
use crate::value::compare;
use crate::value::numeric::{
    coerce_dec, dec_bson, f64_to_dec34, int_or_long, numeric_width, to_f64, Dec,
};
use bigdecimal::BigDecimal;
use bson::Bson;
use std::cmp::Ordering;

/// `$sum`: int → long → double → decimal as the inputs require; an int sum
/// that leaves int32 becomes long, a long sum that overflows becomes double.
#[derive(Clone, Debug, Default)]
pub struct Sum {
    width: u8,
    ints: i128,
    doubles: Kahan,
    dec: Option<Dec>,
    count: u64,
}

/// Compensated (Neumaier) summation, close to MongoDB's DoubleDoubleSummation.
#[derive(Clone, Debug, Default)]
pub(crate) struct Kahan {
    sum: f64,
    comp: f64,
}

impl Kahan {
    pub(crate) fn add(&mut self, x: f64) {
        let t = self.sum + x;
        if self.sum.abs() >= x.abs() {
            self.comp += (self.sum - t) + x;
        } else {
            self.comp += (x - t) + self.sum;
        }
        self.sum = t;
    }
    pub(crate) fn value(&self) -> f64 {
        let v = self.sum + self.comp;
        if v.is_nan() && !self.sum.is_nan() {
            self.sum
        } else {
            v
        }
    }
}

impl Sum {
    pub fn new() -> Sum {
        Sum::default()
    }

    /// Add one value (non-numbers are ignored).
    pub fn add(&mut self, v: &Bson) {
        let Some(w) = numeric_width(v) else { return };
        self.width = self.width.max(w);
        self.count += 1;
        match v {
            Bson::Int32(i) => self.ints += i128::from(*i),
            Bson::Int64(i) => self.ints += i128::from(*i),
            Bson::Double(x) => self.doubles.add(*x),
            Bson::Decimal128(_) => {
                let d = coerce_dec(v).unwrap_or(Dec::NaN);
                self.dec = Some(match self.dec.take() {
                    None => d,
                    Some(acc) => crate::expr::ops::decimal_add(&acc, &d),
                });
            }
            _ => {}
        }
    }

    /// How many numbers were added.
    pub fn count(&self) -> u64 {
        self.count
    }

    fn non_decimal_f64(&self) -> f64 {
        let mut k = self.doubles.clone();
        k.add(self.ints as f64);
        k.value()
    }

    /// The total as a decimal (exact for integers, 34 digits for doubles).
    fn total_dec(&self) -> Dec {
        let mut total = Dec::Finite(BigDecimal::from(0));
        let ints = Dec::Finite(
            self.ints
                .to_string()
                .parse::<BigDecimal>()
                .unwrap_or_default(),
        );
        total = crate::expr::ops::decimal_add(&total, &ints);
        if self.doubles.sum != 0.0 || self.doubles.sum.is_nan() || self.doubles.sum.is_infinite() {
            total = crate::expr::ops::decimal_add(&total, &f64_to_dec34(self.doubles.value()));
        }
        if let Some(d) = &self.dec {
            total = crate::expr::ops::decimal_add(&total, d);
        }
        total
    }

    /// The sum with MongoDB's result type (0 when nothing numeric was added).
    pub fn value(&self) -> Bson {
        match self.width {
            0 | 1 => match i64::try_from(self.ints) {
                Ok(i) if self.width == 0 => int_or_long(i),
                Ok(i) => Bson::Int64(i),
                Err(_) => Bson::Double(self.non_decimal_f64()),
            },
            2 => Bson::Double(self.non_decimal_f64()),
            _ => dec_bson(&self.total_dec()),
        }
    }

    /// `$avg`: the mean as a double (decimal if any input was decimal); null when empty.
    pub fn average(&self) -> Bson {
        if self.count == 0 {
            return Bson::Null;
        }
        if self.width == 3 {
            let n = Dec::Finite(BigDecimal::from(self.count));
            return dec_bson(&crate::expr::ops::decimal_div(&self.total_dec(), &n));
        }
        Bson::Double(self.non_decimal_f64() / self.count as f64)
    }
}

/// Sum of the numeric values (`$sum`).
pub fn sum_values<'a>(values: impl IntoIterator<Item = &'a Bson>) -> Bson {
    let mut s = Sum::new();
    for v in values {
        s.add(v);
    }
    s.value()
}

/// Mean of the numeric values, null if none (`$avg`).
pub fn avg_values<'a>(values: impl IntoIterator<Item = &'a Bson>) -> Bson {
    let mut s = Sum::new();
    for v in values {
        s.add(v);
    }
    s.average()
}

/// Running standard deviation over doubles (Welford), as `$stdDevPop`/`$stdDevSamp`.
#[derive(Clone, Debug, Default)]
pub struct StdDev {
    count: u64,
    mean: f64,
    m2: f64,
}

impl StdDev {
    pub fn new() -> StdDev {
        StdDev::default()
    }
    /// Add one value (non-numbers are ignored).
    pub fn add(&mut self, v: &Bson) {
        let Some(x) = numeric_width(v).and_then(|_| to_f64(v)) else {
            return;
        };
        self.count += 1;
        let delta = x - self.mean;
        self.mean += delta / self.count as f64;
        self.m2 += delta * (x - self.mean);
    }
    /// Population (`samp == false`) or sample standard deviation; null when undefined.
    pub fn value(&self, samp: bool) -> Bson {
        let n = self.count as f64;
        if self.count == 0 || (samp && self.count < 2) {
            return Bson::Null;
        }
        let var = self.m2 / if samp { n - 1.0 } else { n };
        Bson::Double(var.max(0.0).sqrt())
    }
}

/// Standard deviation of the numeric values.
pub fn std_dev<'a>(values: impl IntoIterator<Item = &'a Bson>, samp: bool) -> Bson {
    let mut s = StdDev::new();
    for v in values {
        s.add(v);
    }
    s.value(samp)
}

/// The smallest value in BSON order, ignoring null/undefined; null if none.
pub fn min_value<'a>(values: impl IntoIterator<Item = &'a Bson>) -> Bson {
    extreme(values, Ordering::Less)
}

/// The largest value in BSON order, ignoring null/undefined; null if none.
pub fn max_value<'a>(values: impl IntoIterator<Item = &'a Bson>) -> Bson {
    extreme(values, Ordering::Greater)
}

fn extreme<'a>(values: impl IntoIterator<Item = &'a Bson>, want: Ordering) -> Bson {
    let mut best: Option<&Bson> = None;
    for v in values {
        if matches!(v, Bson::Null | Bson::Undefined) {
            continue;
        }
        if best.is_none_or(|b| compare(v, b) == want) {
            best = Some(v);
        }
    }
    best.cloned().unwrap_or(Bson::Null)
}
