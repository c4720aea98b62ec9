//! Small helpers over evaluated values: missing/null, truthiness, type names,
//! integer arguments.
use crate::error::{Error, Result};
use crate::text::shell::type_name;
use crate::value::numeric::{decode_decimal, Dec};
use bson::Bson;

/// An evaluated value: `None` is "missing".
pub(crate) type Value = Option<Bson>;

/// Missing, null or undefined (MongoDB's `nullish`).
pub(crate) fn nullish(v: &Value) -> bool {
    matches!(v, None | Some(Bson::Null) | Some(Bson::Undefined))
}

/// MongoDB's `coerceToBool`: false for missing, null, undefined, false and numeric zero.
pub fn truthy(v: Option<&Bson>) -> bool {
    match v {
        None | Some(Bson::Null) | Some(Bson::Undefined) => false,
        Some(Bson::Boolean(b)) => *b,
        Some(Bson::Int32(i)) => *i != 0,
        Some(Bson::Int64(i)) => *i != 0,
        Some(Bson::Double(d)) => *d != 0.0,
        Some(Bson::Decimal128(d)) => {
            !matches!(decode_decimal(d), Dec::Finite(ref b) if b == &bigdecimal::BigDecimal::from(0))
        }
        Some(_) => true,
    }
}

pub(crate) fn truthy_v(v: &Value) -> bool {
    truthy(v.as_ref())
}

/// `$type`'s name, with "missing" for a missing value.
pub(crate) fn tname(v: &Value) -> &'static str {
    match v {
        None => "missing",
        Some(b) => type_name(b),
    }
}

/// Is the value integral (MongoDB's `Value::integral`: representable as an int32)?
pub(crate) fn as_i32_exact(v: &Bson) -> Option<i32> {
    crate::value::numeric::to_i64_exact(v).and_then(|i| i32::try_from(i).ok())
}

/// MongoDB prints doubles in messages as the shell does (`2.5`, `3`).
pub(crate) fn num_str(v: &Bson) -> String {
    match v {
        Bson::Double(d) => crate::text::shell::js_number(*d),
        Bson::Int32(i) => i.to_string(),
        Bson::Int64(i) => i.to_string(),
        Bson::Decimal128(d) => d.to_string(),
        other => crate::text::shell::inline(other),
    }
}

/// A value as it appears in MongoDB error messages.
pub(crate) fn show(v: &Value) -> String {
    match v {
        None => "missing".to_string(),
        Some(Bson::String(s)) => format!("\"{s}\""),
        Some(b) => crate::text::shell::inline(b),
    }
}

pub(crate) fn err(code: i32, msg: impl Into<String>) -> Error {
    Error::location(code, msg)
}

/// Shorthand used by operators: fail with a numbered assertion unless `ok`.
pub(crate) fn ensure(ok: bool, code: i32, msg: impl FnOnce() -> String) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::location(code, msg()))
    }
}
