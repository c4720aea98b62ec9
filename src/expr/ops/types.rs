//! Type operators: `$type`, `$isNumber`, `$convert` and its shorthands
//! (`$toBool $toDate $toDecimal $toDouble $toInt $toLong $toObjectId $toString`).
//! Conversion failures are ConversionFailure (241), caught by `onError`.
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/convert/
use super::decimal as dm;
use crate::error::{Error, Result};
use crate::expr::compile::{call, Compiler};
use crate::expr::eval::{Cx, Node, Special};
use crate::expr::value::{nullish, tname, truthy, Value};
use crate::text::shell::type_name;
use crate::value::numeric::{dec_bson, dec_to_f64, decode_decimal, f64_to_dec15, is_number, Dec};
use bigdecimal::BigDecimal;
use bson::oid::ObjectId;
use bson::{Bson, DateTime, Decimal128};
use std::str::FromStr;
use std::sync::Arc;

pub(crate) fn c_type(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    Ok(call(n, type_of, c.exact(n, a, 1)?))
}
pub(crate) fn c_is_number(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    Ok(call(n, is_number_op, c.exact(n, a, 1)?))
}

fn type_of(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    Ok(Some(Bson::String(tname(&cx.eval(&args[0])?).to_string())))
}

fn is_number_op(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let v = cx.eval(&args[0])?;
    Ok(Some(Bson::Boolean(v.as_ref().is_some_and(is_number))))
}

/// Target types of `$convert`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Target {
    Double,
    String,
    ObjectId,
    Bool,
    Date,
    Int,
    Long,
    Decimal,
    /// binData of a subtype.
    BinData(u8),
    /// Any other BSON type: only identity and (for some) bool conversions exist.
    Other(&'static str),
}

fn target_name(t: Target) -> &'static str {
    match t {
        Target::Double => "double",
        Target::String => "string",
        Target::ObjectId => "objectId",
        Target::Bool => "bool",
        Target::Date => "date",
        Target::Int => "int",
        Target::Long => "long",
        Target::Decimal => "decimal",
        Target::BinData(_) => "binData",
        Target::Other(n) => n,
    }
}

const TYPE_CODES: &[(i32, &str)] = &[
    (1, "double"),
    (2, "string"),
    (3, "object"),
    (4, "array"),
    (5, "binData"),
    (6, "undefined"),
    (7, "objectId"),
    (8, "bool"),
    (9, "date"),
    (10, "null"),
    (11, "regex"),
    (12, "dbPointer"),
    (13, "javascript"),
    (14, "symbol"),
    (15, "javascriptWithScope"),
    (16, "int"),
    (17, "timestamp"),
    (18, "long"),
    (19, "decimal"),
    (-1, "minKey"),
    (127, "maxKey"),
];

fn target_from_name(n: &str) -> Option<Target> {
    Some(match n {
        "double" => Target::Double,
        "string" => Target::String,
        "objectId" => Target::ObjectId,
        "bool" => Target::Bool,
        "date" => Target::Date,
        "int" => Target::Int,
        "long" => Target::Long,
        "decimal" => Target::Decimal,
        "binData" => Target::BinData(0),
        "missing" => Target::Other("missing"),
        other => Target::Other(TYPE_CODES.iter().find(|(_, t)| *t == other)?.1),
    })
}

fn parse_target(v: &Bson) -> Result<Target> {
    match v {
        Bson::String(s) => {
            target_from_name(s).ok_or_else(|| Error::bad_value(format!("Unknown type name: {s}")))
        }
        n if is_number(n) => {
            let Some(code) = crate::value::numeric::to_i64_exact(n) else {
                return Err(Error::failed_to_parse(
                    "In $convert, numeric 'to' argument is not an integer",
                ));
            };
            let name = TYPE_CODES
                .iter()
                .find(|(c, _)| i64::from(*c) == code)
                .map(|(_, n)| *n)
                .ok_or_else(|| {
                    Error::failed_to_parse(format!(
                        "In $convert, numeric value for 'to' does not correspond to a BSON type: {code}"
                    ))
                })?;
            target_from_name(name).ok_or_else(|| Error::bad_value("unknown type"))
        }
        Bson::Document(d) => {
            let t = match d.get("type") {
                Some(t) => parse_target(t)?,
                None => {
                    return Err(Error::failed_to_parse(
                        "Missing 'type' in $convert's 'to' document",
                    ))
                }
            };
            match (t, d.get("subtype")) {
                (Target::BinData(_), Some(sub)) => {
                    let code = crate::value::numeric::to_i64_exact(sub)
                        .and_then(|c| u8::try_from(c).ok())
                        .ok_or_else(|| {
                            Error::failed_to_parse(
                                "In $convert, 'subtype' must be an integer between 0 and 255",
                            )
                        })?;
                    Ok(Target::BinData(code))
                }
                (t, _) => Ok(t),
            }
        }
        other => Err(Error::failed_to_parse(format!(
            "$convert's 'to' argument must be a string or number, but is {}",
            type_name(other)
        ))),
    }
}

fn conversion_failure(msg: impl Into<String>) -> Error {
    Error::conversion_failure(msg)
}

const NO_ON_ERROR: &str = "in $convert with no onError value";

fn overflow(v: impl std::fmt::Display) -> Error {
    conversion_failure(format!(
        "Conversion would overflow target type {NO_ON_ERROR}: {v}"
    ))
}

fn check_finite(x: f64) -> Result<()> {
    if x.is_nan() {
        return Err(conversion_failure(format!(
            "Attempt to convert NaN value to integer type {NO_ON_ERROR}"
        )));
    }
    if x.is_infinite() {
        return Err(conversion_failure(format!(
            "Attempt to convert infinity value to integer type {NO_ON_ERROR}"
        )));
    }
    Ok(())
}

fn double_to_long(x: f64) -> Result<i64> {
    check_finite(x)?;
    if !(-9.223372036854776e18..9.223372036854776e18).contains(&x) {
        return Err(overflow(crate::text::shell::js_number(x)));
    }
    Ok(x.trunc() as i64)
}

fn decimal_to_long(d: &Decimal128) -> Result<i64> {
    let dec = decode_decimal(d);
    match dec {
        Dec::NaN => check_finite(f64::NAN).map(|_| 0),
        Dec::Inf(_) => check_finite(f64::INFINITY).map(|_| 0),
        _ => dm::dec_to_i64_trunc(&dec).ok_or_else(|| overflow(d)),
    }
}

/// Parse a base-10 integer the way MongoDB's NumberParser does (no whitespace, no hex).
fn parse_int_str(s: &str) -> std::result::Result<i64, &'static str> {
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    if digits.is_empty() || !digits.as_bytes()[0].is_ascii_digit() {
        return Err("Did not consume any digits");
    }
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err("Did not consume whole string.");
    }
    s.parse::<i64>().map_err(|_| "Overflow")
}

fn parse_fail(s: &str, why: &str) -> Error {
    conversion_failure(format!("Failed to parse number '{s}' {NO_ON_ERROR}: {why}"))
}

fn string_to_number(s: &str, t: Target) -> Result<Bson> {
    if s.starts_with("0x") || s.starts_with("0X") || s.starts_with("-0x") {
        return Err(conversion_failure(format!(
            "Illegal hexadecimal input {NO_ON_ERROR}: {s}"
        )));
    }
    match t {
        Target::Int => {
            let i = parse_int_str(s).map_err(|w| parse_fail(s, w))?;
            i32::try_from(i)
                .map(Bson::Int32)
                .map_err(|_| parse_fail(s, "Overflow"))
        }
        Target::Long => parse_int_str(s)
            .map(Bson::Int64)
            .map_err(|w| parse_fail(s, w)),
        Target::Double => {
            let lower = s.to_ascii_lowercase();
            let body = lower.trim_start_matches(['-', '+']);
            let ok_chars = body
                .bytes()
                .all(|b| b.is_ascii_digit() || b == b'.' || b == b'e' || b == b'-' || b == b'+');
            let special = matches!(body, "inf" | "infinity" | "nan");
            if s.is_empty() || !(ok_chars || special) {
                return Err(parse_fail(s, "Did not consume whole string."));
            }
            let x: f64 = s
                .parse()
                .map_err(|_| parse_fail(s, "Did not consume whole string."))?;
            if x.is_infinite() && !special {
                return Err(parse_fail(s, "Out of range"));
            }
            Ok(Bson::Double(x))
        }
        _ => {
            let d = Decimal128::from_str(s)
                .map_err(|_| parse_fail(s, "Failed to parse string to decimal"))?;
            Ok(Bson::Decimal128(d))
        }
    }
}

/// Double formatting of `$toString` (fmt's shortest form: `2.5`, `1e+20`).
pub(crate) fn double_to_string(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let sci = format!("{x:e}");
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-4..16).contains(&exp) {
        format!("{x}")
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mant}e{sign}{:02}", exp.abs())
    }
}

/// Perform one conversion (the ConversionTable of MongoDB).
pub(crate) fn convert(v: &Bson, t: Target, format: Option<&str>) -> Result<Bson> {
    let unsupported = || {
        conversion_failure(format!(
            "Unsupported conversion from {} to {} {NO_ON_ERROR}",
            type_name(v),
            target_name(t)
        ))
    };
    Ok(match t {
        Target::Bool => match v {
            Bson::MinKey | Bson::MaxKey => Bson::Boolean(true),
            Bson::Null | Bson::Undefined => return Err(unsupported()),
            other => Bson::Boolean(truthy(Some(other))),
        },
        Target::Double => match v {
            Bson::Double(_) => v.clone(),
            Bson::Int32(i) => Bson::Double(f64::from(*i)),
            Bson::Int64(i) => Bson::Double(*i as f64),
            Bson::Decimal128(d) => {
                let x = dec_to_f64(&decode_decimal(d));
                if x.is_infinite() && !matches!(decode_decimal(d), Dec::Inf(_)) {
                    return Err(overflow(d));
                }
                Bson::Double(x)
            }
            Bson::Boolean(b) => Bson::Double(if *b { 1.0 } else { 0.0 }),
            Bson::DateTime(d) => Bson::Double(d.timestamp_millis() as f64),
            Bson::String(s) => string_to_number(s, t)?,
            _ => return Err(unsupported()),
        },
        Target::Int => match v {
            Bson::Int32(_) => v.clone(),
            Bson::Int64(i) => Bson::Int32(i32::try_from(*i).map_err(|_| overflow(""))?),
            Bson::Double(x) => {
                check_finite(*x)?;
                if !(*x >= f64::from(i32::MIN) && *x <= f64::from(i32::MAX)) {
                    return Err(overflow(crate::text::shell::js_number(*x)));
                }
                Bson::Int32(x.trunc() as i32)
            }
            Bson::Decimal128(d) => {
                let l = decimal_to_long(d)?;
                Bson::Int32(i32::try_from(l).map_err(|_| overflow(d))?)
            }
            Bson::Boolean(b) => Bson::Int32(i32::from(*b)),
            Bson::String(s) => string_to_number(s, t)?,
            _ => return Err(unsupported()),
        },
        Target::Long => match v {
            Bson::Int64(_) => v.clone(),
            Bson::Int32(i) => Bson::Int64(i64::from(*i)),
            Bson::Double(x) => Bson::Int64(double_to_long(*x)?),
            Bson::Decimal128(d) => Bson::Int64(decimal_to_long(d)?),
            Bson::Boolean(b) => Bson::Int64(i64::from(*b)),
            Bson::DateTime(d) => Bson::Int64(d.timestamp_millis()),
            Bson::String(s) => string_to_number(s, t)?,
            _ => return Err(unsupported()),
        },
        Target::Decimal => match v {
            Bson::Decimal128(_) => v.clone(),
            Bson::Int32(i) => dec_bson(&Dec::Finite(BigDecimal::from(*i))),
            Bson::Int64(i) => dec_bson(&Dec::Finite(BigDecimal::from(*i))),
            Bson::Double(x) => dec_bson(&f64_to_dec15(*x)),
            Bson::Boolean(b) => dec_bson(&Dec::Finite(BigDecimal::from(i32::from(*b)))),
            Bson::DateTime(d) => dec_bson(&Dec::Finite(BigDecimal::from(d.timestamp_millis()))),
            Bson::String(s) => string_to_number(s, t)?,
            _ => return Err(unsupported()),
        },
        Target::String => match v {
            Bson::String(_) => v.clone(),
            Bson::Double(x) => Bson::String(double_to_string(*x)),
            Bson::Int32(i) => Bson::String(i.to_string()),
            Bson::Int64(i) => Bson::String(i.to_string()),
            Bson::Decimal128(d) => Bson::String(d.to_string()),
            Bson::Boolean(b) => Bson::String(b.to_string()),
            Bson::ObjectId(o) => Bson::String(o.to_hex()),
            // The server formats with `%Y-%m-%dT%H:%M:%S.%LZ`, whose year
            // must be 0-9999 (18537, not a conversion failure: onError does not catch it).
            Bson::DateTime(d) => Bson::String(super::date::format_date(
                "%Y-%m-%dT%H:%M:%S.%LZ",
                d.timestamp_millis(),
                &super::date::Zone::Utc,
            )?),
            Bson::Symbol(s) | Bson::JavaScriptCode(s) => Bson::String(s.clone()),
            Bson::Binary(b) => super::bindata::bin_to_string(b, format)?,
            _ => return Err(unsupported()),
        },
        Target::ObjectId => match v {
            Bson::ObjectId(_) => v.clone(),
            Bson::String(s) => Bson::ObjectId(ObjectId::parse_str(s).map_err(|_| {
                conversion_failure(format!(
                    "Failed to parse objectId '{s}' {NO_ON_ERROR}: Invalid string length for parsing to OID, expected 24 but found {}",
                    s.len()
                ))
            })?),
            _ => return Err(unsupported()),
        },
        Target::Date => match v {
            Bson::DateTime(_) => v.clone(),
            Bson::Int64(i) => Bson::DateTime(DateTime::from_millis(*i)),
            Bson::Double(x) => Bson::DateTime(DateTime::from_millis(double_to_long(*x)?)),
            Bson::Decimal128(d) => Bson::DateTime(DateTime::from_millis(decimal_to_long(d)?)),
            Bson::ObjectId(o) => Bson::DateTime(DateTime::from_millis(
                o.timestamp().timestamp_millis() / 1000 * 1000,
            )),
            Bson::Timestamp(ts) => {
                Bson::DateTime(DateTime::from_millis(i64::from(ts.time) * 1000))
            }
            Bson::String(s) => Bson::DateTime(
                super::date_parse::parse_date_string(s, None, None)
                    .map_err(|e| conversion_failure(e.message))?,
            ),
            _ => return Err(unsupported()),
        },
        Target::BinData(sub) => match v {
            Bson::String(s) => super::bindata::string_to_bin(s, format, sub)?,
            Bson::Binary(b) if u8::from(b.subtype) == sub => v.clone(),
            Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) => {
                return Err(Error::not_supported("$convert from numbers to binData"))
            }
            _ => return Err(unsupported()),
        },
        Target::Other(name) => {
            if type_name(v) == name {
                v.clone()
            } else {
                return Err(unsupported());
            }
        }
    })
}

#[derive(Debug)]
struct Convert {
    input: Node,
    to: Node,
    format: Option<Node>,
    on_error: Option<Node>,
    on_null: Option<Node>,
}

impl Special for Convert {
    fn eval(&self, cx: &mut Cx) -> Result<Value> {
        let to = cx.eval(&self.to)?;
        let input = cx.eval(&self.input)?;
        let target = match &to {
            Some(t) if !nullish(&to) => Some(parse_target(t)?),
            _ => None,
        };
        if nullish(&input) {
            return match &self.on_null {
                Some(n) => cx.eval(n),
                None => Ok(Some(Bson::Null)),
            };
        }
        let Some(target) = target else {
            return Ok(Some(Bson::Null));
        };
        let format = match &self.format {
            Some(f) => match cx.eval(f)? {
                Some(Bson::String(s)) => {
                    super::bindata::check_format(&s)?;
                    Some(s)
                }
                _ => None,
            },
            None => None,
        };
        let v = input.unwrap_or(Bson::Null);
        match convert(&v, target, format.as_deref()) {
            Ok(out) => Ok(Some(out)),
            Err(e) if e.code == 241 => match &self.on_error {
                Some(n) => cx.eval(n),
                None => Err(e),
            },
            Err(e) => Err(e),
        }
    }
}

pub(crate) fn c_convert(_: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    let Bson::Document(d) = a else {
        return Err(Error::failed_to_parse(format!(
            "$convert expects an object of named arguments but found: {}",
            type_name(a)
        )));
    };
    let (mut input, mut to, mut on_error, mut on_null, mut format) = (None, None, None, None, None);
    for (k, v) in d {
        match k.as_str() {
            "input" => input = Some(c.operand(v)?),
            "to" => to = Some(c.operand(v)?),
            "onError" => on_error = Some(c.operand(v)?),
            "onNull" => on_null = Some(c.operand(v)?),
            "format" => format = Some(c.operand(v)?),
            "byteOrder" => return Err(Error::not_supported(format!("$convert's '{k}' argument"))),
            _ => {
                return Err(Error::failed_to_parse(format!(
                    "$convert found an unknown argument: {k}"
                )))
            }
        }
    }
    let input =
        input.ok_or_else(|| Error::failed_to_parse("Missing 'input' parameter to $convert"))?;
    let to = to.ok_or_else(|| Error::failed_to_parse("Missing 'to' parameter to $convert"))?;
    Ok(Node::Special(Arc::new(Convert {
        input,
        to,
        format,
        on_error,
        on_null,
    })))
}

/// `$toInt` & co: one argument (a one-element array allowed), code 50723 otherwise.
pub(crate) fn c_to(name: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    let mut args = c.args(a)?;
    if args.len() != 1 {
        return Err(Error::location(
            50723,
            format!("{name} requires a single argument, got {}", args.len()),
        ));
    }
    let to = match name {
        "$toBool" => "bool",
        "$toDate" => "date",
        "$toDecimal" => "decimal",
        "$toDouble" => "double",
        "$toInt" => "int",
        "$toLong" => "long",
        "$toObjectId" => "objectId",
        "$toUUID" => "uuid",
        _ => "string",
    };
    let (to, format) = if to == "uuid" {
        (
            Node::Const(bson::bson!({"type": "binData", "subtype": 4})),
            Some(Node::Const(Bson::String("uuid".into()))),
        )
    } else if to == "string" {
        // binData: "If the BinData is a UUID, returns the UUID as a string.
        // Otherwise, returns the base64 encoded string value." (the $toString
        // page; `$convert` without a format refuses binData).
        (
            Node::Const(Bson::String(to.to_string())),
            Some(Node::Const(Bson::String("auto".into()))),
        )
    } else {
        (Node::Const(Bson::String(to.to_string())), None)
    };
    Ok(Node::Special(Arc::new(Convert {
        input: args.remove(0),
        to,
        format,
        on_error: None,
        on_null: None,
    })))
}
