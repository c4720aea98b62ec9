//! `$covariancePop` / `$covarianceSamp` over a window: the server's online
//! algorithm (window_function_covariance.cpp, after "Algorithms for
//! calculating variance#Online"): for each pair whose two values are
//! numbers, `dx = x - mean(x before)`, the means take the pair, `dy = y -
//! mean(y after)`, and `dx * dy` is summed; the result is that sum divided by
//! the count (population) or the count less one (sample). Pairs that are not
//! two numbers are ignored; a NaN or an infinity goes into the sum as one
//! value (NaN when the pair has a NaN or infinities of opposite signs).
//! Doubles are summed with compensation (the server's DoubleDoubleSummation);
//! any decimal makes the computation decimal (34 digits per operation).
use crate::expr::sum::SumState;
use crate::value::numeric::{
    dec_bson, dec_to_f64, is_number, round_sig, to_dec, to_f64, Dec, DEC_DIGITS,
};
use bigdecimal::BigDecimal;
use bson::Bson;

/// The two values of one document, when both are numbers.
pub fn pair(v: Option<Bson>) -> Option<(Bson, Bson)> {
    match v {
        Some(Bson::Array(a)) if a.len() == 2 && a.iter().all(is_number) => {
            let mut it = a.into_iter();
            Some((it.next()?, it.next()?))
        }
        _ => None,
    }
}

/// The covariance of the pairs of one window (`None` entries skipped).
pub fn covariance<'a>(pairs: impl Iterator<Item = &'a (Bson, Bson)> + Clone, samp: bool) -> Bson {
    let decimal = pairs
        .clone()
        .any(|(x, y)| matches!(x, Bson::Decimal128(_)) || matches!(y, Bson::Decimal128(_)));
    if decimal {
        decimal_covariance(pairs, samp)
    } else {
        double_covariance(pairs, samp)
    }
}

/// A non-finite pair as the one value the server adds to the sum.
fn non_finite(x: f64, y: f64) -> f64 {
    let pos = [x, y].iter().filter(|v| **v == f64::INFINITY).count();
    let neg = [x, y].iter().filter(|v| **v == f64::NEG_INFINITY).count();
    if x.is_nan() || y.is_nan() || pos * neg > 0 {
        f64::NAN
    } else if pos > 0 {
        f64::INFINITY
    } else {
        f64::NEG_INFINITY
    }
}

fn double_covariance<'a>(pairs: impl Iterator<Item = &'a (Bson, Bson)>, samp: bool) -> Bson {
    let (mut count, mut sx, mut sy, mut cxy) = (
        0u64,
        SumState::default(),
        SumState::default(),
        SumState::default(),
    );
    for (x, y) in pairs {
        let (x, y) = (to_f64(x).unwrap_or(0.0), to_f64(y).unwrap_or(0.0));
        if !x.is_finite() || !y.is_finite() {
            cxy.add(&Bson::Double(non_finite(x, y)));
            continue;
        }
        // The first pair's dx is null in the server (no mean yet): nothing added.
        let mean_x = (count > 0).then(|| sx.to_f64() / count as f64);
        count += 1;
        sx.add(&Bson::Double(x));
        sy.add(&Bson::Double(y));
        if let Some(mean_x) = mean_x {
            let dy = y - sy.to_f64() / count as f64;
            cxy.add(&Bson::Double((x - mean_x) * dy));
        }
    }
    if count == 1 && !samp {
        return Bson::Double(0.0);
    }
    let adjusted = if samp { count.saturating_sub(1) } else { count };
    if adjusted == 0 {
        return Bson::Null;
    }
    Bson::Double(cxy.to_f64() / adjusted as f64)
}

fn decimal_covariance<'a>(pairs: impl Iterator<Item = &'a (Bson, Bson)>, samp: bool) -> Bson {
    let round = |b: BigDecimal| round_sig(&b, DEC_DIGITS);
    let zero = || BigDecimal::from(0);
    let (mut count, mut sx, mut sy, mut cxy) = (0u64, zero(), zero(), zero());
    // NaN and infinities add up as doubles would (they decide the result).
    let mut special: Option<f64> = None;
    for (x, y) in pairs {
        let (Some(Dec::Finite(xd)), Some(Dec::Finite(yd))) = (to_dec(x), to_dec(y)) else {
            let f = |v: &Bson| to_dec(v).map_or(f64::NAN, |d| dec_to_f64(&d));
            *special.get_or_insert(0.0) += non_finite(f(x), f(y));
            continue;
        };
        let n = BigDecimal::from(count);
        let mean_x = (count > 0).then(|| round(&sx / &n));
        count += 1;
        sx = round(&sx + &xd);
        sy = round(&sy + &yd);
        if let Some(mean_x) = mean_x {
            let dy = round(&yd - round(&sy / BigDecimal::from(count)));
            cxy = round(&cxy + round(round(&xd - &mean_x) * dy));
        }
    }
    if count == 1 && !samp {
        return Bson::Double(0.0);
    }
    let adjusted = if samp { count.saturating_sub(1) } else { count };
    if adjusted == 0 {
        return Bson::Null;
    }
    dec_bson(&match special {
        Some(s) => crate::value::numeric::f64_to_dec(s),
        None => Dec::Finite(round(cxy / BigDecimal::from(adjusted))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::bson;

    fn cov(values: &[(f64, f64)], samp: bool) -> Bson {
        let pairs: Vec<(Bson, Bson)> = values.iter().map(|(x, y)| (bson!(*x), bson!(*y))).collect();
        covariance(pairs.iter(), samp)
    }

    #[test]
    fn textbook_values() {
        // x = 1..4, y = 2x: population covariance 2.5, sample 10/3.
        let xy = [(1.0, 2.0), (2.0, 4.0), (3.0, 6.0), (4.0, 8.0)];
        assert_eq!(cov(&xy, false), Bson::Double(2.5));
        assert_eq!(cov(&xy, true), Bson::Double(10.0 / 3.0));
        assert_eq!(cov(&xy[..1], false), Bson::Double(0.0));
        assert_eq!(cov(&xy[..1], true), Bson::Null);
        assert_eq!(cov(&[], false), Bson::Null);
        let inf = cov(&[(1.0, 1.0), (f64::INFINITY, 2.0), (2.0, 3.0)], false);
        assert_eq!(inf, Bson::Double(f64::INFINITY));
    }
}
