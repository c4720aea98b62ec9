//! Accumulators in expression form: `{$sum: <array expr>}` sums the array's
//! elements; `{$sum: [a, b, c]}` sums the arguments (arrays among several
//! arguments are not expanded).
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/sum/#use-in--project-stage
use crate::error::{Error, Result};
use crate::expr::accum::StdDev;
use crate::expr::accum::{avg_values, max_value, min_value, std_dev, sum_values};
use crate::expr::compile::{call, Compiler};
use crate::expr::eval::{Cx, Node, Special};
use crate::expr::sum::{avg, SumState};
use crate::expr::value::{err, Value};
use crate::text::server::server_string;
use crate::value::compare;
use crate::value::numeric::{is_number, to_f64};
use bson::Bson;
use std::cmp::Ordering;
use std::sync::Arc;

pub(crate) fn c_accumulator(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    Ok(call(n, accumulate, c.args(a)?))
}

#[derive(Debug)]
struct Quantile {
    median: bool,
    input: Node,
    ps: Vec<f64>,
    continuous: bool,
}

impl Quantile {
    fn format(&self, vals: Option<Vec<f64>>) -> Bson {
        match (self.median, vals) {
            (true, Some(v)) => v.first().map_or(Bson::Null, |x| Bson::Double(*x)),
            (true, None) => Bson::Null,
            (false, Some(v)) => Bson::Array(v.into_iter().map(Bson::Double).collect()),
            (false, None) => Bson::Array(vec![Bson::Null; self.ps.len()]),
        }
    }
}

impl Special for Quantile {
    fn eval(&self, cx: &mut Cx) -> Result<Value> {
        let input = cx.eval(&self.input)?;
        let mut xs: Vec<f64> = match &input {
            Some(v) if is_number(v) => {
                let x = to_f64(v).unwrap_or(f64::NAN);
                return Ok(Some(self.format(Some(vec![x; self.ps.len()]))));
            }
            Some(Bson::Array(items)) => items
                .iter()
                .filter(|v| is_number(v))
                .filter_map(to_f64)
                .collect(),
            _ => Vec::new(),
        };
        if xs.is_empty() {
            return Ok(Some(self.format(None)));
        }
        crate::sorting::sort_by(&mut xs, f64::total_cmp);
        let n = xs.len();
        let out = self
            .ps
            .iter()
            .map(|&p| {
                if self.continuous {
                    let pos = p * (n - 1) as f64;
                    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
                    let (a, b) = (xs[lo.min(n - 1)], xs[hi.min(n - 1)]);
                    a + (pos - lo as f64) * (b - a)
                } else {
                    // The discrete rank: ceil(p * n) - 1, clamped to the array.
                    let rank = (p * n as f64).ceil() as usize;
                    xs[rank.saturating_sub(1).min(n - 1)]
                }
            })
            .collect();
        Ok(Some(self.format(Some(out))))
    }
}

/// `$percentile: {input, p, method}` and `$median: {input, method}` as expressions:
/// "approximate" and "discrete" use the discrete rank on arrays (as MongoDB does
/// for expressions), "continuous" interpolates.
pub(crate) fn c_percentile(name: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    let median = name == "$median";
    let Bson::Document(d) = a else {
        return Err(err(
            7436200,
            format!(
                "specification must be an object; found {name}: {}",
                server_string(a)
            ),
        ));
    };
    let (mut input, mut p, mut method) = (None, None, None);
    for (k, v) in d {
        match k.as_str() {
            "input" => input = Some(c.operand(v)?),
            "p" if !median => p = Some(c.operand(v)?),
            "method" => method = Some(v),
            _ => {
                return Err(Error::location(
                    40415,
                    format!("BSON field '{name}.{k}' is an unknown field."),
                ))
            }
        }
    }
    let missing = |f: &str| {
        Error::location(
            40414,
            format!("BSON field '{name}.{f}' is missing but a required field"),
        )
    };
    let input = input.ok_or_else(|| missing("input"))?;
    let method = method.ok_or_else(|| missing("method"))?;
    let continuous = match method {
        Bson::String(m) if m == "approximate" || m == "discrete" => false,
        Bson::String(m) if m == "continuous" => true,
        _ => {
            return Err(Error::bad_value(
                "Currently only 'approximate', 'discrete', and 'continuous' can be used as percentile 'method'.",
            ))
        }
    };
    let ps = if median {
        vec![0.5]
    } else {
        let p = p.ok_or_else(|| missing("p"))?;
        // Constant expressions are folded: "It's allowed to use constant
        // expressions and variables as long as it evaluates to an array of
        // doubles" (accumulator_percentile.cpp's parseP).
        let Some(pv) = crate::expr::fold_node(&p)? else {
            return Err(err(
                7750300,
                "The $percentile 'p' field must be an array of constant values",
            ));
        };
        let msg =
            "The $percentile 'p' field must be an array of numbers from [0.0, 1.0], but found: ";
        let Bson::Array(items) = &pv else {
            return Err(err(7750301, format!("{msg}{}", server_string(&pv))));
        };
        if items.is_empty() {
            return Err(err(7750301, format!("{msg}[]")));
        }
        let mut ps = Vec::with_capacity(items.len());
        for i in items {
            let Some(x) = to_f64(i).filter(|_| is_number(i)) else {
                return Err(err(7750302, format!("{msg}{}", server_string(i))));
            };
            if !(0.0..=1.0).contains(&x) {
                return Err(err(7750303, format!("{msg}{x}")));
            }
            ps.push(x);
        }
        ps
    };
    Ok(Node::Special(Arc::new(Quantile {
        median,
        input,
        ps,
        continuous,
    })))
}

fn accumulate(name: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    // One field path: its values read in place, one at a time.
    if let [arg] = args {
        let mut fold = Fold::new(name);
        if cx.visit_values(arg, &mut |v| fold.add(v)).is_some() {
            return Ok(Some(fold.result()));
        }
    }
    let vals: Vec<Value> = cx.eval_all(args)?;
    let items: Vec<Bson> = if vals.len() == 1 {
        match vals.into_iter().next().flatten() {
            Some(Bson::Array(a)) => a,
            Some(v) => vec![v],
            None => Vec::new(),
        }
    } else {
        vals.into_iter().flatten().collect()
    };
    Ok(Some(fold(name, &items)))
}

/// An accumulator fed one value at a time (what [`fold`] computes).
enum Fold<'a> {
    Sum(SumState),
    Avg(SumState, u64),
    Extreme(Option<&'a Bson>, Ordering),
    StdDev(StdDev, bool),
}

impl<'a> Fold<'a> {
    fn new(name: &str) -> Fold<'a> {
        match name {
            "$sum" => Fold::Sum(SumState::default()),
            "$avg" => Fold::Avg(SumState::default(), 0),
            "$min" => Fold::Extreme(None, Ordering::Less),
            "$max" => Fold::Extreme(None, Ordering::Greater),
            "$stdDevPop" => Fold::StdDev(StdDev::new(), false),
            _ => Fold::StdDev(StdDev::new(), true),
        }
    }

    fn add(&mut self, v: &'a Bson) {
        match self {
            Fold::Sum(s) => {
                s.add(v);
            }
            Fold::Avg(s, n) => {
                if s.add(v) {
                    *n += 1;
                }
            }
            // As `min_value`/`max_value`: null and undefined are skipped.
            Fold::Extreme(best, want) => {
                if !matches!(v, Bson::Null | Bson::Undefined)
                    && best.is_none_or(|b| compare(v, b) == *want)
                {
                    *best = Some(v);
                }
            }
            Fold::StdDev(s, _) => s.add(v),
        }
    }

    fn result(self) -> Bson {
        match self {
            Fold::Sum(s) => s.result(),
            Fold::Avg(s, n) => avg(&s, n),
            Fold::Extreme(best, _) => best.cloned().unwrap_or(Bson::Null),
            Fold::StdDev(s, samp) => s.value(samp),
        }
    }
}

/// The accumulator `name` over `items`.
fn fold<'a>(name: &str, items: impl IntoIterator<Item = &'a Bson>) -> Bson {
    match name {
        "$sum" => sum_values(items),
        "$avg" => avg_values(items),
        "$min" => min_value(items),
        "$max" => max_value(items),
        "$stdDevPop" => std_dev(items, false),
        _ => std_dev(items, true),
    }
}
