//! Window functions of `$setWindowFields`: accumulators over a window, and
//! the order-based functions (`$rank`, `$shift`, `$derivative`, ...).
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/setWindowFields/
use super::bounds::{TimeUnit, Window};
use super::calculus::{derivative, integral};
use crate::aggregate::accumulators::Accumulator;
use crate::aggregate::operand::Operand;
use crate::error::{Error, Result};
use crate::expr::sum::count_value;
use crate::expr::{CompileCtx, Scope};
use crate::query::sort::SortSpec;
use crate::value::numeric::{
    dec_bson, dec_to_f64, f64_to_dec, f64_to_dec15, is_number, round_sig, to_dec, to_f64, Dec,
    DEC_DIGITS,
};
use bson::{Bson, Document};
use std::cmp::Ordering;

#[derive(Clone, Debug)]
pub enum Func {
    /// Boxed: an accumulator is the largest function by far.
    Acc(Box<Accumulator>, Window),
    Rank,
    DenseRank,
    DocumentNumber,
    Shift {
        output: Operand,
        by: i64,
        default: Bson,
    },
    Derivative {
        input: Operand,
        unit: Option<i64>,
        window: Window,
    },
    Integral {
        input: Operand,
        unit: Option<i64>,
        window: Window,
    },
    ExpMovingAvg {
        input: Operand,
        /// Decimal128, as the server computes (accumulator_exp_moving_avg.cpp).
        alpha: bigdecimal::BigDecimal,
    },
    LinearFill(Operand),
    Locf(Operand),
    /// `$covariancePop` / `$covarianceSamp` of `[x, y]`.
    Covariance {
        input: Operand,
        samp: bool,
        window: Window,
    },
}

/// What a window function sees of the sortBy clause.
#[derive(Clone, Copy, Debug)]
pub struct SortInfo {
    pub fields: Option<usize>,
    pub ascending: bool,
}

const NEEDS_SORT: &str =
    "must be specified with a top level sortBy expression with exactly one element";

impl Func {
    /// Compile `{<$fn>: <args>, window: {...}}`.
    pub fn compile(spec: &Bson, sort: SortInfo, ctx: &CompileCtx) -> Result<Func> {
        let Bson::Document(d) = spec else {
            return Err(Error::failed_to_parse(
                "Expected a $-prefixed window function",
            ));
        };
        let Some((name, arg)) = d.iter().find(|(k, _)| k.starts_with('$')) else {
            return Err(Error::failed_to_parse(format!(
                "Expected a $-prefixed window function{}",
                d.keys()
                    .next()
                    .map(|k| format!(", {k}"))
                    .unwrap_or_default()
            )));
        };
        // Each server parser owns the fields next to its function: rank-style
        // functions take none (5371601), $shift/$expMovingAvg/$linearFill/$locf
        // no window (FailedToParse), the others an optional window
        // (window_function_expression.h/.cpp, window_function_shift.cpp).
        let rank_style = matches!(name.as_str(), "$rank" | "$denseRank" | "$documentNumber");
        if rank_style && d.len() != 1 {
            return Err(Error::location(
                5371601,
                "Rank style window functions take no other arguments",
            ));
        }
        let windowless = match name.as_str() {
            "$shift" => Some("$shift does not accept a 'window' field".to_string()),
            "$expMovingAvg" => {
                Some("$expMovingAvg must have exactly one argument that is an object".to_string())
            }
            "$linearFill" | "$locf" => Some(format!("'window' field is not allowed in {name}")),
            _ => None,
        };
        if matches!(name.as_str(), "$derivative" | "$integral") {
            // validateSortBy runs before anything else is parsed.
            match sort.fields {
                None => return Err(Error::failed_to_parse(format!("{name} requires a sortBy"))),
                Some(1) => {}
                Some(_) => {
                    return Err(Error::failed_to_parse(format!(
                        "{name} requires a non-compound sortBy"
                    )))
                }
            }
        }
        let mut window = None;
        for (k, v) in d {
            if k == name {
                continue;
            }
            if k == "window" {
                if let Some(msg) = &windowless {
                    return Err(Error::failed_to_parse(msg.clone()));
                }
                window = Some(Window::parse(v, sort.fields, sort.ascending, ctx)?);
            } else if matches!(name.as_str(), "$derivative" | "$integral") {
                return Err(Error::failed_to_parse(format!(
                    "{name} got unexpected argument: {k}"
                )));
            } else if name == "$expMovingAvg" {
                return Err(Error::failed_to_parse(
                    "$expMovingAvg must have exactly one argument that is an object",
                ));
            } else if k.starts_with('$') {
                return Err(Error::failed_to_parse(
                    "Cannot specify two functions in window function spec",
                ));
            } else {
                return Err(Error::failed_to_parse(format!(
                    "Window function found an unknown argument: {k}"
                )));
            }
        }
        let single_sort = |what: &str| -> Result<()> {
            if sort.fields != Some(1) {
                return Err(Error::location(5371602, format!("{what} {NEEDS_SORT}")));
            }
            Ok(())
        };
        let object = |what: &str| -> Result<&Document> {
            match arg {
                Bson::Document(o) => Ok(o),
                _ => Err(Error::failed_to_parse(format!(
                    "{what} must have exactly one argument that is an object"
                ))),
            }
        };
        Ok(match name.as_str() {
            "$rank" | "$denseRank" | "$documentNumber" => {
                if !matches!(arg, Bson::Document(o) if o.is_empty()) {
                    return Err(Error::location(
                        5371603,
                        format!("{name} must be specified with '{{}}' as the value"),
                    ));
                }
                single_sort(name)?;
                match name.as_str() {
                    "$rank" => Func::Rank,
                    "$denseRank" => Func::DenseRank,
                    _ => Func::DocumentNumber,
                }
            }
            "$shift" => {
                let Bson::Document(o) = arg else {
                    return Err(Error::failed_to_parse(
                        "Argument to $shift must be an object",
                    ));
                };
                let mut output = None;
                let mut by = None;
                let mut default = Bson::Null;
                for (k, v) in o {
                    match k.as_str() {
                        "output" => output = Some(Operand::compile(v, ctx)?),
                        "by" => {
                            by = Some(
                                crate::value::numeric::to_i64_exact(v)
                                    .filter(|n| is_number(v) && i32::try_from(*n).is_ok())
                                    .ok_or_else(|| {
                                        Error::failed_to_parse(format!(
                                        "'$shift:by' field must be an integer, but found  by: {}",
                                        crate::text::shell::inline(v)
                                    ))
                                    })?,
                            )
                        }
                        "default" => {
                            let op = Operand::compile(v, ctx)?;
                            let folded = match &op {
                                Operand::Const(c) => Some(c.clone()),
                                Operand::Expr(e) => e.fold_constant()?,
                                _ => None,
                            };
                            default = folded.ok_or_else(|| {
                                Error::failed_to_parse(
                                    "'$shift:default' expression must yield a constant value.",
                                )
                            })?;
                        }
                        _ => return Err(Error::failed_to_parse("Unknown argument in $shift")),
                    }
                }
                let output = output.ok_or_else(|| {
                    Error::failed_to_parse("$shift requires an 'output' expression.")
                })?;
                let by = by.ok_or_else(|| {
                    Error::failed_to_parse("$shift requires 'by' as an integer value.")
                })?;
                if sort.fields.is_none() {
                    return Err(Error::failed_to_parse("'$shift' requires a sortBy"));
                }
                Func::Shift {
                    output,
                    by,
                    default,
                }
            }
            "$derivative" | "$integral" => {
                let Bson::Document(o) = arg else {
                    return Err(Error::failed_to_parse(format!(
                        "{name} expects an object, but got a {}: {name}: {}",
                        crate::text::shell::type_name(arg),
                        crate::text::shell::inline(arg)
                    )));
                };
                let mut input = None;
                let mut unit = None;
                for (k, v) in o {
                    match (k.as_str(), v) {
                        ("input", _) => input = Some(Operand::compile(v, ctx)?),
                        ("unit", Bson::String(s)) => {
                            let u = TimeUnit::parse(s)?;
                            // 5490710 since 7.x (5490704 in 5.0): window_function_expression.h
                            unit = Some(u.millis().ok_or_else(|| {
                                Error::location(5490710, "unit must be 'week' or smaller")
                            })?);
                        }
                        ("unit", _) => {
                            return Err(Error::failed_to_parse(format!(
                                "{name} 'unit' must be a string"
                            )))
                        }
                        (other, _) => {
                            return Err(Error::failed_to_parse(format!(
                                "{name} got unexpected argument: {other}"
                            )))
                        }
                    }
                }
                let input = input.ok_or_else(|| {
                    Error::failed_to_parse(format!("{name} requires an 'input' expression"))
                })?;
                if name == "$derivative" {
                    let window = window.ok_or_else(|| {
                        Error::failed_to_parse("$derivative requires explicit window bounds")
                    })?;
                    Func::Derivative {
                        input,
                        unit,
                        window,
                    }
                } else {
                    Func::Integral {
                        input,
                        unit,
                        window: window.unwrap_or_else(Window::unbounded),
                    }
                }
            }
            "$expMovingAvg" => {
                let o = object("$expMovingAvg")?;
                if o.len() != 2 || !o.contains_key("input") {
                    return Err(Error::failed_to_parse(
                        "$expMovingAvg sub object must have exactly two fields: An 'input' field, and either an 'N' field or an 'alpha' field",
                    ));
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
                        &(bigdecimal::BigDecimal::from(2)
                            / bigdecimal::BigDecimal::from(f as i64 + 1)),
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
                    return Err(Error::failed_to_parse(
                        "Got unrecognized field in $expMovingAvg$expMovingAvg sub object must have exactly two fields: An 'input' field, and either an 'N' field or an 'alpha' field",
                    ));
                };
                Func::ExpMovingAvg { input, alpha }
            }
            "$linearFill" => {
                single_sort("$linearFill")?;
                Func::LinearFill(Operand::compile(arg, ctx)?)
            }
            "$locf" => Func::Locf(Operand::compile(arg, ctx)?),
            "$covariancePop" | "$covarianceSamp" => Func::Covariance {
                input: Operand::compile(arg, ctx)?,
                samp: name == "$covarianceSamp",
                window: window.unwrap_or_else(Window::unbounded),
            },
            "$minMaxScaler" | "$concatArrays" | "$setUnion" => {
                return Err(Error::not_supported(format!("the {name} window function")))
            }
            _ => {
                // `$count: {}` and every accumulator allowed in a window.
                let acc = match Accumulator::compile_op(name, arg, ctx) {
                    Ok(Some(acc))
                        if acc.kind != crate::aggregate::accumulators::Kind::MergeObjects =>
                    {
                        acc
                    }
                    Ok(_) => {
                        return Err(Error::failed_to_parse(format!(
                            "Unrecognized window function, {name}"
                        )))
                    }
                    Err(e) if e.code == 40237 => {
                        return Err(Error::failed_to_parse(format!(
                            "Window function {name} accepts only one argument"
                        )))
                    }
                    Err(e) => return Err(e),
                };
                Func::Acc(Box::new(acc), window.unwrap_or_else(Window::unbounded))
            }
        })
    }

    /// Values for every document of one (sorted) partition.
    pub fn compute(
        &self,
        docs: &[&Document],
        keys: &[Option<Bson>],
        sort: Option<&SortSpec>,
        scope: &Scope,
    ) -> Result<Vec<Option<Bson>>> {
        let n = docs.len();
        let mut out = Vec::with_capacity(n);
        match self {
            Func::Acc(acc, window) => {
                if window.is_unbounded() {
                    let mut st = acc.start(&Bson::Null, scope)?;
                    for d in docs {
                        acc.add(&mut st, d, scope)?;
                    }
                    let v = acc.result(&st);
                    fill(&mut out, n, v)?;
                    return Ok(out);
                }
                // [unbounded, current] is a running total: add one document per step.
                if matches!(
                    window,
                    Window::Documents(
                        super::bounds::Bound::Unbounded,
                        super::bounds::Bound::Current
                    )
                ) {
                    let mut st = acc.start(&Bson::Null, scope)?;
                    for d in docs {
                        acc.add(&mut st, d, scope)?;
                        out.push(Some(acc.result(&st)));
                        // A running `$push` holds n² values: the run's memory budget.
                        crate::budget::check()?;
                    }
                    return Ok(out);
                }
                for i in 0..n {
                    let mut st = acc.start(&Bson::Null, scope)?;
                    if let Some((lo, hi)) = window.span(i, n, keys)? {
                        for d in &docs[lo..=hi] {
                            acc.add(&mut st, d, scope)?;
                        }
                    }
                    out.push(Some(acc.result(&st)));
                    crate::budget::check()?;
                }
            }
            Func::DocumentNumber => out.extend((1..=n).map(|i| Some(count_value(i)))),
            Func::Rank | Func::DenseRank => {
                let mut rank = 0;
                let mut dense = 0;
                for i in 0..n {
                    let tie = i > 0
                        && sort.is_some_and(|s| s.compare(docs[i - 1], docs[i]) == Ordering::Equal);
                    if !tie {
                        rank = i + 1;
                        dense += 1;
                    }
                    out.push(Some(count_value(if matches!(self, Func::Rank) {
                        rank
                    } else {
                        dense
                    })));
                }
            }
            Func::Shift {
                output,
                by,
                default,
            } => {
                for i in 0..n {
                    let j = i as i64 + by;
                    // A missing output in the shifted document also gives the
                    // default (server jstests setWindowFields/shift.js).
                    let v = match usize::try_from(j).ok().and_then(|j| docs.get(j)) {
                        Some(d) => output.eval_owned(d, scope)?,
                        None => None,
                    };
                    let v = v.unwrap_or_else(|| default.clone());
                    out.push(Some(v));
                }
            }
            Func::Derivative {
                input,
                unit,
                window,
            } => {
                for i in 0..n {
                    let v = match window.span(i, n, keys)? {
                        Some((lo, hi)) => derivative(
                            input, *unit, docs[lo], docs[hi], &keys[lo], &keys[hi], scope,
                        )?,
                        None => Bson::Null,
                    };
                    out.push(Some(v));
                }
            }
            Func::Integral {
                input,
                unit,
                window,
            } => {
                for i in 0..n {
                    let v = match window.span(i, n, keys)? {
                        Some((lo, hi)) => {
                            integral(input, *unit, &docs[lo..=hi], &keys[lo..=hi], scope)?
                        }
                        None => Bson::Null,
                    };
                    out.push(Some(v));
                }
            }
            Func::ExpMovingAvg { input, alpha } => {
                // Decimal128 arithmetic (34 digits), a double result unless a
                // decimal was seen so far (accumulator_exp_moving_avg.cpp).
                let rest = round_sig(&(bigdecimal::BigDecimal::from(1) - alpha), DEC_DIGITS);
                let alpha_f = dec_to_f64(&Dec::Finite(alpha.clone()));
                let mut cur: Option<Dec> = None;
                let mut dec = false;
                for d in docs {
                    let v = input.eval(d, scope)?;
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
                            (Some(c), x) => f64_to_dec(
                                dec_to_f64(&x) * alpha_f + dec_to_f64(&c) * (1.0 - alpha_f),
                            ),
                        });
                    }
                    out.push(Some(match &cur {
                        None => Bson::Null,
                        Some(c) if dec => dec_bson(c),
                        Some(c) => Bson::Double(dec_to_f64(c)),
                    }));
                }
            }
            Func::Locf(op) => {
                let mut last = Bson::Null;
                for d in docs {
                    match op.eval_owned(d, scope)? {
                        Some(v) if !matches!(v, Bson::Null | Bson::Undefined) => {
                            last = v.clone();
                            out.push(Some(v));
                        }
                        _ => out.push(Some(last.clone())),
                    }
                }
            }
            Func::Covariance {
                input,
                samp,
                window,
            } => {
                let pairs: Vec<Option<(Bson, Bson)>> = docs
                    .iter()
                    .map(|d| Ok(super::covariance::pair(input.eval_owned(d, scope)?)))
                    .collect::<Result<_>>()?;
                if window.is_unbounded() {
                    // One value for the whole partition: computed once.
                    let v = super::covariance::covariance(pairs.iter().flatten(), *samp);
                    fill(&mut out, n, v)?;
                    return Ok(out);
                }
                for i in 0..n {
                    let v = match window.span(i, n, keys)? {
                        Some((lo, hi)) => {
                            super::covariance::covariance(pairs[lo..=hi].iter().flatten(), *samp)
                        }
                        None => super::covariance::covariance(std::iter::empty(), *samp),
                    };
                    out.push(Some(v));
                }
            }
            Func::LinearFill(op) => {
                let vals: Vec<Option<Bson>> = docs
                    .iter()
                    .zip(keys)
                    .enumerate()
                    .map(|(i, (d, key))| {
                        let v = op.eval_owned(d, scope)?;
                        super::fill::check_linear_fill(
                            v.as_ref(),
                            key,
                            i.checked_sub(1).map(|p| &keys[p]),
                        )?;
                        Ok(v.filter(|v| !matches!(v, Bson::Null | Bson::Undefined)))
                    })
                    .collect::<Result<_>>()?;
                for i in 0..n {
                    if let Some(v) = &vals[i] {
                        out.push(Some(v.clone()));
                        continue;
                    }
                    let prev = (0..i).rev().find(|&j| vals[j].is_some());
                    let next = (i + 1..n).find(|&j| vals[j].is_some());
                    let v = match (prev, next) {
                        (Some(p), Some(q)) => super::fill::interpolate(
                            &keys[p],
                            &keys[i],
                            &keys[q],
                            vals[p].as_ref(),
                            vals[q].as_ref(),
                        )?,
                        _ => Bson::Null,
                    };
                    out.push(Some(v));
                }
            }
        }
        Ok(out)
    }
}

/// A finite decimal, or zero (callers have checked the value is a number in range).
fn dec_finite(d: Dec) -> bigdecimal::BigDecimal {
    match d {
        Dec::Finite(b) => b,
        _ => bigdecimal::BigDecimal::from(0),
    }
}

/// `n` copies of one value: one per document of the partition (a `$push`
/// over the whole partition holds n² values, so each copy counts against
/// the run's memory budget).
fn fill(out: &mut Vec<Option<Bson>>, n: usize, v: Bson) -> Result<()> {
    while out.len() + 1 < n {
        out.push(Some(v.clone()));
        crate::budget::check()?;
    }
    if out.len() < n {
        out.push(Some(v));
    }
    Ok(())
}
