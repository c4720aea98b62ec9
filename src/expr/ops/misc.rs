//! `$literal`, `$rand`, `$bsonSize`, `$binarySize`.
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/rand/
use crate::error::{Error, Result};
use crate::expr::compile::{call, Compiler};
use crate::expr::eval::{Cx, Node};
use crate::expr::value::{err, nullish, tname, Value};
use bson::Bson;

pub(crate) fn c_literal(_: &'static str, a: &Bson, _: &mut Compiler) -> Result<Node> {
    Ok(Node::Const(a.clone()))
}

pub(crate) fn c_rand(n: &'static str, a: &Bson, _: &mut Compiler) -> Result<Node> {
    match a {
        Bson::Document(d) if d.is_empty() => Ok(call(n, rand, Vec::new())),
        Bson::Array(items) if items.is_empty() => Ok(call(n, rand, Vec::new())),
        _ => Err(err(3040500, "$rand does not currently accept arguments")),
    }
}

fn rand(_: &'static str, _: &[Node], cx: &mut Cx) -> Result<Value> {
    Ok(Some(Bson::Double(cx.scope.next_random())))
}

pub(crate) fn c_bson_size(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    Ok(call(n, bson_size, c.exact(n, a, 1)?))
}

fn bson_size(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let v = cx.eval(&args[0])?;
    if nullish(&v) {
        return Ok(Some(Bson::Null));
    }
    match v {
        Some(Bson::Document(d)) => {
            let bytes = d
                .to_vec()
                .map_err(|e| Error::bad_value(format!("cannot encode document: {e}")))?;
            Ok(Some(Bson::Int32(
                i32::try_from(bytes.len()).unwrap_or(i32::MAX),
            )))
        }
        other => Err(err(
            31393,
            format!(
                "$bsonSize requires a document input, found: {}",
                tname(&other)
            ),
        )),
    }
}

pub(crate) fn c_binary_size(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    Ok(call(n, binary_size, c.exact(n, a, 1)?))
}

fn binary_size(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let v = cx.eval(&args[0])?;
    if nullish(&v) {
        return Ok(Some(Bson::Null));
    }
    let n = match &v {
        Some(Bson::String(s)) => s.len(),
        Some(Bson::Binary(b)) => b.bytes.len(),
        _ => {
            return Err(err(
                51276,
                format!(
                    "$binarySize requires a string or BinData argument, found: {}",
                    tname(&v)
                ),
            ))
        }
    };
    Ok(Some(Bson::Int32(i32::try_from(n).unwrap_or(i32::MAX))))
}

pub(crate) fn c_ts(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    Ok(call(n, ts_part, c.exact(n, a, 1)?))
}

/// `$tsSecond` / `$tsIncrement`: parts of a timestamp as longs.
fn ts_part(name: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let v = cx.eval(&args[0])?;
    if nullish(&v) {
        return Ok(Some(Bson::Null));
    }
    match v {
        Some(Bson::Timestamp(t)) => Ok(Some(Bson::Int64(i64::from(if name == "$tsSecond" {
            t.time
        } else {
            t.increment
        })))),
        other => Err(err(
            if name == "$tsSecond" {
                5687301
            } else {
                5687302
            },
            format!(
                " Argument to {name} must be a timestamp, but is {}",
                tname(&other)
            ),
        )),
    }
}
