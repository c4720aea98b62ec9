//! Index bounds: the intervals of index values a predicate can match, built
//! as the server's IndexBoundsBuilder does (type-bracketed ranges, `$in` as a
//! union of points, prefix regexes as a string range), and their
//! intersection and union. Bounds only narrow the candidates: the whole
//! filter is applied to every fetched document, so they must never exclude a
//! document the filter matches. The conditions come from the compiled
//! filter (query::Conjuncts).
//! See https://www.mongodb.com/docs/manual/reference/explain-results/#mongodb-data-explain.queryPlanner.winningPlan.inputStage.indexBounds
use crate::query::regex_value;
pub use crate::query::{Cond, PathCond};
use crate::text::server::server_string;
use crate::value::numeric::is_number;
use crate::value::order::compare_binary as compare;
use bson::oid::ObjectId;
use bson::{Binary, Bson, Document, Timestamp};
use std::cmp::Ordering;

/// An interval of index values, in ascending BSON order.
#[derive(Clone, Debug)]
pub struct Interval {
    pub lo: Bson,
    pub lo_inc: bool,
    pub hi: Bson,
    pub hi_inc: bool,
}

impl Interval {
    pub fn new(lo: Bson, lo_inc: bool, hi: Bson, hi_inc: bool) -> Interval {
        Interval {
            lo,
            lo_inc,
            hi,
            hi_inc,
        }
    }
    pub fn point(v: Bson) -> Interval {
        Interval::new(v.clone(), true, v, true)
    }
    pub fn all() -> Interval {
        Interval::new(Bson::MinKey, true, Bson::MaxKey, true)
    }
    pub fn is_point(&self) -> bool {
        self.lo_inc && self.hi_inc && compare(&self.lo, &self.hi) == Ordering::Equal
    }
    pub fn is_all(&self) -> bool {
        matches!((&self.lo, &self.hi), (Bson::MinKey, Bson::MaxKey)) && self.lo_inc && self.hi_inc
    }
    pub fn is_empty(&self) -> bool {
        match compare(&self.lo, &self.hi) {
            Ordering::Greater => true,
            Ordering::Equal => !(self.lo_inc && self.hi_inc),
            Ordering::Less => false,
        }
    }
    pub fn contains(&self, v: &Bson) -> bool {
        let lo = compare(&self.lo, v);
        let hi = compare(v, &self.hi);
        (lo == Ordering::Less || (lo == Ordering::Equal && self.lo_inc))
            && (hi == Ordering::Less || (hi == Ordering::Equal && self.hi_inc))
    }

    /// `["123_", "123`")`, written from the scan's point of view: a
    /// descending field or a backward scan lists it from high to low.
    pub fn display(&self, reversed: bool) -> String {
        let (a, a_inc, b, b_inc) = if reversed {
            (&self.hi, self.hi_inc, &self.lo, self.lo_inc)
        } else {
            (&self.lo, self.lo_inc, &self.hi, self.hi_inc)
        };
        format!(
            "{}{}, {}{}",
            if a_inc { '[' } else { '(' },
            server_string(a),
            server_string(b),
            if b_inc { ']' } else { ')' }
        )
    }
}

/// Ordered, disjoint intervals (an "ordered interval list").
pub type Oil = Vec<Interval>;

/// Sort and merge overlapping or touching intervals.
pub fn union(mut v: Vec<Interval>) -> Oil {
    v.retain(|i| !i.is_empty());
    crate::sorting::sort_by(&mut v, |a, b| {
        compare(&a.lo, &b.lo).then_with(|| b.lo_inc.cmp(&a.lo_inc))
    });
    let mut out: Oil = Vec::with_capacity(v.len());
    for i in v {
        if let Some(last) = out.last_mut() {
            let ord = compare(&i.lo, &last.hi);
            let touches =
                ord == Ordering::Less || (ord == Ordering::Equal && (i.lo_inc || last.hi_inc));
            if touches {
                match compare(&i.hi, &last.hi) {
                    Ordering::Greater => {
                        last.hi = i.hi;
                        last.hi_inc = i.hi_inc;
                    }
                    Ordering::Equal => last.hi_inc |= i.hi_inc,
                    Ordering::Less => {}
                }
                continue;
            }
        }
        out.push(i);
    }
    out
}

/// The values in both lists.
pub fn intersect(a: &[Interval], b: &[Interval]) -> Oil {
    let mut out = Vec::new();
    for x in a {
        for y in b {
            let (lo, lo_inc) = match compare(&x.lo, &y.lo) {
                Ordering::Greater => (&x.lo, x.lo_inc),
                Ordering::Less => (&y.lo, y.lo_inc),
                Ordering::Equal => (&x.lo, x.lo_inc && y.lo_inc),
            };
            let (hi, hi_inc) = match compare(&x.hi, &y.hi) {
                Ordering::Less => (&x.hi, x.hi_inc),
                Ordering::Greater => (&y.hi, y.hi_inc),
                Ordering::Equal => (&x.hi, x.hi_inc && y.hi_inc),
            };
            let i = Interval::new(lo.clone(), lo_inc, hi.clone(), hi_inc);
            if !i.is_empty() {
                out.push(i);
            }
        }
    }
    union(out)
}

pub fn oil_contains(oil: &[Interval], v: &Bson) -> bool {
    oil.iter().any(|i| i.contains(v))
}

/// Bounds for a condition and whether they are exact (no need to re-check
/// the condition on the document, which decides the FETCH filter shown in
/// plans; the playground re-applies the whole filter regardless).
pub fn translate(cond: &Cond) -> Option<(Oil, bool)> {
    match cond {
        Cond::Eq(v) => Some(equality(v)),
        Cond::Cmp(op, v) => comparison(op, v),
        Cond::In(items) => {
            let mut all = Vec::new();
            let mut exact = true;
            for v in items {
                let (oil, e) = match v {
                    Bson::RegularExpression(r) => regex(r.pattern.as_str(), r.options.as_str()),
                    v => equality(v),
                };
                exact &= e;
                all.extend(oil);
            }
            Some((union(all), exact))
        }
        Cond::Regex(p, o) => Some(regex(p, o)),
        Cond::ElemMatch(conds) => {
            let mut acc: Option<Oil> = None;
            for c in conds {
                if let Some((oil, _)) = translate(c) {
                    acc = Some(match acc {
                        Some(a) => intersect(&a, &oil),
                        None => oil,
                    });
                }
            }
            acc.map(|oil| (oil, false))
        }
        Cond::Other => None,
    }
}

/// Equality: the value; an array also by its first element (or undefined
/// when empty), since a stored array is keyed by its elements.
fn equality(v: &Bson) -> (Oil, bool) {
    match v {
        Bson::Array(items) => {
            let first = items.first().cloned().unwrap_or(Bson::Undefined);
            (
                union(vec![Interval::point(v.clone()), Interval::point(first)]),
                false,
            )
        }
        Bson::Null => (vec![Interval::point(Bson::Null)], false),
        Bson::Document(_) => (vec![Interval::point(v.clone())], true),
        v => (vec![Interval::point(v.clone())], true),
    }
}

/// The type bracket of a value: `$gt: 5` only matches numbers.
fn bracket(v: &Bson) -> Option<(Bson, bool, Bson, bool)> {
    Some(match v {
        v if is_number(v) => (
            Bson::Double(f64::NEG_INFINITY),
            true,
            Bson::Double(f64::INFINITY),
            true,
        ),
        Bson::String(_) | Bson::Symbol(_) => (
            Bson::String(String::new()),
            true,
            Bson::Document(Document::new()),
            false,
        ),
        Bson::Document(_) => (
            Bson::Document(Document::new()),
            true,
            Bson::Array(Vec::new()),
            false,
        ),
        Bson::Binary(_) => (
            Bson::Binary(Binary {
                subtype: bson::spec::BinarySubtype::Generic,
                bytes: Vec::new(),
            }),
            true,
            Bson::ObjectId(ObjectId::from_bytes([0; 12])),
            false,
        ),
        Bson::ObjectId(_) => (
            Bson::ObjectId(ObjectId::from_bytes([0; 12])),
            true,
            Bson::ObjectId(ObjectId::from_bytes([0xff; 12])),
            true,
        ),
        Bson::Boolean(_) => (Bson::Boolean(false), true, Bson::Boolean(true), true),
        Bson::DateTime(_) => (
            Bson::DateTime(bson::DateTime::from_millis(i64::MIN)),
            true,
            Bson::DateTime(bson::DateTime::from_millis(i64::MAX)),
            true,
        ),
        Bson::Timestamp(_) => (
            Bson::Timestamp(Timestamp {
                time: 0,
                increment: 0,
            }),
            true,
            Bson::Timestamp(Timestamp {
                time: u32::MAX,
                increment: u32::MAX,
            }),
            true,
        ),
        Bson::Null => (Bson::Null, true, Bson::Null, true),
        _ => return None,
    })
}

fn comparison(op: &str, v: &Bson) -> Option<(Oil, bool)> {
    if let Bson::Double(x) = v {
        if x.is_nan() {
            // Only NaN is <= or >= NaN; nothing is < or > it.
            let oil = if op == "$gte" || op == "$lte" {
                vec![Interval::point(v.clone())]
            } else {
                Vec::new()
            };
            return Some((oil, true));
        }
    }
    let (min, min_inc, max, max_inc) = bracket(v)?;
    let exact = !matches!(v, Bson::Null | Bson::Document(_));
    let i = match op {
        "$gt" => Interval::new(v.clone(), false, max, max_inc),
        "$gte" => Interval::new(v.clone(), true, max, max_inc),
        "$lt" => Interval::new(min, min_inc, v.clone(), false),
        _ => Interval::new(min, min_inc, v.clone(), true),
    };
    let oil = if i.is_empty() { Vec::new() } else { vec![i] };
    Some((oil, exact))
}

/// A regex: the strings starting with its literal prefix (all strings when
/// it has none), and the regex value itself (stored regexes match equal ones).
fn regex(pattern: &str, flags: &str) -> (Oil, bool) {
    let (prefix, exact) = simple_prefix(pattern, flags);
    let strings = if prefix.is_empty() {
        Interval::new(
            Bson::String(String::new()),
            true,
            Bson::Document(Document::new()),
            false,
        )
    } else {
        match next_string(&prefix) {
            Some(end) => Interval::new(Bson::String(prefix), true, Bson::String(end), false),
            None => Interval::new(
                Bson::String(prefix),
                true,
                Bson::Document(Document::new()),
                false,
            ),
        }
    };
    let mut oil = vec![strings];
    // Stored regexes cannot contain NUL either, so a pattern with one has no point here.
    if let Some(re) = regex_value(pattern, flags) {
        oil.push(Interval::point(re));
    }
    (union(oil), exact)
}

/// The smallest string greater than every string starting with `prefix`:
/// the last character incremented ("123_" → "123`").
fn next_string(prefix: &str) -> Option<String> {
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(last) = chars.pop() {
        let mut n = last as u32 + 1;
        if (0xD800..0xE000).contains(&n) {
            n = 0xE000;
        }
        if let Some(c) = char::from_u32(n) {
            chars.push(c);
            return Some(chars.into_iter().collect());
        }
    }
    None
}

/// The literal prefix every match of an anchored regex starts with, and
/// whether the regex is exactly "starts with the prefix" (the server's
/// IndexBoundsBuilder::simpleRegex). Case-insensitive or multiline `^`
/// regexes have no usable prefix.
pub fn simple_prefix(pattern: &str, flags: &str) -> (String, bool) {
    let (rest, multiline_ok) = if let Some(r) = pattern.strip_prefix("\\A") {
        (r, true)
    } else if let Some(r) = pattern.strip_prefix('^') {
        (r, false)
    } else {
        return (String::new(), false);
    };
    if rest.contains('|') {
        return (String::new(), false);
    }
    let mut extended = false;
    for f in flags.chars() {
        match f {
            'm' if multiline_ok => {}
            's' => {}
            'x' => extended = true,
            _ => return (String::new(), false),
        }
    }
    let mut out = String::new();
    let mut chars = rest.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            // A quantifier that allows zero repetitions makes the last character optional.
            '*' | '?' | '{' => {
                out.pop();
                return (out, false);
            }
            '\\' => match chars.next() {
                Some('Q') => {
                    while let Some(q) = chars.next() {
                        if q == '\\' && chars.peek() == Some(&'E') {
                            chars.next();
                            break;
                        }
                        out.push(q);
                    }
                }
                Some(e) if e.is_ascii_alphanumeric() => return (out, false),
                Some(e) => out.push(e),
                None => return (out, false),
            },
            '^' | '$' | '.' | '[' | '(' | ')' | '+' => {
                // `+` repeats the last character at least once: the prefix stands.
                return (out, false);
            }
            '#' if extended => return (out, false),
            c if extended && c.is_whitespace() => {}
            c => out.push(c),
        }
    }
    let exact = !out.is_empty();
    (out, exact)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::bson;

    fn shown(oil: &Oil) -> Vec<String> {
        oil.iter().map(|i| i.display(false)).collect()
    }

    #[test]
    fn regex_bounds() {
        assert_eq!(simple_prefix("^123_", ""), ("123_".to_string(), true));
        assert_eq!(simple_prefix("^ab?c", ""), ("a".to_string(), false));
        assert_eq!(simple_prefix("^abc", "i"), (String::new(), false));
        assert_eq!(simple_prefix("^a\\.b", ""), ("a.b".to_string(), true));
        assert_eq!(simple_prefix("^ab{0,1}", ""), ("a".to_string(), false));
        assert_eq!(simple_prefix("abc", ""), (String::new(), false));
        let (oil, exact) = regex("^123_", "");
        assert!(exact);
        assert_eq!(
            shown(&oil),
            vec!["[\"123_\", \"123`\")", "[/^123_/, /^123_/]"]
        );
    }

    #[test]
    fn ranges_and_sets() {
        let (oil, _) = comparison("$gt", &bson!(5)).unwrap_or_default();
        assert_eq!(shown(&oil), vec!["(5, inf.0]"]);
        let (oil, _) = comparison("$lt", &bson!("b")).unwrap_or_default();
        assert_eq!(shown(&oil), vec!["[\"\", \"b\")"]);
        let both = intersect(
            &comparison("$gt", &bson!(1)).unwrap_or_default().0,
            &comparison("$lte", &bson!(4)).unwrap_or_default().0,
        );
        assert_eq!(shown(&both), vec!["(1, 4]"]);
        let (oil, exact) =
            translate(&Cond::In(vec![bson!(3), bson!(1), bson!(3)])).unwrap_or_default();
        assert!(exact);
        assert_eq!(shown(&oil), vec!["[1, 1]", "[3, 3]"]);
        let (oil, _) = equality(&bson!([2, 1]));
        assert_eq!(shown(&oil), vec!["[2, 2]", "[[ 2, 1 ], [ 2, 1 ]]"]);
        assert!(union(vec![Interval::point(bson!(1)), Interval::all()])[0].is_all());
    }
}
