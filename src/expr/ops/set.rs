//! Set operators: arrays as sets under MongoDB equality; results of
//! `$setUnion`/`$setIntersection` come out in BSON order, `$setDifference`
//! keeps the first array's order.
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/setUnion/
use crate::error::{Error, Result};
use crate::expr::compile::{call, Compiler};
use crate::expr::eval::{Cx, Node};
use crate::expr::value::{nullish, tname, Value};
use crate::value::OrdBson;
use bson::Bson;
use std::collections::BTreeSet;

pub(crate) fn c_set_difference(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    Ok(call(n, set_difference, c.exact(n, a, 2)?))
}
pub(crate) fn c_set_is_subset(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    Ok(call(n, set_is_subset, c.exact(n, a, 2)?))
}
pub(crate) fn c_set_equals(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    let args = c.args(a)?;
    if args.len() < 2 {
        return Err(Error::location(
            17045,
            format!(
                "$setEquals needs at least two arguments had: {}",
                args.len()
            ),
        ));
    }
    Ok(call(n, set_equals, args))
}
pub(crate) fn c_set_union(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    Ok(call(n, set_union, c.args(a)?))
}
pub(crate) fn c_set_intersection(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    Ok(call(n, set_intersection, c.args(a)?))
}

/// `items` as a set; of equal values (`1`, `1.0`) the last one stays, as with
/// `collect()`, which would compile one more copy of the standard sort (size).
fn to_set(items: impl IntoIterator<Item = Bson>) -> BTreeSet<OrdBson> {
    let mut set = BTreeSet::new();
    for x in items {
        set.replace(OrdBson(x));
    }
    set
}

fn from_set(s: BTreeSet<OrdBson>) -> Value {
    Some(Bson::Array(s.into_iter().map(|o| o.0).collect()))
}

fn set_difference(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let l = cx.eval(&args[0])?;
    let r = cx.eval(&args[1])?;
    if nullish(&l) || nullish(&r) {
        return Ok(Some(Bson::Null));
    }
    let Some(Bson::Array(l)) = l else {
        return Err(Error::location(
            17048,
            format!(
                "both operands of $setDifference must be arrays. First argument is of type: {}",
                tname(&l)
            ),
        ));
    };
    let Some(Bson::Array(r)) = r else {
        return Err(Error::location(
            17049,
            format!(
                "both operands of $setDifference must be arrays. Second argument is of type: {}",
                tname(&r)
            ),
        ));
    };
    let mut seen = to_set(r);
    let mut out = Vec::new();
    for e in l {
        if seen.insert(OrdBson(e.clone())) {
            out.push(e);
        }
    }
    Ok(Some(Bson::Array(out)))
}

fn set_is_subset(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let l = cx.eval(&args[0])?;
    let r = cx.eval(&args[1])?;
    let Some(Bson::Array(l)) = l else {
        return Err(Error::location(
            17046,
            format!(
                "both operands of $setIsSubset must be arrays. First argument is of type: {}",
                tname(&l)
            ),
        ));
    };
    let Some(Bson::Array(r)) = r else {
        return Err(Error::location(
            17042,
            format!(
                "both operands of $setIsSubset must be arrays. Second argument is of type: {}",
                tname(&r)
            ),
        ));
    };
    let r = to_set(r);
    Ok(Some(Bson::Boolean(
        l.into_iter().all(|e| r.contains(&OrdBson(e))),
    )))
}

fn set_equals(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let mut first: Option<BTreeSet<OrdBson>> = None;
    let mut equal = true;
    for (i, a) in args.iter().enumerate() {
        let v = cx.eval(a)?;
        let Some(Bson::Array(items)) = v else {
            return Err(Error::location(
                17044,
                format!(
                    "All operands of $setEquals must be arrays. {}-th argument is of type: {}",
                    i + 1,
                    tname(&v)
                ),
            ));
        };
        let s = to_set(items);
        match &first {
            None => first = Some(s),
            Some(f) => {
                if f.len() != s.len() || !f.iter().zip(s.iter()).all(|(a, b)| a == b) {
                    equal = false;
                }
            }
        }
    }
    Ok(Some(Bson::Boolean(equal)))
}

fn set_union(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let mut out = BTreeSet::new();
    for a in args {
        let v = cx.eval(a)?;
        if nullish(&v) {
            return Ok(Some(Bson::Null));
        }
        let Some(Bson::Array(items)) = v else {
            return Err(Error::location(
                17043,
                format!(
                    "All operands of $setUnion must be arrays. One argument is of type: {}",
                    tname(&v)
                ),
            ));
        };
        out.extend(items.into_iter().map(OrdBson));
    }
    Ok(from_set(out))
}

fn set_intersection(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let mut cur: Option<BTreeSet<OrdBson>> = None;
    for a in args {
        let v = cx.eval(a)?;
        if nullish(&v) {
            return Ok(Some(Bson::Null));
        }
        let Some(Bson::Array(items)) = v else {
            return Err(Error::location(
                17047,
                format!(
                    "All operands of $setIntersection must be arrays. One argument is of type: {}",
                    tname(&v)
                ),
            ));
        };
        let s = to_set(items);
        cur = Some(match cur {
            None => s,
            Some(c) => to_set(c.into_iter().filter(|e| s.contains(e)).map(|e| e.0)),
        });
    }
    Ok(from_set(cur.unwrap_or_default()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::Decimal128;
    use std::str::FromStr;

    #[test]
    fn to_set_keeps_what_collect_keeps() {
        let dec =
            |s: &str| Bson::Decimal128(Decimal128::from_str(s).unwrap_or_else(|_| unreachable!()));
        let pool = [
            Bson::Int32(1),
            Bson::Double(1.0),
            Bson::Int64(1),
            dec("1.0"),
            Bson::Int32(2),
            Bson::Double(2.0),
            Bson::String("a".into()),
            Bson::Null,
            Bson::Double(f64::NAN),
            dec("NaN"),
            Bson::Double(-0.0),
            Bson::Int32(0),
        ];
        let mut seed = 0x853C_49E6_748F_EA9Bu64;
        for len in 0..40 {
            for _ in 0..50 {
                let items: Vec<Bson> = (0..len)
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        pool[(seed % pool.len() as u64) as usize].clone()
                    })
                    .collect();
                let ours: Vec<Bson> = to_set(items.clone()).into_iter().map(|o| o.0).collect();
                let theirs: Vec<Bson> = items
                    .into_iter()
                    .map(OrdBson)
                    .collect::<BTreeSet<_>>()
                    .into_iter()
                    .map(|o| o.0)
                    .collect();
                // Same values, same types, same order (Bson's == tells 1 from 1.0).
                assert_eq!(format!("{ours:?}"), format!("{theirs:?}"));
            }
        }
    }
}
