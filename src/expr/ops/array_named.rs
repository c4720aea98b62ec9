//! Array operators with named arguments: `$firstN $lastN $maxN $minN`
//! (`{n, input}`), `$sortArray` (`{input, sortBy}`) and `$zip`.
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/sortArray/
use crate::error::{Error, Result};
use crate::expr::compile::{split_path, Compiler};
use crate::expr::eval::{Cx, Node, Special};
use crate::expr::value::{err, nullish, show, tname, Value};
use crate::text::shell::type_name;
use crate::value::compare;
use bson::Bson;
use std::cmp::Ordering;
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq)]
enum NKind {
    First,
    Last,
    Max,
    Min,
}

#[derive(Debug)]
struct NOp {
    kind: NKind,
    n: Node,
    input: Node,
}

/// `n`: a positive integral number (5787902/5787903/5787908).
fn parse_n(v: &Value) -> Result<usize> {
    let Some(b) = v.as_ref().filter(|b| crate::value::numeric::is_number(b)) else {
        return Err(err(
            5787902,
            format!(
                "Value for 'n' must be of integral type, but found {}",
                show(v)
            ),
        ));
    };
    let Some(n) = crate::value::numeric::to_i64_exact(b) else {
        return Err(err(
            5787903,
            format!(
                "Value for 'n' must be of integral type, but found {}",
                show(v)
            ),
        ));
    };
    if n <= 0 {
        return Err(err(
            5787908,
            format!("'n' must be greater than 0, found {n}"),
        ));
    }
    Ok(usize::try_from(n).unwrap_or(usize::MAX))
}

impl Special for NOp {
    fn eval(&self, cx: &mut Cx) -> Result<Value> {
        let n = parse_n(&cx.eval(&self.n)?)?;
        let input = cx.eval(&self.input)?;
        let Some(Bson::Array(items)) = input else {
            return Err(err(5788200, "Input must be an array"));
        };
        let out: Vec<Bson> = match self.kind {
            NKind::First => items.into_iter().take(n).collect(),
            NKind::Last => {
                let skip = items.len().saturating_sub(n);
                items.into_iter().skip(skip).collect()
            }
            NKind::Max | NKind::Min => {
                let mut vals: Vec<Bson> = items
                    .into_iter()
                    .filter(|v| !matches!(v, Bson::Null | Bson::Undefined))
                    .collect();
                if self.kind == NKind::Max {
                    crate::sorting::sort_by(&mut vals, |a, b| compare(b, a));
                } else {
                    crate::sorting::sort_by(&mut vals, compare);
                }
                vals.truncate(n);
                vals
            }
        };
        Ok(Some(Bson::Array(out)))
    }
}

fn n_op(kind: NKind, a: &Bson, c: &mut Compiler) -> Result<Node> {
    let Bson::Document(d) = a else {
        return Err(err(
            5787900,
            format!(
                "specification must be an object; found {}",
                crate::text::server::server_string(a)
            ),
        ));
    };
    let (mut n, mut input) = (None, None);
    for (k, v) in d {
        match k.as_str() {
            "n" => n = Some(c.operand(v)?),
            "input" => input = Some(c.operand(v)?),
            _ => {
                return Err(err(
                    5787901,
                    format!("Unknown argument for 'n' operator: {k}"),
                ))
            }
        }
    }
    let n = n.ok_or_else(|| err(5787906, "Missing value for 'n'"))?;
    let input = input.ok_or_else(|| err(5787907, "Missing value for 'input'"))?;
    Ok(Node::Special(Arc::new(NOp { kind, n, input })))
}

pub(crate) fn c_first_last_n(name: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    n_op(
        if name == "$firstN" {
            NKind::First
        } else {
            NKind::Last
        },
        a,
        c,
    )
}

pub(crate) fn c_min_max_n(name: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    n_op(
        if name == "$maxN" {
            NKind::Max
        } else {
            NKind::Min
        },
        a,
        c,
    )
}

/// `sortBy`: a direction for whole values, or `{path: ±1, ...}`.
#[derive(Debug)]
enum SortBy {
    Value(bool),
    Fields(Vec<(String, bool)>),
}

#[derive(Debug)]
struct SortArray {
    input: Node,
    by: SortBy,
}

/// The sort key of an element for a path, as the server's `PatternValueCmp`
/// extracts it (`BSONObj::getFieldDotted`): the whole value at the path, no
/// array traversal ("There is no implicit array traversal on the sort key",
/// the $sortArray page), a numeric component indexing an array; a missing
/// value, or an element that is not a document, sorts as null.
fn sort_key<'a>(v: &'a Bson, path: &str) -> &'a Bson {
    match v {
        Bson::Document(_) => field_dotted(v, path).unwrap_or(&Bson::Null),
        _ => &Bson::Null,
    }
}

/// `getFieldDotted` inside a document or an array: the field named `path`
/// itself, else the first component and the rest of the path inside it.
fn field_dotted<'a>(v: &'a Bson, path: &str) -> Option<&'a Bson> {
    if let Some(found) = child(v, path) {
        return Some(found);
    }
    let (left, right) = path.split_once('.')?;
    match child(v, left)? {
        inner @ (Bson::Document(_) | Bson::Array(_)) => field_dotted(inner, right),
        _ => None,
    }
}

/// A field of a document, or an array element by its field name ("0", "1", ...).
fn child<'a>(v: &'a Bson, name: &str) -> Option<&'a Bson> {
    match v {
        Bson::Document(d) => d.get(name),
        Bson::Array(a) if name == "0" || !name.starts_with('0') => {
            a.get(name.parse::<usize>().ok()?)
        }
        _ => None,
    }
}

impl Special for SortArray {
    fn eval(&self, cx: &mut Cx) -> Result<Value> {
        let input = cx.eval(&self.input)?;
        if nullish(&input) {
            return Ok(Some(Bson::Null));
        }
        let Some(Bson::Array(mut items)) = input else {
            return Err(err(
                2942504,
                format!(
                    "The input argument to $sortArray must be an array, but was of type: {}",
                    tname(&input)
                ),
            ));
        };
        match &self.by {
            SortBy::Value(asc) => crate::sorting::sort_by(&mut items, |a, b| {
                let o = compare(a, b);
                if *asc {
                    o
                } else {
                    o.reverse()
                }
            }),
            SortBy::Fields(fields) => crate::sorting::sort_by(&mut items, |a, b| {
                for (path, asc) in fields {
                    let o = compare(sort_key(a, path), sort_key(b, path));
                    let o = if *asc { o } else { o.reverse() };
                    if o != Ordering::Equal {
                        return o;
                    }
                }
                Ordering::Equal
            }),
        }
        Ok(Some(Bson::Array(items)))
    }
}

fn direction(v: &Bson) -> Option<bool> {
    match crate::value::numeric::to_i64_exact(v) {
        Some(1) => Some(true),
        Some(-1) => Some(false),
        _ => None,
    }
}

pub(crate) fn c_sort_array(_: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    let Bson::Document(d) = a else {
        return Err(err(
            2942500,
            format!(
                "$sortArray requires an object as an argument, found: {}",
                type_name(a)
            ),
        ));
    };
    let (mut input, mut by) = (None, None);
    for (k, v) in d {
        match k.as_str() {
            "input" => input = Some(c.operand(v)?),
            "sortBy" => by = Some(v),
            _ => {
                return Err(err(
                    2942501,
                    format!("$sortArray found an unknown argument: {k}"),
                ))
            }
        }
    }
    let input = input.ok_or_else(|| err(2942502, "$sortArray requires 'input' to be specified"))?;
    let by = by.ok_or_else(|| err(2942503, "$sortArray requires 'sortBy' to be specified"))?;
    let bad = || {
        Error::location(
            2942505,
            format!(
                "$sortArray requires 'sortBy' to be an object or a number 1 or -1, found: {}",
                crate::text::server::server_string(by)
            ),
        )
    };
    let by = match by {
        Bson::Document(spec) => {
            if spec.is_empty() {
                return Err(bad());
            }
            let mut fields = Vec::new();
            for (k, v) in spec {
                let dir = direction(v).ok_or_else(|| {
                    err(
                        15975,
                        "$sort key ordering must be 1 (for ascending) or -1 (for descending)",
                    )
                })?;
                split_path(k)?;
                fields.push((k.clone(), dir));
            }
            SortBy::Fields(fields)
        }
        other => SortBy::Value(direction(other).ok_or_else(bad)?),
    };
    Ok(Node::Special(Arc::new(SortArray { input, by })))
}

#[derive(Debug)]
struct Zip {
    inputs: Vec<Node>,
    defaults: Vec<Node>,
    longest: bool,
}

impl Special for Zip {
    fn eval(&self, cx: &mut Cx) -> Result<Value> {
        let mut arrays = Vec::with_capacity(self.inputs.len());
        for i in &self.inputs {
            let v = cx.eval(i)?;
            if nullish(&v) {
                return Ok(Some(Bson::Null));
            }
            match v {
                Some(Bson::Array(a)) => arrays.push(a),
                other => {
                    return Err(err(
                        34468,
                        format!(
                            "$zip found a non-array expression in input: {}",
                            show(&other)
                        ),
                    ))
                }
            }
        }
        let min = arrays.iter().map(Vec::len).min().unwrap_or(0);
        let max = arrays.iter().map(Vec::len).max().unwrap_or(0);
        // Null without `defaults`; a default that is missing leaves its
        // element out of the row (the server appends a missing value as nothing).
        let mut defaults = vec![Some(Bson::Null); arrays.len()];
        if min != max {
            for (i, d) in self.defaults.iter().enumerate() {
                if let Some(slot) = defaults.get_mut(i) {
                    *slot = cx.eval(d)?;
                }
            }
        }
        let len = if self.longest { max } else { min };
        let out = (0..len)
            .map(|row| {
                Bson::Array(
                    arrays
                        .iter()
                        .zip(&defaults)
                        .filter_map(|(a, d)| a.get(row).or(d.as_ref()).cloned())
                        .collect(),
                )
            })
            .collect();
        Ok(Some(Bson::Array(out)))
    }
}

pub(crate) fn c_zip(_: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    let Bson::Document(d) = a else {
        return Err(err(
            34460,
            format!(
                "$zip only supports an object as an argument, found {}",
                type_name(a)
            ),
        ));
    };
    let (mut inputs, mut defaults, mut longest) = (Vec::new(), Vec::new(), false);
    for (k, v) in d {
        match k.as_str() {
            "inputs" => {
                let Bson::Array(items) = v else {
                    return Err(err(
                        34461,
                        format!(
                            "inputs must be an array of expressions, found {}",
                            type_name(v)
                        ),
                    ));
                };
                for i in items {
                    inputs.push(c.operand(i)?);
                }
            }
            "defaults" => {
                let Bson::Array(items) = v else {
                    return Err(err(
                        34462,
                        format!(
                            "defaults must be an array of expressions, found {}",
                            type_name(v)
                        ),
                    ));
                };
                for i in items {
                    defaults.push(c.operand(i)?);
                }
            }
            "useLongestLength" => {
                let Bson::Boolean(b) = v else {
                    return Err(err(
                        34463,
                        // The server names the type of the whole argument (an object).
                        "useLongestLength must be a bool, found object",
                    ));
                };
                longest = *b;
            }
            _ => return Err(err(34464, format!("$zip found an unknown argument: {k}"))),
        }
    }
    if inputs.is_empty() {
        return Err(err(34465, "$zip requires at least one input array"));
    }
    if !longest && !defaults.is_empty() {
        return Err(err(
            34466,
            "cannot specify defaults unless useLongestLength is true",
        ));
    }
    if !defaults.is_empty() && defaults.len() != inputs.len() {
        return Err(err(34467, "defaults and inputs must have the same length"));
    }
    Ok(Node::Special(Arc::new(Zip {
        inputs,
        defaults,
        longest,
    })))
}
