//! Trigonometry (`$sin` … `$atanh`, `$atan2`, degree/radian conversion) and
//! bitwise operators (`$bitAnd $bitOr $bitXor $bitNot`). Decimal inputs are
//! computed in double precision and returned as Decimal128.
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/#trigonometry-expression-operators
use crate::error::Result;
use crate::expr::compile::{call, Compiler};
use crate::expr::eval::{Cx, Node};
use crate::expr::value::{ensure, err, nullish, tname, Value};
use crate::text::shell::js_number;
use crate::value::numeric::{dec_bson, f64_to_dec34, is_number, to_f64};
use bson::Bson;

pub(crate) fn c_trig(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    Ok(call(n, trig, c.exact(n, a, 1)?))
}
pub(crate) fn c_atan2(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    Ok(call(n, atan2, c.exact(n, a, 2)?))
}
pub(crate) fn c_bit(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    if n == "$bitNot" {
        return Ok(call(n, bit_not, c.exact(n, a, 1)?));
    }
    Ok(call(n, bits, c.args(a)?))
}

fn out(x: f64, decimal: bool) -> Bson {
    if decimal {
        dec_bson(&f64_to_dec34(x))
    } else {
        Bson::Double(x)
    }
}

fn trig(name: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let v = cx.eval(&args[0])?;
    if nullish(&v) {
        return Ok(Some(Bson::Null));
    }
    let b = v.clone().unwrap_or(Bson::Null);
    ensure(is_number(&b), 28765, || {
        format!("{name} only supports numeric types, not {}", tname(&v))
    })?;
    let x = to_f64(&b).unwrap_or(f64::NAN);
    let dec = matches!(b, Bson::Decimal128(_));
    let bounded = |lo: f64, hi: f64, shown: &str| -> Result<()> {
        ensure(x.is_nan() || (lo..=hi).contains(&x), 50989, || {
            format!(
                "cannot apply {name} to {}, value must be in {shown}",
                js_number(x)
            )
        })
    };
    let r = match name {
        "$sin" | "$cos" | "$tan" => {
            ensure(!x.is_infinite(), 50989, || {
                format!(
                    "cannot apply {name} to {}, value must be in (-inf,inf)",
                    js_number(x)
                )
            })?;
            match name {
                "$sin" => x.sin(),
                "$cos" => x.cos(),
                _ => x.tan(),
            }
        }
        "$asin" => {
            bounded(-1.0, 1.0, "[-1,1]")?;
            x.asin()
        }
        "$acos" => {
            bounded(-1.0, 1.0, "[-1,1]")?;
            x.acos()
        }
        "$atan" => x.atan(),
        "$sinh" => x.sinh(),
        "$cosh" => x.cosh(),
        "$tanh" => x.tanh(),
        "$asinh" => x.asinh(),
        "$acosh" => {
            bounded(1.0, f64::INFINITY, "[1,inf]")?;
            x.acosh()
        }
        "$atanh" => {
            bounded(-1.0, 1.0, "[-1,1]")?;
            x.atanh()
        }
        "$degreesToRadians" => x.to_radians(),
        _ => x.to_degrees(),
    };
    Ok(Some(out(r, dec)))
}

fn atan2(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let y = cx.eval(&args[0])?;
    let x = cx.eval(&args[1])?;
    if nullish(&y) || nullish(&x) {
        return Ok(Some(Bson::Null));
    }
    let (yb, xb) = (
        y.clone().unwrap_or(Bson::Null),
        x.clone().unwrap_or(Bson::Null),
    );
    ensure(is_number(&yb), 51044, || {
        format!("$atan2 only supports numeric types, not {}", tname(&y))
    })?;
    ensure(is_number(&xb), 51045, || {
        format!("$atan2 only supports numeric types, not {}", tname(&x))
    })?;
    let dec = matches!(yb, Bson::Decimal128(_)) || matches!(xb, Bson::Decimal128(_));
    let r = to_f64(&yb)
        .unwrap_or(f64::NAN)
        .atan2(to_f64(&xb).unwrap_or(f64::NAN));
    Ok(Some(out(r, dec)))
}

/// Bitwise operands: int or long only (code 28834 is a plausible code; unverified).
fn bit_operand(name: &str, v: &Value) -> Result<(i64, bool)> {
    match v {
        Some(Bson::Int32(i)) => Ok((i64::from(*i), false)),
        Some(Bson::Int64(i)) => Ok((*i, true)),
        _ => Err(err(
            28834,
            format!("{name} only supports int and long operands."),
        )),
    }
}

fn bits(name: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let mut acc: i64 = if name == "$bitAnd" { -1 } else { 0 };
    let mut long = false;
    for a in args {
        let v = cx.eval(a)?;
        if nullish(&v) {
            return Ok(Some(Bson::Null));
        }
        let (x, l) = bit_operand(name, &v)?;
        long |= l;
        acc = match name {
            "$bitAnd" => acc & x,
            "$bitOr" => acc | x,
            _ => acc ^ x,
        };
    }
    Ok(Some(if long {
        Bson::Int64(acc)
    } else {
        Bson::Int32(acc as i32)
    }))
}

fn bit_not(name: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let v = cx.eval(&args[0])?;
    if nullish(&v) {
        return Ok(Some(Bson::Null));
    }
    Ok(Some(match bit_operand(name, &v)? {
        (x, true) => Bson::Int64(!x),
        (x, false) => Bson::Int32(!(x as i32)),
    }))
}
