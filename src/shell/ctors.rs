//! mongosh's BSON constructors and the few methods on their results that
//! scripts use as values (`new Date().getTime()`, `Date.now()`).
//! Semantics follow mongosh's shell-api wrappers over the JS BSON library:
//! https://www.mongodb.com/docs/mongodb-shell/reference/data-types/
use super::ast::{Node, NodeKind};
use super::ctors_binary::{
    binary_subtype, bindata, hex_bytes, hexdata, node_base64, node_hex, uuid,
};
use super::dates;
use super::lower::{lower, LowerCtx};
use super::number::{
    js_number_to_string, js_parse_int, js_string_to_number, to_int32, typed_number,
};
use super::regex;
use crate::error::{Error, Result};
use bson::oid::ObjectId;
use bson::spec::BinarySubtype;
use bson::{Binary, Bson, Decimal128, Document};

const CONSTRUCTORS: &[&str] = &[
    "ObjectId",
    "ISODate",
    "Date",
    "NumberInt",
    "Int32",
    "NumberLong",
    "Long",
    "Double",
    "NumberDecimal",
    "Decimal128",
    "Timestamp",
    "BinData",
    "HexData",
    "UUID",
    "MinKey",
    "MaxKey",
    "RegExp",
    "BSONRegExp",
    "Code",
    "DBRef",
    "Number",
    "MD5",
];

/// mongosh's own global functions and objects: named when used, never run.
const SHELL_GLOBALS: &[&str] = &[
    "print",
    "printjson",
    "sleep",
    "load",
    "quit",
    "exit",
    "console",
    "require",
    "cat",
    "version",
];

pub(super) fn is_shell_global(name: &str) -> bool {
    SHELL_GLOBALS.contains(&name)
}

pub(super) fn is_constructor(name: &str) -> bool {
    CONSTRUCTORS.contains(&name)
}

/// `callee(args)` or `new callee(args)` used as a value.
pub(super) fn call(callee: &Node, args: &[Node], is_new: bool, ctx: &LowerCtx) -> Result<Bson> {
    match &callee.kind {
        NodeKind::Ident(name) if !ctx.vars.contains_key(name) => {
            let vals = lower_args(args, ctx)?;
            construct(name, &vals, is_new, ctx)
        }
        NodeKind::Ident(name) => Err(Error::type_mismatch(format!(
            "TypeError: {name} is not a function"
        ))),
        NodeKind::Member {
            object, property, ..
        } => {
            if let NodeKind::Ident(ns) = &object.kind {
                if !ctx.vars.contains_key(ns)
                    && matches!(ns.as_str(), "Date" | "ObjectId" | "Binary")
                {
                    let vals = lower_args(args, ctx)?;
                    return static_fn(ns, property, &vals, ctx);
                }
            }
            let target = lower(object, ctx)?;
            let vals = lower_args(args, ctx)?;
            method(&target, property, &vals, ctx)
        }
        _ => Err(Error::type_mismatch(
            "TypeError: this expression is not a function",
        )),
    }
}

fn lower_args(args: &[Node], ctx: &LowerCtx) -> Result<Vec<Bson>> {
    args.iter().map(|a| lower(a, ctx)).collect()
}

fn construct(name: &str, vals: &[Bson], is_new: bool, ctx: &LowerCtx) -> Result<Bson> {
    match name {
        "ObjectId" => object_id(vals.first(), ctx),
        "ISODate" => isodate(vals.first(), ctx),
        "Date" if is_new => new_date(vals, ctx),
        // `Date()` without `new` ignores its arguments and returns a string.
        "Date" => Ok(Bson::String(crate::value::calendar::js_date_string(
            ctx.now.timestamp_millis(),
            ctx.tz,
        ))),
        "NumberInt" => number_int(vals.first(), true),
        "Int32" => number_int(vals.first(), false),
        "NumberLong" | "Long" => number_long(vals),
        "Double" => Ok(Bson::Double(vals.first().map_or(0.0, to_number))),
        "Number" => Ok(typed_number(vals.first().map_or(0.0, to_number))),
        "NumberDecimal" | "Decimal128" => decimal(vals.first()),
        "Timestamp" => timestamp(vals),
        "BinData" => bindata(vals),
        "HexData" => hexdata(vals),
        "UUID" => uuid(vals.first(), ctx),
        "MinKey" => Ok(Bson::MinKey),
        "MaxKey" => Ok(Bson::MaxKey),
        "RegExp" => regex::regexp(vals),
        "BSONRegExp" => regex::bson_regexp(vals),
        "Code" => code(vals),
        "MD5" => match vals.first() {
            Some(Bson::String(h)) => hex_bytes(h)
                .filter(|b| b.len() == 16)
                .map(|bytes| {
                    Bson::Binary(Binary {
                        subtype: BinarySubtype::Md5,
                        bytes,
                    })
                })
                .ok_or_else(|| Error::bad_value("MD5: the hash must be 32 hex digits")),
            _ => Err(Error::bad_value("MD5: the hash must be a hex string")),
        },
        "DBRef" => dbref(vals),
        // print(), sleep(), load(), printjson()...: shell functions the playground does not run.
        _ => Err(Error::not_supported(format!("the function {name}()"))),
    }
}

fn static_fn(ns: &str, name: &str, vals: &[Bson], ctx: &LowerCtx) -> Result<Bson> {
    match (ns, name) {
        // A JavaScript number of milliseconds.
        ("Date", "now") => Ok(typed_number(ctx.now.timestamp_millis() as f64)),
        ("ObjectId", "createFromHexString") => match vals.first() {
            Some(Bson::String(s)) => parse_oid(s),
            _ => Err(oid_error()),
        },
        ("ObjectId", "createFromTime") => {
            let secs = vals.first().map_or(f64::NAN, to_number);
            let secs = u32_arg(secs).ok_or_else(|| {
                Error::bad_value("ObjectId.createFromTime expects seconds as a 32-bit number")
            })?;
            let mut bytes = [0u8; 12];
            bytes[..4].copy_from_slice(&secs.to_be_bytes());
            Ok(Bson::ObjectId(ObjectId::from_bytes(bytes)))
        }
        // mongosh 2.x prints binary data this way; the subtype defaults to 0.
        ("Binary", "createFromBase64") => match vals.first() {
            Some(Bson::String(b64)) => Ok(Bson::Binary(Binary {
                subtype: binary_subtype(vals.get(1))?,
                bytes: node_base64(b64),
            })),
            _ => Err(Error::bad_value(
                "Binary.createFromBase64: the data must be a base64 string",
            )),
        },
        ("Binary", "createFromHexString") => match vals.first() {
            Some(Bson::String(h)) => Ok(Bson::Binary(Binary {
                subtype: binary_subtype(vals.get(1))?,
                bytes: node_hex(h),
            })),
            _ => Err(Error::bad_value(
                "Binary.createFromHexString: the data must be a hex string",
            )),
        },
        _ => Err(Error::not_supported(format!("{ns}.{name}()"))),
    }
}

/// The optional subtype of `Binary.createFrom…` (0 when absent).
/// `Code(code)` and `Code(code, scope)`.
fn code(vals: &[Bson]) -> Result<Bson> {
    let Some(Bson::String(code)) = vals.first() else {
        return Err(Error::bad_value("Code() expects a string"));
    };
    match vals.get(1) {
        None | Some(Bson::Null | Bson::Undefined) => Ok(Bson::JavaScriptCode(code.clone())),
        Some(Bson::Document(scope)) => Ok(Bson::JavaScriptCodeWithScope(
            bson::JavaScriptCodeWithScope {
                code: code.clone(),
                scope: scope.clone(),
            },
        )),
        Some(_) => Err(Error::bad_value("Code(): the scope must be an object")),
    }
}

/// Methods on constructed values that yield plain values.
fn method(target: &Bson, name: &str, _args: &[Bson], ctx: &LowerCtx) -> Result<Bson> {
    match (target, name) {
        (Bson::DateTime(d), "getTime" | "valueOf") => Ok(typed_number(d.timestamp_millis() as f64)),
        (Bson::DateTime(d), "toISOString" | "toJSON") => {
            crate::value::calendar::iso_string(d.timestamp_millis())
                .map(Bson::String)
                .ok_or_else(|| Error::bad_value("RangeError: Invalid time value"))
        }
        (Bson::DateTime(d), "toString") => Ok(Bson::String(
            crate::value::calendar::js_date_string(d.timestamp_millis(), ctx.tz),
        )),
        (Bson::ObjectId(id), "toString" | "toHexString") => Ok(Bson::String(id.to_hex())),
        (Bson::ObjectId(id), "getTimestamp") => Ok(Bson::DateTime(id.timestamp())),
        (Bson::String(s), "toString" | "valueOf") => Ok(Bson::String(s.clone())),
        _ => Err(Error::not_supported(format!(
            "calling .{name}() on a {:?} value",
            target.element_type()
        ))),
    }
}

/// `value.name` on a variable's value; a missing field is `undefined` (null).
pub(super) fn property(target: &Bson, name: &str) -> Result<Bson> {
    match (target, name) {
        (Bson::Document(d), _) => Ok(d.get(name).cloned().unwrap_or(Bson::Null)),
        (Bson::Array(a), "length") => Ok(typed_number(a.len() as f64)),
        (Bson::String(s), "length") => Ok(typed_number(s.encode_utf16().count() as f64)),
        (Bson::ObjectId(id), "str") => Ok(Bson::String(id.to_hex())),
        _ => Err(Error::not_supported(format!(
            "reading .{name} of a {:?} value",
            target.element_type()
        ))),
    }
}

/// JavaScript ToNumber on a lowered value (NaN when it has no number).
pub(super) fn to_number(v: &Bson) -> f64 {
    match v {
        Bson::Int32(i) => f64::from(*i),
        Bson::Int64(i) => *i as f64,
        Bson::Double(d) => *d,
        Bson::String(s) => js_string_to_number(s),
        Bson::Boolean(b) => f64::from(u8::from(*b)),
        Bson::Null => 0.0,
        Bson::DateTime(d) => d.timestamp_millis() as f64,
        _ => f64::NAN,
    }
}

/// JavaScript ToString for the argument types mongosh's wrappers accept.
fn to_js_string(v: &Bson) -> Option<String> {
    match v {
        Bson::String(s) => Some(s.clone()),
        Bson::Int32(i) => Some(i.to_string()),
        Bson::Int64(i) => Some(i.to_string()),
        Bson::Double(d) => Some(js_number_to_string(*d)),
        _ => None,
    }
}

fn u32_arg(f: f64) -> Option<u32> {
    (f.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&f)).then_some(f as u32)
}

fn oid_error() -> Error {
    Error::bad_value(
        "BSONError: input must be a 24 character hex string, 12 byte Uint8Array, or an integer",
    )
}

pub(super) fn parse_oid(s: &str) -> Result<Bson> {
    if s.len() != 24 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(oid_error());
    }
    ObjectId::parse_str(s)
        .map(Bson::ObjectId)
        .map_err(|_| oid_error())
}

fn object_id(arg: Option<&Bson>, ctx: &LowerCtx) -> Result<Bson> {
    match arg {
        None | Some(Bson::Null) => Ok(Bson::ObjectId(ctx.new_id.new_id())),
        Some(Bson::String(s)) => parse_oid(s),
        Some(Bson::ObjectId(id)) => Ok(Bson::ObjectId(*id)),
        // An integer is the timestamp of a freshly generated id.
        Some(v @ (Bson::Int32(_) | Bson::Double(_) | Bson::Int64(_))) => {
            let secs = u32_arg(to_number(v)).ok_or_else(oid_error)?;
            let mut bytes = ctx.new_id.new_id().bytes();
            bytes[..4].copy_from_slice(&secs.to_be_bytes());
            Ok(Bson::ObjectId(ObjectId::from_bytes(bytes)))
        }
        Some(_) => Err(oid_error()),
    }
}

fn isodate(arg: Option<&Bson>, ctx: &LowerCtx) -> Result<Bson> {
    match arg {
        None | Some(Bson::Null) => Ok(Bson::DateTime(ctx.now)),
        Some(Bson::String(s)) if s.is_empty() => Ok(Bson::DateTime(ctx.now)),
        Some(Bson::String(s)) => dates::parse_isodate(s)
            .map(|ms| Bson::DateTime(bson::DateTime::from_millis(ms)))
            .ok_or_else(|| {
                let mut quoted = String::new();
                crate::text::ejson::write_str(&mut quoted, s);
                Error::bad_value(format!("{quoted} is not a valid ISODate"))
            }),
        Some(other) => Err(Error::bad_value(format!("{other} is not a valid ISODate"))),
    }
}

fn invalid_date(what: &str) -> Error {
    Error::bad_value(format!("Invalid Date: {what}"))
}

/// `new Date(...)`: now, a time value, a date string, another date, or
/// components `(year, monthIndex[, day, hours, minutes, seconds, ms])` in the
/// run's time zone (UTC unless the run says otherwise).
fn new_date(vals: &[Bson], ctx: &LowerCtx) -> Result<Bson> {
    let ms = match vals {
        [] => return Ok(Bson::DateTime(ctx.now)),
        [Bson::DateTime(d)] => return Ok(Bson::DateTime(*d)),
        [Bson::String(s)] => dates::parse_js_date(s, ctx.tz)
            .ok_or_else(|| invalid_date(&format!("cannot read the date string {s:?}")))?,
        [v] => dates::time_clip(to_number(v))
            .ok_or_else(|| invalid_date("the time value is out of range"))?,
        _ => {
            let mut parts = [0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0];
            for (slot, v) in parts.iter_mut().zip(vals) {
                *slot = to_number(v);
            }
            let y = parts[0].trunc();
            if (0.0..=99.0).contains(&y) {
                parts[0] = 1900.0 + y;
            }
            let local = dates::make_date(parts)
                .ok_or_else(|| invalid_date("the date components are out of range"))?;
            dates::time_clip(dates::local_to_utc(local as f64, ctx.tz))
                .ok_or_else(|| invalid_date("the date components are out of range"))?
        }
    };
    Ok(Bson::DateTime(bson::DateTime::from_millis(ms)))
}

/// `NumberInt(v)` is `new Int32(parseInt(String(v), 10))` in mongosh; the
/// `Int32(v)` class itself computes `+v | 0`.
fn number_int(arg: Option<&Bson>, parse_int: bool) -> Result<Bson> {
    let Some(v) = arg else {
        return Ok(Bson::Int32(0));
    };
    if let Bson::Int32(i) = v {
        return Ok(Bson::Int32(*i));
    }
    let f = if parse_int {
        let s = to_js_string(v)
            .ok_or_else(|| Error::bad_value("NumberInt: argument must be a string or a number"))?;
        js_parse_int(&s)
    } else {
        to_number(v)
    };
    Ok(Bson::Int32(to_int32(f)))
}

/// `NumberLong("123")`, `NumberLong(123)`, `Long(low, high)`.
fn number_long(vals: &[Bson]) -> Result<Bson> {
    let bad =
        |what: &str| Error::bad_value(format!("NumberLong: {what} is not a valid 64-bit integer"));
    match vals {
        [] => Ok(Bson::Int64(0)),
        [Bson::Int64(i)] => Ok(Bson::Int64(*i)),
        [Bson::String(s)] => {
            let t = s.strip_prefix('+').unwrap_or(s);
            let digits = t.strip_prefix('-').unwrap_or(t);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad(&format!("{s:?}")));
            }
            t.parse::<i64>()
                .map(Bson::Int64)
                .map_err(|_| bad(&format!("{s:?}")))
        }
        [v @ (Bson::Int32(_) | Bson::Double(_))] => {
            let f = to_number(v).trunc();
            if (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&f) {
                Ok(Bson::Int64(f as i64))
            } else {
                Err(bad(&js_number_to_string(to_number(v))))
            }
        }
        // The JS BSON library's `new Long(low, high)`: two 32-bit halves.
        [low, high] => {
            let (lo, hi) = (to_int32(to_number(low)), to_int32(to_number(high)));
            Ok(Bson::Int64((i64::from(hi) << 32) | i64::from(lo as u32)))
        }
        _ => Err(Error::bad_value(
            "NumberLong: expected a string or a number",
        )),
    }
}

fn decimal(arg: Option<&Bson>) -> Result<Bson> {
    let s = match arg {
        None => "0".to_string(),
        Some(Bson::Decimal128(d)) => return Ok(Bson::Decimal128(*d)),
        Some(v) => to_js_string(v)
            .ok_or_else(|| Error::bad_value("NumberDecimal: expected a string or a number"))?,
    };
    s.parse::<Decimal128>()
        .map(Bson::Decimal128)
        .map_err(|_| Error::bad_value(format!("BSONError: {s:?} is not a valid Decimal128 string")))
}

/// `Timestamp(t, i)` and `Timestamp({t, i})`: seconds and increment, both 32-bit unsigned.
fn timestamp(vals: &[Bson]) -> Result<Bson> {
    let (t, i) = match vals {
        [Bson::Document(d)] => (
            d.get("t").map_or(f64::NAN, to_number),
            d.get("i").map_or(f64::NAN, to_number),
        ),
        [Bson::Int64(l)] => ((*l as u64 >> 32) as f64, (*l as u64 & 0xffff_ffff) as f64),
        [Bson::Timestamp(ts)] => return Ok(Bson::Timestamp(*ts)),
        _ => (
            vals.first().map_or(0.0, to_number),
            vals.get(1).map_or(0.0, to_number),
        ),
    };
    match (u32_arg(t), u32_arg(i)) {
        (Some(time), Some(increment)) => Ok(Bson::Timestamp(bson::Timestamp { time, increment })),
        _ => Err(Error::bad_value(
            "Timestamp: t and i must be integers in the 32-bit unsigned range",
        )),
    }
}

/// `DBRef(collection, id[, db])` is stored as `{ $ref, $id[, $db] }`.
fn dbref(vals: &[Bson]) -> Result<Bson> {
    let (Some(Bson::String(coll)), Some(id)) = (vals.first(), vals.get(1)) else {
        return Err(Error::bad_value(
            "DBRef: expected a collection name and an id",
        ));
    };
    let mut d = Document::new();
    d.insert("$ref", coll.clone());
    d.insert("$id", id.clone());
    match vals.get(2) {
        Some(Bson::String(db)) => {
            d.insert("$db", db.clone());
        }
        None | Some(Bson::Null) => {}
        Some(_) => {
            return Err(Error::bad_value(
                "DBRef: the database name must be a string",
            ))
        }
    }
    Ok(Bson::Document(d))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::parser::parse_expression;
    use crate::shell::regex::regex_value;
    use std::collections::HashMap;

    fn id() -> ObjectId {
        ObjectId::from_bytes([1; 12])
    }
    fn val(src: &str) -> Result<Bson> {
        let vars = HashMap::new();
        let ctx = LowerCtx {
            vars: &vars,
            now: bson::DateTime::from_millis(1_698_335_223_434),
            extjson: false,
            new_id: &id,
            tz: None,
        };
        lower(&parse_expression(src)?, &ctx)
    }
    fn ok(src: &str) -> Bson {
        val(src).unwrap_or_else(|e| panic!("{src}: {e}"))
    }

    #[test]
    fn constructors() {
        let d = |ms| Bson::DateTime(bson::DateTime::from_millis(ms));
        assert_eq!(ok("ObjectId()"), Bson::ObjectId(id()));
        assert_eq!(ok("new ObjectId"), Bson::ObjectId(id()));
        assert_eq!(
            ok("ObjectId('5a934e000102030405000000')").to_string(),
            "ObjectId(\"5a934e000102030405000000\")"
        );
        assert!(val("ObjectId('5a934e00010203040500000')").is_err());
        assert_eq!(
            ok("ISODate('2023-10-26T15:47:03.434Z')"),
            d(1_698_335_223_434)
        );
        assert_eq!(ok("ISODate()"), d(1_698_335_223_434));
        assert_eq!(ok("new Date()"), d(1_698_335_223_434));
        assert_eq!(ok("new Date(0)"), d(0));
        assert_eq!(
            ok("new Date(2023, 9, 26, 15, 47, 3, 434)"),
            d(1_698_335_223_434)
        );
        assert_eq!(ok("new Date('2023-10-26')"), d(1_698_278_400_000));
        assert!(matches!(ok("Date()"), Bson::String(s) if s.starts_with("Thu Oct 26 2023")));
        assert_eq!(ok("Date.now()"), Bson::Double(1_698_335_223_434.0));
        assert_eq!(ok("new Date(0).getTime()"), Bson::Int32(0));
        assert_eq!(ok("NumberInt('42')"), Bson::Int32(42));
        assert_eq!(ok("NumberInt(3.9)"), Bson::Int32(3));
        assert_eq!(ok("Int32(7)"), Bson::Int32(7));
        assert_eq!(
            ok("NumberLong('9007199254740993')"),
            Bson::Int64(9_007_199_254_740_993)
        );
        assert_eq!(ok("Long(5)"), Bson::Int64(5));
        assert_eq!(ok("NumberLong(-5)"), Bson::Int64(-5));
        assert_eq!(ok("Double(1)"), Bson::Double(1.0));
        assert_eq!(ok("NumberDecimal('1.50')").to_string(), "1.50");
        assert_eq!(ok("Decimal128(2)").to_string(), "2");
        assert_eq!(
            ok("Timestamp(1, 2)"),
            Bson::Timestamp(bson::Timestamp {
                time: 1,
                increment: 2
            })
        );
        assert_eq!(
            ok("Timestamp({t: 3, i: 4})"),
            Bson::Timestamp(bson::Timestamp {
                time: 3,
                increment: 4
            })
        );
        assert_eq!(
            ok("BinData(0, 'AQID')"),
            Bson::Binary(Binary {
                subtype: BinarySubtype::Generic,
                bytes: vec![1, 2, 3]
            })
        );
        let Bson::Binary(u) = ok("UUID('3b241101-e2bb-4255-8caf-4136c566a962')") else {
            panic!()
        };
        assert_eq!(
            (u.subtype, u.bytes.len(), u.bytes[0]),
            (BinarySubtype::Uuid, 16, 0x3b)
        );
        assert_eq!(ok("MinKey"), Bson::MinKey);
        assert_eq!(ok("MaxKey()"), Bson::MaxKey);
        assert_eq!(
            ok("new RegExp('^a', 'mi')"),
            regex_value("^a", "im").expect("regex")
        );
        assert!(val("ISODate('2023-13-01')").is_err());
        assert!(val("NumberLong('abc')").is_err());
        assert!(val("Timestamp(-1, 0)").is_err());
        assert!(val("Frobnicate(1)").is_err());
    }
}
