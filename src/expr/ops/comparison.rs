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
    // One function per operator: the operator is chosen here, not by
    // comparing its name at every evaluation.
    let f: crate::expr::eval::EvalFn = match n {
        "$cmp" => cmp3,
        "$eq" => eq,
        "$ne" => ne,
        "$gt" => gt,
        "$gte" => gte,
        "$lt" => lt,
        _ => lte,
    };
    Ok(call(n, f, c.exact(n, a, 2)?))
}

/// The order of the two arguments.
#[inline(always)]
fn order(args: &[Node], cx: &mut Cx) -> Result<Ordering> {
    // Field paths are compared in place, not copied.
    let a = cx.eval_operand(&args[0])?;
    let b = cx.eval_operand(&args[1])?;
    let undefined = Bson::Undefined;
    Ok(compare(
        a.as_deref().unwrap_or(&undefined),
        b.as_deref().unwrap_or(&undefined),
    ))
}

fn cmp3(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    Ok(Some(Bson::Int32(match order(args, cx)? {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    })))
}

fn eq(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    Ok(Some(Bson::Boolean(order(args, cx)? == Ordering::Equal)))
}

fn ne(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    Ok(Some(Bson::Boolean(order(args, cx)? != Ordering::Equal)))
}

fn gt(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    Ok(Some(Bson::Boolean(order(args, cx)? == Ordering::Greater)))
}

fn gte(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    Ok(Some(Bson::Boolean(order(args, cx)? != Ordering::Less)))
}

fn lt(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    Ok(Some(Bson::Boolean(order(args, cx)? == Ordering::Less)))
}

fn lte(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    Ok(Some(Bson::Boolean(order(args, cx)? != Ordering::Greater)))
}
