//! Accumulators (`$sum`, `$push`, `$topN`...), shared by `$group`, `$bucket`,
//! `$bucketAuto` and `$setWindowFields`. Compiled once per stage; each group
//! (or window) owns a `State` that documents are added to.
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation-pipeline/#accumulators---group---bucket---bucketauto---setwindowfields-
mod compile;

use super::key::KeyMap;
use super::operand::Operand;
use crate::error::{Error, Result};
use crate::expr::sum::{avg, SumState};
use crate::expr::{Expr, Scope};
use crate::query::sort::SortSpec;
use crate::text::shell::type_name;
use crate::value::{compare, numeric::to_f64};
use bson::{Bson, Document};
use std::cmp::Ordering;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Sum,
    Avg,
    Min,
    Max,
    Push,
    AddToSet,
    First,
    Last,
    StdDevPop,
    StdDevSamp,
    MergeObjects,
    Top,
    Bottom,
    TopN,
    BottomN,
    FirstN,
    LastN,
    MaxN,
    MinN,
    Quantile,
}

/// A compiled accumulator.
#[derive(Clone, Debug)]
pub struct Accumulator {
    pub kind: Kind,
    pub name: &'static str,
    input: Operand,
    /// `n` of the N variants, evaluated once per group against its `_id`.
    n: Option<Operand>,
    /// `sortBy` of `$top`/`$bottom`(N): the sort paths as operands, and a
    /// spec over the generated key fields `k0, k1, ...`.
    sort: Option<(Vec<Operand>, SortSpec)>,
    /// `$median`/`$percentile`: the expression form, applied to the collected values.
    quantile: Option<Expr>,
}

/// Per-group state.
#[derive(Clone, Debug)]
pub enum State {
    Sum(SumState),
    Avg(SumState, u64),
    Extreme(Option<Bson>),
    List(Vec<Bson>),
    Set(KeyMap<()>),
    Single(Option<Bson>),
    StdDev {
        n: u64,
        mean: f64,
        m2: f64,
    },
    Merge(Document),
    /// `(sort key document, output)` pairs in sort order, at most `n`.
    Sorted(Vec<(Document, Bson)>, usize),
    /// Values of `$firstN`/`$lastN`/`$maxN`/`$minN`, at most `n`.
    Limited(Vec<Bson>, usize),
}

const NAMES: &[(&str, Kind)] = &[
    ("$sum", Kind::Sum),
    ("$avg", Kind::Avg),
    ("$min", Kind::Min),
    ("$max", Kind::Max),
    ("$push", Kind::Push),
    ("$addToSet", Kind::AddToSet),
    ("$first", Kind::First),
    ("$last", Kind::Last),
    ("$count", Kind::Sum),
    ("$stdDevPop", Kind::StdDevPop),
    ("$stdDevSamp", Kind::StdDevSamp),
    ("$mergeObjects", Kind::MergeObjects),
    ("$top", Kind::Top),
    ("$bottom", Kind::Bottom),
    ("$topN", Kind::TopN),
    ("$bottomN", Kind::BottomN),
    ("$firstN", Kind::FirstN),
    ("$lastN", Kind::LastN),
    ("$maxN", Kind::MaxN),
    ("$minN", Kind::MinN),
    ("$median", Kind::Quantile),
    ("$percentile", Kind::Quantile),
];

/// Accumulators MongoDB has that the playground does not implement.
const UNSUPPORTED: &[&str] = &["$accumulator", "$concatArrays", "$setUnion"];

/// Is `name` an accumulator this module knows?
pub fn is_accumulator(name: &str) -> bool {
    NAMES.iter().any(|(n, _)| *n == name)
}

impl Accumulator {
    /// The per-document argument.
    pub fn input(&self) -> &Operand {
        &self.input
    }

    /// Can documents be fed through `add_value` (no sort keys to compute)?
    pub fn takes_values(&self) -> bool {
        !matches!(
            self.kind,
            Kind::Top | Kind::Bottom | Kind::TopN | Kind::BottomN
        )
    }

    /// Does this accumulator need `n` from the group key?
    pub fn needs_key(&self) -> bool {
        self.n.as_ref().is_some_and(|n| n.as_const().is_none())
    }

    /// A fresh state for a group whose `_id` is `key`.
    /// Whether the state keeps more as documents come (everything but a
    /// running total, an extreme, a single value or a deviation).
    pub fn grows(&self) -> bool {
        !matches!(
            self.kind,
            Kind::Sum
                | Kind::Avg
                | Kind::Min
                | Kind::Max
                | Kind::First
                | Kind::Last
                | Kind::StdDevPop
                | Kind::StdDevSamp
        )
    }

    pub fn start(&self, key: &Bson, scope: &Scope) -> Result<State> {
        Ok(match self.kind {
            Kind::Sum => State::Sum(SumState::default()),
            Kind::Avg => State::Avg(SumState::default(), 0),
            Kind::Min | Kind::Max => State::Extreme(None),
            Kind::Push => State::List(Vec::new()),
            Kind::AddToSet => State::Set(KeyMap::new()),
            Kind::First | Kind::Last => State::Single(None),
            Kind::StdDevPop | Kind::StdDevSamp => State::StdDev {
                n: 0,
                mean: 0.0,
                m2: 0.0,
            },
            Kind::MergeObjects => State::Merge(Document::new()),
            Kind::Top | Kind::Bottom | Kind::TopN | Kind::BottomN => {
                State::Sorted(Vec::new(), self.eval_n(key, scope)?)
            }
            Kind::Quantile => State::List(Vec::new()),
            Kind::FirstN | Kind::LastN | Kind::MaxN | Kind::MinN => {
                State::Limited(Vec::new(), self.eval_n(key, scope)?)
            }
        })
    }

    /// `n` is evaluated with the group's `_id` as the document (so `"$gameId"`
    /// reads `_id.gameId` when `_id` is `{gameId: ...}`).
    fn eval_n(&self, key: &Bson, scope: &Scope) -> Result<usize> {
        let Some(n) = &self.n else { return Ok(1) };
        let empty = Document::new();
        let root = match key {
            Bson::Document(d) => d,
            _ => &empty,
        };
        let v = n.eval(root, scope)?;
        validate_n(v.as_deref())
    }

    /// Add one document.
    pub fn add(&self, state: &mut State, doc: &Document, scope: &Scope) -> Result<()> {
        match state {
            State::Single(Some(_)) if self.kind == Kind::First => return Ok(()),
            State::Limited(items, n) if self.kind == Kind::FirstN && items.len() >= *n => {
                return Ok(())
            }
            _ => {}
        }
        if let State::Sorted(items, n) = state {
            return self.add_sorted(items, *n, doc, scope);
        }
        if let Some(v) = self.input.borrowed(doc) {
            return self.add_value(state, v);
        }
        let value = self.input.eval(doc, scope)?;
        self.add_value(state, value.as_deref())
    }

    /// Add an already evaluated value (`None` = missing).
    pub fn add_value(&self, state: &mut State, value: Option<&Bson>) -> Result<()> {
        match state {
            State::Sum(s) => {
                if let Some(v) = value {
                    s.add(v);
                }
            }
            State::Avg(s, count) => {
                if let Some(v) = value {
                    if s.add(v) {
                        *count += 1;
                    }
                }
            }
            State::Extreme(cur) => {
                let Some(v) = value.filter(|v| !is_nullish(v)) else {
                    return Ok(());
                };
                let better = match cur {
                    None => true,
                    Some(c) => {
                        let ord = compare(v, c);
                        if self.kind == Kind::Min {
                            ord == Ordering::Less
                        } else {
                            ord == Ordering::Greater
                        }
                    }
                };
                if better {
                    *cur = Some(v.clone());
                }
            }
            State::List(items) => {
                if let Some(v) = value {
                    items.push(v.clone());
                }
            }
            State::Set(set) => {
                if let Some(v) = value {
                    set.insert_new(v, || ());
                }
            }
            State::Single(cur) => {
                if self.kind == Kind::Last || cur.is_none() {
                    *cur = Some(value.cloned().unwrap_or(Bson::Null));
                }
            }
            State::StdDev { n, mean, m2 } => {
                if let Some(x) = value.and_then(to_f64) {
                    *n += 1;
                    let delta = x - *mean;
                    *mean += delta / *n as f64;
                    *m2 += delta * (x - *mean);
                }
            }
            State::Merge(out) => match value {
                None | Some(Bson::Null) | Some(Bson::Undefined) => {}
                Some(Bson::Document(d)) => {
                    for (k, v) in d {
                        out.insert(k.clone(), v.clone());
                    }
                }
                Some(other) => {
                    return Err(Error::location(
                        40400,
                        format!(
                            "$mergeObjects requires object inputs, but input {} is of type {}",
                            crate::text::shell::inline(other),
                            type_name(other)
                        ),
                    ))
                }
            },
            State::Limited(items, n) => self.add_limited(items, *n, value),
            State::Sorted(..) => {}
        }
        Ok(())
    }

    fn add_limited(&self, items: &mut Vec<Bson>, n: usize, value: Option<&Bson>) {
        match self.kind {
            Kind::FirstN => {
                if items.len() < n {
                    items.push(value.cloned().unwrap_or(Bson::Null));
                }
            }
            Kind::LastN => {
                if items.len() >= n && !items.is_empty() {
                    items.remove(0);
                }
                items.push(value.cloned().unwrap_or(Bson::Null));
            }
            _ => {
                let Some(v) = value.filter(|v| !is_nullish(v)) else {
                    return;
                };
                // Kept best-first: ascending for $minN, descending for $maxN.
                let before = |a: &Bson, b: &Bson| {
                    let ord = compare(a, b);
                    if self.kind == Kind::MinN {
                        ord == Ordering::Less
                    } else {
                        ord == Ordering::Greater
                    }
                };
                if items.len() >= n {
                    match items.last() {
                        Some(worst) if before(v, worst) => {
                            items.pop();
                        }
                        _ => return,
                    }
                }
                let pos = items.partition_point(|x| !before(v, x));
                items.insert(pos, v.clone());
            }
        }
    }

    fn add_sorted(
        &self,
        items: &mut Vec<(Document, Bson)>,
        n: usize,
        doc: &Document,
        scope: &Scope,
    ) -> Result<()> {
        let Some((paths, spec)) = &self.sort else {
            return Ok(());
        };
        let mut key = Document::new();
        for (i, p) in paths.iter().enumerate() {
            if let Some(v) = p.eval(doc, scope)? {
                key.insert(format!("k{i}"), v.into_owned());
            }
        }
        let top = matches!(self.kind, Kind::Top | Kind::TopN);
        if items.len() >= n {
            // Ties keep the value seen first (accumulator_multi.cpp).
            if top {
                match items.last() {
                    Some((worst, _)) if spec.compare(worst, &key) == Ordering::Greater => {
                        items.pop();
                    }
                    _ => return Ok(()),
                }
            } else {
                match items.first() {
                    Some((least, _)) if spec.compare(&key, least) == Ordering::Greater => {
                        items.remove(0);
                    }
                    _ => return Ok(()),
                }
            }
        }
        let output = self
            .input
            .eval(doc, scope)?
            .map_or(Bson::Null, |v| v.into_owned());
        let pos = items.partition_point(|(k, _)| spec.compare(k, &key) != Ordering::Greater);
        items.insert(pos, (key, output));
        Ok(())
    }

    /// The accumulated value.
    pub fn result(&self, state: &State) -> Bson {
        match state {
            State::Sum(s) => s.result(),
            State::Avg(s, count) => avg(s, *count),
            State::Extreme(v) => v.clone().unwrap_or(Bson::Null),
            State::List(items) if self.kind == Kind::Quantile => self.quantile_of(items),
            State::List(items) | State::Limited(items, _) => Bson::Array(items.clone()),
            State::Set(set) => Bson::Array(set.entries().iter().map(|(k, _)| k.clone()).collect()),
            State::Single(v) => v.clone().unwrap_or(Bson::Null),
            State::StdDev { n, m2, .. } => {
                let denom = match self.kind {
                    Kind::StdDevSamp if *n < 2 => return Bson::Null,
                    Kind::StdDevSamp => *n - 1,
                    _ if *n == 0 => return Bson::Null,
                    _ => *n,
                };
                Bson::Double((m2 / denom as f64).sqrt())
            }
            State::Merge(d) => Bson::Document(d.clone()),
            State::Sorted(items, _) => {
                let outs = items.iter().map(|(_, o)| o.clone());
                if matches!(self.kind, Kind::Top | Kind::Bottom) {
                    items.first().map_or(Bson::Null, |(_, o)| o.clone())
                } else {
                    Bson::Array(outs.collect())
                }
            }
        }
    }
}

impl Accumulator {
    fn quantile_of(&self, items: &[Bson]) -> Bson {
        let Some(expr) = &self.quantile else {
            return Bson::Null;
        };
        let run = crate::context::RunCtx::default();
        let scope = Scope::new(&run);
        let mut doc = Document::new();
        doc.insert("values", Bson::Array(items.to_vec()));
        expr.evaluate(&doc, &scope)
            .ok()
            .flatten()
            .unwrap_or(Bson::Null)
    }
}

pub fn is_nullish(v: &Bson) -> bool {
    matches!(v, Bson::Null | Bson::Undefined)
}

/// `n` of the N accumulators: a positive integral number.
pub fn validate_n(v: Option<&Bson>) -> Result<usize> {
    let shown = v.map_or("missing".to_string(), crate::text::shell::inline);
    let Some(f) = v.and_then(to_f64) else {
        return Err(Error::location(
            5787902,
            format!("Value for 'n' must be of integral type, but found {shown}"),
        ));
    };
    if f.fract() != 0.0 || !f.is_finite() {
        return Err(Error::location(
            5787903,
            format!("Value for 'n' must be of integral type, but found {shown}"),
        ));
    }
    if f <= 0.0 {
        return Err(Error::location(
            5787908,
            format!("'n' must be greater than 0, found {shown}"),
        ));
    }
    Ok(f.min(1e9) as usize)
}
