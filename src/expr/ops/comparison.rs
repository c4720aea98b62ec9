//! `$eq $ne $gt $gte $lt $lte $cmp`: MongoDB's total BSON order across all types.
//! A missing value compares like undefined: below null, so `{$eq: ["$nope", null]}` is false.
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/cmp/
use crate::error::Result;
use crate::expr::compile::{call, Compiler};
use crate::expr::eval::{Cx, Node};
use crate::expr::value::Value;
use crate::value::compare;
use bson::Bson;
use std::cmp::Ordering;

pub(crate) fn c_cmp(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    Ok(call(n, cmp, c.exact(n, a, 2)?))
}

fn cmp(name: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    // Field paths are compared in place, not copied.
    let a = cx.eval_borrowed(&args[0])?;
    let b = cx.eval_borrowed(&args[1])?;
    let undefined = Bson::Undefined;
    let o = compare(
        a.as_deref().unwrap_or(&undefined),
        b.as_deref().unwrap_or(&undefined),
    );
    Ok(Some(match name {
        "$cmp" => Bson::Int32(match o {
            Ordering::Less => -1,
            Ordering::Equal => 0,
            Ordering::Greater => 1,
        }),
        "$eq" => Bson::Boolean(o == Ordering::Equal),
        "$ne" => Bson::Boolean(o != Ordering::Equal),
        "$gt" => Bson::Boolean(o == Ordering::Greater),
        "$gte" => Bson::Boolean(o != Ordering::Less),
        "$lt" => Bson::Boolean(o == Ordering::Less),
        _ => Bson::Boolean(o != Ordering::Greater),
    }))
}
