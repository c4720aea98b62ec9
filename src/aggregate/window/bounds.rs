//! Window bounds of `$setWindowFields` outputs: `documents: [lower, upper]`
//! (positions relative to the current document) or `range: [lower, upper]`
//! (values relative to the current document's sortBy value, optionally in a
//! time unit). Parsing follows window_bounds.cpp.
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Expr};
use crate::text::shell::{inline, type_name};
use crate::value::numeric::{is_number, to_f64};
use bson::{Bson, DateTime};

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bound<T> {
    Unbounded,
    Current,
    At(T),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeUnit {
    Year,
    Quarter,
    Month,
    Week,
    Day,
    Hour,
    Minute,
    Second,
    Millisecond,
}

impl TimeUnit {
    pub fn parse(s: &str) -> Result<TimeUnit> {
        Ok(match s {
            "year" => TimeUnit::Year,
            "quarter" => TimeUnit::Quarter,
            "month" => TimeUnit::Month,
            "week" => TimeUnit::Week,
            "day" => TimeUnit::Day,
            "hour" => TimeUnit::Hour,
            "minute" => TimeUnit::Minute,
            "second" => TimeUnit::Second,
            "millisecond" => TimeUnit::Millisecond,
            other => {
                return Err(Error::failed_to_parse(format!(
                    "unknown time unit value: {other}"
                )))
            }
        })
    }

    /// Milliseconds per unit for fixed-length units.
    pub fn millis(self) -> Option<i64> {
        Some(match self {
            TimeUnit::Week => 604_800_000,
            TimeUnit::Day => 86_400_000,
            TimeUnit::Hour => 3_600_000,
            TimeUnit::Minute => 60_000,
            TimeUnit::Second => 1_000,
            TimeUnit::Millisecond => 1,
            _ => return None,
        })
    }

    /// `date + n units` (calendar arithmetic for months, quarters, years).
    pub fn add(self, date: DateTime, n: i64) -> Option<DateTime> {
        if let Some(ms) = self.millis() {
            return Some(DateTime::from_millis(
                date.timestamp_millis().checked_add(ms.checked_mul(n)?)?,
            ));
        }
        let months = match self {
            TimeUnit::Year => n.checked_mul(12)?,
            TimeUnit::Quarter => n.checked_mul(3)?,
            _ => n,
        };
        crate::value::calendar::add_months(date.timestamp_millis(), months)
            .map(DateTime::from_millis)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Window {
    Documents(Bound<i64>, Bound<i64>),
    Range(Bound<Bson>, Bound<Bson>, Option<TimeUnit>),
}

impl Window {
    pub fn unbounded() -> Window {
        Window::Documents(Bound::Unbounded, Bound::Unbounded)
    }

    pub fn is_unbounded(&self) -> bool {
        matches!(self, Window::Documents(Bound::Unbounded, Bound::Unbounded))
    }

    /// Parse `window: {...}`; `sort_fields` is the number of sortBy fields
    /// (None without sortBy), `ascending` whether the first is ascending.
    pub fn parse(
        spec: &Bson,
        sort_fields: Option<usize>,
        ascending: bool,
        ctx: &CompileCtx,
    ) -> Result<Window> {
        let Bson::Document(d) = spec else {
            return Err(Error::failed_to_parse("'window' field must be an object"));
        };
        let (documents, range, unit) = (d.get("documents"), d.get("range"), d.get("unit"));
        if documents.is_some() && range.is_some() {
            return Err(Error::failed_to_parse(
                "Window bounds can specify either 'documents' or 'unit', not both.",
            ));
        }
        if range.is_none() && unit.is_some() {
            return Err(Error::failed_to_parse(
                "Window bounds can only specify 'unit' with range-based bounds.",
            ));
        }
        let unpack = |e: &Bson| -> Result<(Bson, Bson)> {
            match e {
                Bson::Array(items) if items.len() == 2 => Ok((items[0].clone(), items[1].clone())),
                _ => Err(Error::failed_to_parse(format!(
                    "Window bounds must be a 2-element array: {}",
                    inline(e)
                ))),
            }
        };
        if let Some(docs) = documents {
            if d.len() != 1 {
                return Err(Error::failed_to_parse(
                    "'window' field that specifies documents cannot have other fields",
                ));
            }
            let (lo, hi) = unpack(docs)?;
            let int = |v: Bson| -> Result<i64> {
                crate::value::numeric::to_i64_exact(&v)
                    .filter(|_| is_number(&v))
                    .ok_or_else(|| {
                        Error::failed_to_parse("Numeric document-based bounds must be an integer")
                    })
            };
            let lower = parse_bound(&lo, int, ctx)?;
            let upper = parse_bound(&hi, int, ctx)?;
            let norm = |b: &Bound<i64>| match b {
                Bound::Current => Some(0),
                Bound::At(n) => Some(*n),
                Bound::Unbounded => None,
            };
            if let (Some(l), Some(u)) = (norm(&lower), norm(&upper)) {
                if l > u {
                    return Err(Error::location(
                        5339900,
                        format!("Lower bound must not exceed upper bound: [{l}, {u}]"),
                    ));
                }
            }
            let w = Window::Documents(lower, upper);
            if !w.is_unbounded() && sort_fields.is_none() {
                return Err(Error::location(
                    5339901,
                    "Document-based bounds require a sortBy",
                ));
            }
            return Ok(w);
        }
        let Some(range) = range else {
            if !d.is_empty() {
                return Err(Error::failed_to_parse(
                    "'window' field can only contain 'documents' as the only argument or 'range' with an optional 'unit' field",
                ));
            }
            return Ok(Window::unbounded());
        };
        let (lo, hi) = unpack(range)?;
        let unit = match unit {
            Some(Bson::String(s)) => Some(TimeUnit::parse(s)?),
            Some(_) => return Err(Error::failed_to_parse("'unit' must be a string")),
            None => None,
        };
        if d.len() != 1 + usize::from(unit.is_some()) {
            return Err(Error::failed_to_parse(
                "'window' field that specifies range cannot have other fields besides 'unit'",
            ));
        }
        let check = |v: Bson| -> Result<Bson> {
            if unit.is_some() {
                if crate::value::numeric::to_i64_exact(&v).is_some() && is_number(&v) {
                    return Ok(v);
                }
                return Err(Error::failed_to_parse(
                    "With 'unit', range-based bounds must be an integer",
                ));
            }
            if is_number(&v) {
                Ok(v)
            } else {
                Err(Error::failed_to_parse(
                    "Range-based bounds expression must be a number",
                ))
            }
        };
        let lower = parse_bound(&lo, check, ctx)?;
        let upper = parse_bound(&hi, check, ctx)?;
        let val = |b: &Bound<Bson>| match b {
            Bound::Current => Some(0.0),
            Bound::At(v) => to_f64(v),
            Bound::Unbounded => None,
        };
        if let (Some(l), Some(u)) = (val(&lower), val(&upper)) {
            if l > u {
                return Err(Error::location(
                    5339900,
                    format!("Lower bound must not exceed upper bound: [{l}, {u}]"),
                ));
            }
        }
        if sort_fields != Some(1) {
            return Err(Error::location(
                5339902,
                "Range-based bounds require sortBy a single field",
            ));
        }
        if !ascending {
            return Err(Error::location(
                8947401,
                "Range-based bounds require an ascending sortBy",
            ));
        }
        Ok(Window::Range(lower, upper, unit))
    }

    /// The inclusive index range of the window of document `i` in a partition
    /// of `n` documents; `None` when empty. `keys` are the sortBy values
    /// (range windows only).
    pub fn span(
        &self,
        i: usize,
        n: usize,
        keys: &[Option<Bson>],
    ) -> Result<Option<(usize, usize)>> {
        match self {
            Window::Documents(lower, upper) => {
                let pos = |b: &Bound<i64>, unbounded: i64| match b {
                    Bound::Unbounded => unbounded,
                    Bound::Current => i as i64,
                    Bound::At(k) => i as i64 + k,
                };
                let lo = pos(lower, 0).max(0);
                let hi = pos(upper, n as i64 - 1).min(n as i64 - 1);
                if lo > hi || n == 0 {
                    return Ok(None);
                }
                Ok(Some((lo as usize, hi as usize)))
            }
            Window::Range(lower, upper, unit) => {
                // Every document's sortBy value must fit the window, whatever the
                // bounds, since each is the current one in turn
                // (partition_iterator.cpp getEndpointsRangeBased).
                for k in keys {
                    check_range_key(k.as_ref(), *unit)?;
                }
                let Some(Some(cur)) = keys.get(i) else {
                    return Ok(None);
                };
                let lo = self.edge(lower, cur, *unit)?;
                let hi = self.edge(upper, cur, *unit)?;
                // "current" is the current document itself, not the documents tying
                // with it, unlike 0 (partition_iterator.cpp getEndpointsRangeBased).
                let first = match lower {
                    Bound::Current => Some(i),
                    _ => keys.iter().position(|k| {
                        k.as_ref().is_some_and(|k| {
                            lo.as_ref()
                                .is_none_or(|l| cmp_key(k, l) != std::cmp::Ordering::Less)
                        })
                    }),
                };
                let last = match upper {
                    Bound::Current => Some(i),
                    _ => keys.iter().rposition(|k| {
                        k.as_ref().is_some_and(|k| {
                            hi.as_ref()
                                .is_none_or(|h| cmp_key(k, h) != std::cmp::Ordering::Greater)
                        })
                    }),
                };
                Ok(first.zip(last).filter(|(f, l)| f <= l))
            }
        }
    }

    /// The value `cur + offset` a range edge stands for; `None` = unbounded.
    fn edge(&self, b: &Bound<Bson>, cur: &Bson, unit: Option<TimeUnit>) -> Result<Option<Bson>> {
        let off = match b {
            Bound::Unbounded => return Ok(None),
            Bound::Current => return Ok(Some(cur.clone())),
            Bound::At(v) => v,
        };
        match (unit, cur) {
            (Some(u), Bson::DateTime(d)) => {
                let n = crate::value::numeric::to_i64_exact(off).unwrap_or(0);
                Ok(u.add(*d, n).map(Bson::DateTime))
            }
            (Some(u), other) => Err(range_type_error(other, Some(u))),
            (None, Bson::DateTime(_)) => Err(Error::location(
                5429413,
                "Invalid range: For windows that involve date or time ranges, a unit must be provided.",
            )),
            (None, c) if is_number(c) => Ok(Some(Bson::Double(
                to_f64(c).unwrap_or(0.0) + to_f64(off).unwrap_or(0.0),
            ))),
            (None, other) => Err(range_type_error(other, None)),
        }
    }
}

/// A sortBy value a range window can use: a date with a unit, else a number.
fn check_range_key(k: Option<&Bson>, unit: Option<TimeUnit>) -> Result<()> {
    let ok = match (k, unit) {
        (Some(Bson::DateTime(_)), Some(_)) => true,
        (Some(Bson::DateTime(_)), None) => return Err(Error::location(
            5429413,
            "Invalid range: For windows that involve date or time ranges, a unit must be provided.",
        )),
        (Some(v), None) => is_number(v),
        _ => false,
    };
    if ok {
        return Ok(());
    }
    let shown = k.map_or("missing", type_name);
    Err(if unit.is_some() {
        Error::location(
            5429513,
            format!("Invalid range: Expected the sortBy field to be a Date, but it was {shown}"),
        )
    } else {
        Error::location(
            5429414,
            format!("Invalid range: Expected the sortBy field to be a number, but it was {shown}"),
        )
    })
}

fn cmp_key(a: &Bson, b: &Bson) -> std::cmp::Ordering {
    crate::value::compare(a, b)
}

fn range_type_error(v: &Bson, unit: Option<TimeUnit>) -> Error {
    if unit.is_some() {
        Error::location(
            5429513,
            format!(
                "Invalid range: Expected the sortBy field to be a Date, but it was {}",
                type_name(v)
            ),
        )
    } else {
        Error::location(
            5429414,
            format!(
                "Invalid range: Expected the sortBy field to be a number, but it was {}",
                type_name(v)
            ),
        )
    }
}

/// A bound: "unbounded", "current", or a constant expression (folded, as the
/// server optimizes it: window_bounds.cpp parseBound).
fn parse_bound<T>(v: &Bson, f: impl Fn(Bson) -> Result<T>, ctx: &CompileCtx) -> Result<Bound<T>> {
    match v {
        Bson::String(s) if s == "unbounded" => Ok(Bound::Unbounded),
        Bson::String(s) if s == "current" => Ok(Bound::Current),
        Bson::String(_) => Err(Error::failed_to_parse(
            "Window bounds must be 'unbounded', 'current', or a number.",
        )),
        Bson::Document(_) | Bson::Array(_) => {
            let c = Expr::compile(v, ctx)?.fold_constant()?.ok_or_else(|| {
                Error::failed_to_parse("Window bounds expression must be a constant.")
            })?;
            f(c).map(Bound::At)
        }
        other => f(other.clone()).map(Bound::At),
    }
}
