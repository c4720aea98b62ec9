//! Window functions of `$setWindowFields`: accumulators over a window, and
//! the order-based functions (`$rank`, `$shift`, `$derivative`, ...).
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/setWindowFields/
use super::bounds::{TimeUnit, Window};
use super::calculus::{derivative, integral};
use super::exp_moving_avg::ExpMovingAvg;
use super::shift::Shift;
use crate::aggregate::accumulators::Accumulator;
use crate::aggregate::operand::Operand;
use crate::error::{Error, Result};
use crate::expr::sum::count_value;
use crate::expr::{CompileCtx, Scope};
use crate::query::sort::SortSpec;
use bson::{Bson, Document};
use std::cmp::Ordering;

#[derive(Clone, Debug)]
pub enum Func {
    /// Boxed: an accumulator is the largest function by far.
    Acc(Box<Accumulator>, Window),
    Rank,
    DenseRank,
    DocumentNumber,
    Shift(Shift),
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
    ExpMovingAvg(ExpMovingAvg),
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

/// A function's argument that must be an object, or FailedToParse with `message`.
pub(super) fn object_arg<'a>(arg: &'a Bson, message: &str) -> Result<&'a Document> {
    match arg {
        Bson::Document(o) => Ok(o),
        _ => Err(Error::failed_to_parse(message)),
    }
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
            "$shift" => Func::Shift(Shift::compile(arg, sort, ctx)?),
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
            "$expMovingAvg" => Func::ExpMovingAvg(ExpMovingAvg::compile(arg, sort, ctx)?),
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
            Func::Shift(shift) => out = shift.values(docs, scope)?,
            Func::Derivative {
                input,
                unit,
                window,
            } => {
                out = per_window(window, n, keys, Bson::Null, |lo, hi| {
                    derivative(
                        input, *unit, docs[lo], docs[hi], &keys[lo], &keys[hi], scope,
                    )
                })?;
            }
            Func::Integral {
                input,
                unit,
                window,
            } => {
                out = per_window(window, n, keys, Bson::Null, |lo, hi| {
                    integral(input, *unit, &docs[lo..=hi], &keys[lo..=hi], scope)
                })?;
            }
            Func::ExpMovingAvg(ema) => out = ema.values(docs, scope)?,
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
                let empty = super::covariance::covariance(std::iter::empty(), *samp);
                out = per_window(window, n, keys, empty, |lo, hi| {
                    Ok(super::covariance::covariance(
                        pairs[lo..=hi].iter().flatten(),
                        *samp,
                    ))
                })?;
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

/// One value per document of `n`: `of(lo, hi)` over the documents of its
/// window, `empty` where the window holds none.
fn per_window(
    window: &Window,
    n: usize,
    keys: &[Option<Bson>],
    empty: Bson,
    mut of: impl FnMut(usize, usize) -> Result<Bson>,
) -> Result<Vec<Option<Bson>>> {
    (0..n)
        .map(|i| {
            Ok(Some(match window.span(i, n, keys)? {
                Some((lo, hi)) => of(lo, hi)?,
                None => empty.clone(),
            }))
        })
        .collect()
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
