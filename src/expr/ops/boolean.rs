//! `$and $or $not`: truthiness as MongoDB's `coerceToBool`; `$and`/`$or` short-circuit.
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/and/
use crate::error::Result;
use crate::expr::compile::{call, Compiler};
use crate::expr::eval::{Cx, Node};
use crate::expr::value::Value;
use bson::Bson;

pub(crate) fn c_and(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    Ok(call(n, and, c.args(a)?))
}
pub(crate) fn c_or(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    Ok(call(n, or, c.args(a)?))
}
pub(crate) fn c_not(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    Ok(call(n, not, c.exact(n, a, 1)?))
}

fn and(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    for a in args {
        if !cx.eval_truthy(a)? {
            return Ok(Some(Bson::Boolean(false)));
        }
    }
    Ok(Some(Bson::Boolean(true)))
}

fn or(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    for a in args {
        if cx.eval_truthy(a)? {
            return Ok(Some(Bson::Boolean(true)));
        }
    }
    Ok(Some(Bson::Boolean(false)))
}

fn not(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    Ok(Some(Bson::Boolean(!cx.eval_truthy(&args[0])?)))
}
