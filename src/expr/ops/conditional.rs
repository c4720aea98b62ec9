//! `$cond` (array and object forms), `$ifNull` (two or more arguments), `$switch`.
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/switch/
use crate::error::Result;
use crate::expr::compile::{call, Compiler};
use crate::expr::eval::{Cx, Node, Special};
use crate::expr::value::{err, nullish, tname, Value};
use bson::Bson;
use std::sync::Arc;

pub(crate) fn c_cond(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    let Bson::Document(d) = a else {
        return Ok(call(n, cond, c.exact(n, a, 3)?));
    };
    let (mut i, mut t, mut e) = (None, None, None);
    for (k, v) in d {
        match k.as_str() {
            "if" => i = Some(c.operand(v)?),
            "then" => t = Some(c.operand(v)?),
            "else" => e = Some(c.operand(v)?),
            _ => return Err(err(17083, format!("Unrecognized parameter to $cond: {k}"))),
        }
    }
    let i = i.ok_or_else(|| err(17080, "Missing 'if' parameter to $cond"))?;
    let t = t.ok_or_else(|| err(17081, "Missing 'then' parameter to $cond"))?;
    let e = e.ok_or_else(|| err(17082, "Missing 'else' parameter to $cond"))?;
    Ok(call(n, cond, vec![i, t, e]))
}

fn cond(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let branch = if cx.eval_truthy(&args[0])? { 1 } else { 2 };
    cx.eval(&args[branch])
}

pub(crate) fn c_if_null(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    let args = c.args(a)?;
    if args.len() < 2 {
        return Err(err(
            1257300,
            format!("$ifNull needs at least two arguments, had: {}", args.len()),
        ));
    }
    Ok(call(n, if_null, args))
}

/// The first argument that is not null/missing; else the last one as it is.
fn if_null(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let last = args.len().saturating_sub(1);
    for (i, a) in args.iter().enumerate() {
        let v = cx.eval(a)?;
        if !nullish(&v) || i == last {
            return Ok(v);
        }
    }
    Ok(None)
}

#[derive(Debug)]
struct Switch {
    branches: Vec<(Node, Node)>,
    default: Option<Node>,
}

impl Special for Switch {
    fn eval(&self, cx: &mut Cx) -> Result<Value> {
        for (case, then) in &self.branches {
            if cx.eval_truthy(case)? {
                return cx.eval(then);
            }
        }
        match &self.default {
            Some(d) => cx.eval(d),
            None => Err(err(
                40066,
                "$switch could not find a matching branch for an input, and no default was specified.",
            )),
        }
    }
}

pub(crate) fn c_switch(_: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    let Bson::Document(d) = a else {
        return Err(err(
            40060,
            format!(
                "$switch requires an object as an argument, found: {}",
                tname(&Some(a.clone()))
            ),
        ));
    };
    let mut branches = Vec::new();
    let mut default = None;
    for (k, v) in d {
        match k.as_str() {
            "branches" => {
                let Bson::Array(items) = v else {
                    return Err(err(
                        40061,
                        format!(
                            "$switch expected an array for 'branches', found: {}",
                            tname(&Some(v.clone()))
                        ),
                    ));
                };
                for b in items {
                    let Bson::Document(bd) = b else {
                        return Err(err(
                            40062,
                            format!(
                                "$switch expected each branch to be an object, found: {}",
                                tname(&Some(b.clone()))
                            ),
                        ));
                    };
                    let (mut case, mut then) = (None, None);
                    for (bk, bv) in bd {
                        match bk.as_str() {
                            "case" => case = Some(c.operand(bv)?),
                            "then" => then = Some(c.operand(bv)?),
                            _ => {
                                return Err(err(
                                    40063,
                                    format!("$switch found an unknown argument to a branch: {bk}"),
                                ))
                            }
                        }
                    }
                    let case = case.ok_or_else(|| {
                        err(
                            40064,
                            "$switch requires each branch have a 'case' expression",
                        )
                    })?;
                    let then = then.ok_or_else(|| {
                        err(
                            40065,
                            "$switch requires each branch have a 'then' expression.",
                        )
                    })?;
                    branches.push((case, then));
                }
            }
            "default" => default = Some(c.operand(v)?),
            _ => {
                return Err(err(
                    40067,
                    format!("$switch found an unknown argument: {k}"),
                ))
            }
        }
    }
    if branches.is_empty() {
        return Err(err(40068, "$switch requires at least one branch."));
    }
    Ok(Node::Special(Arc::new(Switch { branches, default })))
}
