//! `$linearFill` (and `$fill` with method "linear"): the server's checks on
//! each document and the interpolation between two known points
//! (window_function_exec_linear_fill.cpp).
use crate::error::{Error, Result};
use crate::value::numeric::{is_number, to_f64};
use bson::Bson;

/// The server's checks on each document `$linearFill` reads, in its order
/// (window_function_exec_linear_fill.cpp): the value numeric or nullish,
/// the sortBy value numeric or a date, never repeated, never switching
/// between numbers and dates.
pub fn check_linear_fill(
    value: Option<&Bson>,
    key: &Option<Bson>,
    prev: Option<&Option<Bson>>,
) -> Result<()> {
    let type_of = |v: Option<&Bson>| v.map_or("missing", crate::text::shell::type_name);
    if let Some(v) = value.filter(|v| !matches!(v, Bson::Null | Bson::Undefined) && !is_number(v)) {
        return Err(Error::type_mismatch(format!(
            "Value to be filled must be numeric or nullish, but found {}",
            type_of(Some(v))
        )));
    }
    let datelike = |k: &Bson| {
        matches!(
            k,
            Bson::DateTime(_) | Bson::Timestamp(_) | Bson::ObjectId(_)
        )
    };
    let key_ok = key.as_ref().is_some_and(|k| is_number(k) || datelike(k));
    if !key_ok {
        return Err(Error::type_mismatch(format!(
            "Value of the sortBy field must be numeric or a date, but found {}",
            type_of(key.as_ref())
        )));
    }
    if let (Some(Some(p)), Some(k)) = (prev, key) {
        if crate::value::equal(p, k) {
            return Err(Error::location(
                6050106,
                "There can be no repeated values in the sort field in the same partition",
            ));
        }
        if is_number(p) != is_number(k) {
            return Err(Error::type_mismatch(format!(
                "Conflicting sort value types, previously received type {}, but found {}",
                type_of(Some(p)),
                type_of(Some(k))
            )));
        }
    }
    Ok(())
}

/// A sortBy value as a number (dates as milliseconds).
fn key_num(k: &Option<Bson>) -> Option<f64> {
    match k {
        Some(Bson::DateTime(d)) => Some(d.timestamp_millis() as f64),
        Some(v) => to_f64(v),
        None => None,
    }
}

pub fn interpolate(
    kp: &Option<Bson>,
    ki: &Option<Bson>,
    kq: &Option<Bson>,
    vp: Option<&Bson>,
    vq: Option<&Bson>,
) -> Result<Bson> {
    // The types were checked for every document (`check_linear_fill`).
    let (Some(xp), Some(xi), Some(xq)) = (key_num(kp), key_num(ki), key_num(kq)) else {
        return Ok(Bson::Null);
    };
    let (Some(yp), Some(yq)) = (vp.and_then(to_f64), vq.and_then(to_f64)) else {
        return Ok(Bson::Null);
    };
    if xq == xp {
        return Ok(Bson::Double(yp));
    }
    Ok(Bson::Double(yp + (yq - yp) * (xi - xp) / (xq - xp)))
}
