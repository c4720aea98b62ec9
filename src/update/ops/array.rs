//! Array operators: `$push` (with `$each`, `$position`, `$sort`, `$slice`),
//! `$addToSet`, `$pop`, `$pull`, `$pullAll`.
//! https://www.mongodb.com/docs/manual/reference/operator/update/push/
//! https://www.mongodb.com/docs/manual/reference/operator/update/pull/
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Scope};
use crate::query::Filter;
use crate::text::shell::type_name;
use crate::value::{compare, equal};
use bson::{Bson, Document};
use std::cmp::Ordering;

/// A compiled `$push` argument.
#[derive(Clone, Debug)]
pub struct Push {
    pub each: Vec<Bson>,
    pub slice: Option<i64>,
    pub sort: Option<PushSort>,
    pub position: Option<i64>,
}

/// `$sort: 1` (whole elements) or `$sort: {field: 1, ...}`.
#[derive(Clone, Debug)]
pub enum PushSort {
    Whole(bool),
    Pattern(Vec<(Vec<String>, bool)>),
}

/// An integer argument the way the matcher parses one (`parseIntegerElementToLong`).
pub fn integer_arg(name: &str, v: &Bson) -> Result<i64> {
    let shown = || crate::text::server::elem(name, v);
    match v {
        Bson::Int32(x) => Ok(i64::from(*x)),
        Bson::Int64(x) => Ok(*x),
        Bson::Double(x) => {
            if x.fract() != 0.0 || x.is_nan() {
                Err(Error::failed_to_parse(format!(
                    "Expected an integer: {}",
                    shown()
                )))
            } else if *x < -9.223372036854776e18 || *x >= 9.223372036854776e18 {
                Err(Error::failed_to_parse(format!(
                    "Cannot represent as a 64-bit integer: {}",
                    shown()
                )))
            } else {
                Ok(*x as i64)
            }
        }
        Bson::Decimal128(_) => crate::value::numeric::to_i64_exact(v)
            .ok_or_else(|| Error::failed_to_parse(format!("Expected an integer: {}", shown()))),
        _ => Err(Error::failed_to_parse(format!(
            "Expected a number in: {}",
            shown()
        ))),
    }
}

impl Push {
    pub fn parse(arg: &Bson) -> Result<Push> {
        let spec = match arg {
            Bson::Document(d) if d.contains_key("$each") => d,
            other => {
                return Ok(Push {
                    each: vec![other.clone()],
                    slice: None,
                    sort: None,
                    position: None,
                })
            }
        };
        for (k, _) in spec {
            if !matches!(k.as_str(), "$each" | "$slice" | "$sort" | "$position") {
                return Err(Error::bad_value(format!(
                    "Unrecognized clause in $push: {k}"
                )));
            }
        }
        let each = match spec.get("$each") {
            Some(Bson::Array(a)) => a.clone(),
            Some(other) => {
                return Err(Error::bad_value(format!(
                    "The argument to $each in $push must be an array but it was of type: {}",
                    type_name(other)
                )))
            }
            None => Vec::new(),
        };
        let slice = match spec.get("$slice") {
            Some(v) => Some(integer_arg("$slice", v).map_err(|_| {
                Error::bad_value(format!(
                    "The value for $slice must be an integer value but was given type: {}",
                    type_name(v)
                ))
            })?),
            None => None,
        };
        let position = match spec.get("$position") {
            Some(v) => Some(integer_arg("$position", v).map_err(|_| {
                Error::bad_value(format!(
                    "The value for $position must be an integer value, not of type: {}",
                    type_name(v)
                ))
            })?),
            None => None,
        };
        let sort = match spec.get("$sort") {
            None => None,
            Some(Bson::Document(d)) => Some(parse_sort_pattern(d)?),
            Some(v) if crate::value::numeric::is_number(v) => match direction(v) {
                Some(asc) => Some(PushSort::Whole(asc)),
                None => {
                    return Err(Error::bad_value(
                        "The $sort element value must be either 1 or -1",
                    ))
                }
            },
            Some(_) => {
                return Err(Error::bad_value(
                    "The $sort is invalid: use 1/-1 to sort the whole element, or {field:1/-1} to sort embedded fields",
                ))
            }
        };
        Ok(Push {
            each,
            slice,
            sort,
            position,
        })
    }

    /// Apply to an existing array; returns whether the server counts it as modified.
    pub fn apply(&self, arr: &mut Vec<Bson>) -> bool {
        let mut modified = !self.each.is_empty();
        if !self.each.is_empty() {
            let len = arr.len() as i64;
            let at = match self.position {
                None => len,
                Some(p) if p > len => len,
                Some(p) if p >= 0 => p,
                // i64::MIN has no negation: it counts past the front like any
                // other large negative position.
                Some(p) if p.checked_neg().is_some_and(|n| n < len) => len + p,
                Some(_) => 0,
            };
            let at = usize::try_from(at).unwrap_or(0).min(arr.len());
            arr.splice(at..at, self.each.iter().cloned());
        }
        if let Some(sort) = &self.sort {
            modified = true;
            sort_elements(arr, sort);
        }
        if let Some(slice) = self.slice {
            let keep =
                usize::try_from(slice.checked_abs().unwrap_or(i64::MAX)).unwrap_or(usize::MAX);
            if arr.len() > keep {
                modified = true;
                if slice >= 0 {
                    arr.truncate(keep);
                } else {
                    arr.drain(..arr.len() - keep);
                }
            }
        }
        modified
    }

    /// Upper bound of the nesting the pushed values add (for the depth limit).
    pub fn nesting(&self) -> usize {
        1 + self
            .each
            .iter()
            .map(crate::value::size::nesting)
            .max()
            .unwrap_or(0)
    }
}

fn direction(v: &Bson) -> Option<bool> {
    match crate::value::numeric::to_f64(v) {
        Some(1.0) => Some(true),
        Some(-1.0) => Some(false),
        _ => None,
    }
}

fn parse_sort_pattern(d: &Document) -> Result<PushSort> {
    if d.is_empty() {
        return Err(Error::bad_value(
            "The $sort pattern is empty when it should be a set of fields.",
        ));
    }
    let mut keys = Vec::new();
    for (k, v) in d {
        let asc = direction(v)
            .ok_or_else(|| Error::bad_value("The $sort element value must be either 1 or -1"))?;
        if k.is_empty() {
            return Err(Error::bad_value("The $sort field cannot be empty"));
        }
        let parts: Vec<String> = k.split('.').map(str::to_string).collect();
        if parts.iter().any(String::is_empty) {
            return Err(Error::bad_value(format!(
                "The $sort field is a dotted field but has an empty part: {k}"
            )));
        }
        keys.push((parts, asc));
    }
    Ok(PushSort::Pattern(keys))
}

/// Sort as `$push`'s `$sort` does: whole values, or documents by the pattern's
/// fields where missing fields and non-documents sort as null.
pub fn sort_elements(arr: &mut [Bson], sort: &PushSort) {
    match sort {
        PushSort::Whole(asc) => crate::sorting::sort_by(arr, |a, b| {
            let o = compare(a, b);
            if *asc {
                o
            } else {
                o.reverse()
            }
        }),
        PushSort::Pattern(keys) => crate::sorting::sort_by(arr, |a, b| {
            for (path, asc) in keys {
                let (x, y) = (sort_key(a, path), sort_key(b, path));
                let o = compare(x, y);
                let o = if *asc { o } else { o.reverse() };
                if o != Ordering::Equal {
                    return o;
                }
            }
            Ordering::Equal
        }),
    }
}

const NULL: Bson = Bson::Null;

fn sort_key<'v>(v: &'v Bson, path: &[String]) -> &'v Bson {
    let Bson::Document(_) = v else {
        return &NULL;
    };
    let mut cur = v;
    for part in path {
        cur = match cur {
            Bson::Document(d) => match d.get(part) {
                Some(x) => x,
                None => return &NULL,
            },
            Bson::Array(a) => match crate::update::path::parse_index(part).and_then(|i| a.get(i)) {
                Some(x) => x,
                None => return &NULL,
            },
            _ => return &NULL,
        };
    }
    cur
}

/// `$addToSet` values: `{$each: [...]}` or one value, deduplicated.
pub fn parse_add_to_set(arg: &Bson) -> Result<Vec<Bson>> {
    let values = match arg {
        Bson::Document(d) if d.keys().next().map(String::as_str) == Some("$each") => {
            let Some(first) = d.values().next() else {
                return Ok(Vec::new());
            };
            let Bson::Array(items) = first else {
                return Err(Error::type_mismatch(format!(
                    "The argument to $each in $addToSet must be an array but it was of type {}",
                    type_name(first)
                )));
            };
            if d.len() > 1 {
                return Err(Error::bad_value(format!(
                    "Found unexpected fields after $each in $addToSet: {}",
                    crate::text::server::server_string(arg)
                )));
            }
            items.clone()
        }
        other => vec![other.clone()],
    };
    let mut out: Vec<Bson> = Vec::with_capacity(values.len());
    for v in values {
        if !out.iter().any(|x| equal(x, &v)) {
            out.push(v);
        }
    }
    Ok(out)
}

/// Append the values the array does not hold yet; true if any was added.
pub fn add_to_set(arr: &mut Vec<Bson>, values: &[Bson]) -> bool {
    let missing: Vec<Bson> = values
        .iter()
        .filter(|v| !arr.iter().any(|x| equal(x, v)))
        .cloned()
        .collect();
    let added = !missing.is_empty();
    arr.extend(missing);
    added
}

/// How `$pull` decides which elements go (the server's three matchers).
#[derive(Clone, Debug)]
pub enum PullMatcher {
    /// `{field: cond, ...}`: a query on document elements.
    Object(Filter),
    /// `{$gt: 5}` or a regex: a query on the element itself.
    Wrapped(Filter),
    /// Anything else: equal values.
    Equal(Bson),
}

/// The field name elements are wrapped under for `Wrapped` conditions.
const WRAP: &str = "v";

/// Operators that take a path (`{a: {$gt: 1}}`): a `$pull` condition starting
/// with one is a condition on the element itself.
const PATH_OPERATORS: &[&str] = &[
    "$eq",
    "$ne",
    "$gt",
    "$gte",
    "$lt",
    "$lte",
    "$in",
    "$nin",
    "$exists",
    "$type",
    "$size",
    "$all",
    "$elemMatch",
    "$mod",
    "$regex",
    "$options",
    "$not",
    "$bitsAllSet",
    "$bitsAllClear",
    "$bitsAnySet",
    "$bitsAnyClear",
    "$geoWithin",
    "$geoIntersects",
    "$near",
    "$nearSphere",
    "$within",
    "$maxDistance",
    "$minDistance",
    "$_internalSchemaType",
];

impl PullMatcher {
    pub fn parse(arg: &Bson, ctx: &CompileCtx) -> Result<PullMatcher> {
        Ok(match arg {
            Bson::Document(d) => {
                let first = d.keys().next().map(String::as_str).unwrap_or("");
                if PATH_OPERATORS.contains(&first) {
                    let mut wrapped = Document::new();
                    wrapped.insert(WRAP, arg.clone());
                    PullMatcher::Wrapped(Filter::compile(&wrapped, ctx)?)
                } else {
                    if let Some(e) = crate::update::compile::banned_feature(d, "") {
                        return Err(e);
                    }
                    PullMatcher::Object(Filter::compile(d, ctx)?)
                }
            }
            Bson::RegularExpression(_) => {
                let mut wrapped = Document::new();
                wrapped.insert(WRAP, arg.clone());
                PullMatcher::Wrapped(Filter::compile(&wrapped, ctx)?)
            }
            other => PullMatcher::Equal(other.clone()),
        })
    }

    pub fn matches(&self, e: &Bson, scope: &Scope) -> Result<bool> {
        match self {
            PullMatcher::Object(f) => match e {
                Bson::Document(d) => f.matches(d, scope),
                _ => Ok(false),
            },
            PullMatcher::Wrapped(f) => {
                let mut wrapped = Document::new();
                wrapped.insert(WRAP, e.clone());
                f.matches(&wrapped, scope)
            }
            PullMatcher::Equal(v) => Ok(equal(e, v)),
        }
    }
}

/// Remove the elements `keep` rejects, deciding for all before removing any.
pub fn cull(arr: &mut Vec<Bson>, mut remove: impl FnMut(&Bson) -> Result<bool>) -> Result<bool> {
    let mut drop = Vec::with_capacity(arr.len());
    for e in arr.iter() {
        drop.push(remove(e)?);
    }
    if !drop.contains(&true) {
        return Ok(false);
    }
    let mut flags = drop.into_iter();
    arr.retain(|_| !flags.next().unwrap_or(false));
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::bson;

    fn push(spec: Bson, arr: Bson) -> Bson {
        let p = Push::parse(&spec).unwrap_or_else(|e| panic!("{e}"));
        let Bson::Array(mut a) = arr else { panic!() };
        p.apply(&mut a);
        Bson::Array(a)
    }

    #[test]
    fn push_modifiers() {
        assert_eq!(push(bson!(3), bson!([1, 2])), bson!([1, 2, 3]));
        assert_eq!(
            push(bson!({"$each": [9], "$position": 0}), bson!([1, 2])),
            bson!([9, 1, 2])
        );
        assert_eq!(
            push(bson!({"$each": [9], "$position": -1}), bson!([1, 2])),
            bson!([1, 9, 2])
        );
        assert_eq!(
            push(
                bson!({"$each": [3, 1], "$sort": -1, "$slice": 2}),
                bson!([2])
            ),
            bson!([3, 2])
        );
        assert_eq!(
            push(
                bson!({"$each": [{"s": 1}], "$sort": {"s": 1}, "$slice": -2}),
                bson!([{"s": 5}, {"s": 3}])
            ),
            bson!([{"s": 3}, {"s": 5}])
        );
        // The extreme 64-bit positions and slices do not overflow.
        assert_eq!(
            push(
                bson!({"$each": [9], "$position": i64::MIN, "$slice": i64::MIN}),
                bson!([1, 2])
            ),
            bson!([9, 1, 2])
        );
        assert_eq!(
            push(bson!({"$each": [9], "$position": i64::MAX}), bson!([1])),
            bson!([1, 9])
        );
        let mut a = vec![bson!(1), bson!(2.0)];
        assert!(!add_to_set(&mut a, &[bson!(2)]));
        assert_eq!(
            parse_add_to_set(&bson!({"$each": [1, 1.0, 2]}))
                .map(|v| v.len())
                .ok(),
            Some(2)
        );
    }
}
