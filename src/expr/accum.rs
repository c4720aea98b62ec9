//! Accumulator arithmetic of the expression forms (`{$sum: [...]}`, `$avg`,
//! `$stdDevPop`, `$min`/`$max` over an array): feed values one at a time, read
//! the result at the end.
//! Sums and means are `$group`'s own (`sum::SumState`). Non-numeric values are
//! ignored by sums, means and `StdDev`; null and missing by `min_value`/`max_value`.
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/sum/
use super::sum::{avg, SumState};
use crate::value::compare;
use crate::value::numeric::{numeric_width, to_f64};
use bson::Bson;
use std::cmp::Ordering;

/// Sum of the numeric values (`$sum`).
pub fn sum_values<'a>(values: impl IntoIterator<Item = &'a Bson>) -> Bson {
    let mut s = SumState::default();
    for v in values {
        s.add(v);
    }
    s.result()
}

/// Mean of the numeric values, null if none (`$avg`).
pub fn avg_values<'a>(values: impl IntoIterator<Item = &'a Bson>) -> Bson {
    let mut s = SumState::default();
    let count = values.into_iter().filter(|v| s.add(v)).count();
    avg(&s, count as u64)
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
