//! Extended JSON v2 (canonical and relaxed) read into BSON: exactly the values
//! `bson::Bson::try_from(serde_json::Value)` accepts, written out by hand because
//! bson's reader deserialises each wrapper through serde models, which the page's
//! wasm would carry. A test holds the two together on many inputs.
//! <https://www.mongodb.com/docs/manual/reference/mongodb-extended-json/>
//!
//! The shapes bson accepts, mirrored here: a wrapper object has no key besides
//! its own (`$code` may have `$scope`); a body with named fields (`$binary`,
//! `$regularExpression`, `$timestamp`, `$dbPointer`, `$id`) may also be an array
//! of the field values in order (serde's sequence form of a struct).
use bson::oid::ObjectId;
use bson::spec::BinarySubtype;
use bson::{Binary, Bson, DateTime, Decimal128, Document, JavaScriptCodeWithScope, Regex};
use serde_json::{Map, Value};
use std::borrow::Cow;

type Res<T> = std::result::Result<T, String>;

/// Any JSON value: numbers are Int32, Int64 or Double by range, as bson reads them.
pub fn to_bson(v: Value) -> Res<Bson> {
    Ok(match v {
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => i32::try_from(i).map_or(Bson::Int64(i), Bson::Int32),
            (None, Some(f)) => Bson::Double(f),
            _ => return Err(format!("{n} does not fit in i32, i64, or f64")),
        },
        Value::String(s) => Bson::String(s),
        Value::Bool(b) => Bson::Boolean(b),
        Value::Null => Bson::Null,
        Value::Array(items) => Bson::Array(items.into_iter().map(to_bson).collect::<Res<_>>()?),
        Value::Object(map) => map_to_bson(map)?,
    })
}

/// The wrapper keys in the order bson tries them (it matters only for objects
/// holding several, which are all errors but `$code` with `$scope`).
const WRAPPERS: [&str; 16] = [
    "$oid",
    "$symbol",
    "$regularExpression",
    "$numberInt",
    "$numberLong",
    "$numberDouble",
    "$numberDecimal",
    "$binary",
    "$uuid",
    "$code",
    "$timestamp",
    "$date",
    "$minKey",
    "$maxKey",
    "$dbPointer",
    "$undefined",
];

/// Whether an object whose first key is `key` is an Extended JSON v2 wrapper
/// (the shell reader converts those only in Extended JSON mode).
pub(crate) fn is_wrapper_key(key: &str) -> bool {
    key.starts_with('$') && WRAPPERS.contains(&key)
}

fn map_to_bson(obj: Map<String, Value>) -> Res<Bson> {
    let Some(&key) = WRAPPERS.iter().find(|k| obj.contains_key(**k)) else {
        let mut doc = Document::new();
        for (k, v) in obj {
            doc.insert(k, to_bson(v)?);
        }
        return Ok(Bson::Document(doc));
    };
    if key == "$code" {
        return code(obj);
    }
    // Every other wrapper denies unknown fields.
    if obj.len() != 1 {
        return Err(format!("invalid {key}: unexpected field next to it"));
    }
    let body = obj
        .into_iter()
        .next()
        .map(|(_, v)| v)
        .unwrap_or(Value::Null);
    wrapper(key, body).map_err(|why| format!("invalid {key}: {why}"))
}

/// Why a wrapper is invalid (one message is formatted for all, in `map_to_bson`).
type Why = Cow<'static, str>;

fn string(v: Value) -> std::result::Result<String, Why> {
    match v {
        Value::String(s) => Ok(s),
        _ => Err("expected a string".into()),
    }
}

fn wrapper(key: &str, body: Value) -> std::result::Result<Bson, Why> {
    let invalid = |why: &'static str| Why::Borrowed(why);
    Ok(match key {
        "$oid" => Bson::ObjectId(oid(body).map_err(Why::Owned)?),
        "$symbol" => Bson::Symbol(string(body)?),
        "$regularExpression" => {
            let [pattern, options] = fields(body, ["pattern", "options"]).map_err(Why::Owned)?;
            let (pattern, options) = (string(pattern)?, string(options)?);
            let mut chars: Vec<char> = options.chars().collect();
            crate::sorting::sort(&mut chars);
            Bson::RegularExpression(Regex {
                pattern: pattern
                    .try_into()
                    .map_err(|_| invalid("NUL in the pattern"))?,
                options: chars
                    .into_iter()
                    .collect::<String>()
                    .try_into()
                    .map_err(|_| invalid("NUL in the options"))?,
            })
        }
        "$numberInt" => Bson::Int32(string(body)?.parse().map_err(|_| invalid("i32"))?),
        "$numberLong" => Bson::Int64(string(body)?.parse().map_err(|_| invalid("i64"))?),
        "$numberDouble" => Bson::Double(match string(body)?.as_str() {
            "Infinity" => f64::INFINITY,
            "-Infinity" => f64::NEG_INFINITY,
            "NaN" => f64::NAN,
            other => other.parse().map_err(|_| invalid("double"))?,
        }),
        "$numberDecimal" => Bson::Decimal128(
            string(body)?
                .parse::<Decimal128>()
                .map_err(|_| invalid("decimal"))?,
        ),
        "$binary" => {
            use crate::base64::{decode, Alphabet, Padding};
            let [b64, subtype] = fields(body, ["base64", "subType"]).map_err(Why::Owned)?;
            let bytes = decode(
                Alphabet::Standard,
                Padding::Canonical,
                string(b64)?.as_bytes(),
            )
            .map_err(|_| invalid("base64"))?;
            let subtype = string(subtype)?;
            // One byte as two hexadecimal digits (the hex crate's decoding).
            let sub = match subtype.as_bytes() {
                [h, l] => hex_digit(*h).zip(hex_digit(*l)).map(|(h, l)| h << 4 | l),
                _ => None,
            }
            .ok_or(invalid("subType"))?;
            Bson::Binary(Binary {
                subtype: BinarySubtype::from(sub),
                bytes,
            })
        }
        "$uuid" => Bson::Binary(Binary {
            subtype: BinarySubtype::Uuid,
            bytes: uuid(&string(body)?).ok_or(invalid("uuid"))?.to_vec(),
        }),
        "$timestamp" => {
            let [t, i] = fields(body, ["t", "i"]).map_err(Why::Owned)?;
            let u32_of = |v: Value| match v {
                Value::Number(n) => n.as_u64().and_then(|n| u32::try_from(n).ok()),
                _ => None,
            };
            Bson::Timestamp(bson::Timestamp {
                time: u32_of(t).ok_or(invalid("t"))?,
                increment: u32_of(i).ok_or(invalid("i"))?,
            })
        }
        "$date" => Bson::DateTime(date(body).map_err(Why::Owned)?),
        "$minKey" | "$maxKey" => match body {
            Value::Number(n) if n.as_u64() == Some(1) => {
                if key == "$minKey" {
                    Bson::MinKey
                } else {
                    Bson::MaxKey
                }
            }
            _ => return Err(invalid("expected 1")),
        },
        "$dbPointer" => {
            let [ns, id] = fields(body, ["$ref", "$id"]).map_err(Why::Owned)?;
            db_pointer(&string(ns)?, oid_wrapper(id).map_err(Why::Owned)?)
                .ok_or(invalid("namespace"))?
        }
        "$undefined" => match body {
            Value::Bool(true) => Bson::Undefined,
            _ => return Err(invalid("expected true")),
        },
        _ => return Err(invalid("unknown wrapper")),
    })
}

/// `{"$code": …}` with an optional `$scope` (null is no scope).
fn code(mut obj: Map<String, Value>) -> Res<Bson> {
    if obj.keys().any(|k| k != "$code" && k != "$scope") {
        return Err("invalid $code: unexpected field next to it".into());
    }
    let Some(Value::String(code)) = obj.remove("$code") else {
        return Err("invalid $code: expected a string".into());
    };
    match obj.remove("$scope") {
        None | Some(Value::Null) => Ok(Bson::JavaScriptCode(code)),
        Some(Value::Object(scope)) => {
            let mut doc = Document::new();
            for (k, v) in scope {
                doc.insert(k, to_bson(v)?);
            }
            Ok(Bson::JavaScriptCodeWithScope(JavaScriptCodeWithScope {
                code,
                scope: doc,
            }))
        }
        Some(_) => Err("invalid $scope: expected an object".into()),
    }
}

/// A struct body: an object with exactly these fields, or an array of their values.
fn fields<const N: usize>(body: Value, names: [&str; N]) -> Res<[Value; N]> {
    fields_vec(body, &names)?
        .try_into()
        .map_err(|v: Vec<Value>| format!("{} values where {N} were expected", v.len()))
}

/// `fields` without the array type: one copy for every length.
fn fields_vec(body: Value, names: &[&str]) -> Res<Vec<Value>> {
    match body {
        Value::Object(mut m) => {
            if let Some(k) = m.keys().find(|k| !names.contains(&k.as_str())) {
                return Err(format!("unknown field `{k}`"));
            }
            names
                .iter()
                .map(|n| m.remove(*n).ok_or_else(|| format!("missing field `{n}`")))
                .collect()
        }
        Value::Array(items) => Ok(items),
        _ => Err("expected an object".into()),
    }
}

fn oid(body: Value) -> Res<ObjectId> {
    match body {
        Value::String(s) => ObjectId::parse_str(&s).map_err(|e| e.to_string()),
        _ => Err("expected a string".into()),
    }
}

/// `{"$oid": "…"}` (or `["…"]`) as a field of `$dbPointer`.
fn oid_wrapper(v: Value) -> Res<ObjectId> {
    let [hex] = fields(v, ["$oid"])?;
    oid(hex)
}

/// `$date`'s body: `{"$numberLong": "…"}` (or `["…"]`), an RFC 3339 string or
/// an integer (bson tries the three in this order).
fn date(body: Value) -> Res<DateTime> {
    match body {
        Value::String(s) => rfc3339(s.as_bytes())
            .map(DateTime::from_millis)
            .ok_or_else(|| "expected an RFC 3339 date".to_string()),
        Value::Number(n) => n
            .as_i64()
            .map(DateTime::from_millis)
            .ok_or_else(|| "expected an integer".to_string()),
        v @ (Value::Object(_) | Value::Array(_)) => match fields(v, ["$numberLong"]) {
            Ok([Value::String(s)]) => s
                .parse()
                .map(DateTime::from_millis)
                .map_err(|_| "i64".to_string()),
            _ => Err("expected {\"$numberLong\": \"…\"}".into()),
        },
        _ => Err("expected a date".into()),
    }
}

/// The uuid crate's `Uuid::parse_str` (which bson calls): 32 hexadecimal digits,
/// or 8-4-4-4-12 with hyphens, bare, in braces or after `urn:uuid:`.
fn uuid(s: &str) -> Option<[u8; 16]> {
    let b = s.as_bytes();
    let digits: Vec<u8> = match b.len() {
        32 => b.to_vec(),
        36 | 38 | 45 => {
            let h = match b.len() {
                38 => b.strip_prefix(b"{")?.strip_suffix(b"}")?,
                45 => b.strip_prefix(b"urn:uuid:")?,
                _ => b,
            };
            let groups: Vec<&[u8]> = h.split(|&c| c == b'-').collect();
            if groups.iter().map(|g| g.len()).ne([8, 4, 4, 4, 12]) {
                return None;
            }
            groups.concat()
        }
        _ => return None,
    };
    let mut out = [0u8; 16];
    for (o, pair) in out.iter_mut().zip(digits.chunks_exact(2)) {
        *o = match pair {
            [h, l] => hex_digit(*h)? << 4 | hex_digit(*l)?,
            _ => return None,
        };
    }
    Some(out)
}

/// bson's `DateTime::parse_rfc3339_str` (the time crate's RFC 3339 reader, then
/// nanoseconds to milliseconds rounding toward zero): `YYYY-MM-DD`, any one byte,
/// `hh:mm:ss[.fraction]`, then `Z`, `z` or `±hh:mm` (hours to 23); a second 60
/// only as the last second of a month in UTC (a leap second, read as :59.999999999).
pub(crate) fn rfc3339(b: &[u8]) -> Option<i64> {
    let num = |at: usize, n: usize| -> Option<i64> {
        b.get(at..at + n)?.iter().try_fold(0i64, |v, &c| {
            c.is_ascii_digit().then(|| v * 10 + i64::from(c - b'0'))
        })
    };
    let lit = |at: usize, c: u8| b.get(at) == Some(&c);
    let (year, month, day) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    let (hour, minute, mut second) = (num(11, 2)?, num(14, 2)?, num(17, 2)?);
    if !(lit(4, b'-') && lit(7, b'-') && lit(13, b':') && lit(16, b':')) {
        return None;
    }
    let mut at = 19;
    let mut nanos = 0i64;
    if lit(at, b'.') {
        at += 1;
        let digits = b
            .get(at..)?
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if digits == 0 {
            return None;
        }
        for (i, &c) in b.get(at..at + digits)?.iter().take(9).enumerate() {
            nanos += i64::from(c - b'0') * 10i64.pow(8 - u32::try_from(i).ok()?);
        }
        at += digits;
    }
    let offset = match b.get(at..)? {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), rest @ ..] if rest.len() == 5 && rest.get(2) == Some(&b':') => {
            let h = num(at + 1, 2).filter(|h| *h <= 23)?;
            let m = num(at + 4, 2).filter(|m| *m <= 59)?;
            (h * 3600 + m * 60) * if *sign == b'-' { -1 } else { 1 }
        }
        _ => return None,
    };
    let leap = second == 60;
    if leap {
        (second, nanos) = (59, 999_999_999);
    }
    let month_len = |y: i64, m: i64| match m {
        2 if y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    if !(1..=12).contains(&month)
        || !(1..=month_len(year, month)).contains(&day)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    let secs = crate::value::calendar::days_from_civil(year, month, day) * 86_400
        + hour * 3600
        + minute * 60
        + second
        - offset;
    if leap {
        // The UTC instant must be 23:59:59 on the last day of its month.
        let (y, m, d) = crate::value::calendar::civil_from_days(secs.div_euclid(86_400));
        if secs.rem_euclid(86_400) != 86_399 || d != month_len(y, m) {
            return None;
        }
    }
    let total = i128::from(secs) * 1_000_000_000 + i128::from(nanos);
    i64::try_from(total / 1_000_000).ok()
}

fn hex_digit(c: u8) -> Option<u8> {
    (c as char).to_digit(16).and_then(|d| u8::try_from(d).ok())
}

/// bson has no public constructor for a DBPointer: it is read from the BSON
/// bytes of `{"": DBPointer(ns, id)}`.
fn db_pointer(ns: &str, id: ObjectId) -> Option<Bson> {
    let ns_len = i32::try_from(ns.len() + 1).ok()?;
    let mut bytes = Vec::with_capacity(ns.len() + 24);
    bytes.extend_from_slice(&[0; 4]);
    bytes.extend_from_slice(&[0x0C, 0]);
    bytes.extend_from_slice(&ns_len.to_le_bytes());
    bytes.extend_from_slice(ns.as_bytes());
    bytes.push(0);
    bytes.extend_from_slice(&id.bytes());
    bytes.push(0);
    let total = i32::try_from(bytes.len()).ok()?.to_le_bytes();
    bytes.get_mut(0..4)?.copy_from_slice(&total);
    let raw = bson::RawDocument::from_bytes(&bytes).ok()?;
    let value = raw.get("").ok()??;
    Bson::try_from(value).ok()
}

#[cfg(all(test, not(target_arch = "wasm32")))]
pub(crate) mod tests;
