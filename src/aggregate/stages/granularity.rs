//! `$bucketAuto`'s `granularity`: rounding bucket boundaries to preferred
//! number series (Renard, E, 1-2-5) or powers of two, as MongoDB's
//! granularity rounders do (granularity_rounder_*.cpp).
use crate::error::{Error, Result};
use crate::expr::ops::decimal::{div, mul, pow};
use crate::text::shell::type_name;
use crate::value::numeric::{dec_bson, dec_to_f64, decode_decimal, f64_to_dec15, to_f64, Dec};
use bigdecimal::BigDecimal;
use bson::Bson;

const R5: &[f64] = &[10., 16., 25., 40., 63.];
const R10: &[f64] = &[100., 125., 160., 200., 250., 315., 400., 500., 630., 800.];
const R20: &[f64] = &[
    100., 112., 125., 140., 160., 180., 200., 224., 250., 280., 315., 355., 400., 450., 500., 560.,
    630., 710., 800., 900.,
];
const R40: &[f64] = &[
    100., 106., 112., 118., 125., 132., 140., 150., 160., 170., 180., 190., 200., 212., 224., 236.,
    250., 265., 280., 300., 315., 355., 375., 400., 425., 450., 475., 500., 530., 560., 600., 630.,
    670., 710., 750., 800., 850., 900., 950.,
];
const R80: &[f64] = &[
    103., 109., 115., 122., 128., 136., 145., 155., 165., 175., 185., 195., 206., 218., 230., 243.,
    258., 272., 290., 307., 325., 345., 365., 387., 412., 437., 462., 487., 515., 545., 575., 615.,
    650., 690., 730., 775., 825., 875., 925., 975.,
];
const S125: &[f64] = &[10., 20., 50.];
const E6: &[f64] = &[10., 15., 22., 33., 47., 68.];
const E12: &[f64] = &[10., 12., 15., 18., 22., 27., 33., 39., 47., 56., 68., 82.];
const E24: &[f64] = &[
    10., 11., 12., 13., 15., 16., 18., 20., 22., 24., 27., 30., 33., 36., 39., 43., 47., 51., 56.,
    62., 68., 75., 82., 91.,
];
const E48: &[f64] = &[
    100., 105., 110., 115., 121., 127., 133., 140., 147., 154., 162., 169., 178., 187., 196., 205.,
    215., 226., 237., 249., 261., 274., 287., 301., 316., 332., 348., 365., 383., 402., 422., 442.,
    464., 487., 511., 536., 562., 590., 619., 649., 681., 715., 750., 787., 825., 866., 909., 953.,
];
const E96: &[f64] = &[
    100., 102., 105., 107., 110., 113., 115., 118., 121., 124., 127., 130., 133., 137., 140., 143.,
    147., 150., 154., 158., 162., 165., 169., 174., 178., 182., 187., 191., 196., 200., 205., 210.,
    215., 221., 226., 232., 237., 243., 249., 255., 261., 267., 274., 280., 287., 294., 301., 309.,
    316., 324., 332., 340., 348., 357., 365., 374., 383., 392., 402., 412., 422., 432., 442., 453.,
    464., 475., 487., 499., 511., 523., 536., 549., 562., 576., 590., 604., 619., 634., 649., 665.,
    681., 698., 715., 732., 750., 768., 787., 806., 825., 845., 866., 887., 909., 931., 953., 976.,
];
const E192: &[f64] = &[
    100., 101., 102., 104., 105., 106., 107., 109., 110., 111., 113., 114., 115., 117., 118., 120.,
    121., 123., 124., 126., 127., 129., 130., 132., 133., 135., 137., 138., 140., 142., 143., 145.,
    147., 149., 150., 152., 154., 156., 158., 160., 162., 164., 165., 167., 169., 172., 174., 176.,
    178., 180., 182., 184., 187., 189., 191., 193., 196., 198., 200., 203., 205., 208., 210., 213.,
    215., 218., 221., 223., 226., 229., 232., 234., 237., 240., 243., 246., 249., 252., 255., 258.,
    261., 264., 267., 271., 274., 277., 280., 284., 287., 291., 294., 298., 301., 305., 309., 312.,
    316., 320., 324., 328., 332., 336., 340., 344., 348., 352., 357., 361., 365., 370., 374., 379.,
    383., 388., 392., 397., 402., 407., 412., 417., 422., 427., 432., 437., 442., 448., 453., 459.,
    464., 470., 475., 481., 487., 493., 499., 505., 511., 517., 523., 530., 536., 542., 549., 556.,
    562., 569., 576., 583., 590., 597., 604., 612., 619., 626., 634., 642., 649., 657., 665., 673.,
    681., 690., 698., 706., 715., 723., 732., 741., 750., 759., 768., 777., 787., 796., 806., 816.,
    825., 835., 845., 856., 866., 876., 887., 898., 909., 920., 931., 942., 953., 965., 976., 988.,
];

#[derive(Clone, Debug)]
pub enum Granularity {
    Series(&'static [f64]),
    PowersOfTwo,
}

impl Granularity {
    pub fn parse(name: &str) -> Result<Granularity> {
        Ok(Granularity::Series(match name {
            "R5" => R5,
            "R10" => R10,
            "R20" => R20,
            "R40" => R40,
            "R80" => R80,
            "1-2-5" => S125,
            "E6" => E6,
            "E12" => E12,
            "E24" => E24,
            "E48" => E48,
            "E96" => E96,
            "E192" => E192,
            "POWERSOF2" => return Ok(Granularity::PowersOfTwo),
            other => {
                return Err(Error::location(
                    40257,
                    format!("Unknown rounding granularity '{other}'"),
                ))
            }
        }))
    }

    /// Keys must be non-negative numbers when a granularity is given.
    pub fn check(key: &Bson) -> Result<()> {
        let Some(f) = to_f64(key) else {
            return Err(Error::location(
                40258,
                format!(
                    "$bucketAuto can specify a 'granularity' with numeric boundaries only, but found a value with type: {}",
                    type_name(key)
                ),
            ));
        };
        if f.is_nan() {
            return Err(Error::location(
                40259,
                "$bucketAuto can specify a 'granularity' with numeric boundaries only, but found a NaN",
            ));
        }
        // Rounding an infinity never ends (the server added 11785400 for it in 8.3).
        if f.is_infinite() && f > 0.0 {
            return Err(Error::location(
                11785400,
                "$bucketAuto cannot round an infinite value to a 'granularity'",
            ));
        }
        if f < 0.0 {
            return Err(Error::location(
                40260,
                "$bucketAuto can specify a 'granularity' with non-negative numbers only, but found a negative number",
            ));
        }
        Ok(())
    }

    pub fn round_up(&self, v: &Bson) -> Bson {
        let x = to_f64(v).unwrap_or(0.0);
        if x == 0.0 {
            return v.clone();
        }
        if let Bson::Decimal128(d) = v {
            return dec_bson(&self.round_decimal(&decode_decimal(d), true));
        }
        match self {
            Granularity::Series(s) => Bson::Double(series_up(s, x)),
            Granularity::PowersOfTwo => {
                let exp = match v {
                    Bson::Int32(_) | Bson::Int64(_) => {
                        let n = crate::value::numeric::to_i64_exact(v).unwrap_or(1);
                        64 - i64::from(n.leading_zeros())
                    }
                    _ => (x.log2().floor() + 1.0) as i64,
                };
                pow2(exp)
            }
        }
    }

    pub fn round_down(&self, v: &Bson) -> Bson {
        let x = to_f64(v).unwrap_or(0.0);
        if x == 0.0 {
            return v.clone();
        }
        if let Bson::Decimal128(d) = v {
            return dec_bson(&self.round_decimal(&decode_decimal(d), false));
        }
        match self {
            Granularity::Series(s) => Bson::Double(series_down(s, x)),
            Granularity::PowersOfTwo => {
                let exp = match v {
                    Bson::Int32(_) | Bson::Int64(_) => {
                        let n = crate::value::numeric::to_i64_exact(v).unwrap_or(1);
                        let log = 63 - i64::from(n.leading_zeros());
                        if n & (n - 1) == 0 {
                            log - 1
                        } else {
                            log
                        }
                    }
                    _ => (x.log2().ceil() - 1.0) as i64,
                };
                pow2(exp)
            }
        }
    }
}

impl Granularity {
    /// A Decimal128 rounds in decimal arithmetic and stays a decimal, as the
    /// server's rounders do: the series as `Decimal128(double)` (15 digits),
    /// scaled by powers of ten; powers of two as `$pow: [2, Decimal128(exp)]`.
    fn round_decimal(&self, x: &Dec, up: bool) -> Dec {
        let Dec::Finite(value) = x else {
            return x.clone();
        };
        match self {
            Granularity::Series(s) => {
                let series: Vec<Dec> = s.iter().map(|v| f64_to_dec15(*v)).collect();
                if up {
                    series_up_dec(&series, value)
                } else {
                    series_down_dec(&series, value)
                }
            }
            Granularity::PowersOfTwo => {
                let log = dec_to_f64(x).log2();
                let exp = if up {
                    log.floor() + 1.0
                } else {
                    log.ceil() - 1.0
                };
                pow(
                    &Dec::Finite(BigDecimal::from(2)),
                    &Dec::Finite(BigDecimal::from(exp as i32)),
                )
            }
        }
    }
}

/// A product's value (the operands here are finite).
fn finite(d: Dec) -> BigDecimal {
    match d {
        Dec::Finite(b) => b,
        _ => BigDecimal::from(0),
    }
}

fn ten() -> Dec {
    Dec::Finite(BigDecimal::from(10))
}

/// `series_up` in decimal arithmetic (granularity_rounder_preferred_numbers.cpp).
fn series_up_dec(s: &[Dec], x: &BigDecimal) -> Dec {
    let (first, last) = (&s[0], &s[s.len() - 1]);
    let mut m = Dec::Finite(BigDecimal::from(1));
    while *x >= finite(mul(last, &m)) {
        m = mul(&m, &ten());
    }
    while *x < finite(mul(first, &m)) {
        let previous_min = mul(first, &m);
        m = div(&m, &ten());
        if *x >= finite(mul(last, &m)) {
            return previous_min;
        }
    }
    s.iter()
        .map(|v| mul(v, &m))
        .find(|v| matches!(v, Dec::Finite(b) if x < b))
        .unwrap_or_else(|| mul(last, &m))
}

/// `series_down` in decimal arithmetic.
fn series_down_dec(s: &[Dec], x: &BigDecimal) -> Dec {
    let (first, last) = (&s[0], &s[s.len() - 1]);
    let mut m = Dec::Finite(BigDecimal::from(1));
    while *x <= finite(mul(first, &m)) {
        m = div(&m, &ten());
    }
    while *x > finite(mul(last, &m)) {
        let previous_max = mul(last, &m);
        m = mul(&m, &ten());
        if *x <= finite(mul(first, &m)) {
            return previous_max;
        }
    }
    let i = s
        .iter()
        .position(|v| finite(mul(v, &m)) >= *x)
        .unwrap_or(s.len());
    mul(&s[i.saturating_sub(1)], &m)
}

/// `$pow: [2, exp]`: an integer for non-negative exponents, else a double.
fn pow2(exp: i64) -> Bson {
    if exp < 0 {
        return Bson::Double(2f64.powi(exp as i32));
    }
    match 1i64.checked_shl(exp as u32) {
        Some(n) if exp < 63 => i32::try_from(n).map_or(Bson::Int64(n), Bson::Int32),
        _ => Bson::Double(2f64.powi(exp as i32)),
    }
}

fn series_up(s: &[f64], x: f64) -> f64 {
    let (first, last) = (s[0], s[s.len() - 1]);
    let mut m = 1.0;
    while x >= last * m {
        m *= 10.0;
    }
    while x < first * m {
        let previous_min = first * m;
        m /= 10.0;
        if x >= last * m || m == 0.0 {
            return previous_min;
        }
    }
    s.iter().map(|v| v * m).find(|v| x < *v).unwrap_or(last * m)
}

fn series_down(s: &[f64], x: f64) -> f64 {
    let (first, last) = (s[0], s[s.len() - 1]);
    let mut m = 1.0;
    while x <= first * m {
        m /= 10.0;
        // A subnormal x can drive the multiplier to zero: it rounds down to 0
        // (server jstests bucketauto/granularity_near_zero.js).
        if m == 0.0 {
            return 0.0;
        }
    }
    while x > last * m {
        let previous_max = last * m;
        m *= 10.0;
        if x <= first * m {
            return previous_max;
        }
    }
    let i = s.iter().position(|v| v * m >= x).unwrap_or(s.len());
    s[i.saturating_sub(1)] * m
}
