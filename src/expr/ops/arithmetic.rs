//! Arithmetic operators. Result types follow MongoDB: the widest operand type
//! (int → long → double → decimal), int32 overflow promotes to int64, int64
//! overflow to double; `$divide` is always double (or decimal).
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/#arithmetic-expression-operators
use super::add_state::AddState;
use super::decimal as dm;
use crate::error::{Error, Result};
use crate::expr::compile::{call, Compiler};
use crate::expr::eval::{Cx, Node};
use crate::expr::value::{ensure, nullish, tname, Value};
use crate::text::shell::type_name;
use crate::value::numeric::{
    coerce_dec, coerce_i64, dec_bson, dec_to_f64, decode_decimal, f64_to_dec34, int_or_long,
    is_number, numeric_width, sign_bit, signed_product_bson, to_f64, Dec,
};
use bigdecimal::{BigDecimal, RoundingMode};
use bson::{Bson, DateTime};

pub(crate) fn c_add(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    Ok(call(n, add, c.args(a)?))
}
pub(crate) fn c_multiply(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    Ok(call(n, multiply, c.args(a)?))
}
pub(crate) fn c_subtract(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    Ok(call(n, subtract, c.exact(n, a, 2)?))
}
pub(crate) fn c_divide(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    Ok(call(n, divide, c.exact(n, a, 2)?))
}
pub(crate) fn c_mod(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    Ok(call(n, modulo, c.exact(n, a, 2)?))
}
pub(crate) fn c_pow(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    Ok(call(n, pow, c.exact(n, a, 2)?))
}
pub(crate) fn c_log(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    Ok(call(n, log, c.exact(n, a, 2)?))
}
pub(crate) fn c_unary(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    Ok(call(n, unary, c.exact(n, a, 1)?))
}
pub(crate) fn c_round(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    Ok(call(n, round_trunc, c.ranged(n, a, 1, 2)?))
}

fn type_err(msg: String) -> Error {
    Error::type_mismatch(msg)
}

fn add(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let mut st = AddState::new();
    for a in args {
        let v = cx.eval(a)?;
        if nullish(&v) {
            return Ok(Some(Bson::Null));
        }
        if let Some(v) = &v {
            st.add(v)?;
        }
    }
    Ok(Some(st.value()?))
}

fn multiply(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let mut width = 0u8;
    let mut long: i64 = 1;
    let mut double: f64 = 1.0;
    let mut dec: Option<Dec> = None;
    let mut negative = false;
    for a in args {
        let v = cx.eval(a)?;
        if nullish(&v) {
            return Ok(Some(Bson::Null));
        }
        let v = v.unwrap_or(Bson::Null);
        let Some(w) = numeric_width(&v) else {
            return Err(type_err(format!(
                "$multiply only supports numeric types, not {}",
                type_name(&v)
            )));
        };
        negative ^= sign_bit(&v);
        let old = width;
        width = width.max(w);
        if width == 3 {
            if old != 3 {
                dec = Some(if old == 2 {
                    crate::value::numeric::f64_to_dec15(double)
                } else {
                    Dec::Finite(BigDecimal::from(long))
                });
            }
            let rhs = coerce_dec(&v).unwrap_or(Dec::NaN);
            dec = Some(dm::mul(&dec.unwrap_or(Dec::NaN), &rhs));
        } else {
            let x = to_f64(&v).unwrap_or(f64::NAN);
            double *= x;
            if width < 2 {
                match coerce_i64(&v).and_then(|i| long.checked_mul(i)) {
                    Some(p) if x.is_finite() => long = p,
                    _ => width = 2,
                }
            }
        }
    }
    Ok(Some(match width {
        0 => int_or_long(long),
        1 => Bson::Int64(long),
        2 => Bson::Double(double),
        _ => signed_product_bson(&dec.unwrap_or(Dec::NaN), negative),
    }))
}

/// Milliseconds to move a date by (`getMillis`): doubles round half away from zero.
fn millis_of(v: &Bson) -> i64 {
    match v {
        Bson::Double(x) => {
            if x.is_nan() {
                0
            } else {
                x.round() as i64
            }
        }
        Bson::Decimal128(d) => dm::dec_to_i64_round(&decode_decimal(d)).unwrap_or(0),
        other => coerce_i64(other).unwrap_or(0),
    }
}

fn subtract(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let l = cx.eval(&args[0])?;
    let r = cx.eval(&args[1])?;
    let (lw, rw) = (
        l.as_ref().and_then(numeric_width),
        r.as_ref().and_then(numeric_width),
    );
    if let (Some(lw), Some(rw), Some(lv), Some(rv)) = (lw, rw, &l, &r) {
        return Ok(Some(match lw.max(rw) {
            3 => {
                let a = coerce_dec(lv).unwrap_or(Dec::NaN);
                let b = coerce_dec(rv).unwrap_or(Dec::NaN);
                dec_bson(&dm::sub(&a, &b))
            }
            2 => Bson::Double(to_f64(lv).unwrap_or(0.0) - to_f64(rv).unwrap_or(0.0)),
            w => {
                let (a, b) = (coerce_i64(lv).unwrap_or(0), coerce_i64(rv).unwrap_or(0));
                match a.checked_sub(b) {
                    Some(d) if w == 1 => Bson::Int64(d),
                    Some(d) => int_or_long(d),
                    None => Bson::Double(a as f64 - b as f64),
                }
            }
        }));
    }
    if nullish(&l) || nullish(&r) {
        return Ok(Some(Bson::Null));
    }
    match (&l, &r) {
        (Some(Bson::DateTime(a)), Some(Bson::DateTime(b))) => Ok(Some(Bson::Int64(
            a.timestamp_millis().wrapping_sub(b.timestamp_millis()),
        ))),
        (Some(Bson::DateTime(a)), Some(n)) if is_number(n) => Ok(Some(Bson::DateTime(
            DateTime::from_millis(a.timestamp_millis().wrapping_sub(millis_of(n))),
        ))),
        (Some(Bson::DateTime(_)), _) => {
            Err(type_err(format!("can't $subtract {} from Date", tname(&r))))
        }
        _ => Err(type_err(format!(
            "can't $subtract {} from {}",
            tname(&r),
            tname(&l)
        ))),
    }
}

fn divide(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let l = cx.eval(&args[0])?;
    let r = cx.eval(&args[1])?;
    match (&l, &r) {
        (Some(a), Some(b)) if is_number(a) && is_number(b) => {
            if matches!(a, Bson::Decimal128(_)) || matches!(b, Bson::Decimal128(_)) {
                let (x, y) = (
                    coerce_dec(a).unwrap_or(Dec::NaN),
                    coerce_dec(b).unwrap_or(Dec::NaN),
                );
                if dm::is_zero(&y) {
                    return Err(Error::bad_value("can't $divide by zero"));
                }
                let negative = sign_bit(a) != sign_bit(b);
                return Ok(Some(signed_product_bson(&dm::div(&x, &y), negative)));
            }
            let (x, y) = (to_f64(a).unwrap_or(0.0), to_f64(b).unwrap_or(0.0));
            if y == 0.0 {
                return Err(Error::bad_value("can't $divide by zero"));
            }
            Ok(Some(Bson::Double(x / y)))
        }
        _ if nullish(&l) || nullish(&r) => Ok(Some(Bson::Null)),
        _ => Err(type_err(format!(
            "$divide only supports numeric types, not {} and {}",
            tname(&l),
            tname(&r)
        ))),
    }
}

fn modulo(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let l = cx.eval(&args[0])?;
    let r = cx.eval(&args[1])?;
    match (&l, &r) {
        (Some(a), Some(b)) if is_number(a) && is_number(b) => {
            if matches!(a, Bson::Decimal128(_)) || matches!(b, Bson::Decimal128(_)) {
                let (x, y) = (
                    coerce_dec(a).unwrap_or(Dec::NaN),
                    coerce_dec(b).unwrap_or(Dec::NaN),
                );
                if dm::is_zero(&y) {
                    return Err(Error::location(16610, "can't $mod by zero"));
                }
                return Ok(Some(dec_bson(&dm::rem(&x, &y))));
            }
            let y = to_f64(b).unwrap_or(0.0);
            if y == 0.0 {
                return Err(Error::location(16610, "can't $mod by zero"));
            }
            let b_integral = crate::value::numeric::to_i64_exact(b).is_some();
            if matches!(a, Bson::Double(_)) || (matches!(b, Bson::Double(_)) && !b_integral) {
                let x = to_f64(a).unwrap_or(0.0);
                return Ok(Some(Bson::Double(x % y)));
            }
            let (x, yi) = (coerce_i64(a).unwrap_or(0), coerce_i64(b).unwrap_or(1));
            // safeMod: x % -1 is 0 even for the minimum value.
            let m = if yi == -1 { 0 } else { x % yi };
            if matches!(a, Bson::Int64(_)) || matches!(b, Bson::Int64(_)) {
                Ok(Some(Bson::Int64(m)))
            } else {
                Ok(Some(Bson::Int32(i32::try_from(m).unwrap_or(0))))
            }
        }
        _ if nullish(&l) || nullish(&r) => Ok(Some(Bson::Null)),
        // 16611 is the classic code of this message (unverified for 8.x).
        _ => Err(Error::location(
            16611,
            format!(
                "$mod only supports numeric types, not {} and {}",
                tname(&l),
                tname(&r)
            ),
        )),
    }
}

/// `$abs $ceil $floor $exp $ln $log10 $sqrt` (ExpressionSingleNumericArg).
fn unary(name: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let v = cx.eval(&args[0])?;
    if nullish(&v) {
        return Ok(Some(Bson::Null));
    }
    let v = v.unwrap_or(Bson::Null);
    ensure(is_number(&v), 28765, || {
        format!("{name} only supports numeric types, not {}", type_name(&v))
    })?;
    let dec = match &v {
        Bson::Decimal128(d) => Some(decode_decimal(d)),
        _ => None,
    };
    let x = to_f64(&v).unwrap_or(f64::NAN);
    Ok(Some(match name {
        "$abs" => match &v {
            Bson::Int32(i) => int_or_long(i64::from(*i).abs()),
            Bson::Int64(i) => match i.checked_abs() {
                Some(a) => Bson::Int64(a),
                None => return Err(Error::location(28680, "can't take $abs of long long min")),
            },
            Bson::Double(d) => Bson::Double(d.abs()),
            _ => dec_bson(&dm::abs(&dec.unwrap_or(Dec::NaN))),
        },
        "$ceil" | "$floor" => match (&v, dec) {
            (Bson::Double(d), _) => {
                Bson::Double(if name == "$ceil" { d.ceil() } else { d.floor() })
            }
            (_, Some(d)) => {
                let mode = if name == "$ceil" {
                    RoundingMode::Ceiling
                } else {
                    RoundingMode::Floor
                };
                dec_bson(&dm::quantize(&d, 0, mode))
            }
            _ => v.clone(),
        },
        "$exp" => match dec {
            Some(d) => dec_bson(&dm::exp(&d)),
            None => Bson::Double(x.exp()),
        },
        "$sqrt" => {
            if let Some(d) = dec {
                ensure(!dm::is_negative(&d), 28714, || {
                    "$sqrt's argument must be greater than or equal to 0".into()
                })?;
                dec_bson(&dm::sqrt(&d))
            } else {
                ensure(x >= 0.0 || x.is_nan(), 28714, || {
                    "$sqrt's argument must be greater than or equal to 0".into()
                })?;
                Bson::Double(x.sqrt())
            }
        }
        "$ln" | "$log10" => {
            if let Some(d) = dec.as_ref().filter(|d| dm::is_positive(d)) {
                let r = if name == "$ln" {
                    dm::ln(d)
                } else {
                    dm::log10(d)
                };
                dec_bson(&r)
            } else {
                let code = if name == "$ln" { 28766 } else { 28761 };
                ensure(x > 0.0 || x.is_nan(), code, || {
                    format!(
                        "{name}'s argument must be a positive number, but is {}",
                        crate::text::shell::js_number(x)
                    )
                })?;
                Bson::Double(if name == "$ln" { x.ln() } else { x.log10() })
            }
        }
        _ => return Err(Error::not_supported(name)),
    }))
}

fn log(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let a = cx.eval(&args[0])?;
    let b = cx.eval(&args[1])?;
    if nullish(&a) || nullish(&b) {
        return Ok(Some(Bson::Null));
    }
    let (a, b) = (a.unwrap_or(Bson::Null), b.unwrap_or(Bson::Null));
    ensure(is_number(&a), 28756, || {
        format!("$log's argument must be numeric, not {}", type_name(&a))
    })?;
    ensure(is_number(&b), 28757, || {
        format!("$log's base must be numeric, not {}", type_name(&b))
    })?;
    if matches!(a, Bson::Decimal128(_)) || matches!(b, Bson::Decimal128(_)) {
        let (x, base) = (
            coerce_dec(&a).unwrap_or(Dec::NaN),
            coerce_dec(&b).unwrap_or(Dec::NaN),
        );
        if dm::is_positive(&x) && dm::is_positive(&base) && !dm::is_one(&base) {
            return Ok(Some(dec_bson(&dm::div(&dm::ln(&x), &dm::ln(&base)))));
        }
    }
    let (x, base) = (to_f64(&a).unwrap_or(0.0), to_f64(&b).unwrap_or(0.0));
    ensure(x > 0.0 || x.is_nan(), 28758, || {
        format!(
            "$log's argument must be a positive number, but is {}",
            crate::text::shell::js_number(x)
        )
    })?;
    ensure((base > 0.0 && base != 1.0) || base.is_nan(), 28759, || {
        format!(
            "$log's base must be a positive number not equal to 1, but is {}",
            crate::text::shell::js_number(base)
        )
    })?;
    Ok(Some(Bson::Double(x.ln() / base.ln())))
}

fn pow(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let b = cx.eval(&args[0])?;
    let e = cx.eval(&args[1])?;
    if nullish(&b) || nullish(&e) {
        return Ok(Some(Bson::Null));
    }
    let (b, e) = (b.unwrap_or(Bson::Null), e.unwrap_or(Bson::Null));
    ensure(is_number(&b), 28762, || {
        format!("$pow's base must be numeric, not {}", type_name(&b))
    })?;
    ensure(is_number(&e), 28763, || {
        format!("$pow's exponent must be numeric, not {}", type_name(&e))
    })?;
    let zero_neg = || {
        Error::location(
            28764,
            "$pow cannot take a base of 0 and a negative exponent",
        )
    };
    if matches!(b, Bson::Decimal128(_)) || matches!(e, Bson::Decimal128(_)) {
        let (x, y) = (
            coerce_dec(&b).unwrap_or(Dec::NaN),
            coerce_dec(&e).unwrap_or(Dec::NaN),
        );
        if dm::is_zero(&x) && dm::is_negative(&y) {
            return Err(zero_neg());
        }
        return Ok(Some(dec_bson(&dm::pow(&x, &y))));
    }
    let (x, y) = (to_f64(&b).unwrap_or(0.0), to_f64(&e).unwrap_or(0.0));
    if x == 0.0 && y < 0.0 {
        return Err(zero_neg());
    }
    if matches!(b, Bson::Double(_)) || matches!(e, Bson::Double(_)) {
        return Ok(Some(Bson::Double(x.powf(y))));
    }
    let long = matches!(b, Bson::Int64(_)) || matches!(e, Bson::Int64(_));
    let fmt = |r: i64| if long { Bson::Int64(r) } else { int_or_long(r) };
    let (bl, el) = (coerce_i64(&b).unwrap_or(0), coerce_i64(&e).unwrap_or(0));
    Ok(Some(match bl {
        0 => fmt(if el == 0 { 1 } else { 0 }),
        1 => fmt(1),
        -1 => fmt(if el % 2 == 0 { 1 } else { -1 }),
        _ if !(0..=63).contains(&el) => Bson::Double((bl as f64).powf(el as f64)),
        _ => match u32::try_from(el).ok().and_then(|e| bl.checked_pow(e)) {
            Some(r) => fmt(r),
            None => Bson::Double((bl as f64).powf(el as f64)),
        },
    }))
}

/// `$round` (ties to even) and `$trunc` with an optional place in [-20, 100].
fn round_trunc(name: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let v = cx.eval(&args[0])?;
    if nullish(&v) {
        return Ok(Some(Bson::Null));
    }
    let v = v.unwrap_or(Bson::Null);
    ensure(is_number(&v), 51081, || {
        format!("{name} only supports numeric types, not {}", type_name(&v))
    })?;
    let mut place: i64 = 0;
    if let Some(p) = args.get(1) {
        let p = cx.eval(p)?;
        if nullish(&p) {
            return Ok(Some(Bson::Null));
        }
        let pv = p.unwrap_or(Bson::Null);
        place = match crate::value::numeric::to_i64_exact(&pv) {
            Some(i) => i,
            None => {
                return Err(Error::location(
                    51082,
                    format!("precision argument to  {name} must be a integral value"),
                ))
            }
        };
        ensure((-20..=100).contains(&place), 51083, || {
            format!("cannot apply {name} with precision value {place} value must be in [-20, 100]")
        })?;
    }
    let mode = if name == "$round" {
        RoundingMode::HalfEven
    } else {
        RoundingMode::Down
    };
    Ok(Some(match &v {
        Bson::Decimal128(d) => {
            let d = decode_decimal(d);
            match d {
                Dec::Finite(_) => dec_bson(&dm::quantize(&d, place, mode)),
                _ => v.clone(),
            }
        }
        Bson::Double(x) => {
            if !x.is_finite() {
                v.clone()
            } else {
                let q = dm::quantize(&f64_to_dec34(*x), place, mode);
                Bson::Double(dec_to_f64(&q))
            }
        }
        _ => {
            if place >= 0 {
                v.clone()
            } else {
                let i = coerce_i64(&v).unwrap_or(0);
                let q = dm::quantize(&Dec::Finite(BigDecimal::from(i)), place, mode);
                let r = dm::dec_to_i64_round(&q).unwrap_or(0);
                if matches!(v, Bson::Int64(_)) || r > i64::from(i32::MAX) {
                    Bson::Int64(r)
                } else {
                    int_or_long(r)
                }
            }
        }
    }))
}
