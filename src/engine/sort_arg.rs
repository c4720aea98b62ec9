//! The sort argument of `cursor.sort()` and of the `sort` option, as
//! mongosh's Node driver accepts it before the server sees it: besides
//! `{a: 1, b: -1}`, the directions "asc"/"ascending"/"desc"/"descending"
//! (and "1"/"-1"), a field name alone (`sort("a")`), and `[field, direction]`
//! pairs (`sort([["a", -1], ["b", 1]])`). The driver's `formatSort`
//! (src/sort.ts) turns them into numbers; `$sort` in a pipeline gets none
//! of this (the server reads it), so only the cursor and options use it.
use crate::error::{Error, Result};
use bson::{Bson, Document};

/// The normalized sort document; `None` for null/undefined (no sort).
pub(crate) fn sort_arg(v: &Bson) -> Result<Option<Document>> {
    Ok(Some(match v {
        Bson::Null | Bson::Undefined => return Ok(None),
        Bson::String(field) => {
            let mut d = Document::new();
            d.insert(field.clone(), 1);
            d
        }
        Bson::Document(d) => {
            let mut out = Document::new();
            for (k, dir) in d {
                out.insert(k.clone(), direction(dir)?);
            }
            out
        }
        Bson::Array(items) => pairs(items)?,
        other => {
            return Err(Error::type_mismatch(format!(
            "sort must be an object, a field name or an array of [field, direction] pairs, got {}",
            crate::text::shell::type_name(other)
        )))
        }
    }))
}

/// `["a", -1]` (one pair), `[["a", -1], ["b", 1]]` or `["a", "b"]`.
fn pairs(items: &[Bson]) -> Result<Document> {
    let mut out = Document::new();
    if let [Bson::String(field), dir] = items {
        if !matches!(dir, Bson::String(s) if !is_direction(s)) {
            out.insert(field.clone(), direction(dir)?);
            return Ok(out);
        }
    }
    for item in items {
        match item {
            Bson::String(field) => {
                out.insert(field.clone(), 1);
            }
            Bson::Array(pair) => match pair.as_slice() {
                [Bson::String(field), dir] => {
                    out.insert(field.clone(), direction(dir)?);
                }
                _ => return Err(invalid(item)),
            },
            _ => return Err(invalid(item)),
        }
    }
    Ok(out)
}

fn is_direction(s: &str) -> bool {
    matches!(
        s.to_ascii_lowercase().as_str(),
        "1" | "-1" | "asc" | "ascending" | "desc" | "descending"
    )
}

/// A direction as the driver's `prepareDirection` reads it: 1/-1 (as
/// numbers or strings), "asc"/"ascending"/"desc"/"descending" in any case,
/// or `{$meta: ...}` (passed on: the server decides). Anything else is the
/// driver's error, before the server sees it.
fn direction(dir: &Bson) -> Result<Bson> {
    use crate::value::numeric::{is_number, to_f64};
    match dir {
        Bson::Document(d) if d.contains_key("$meta") => Ok(dir.clone()),
        Bson::String(s) => match s.to_ascii_lowercase().as_str() {
            "1" | "asc" | "ascending" => Ok(Bson::Int32(1)),
            "-1" | "desc" | "descending" => Ok(Bson::Int32(-1)),
            _ => Err(invalid(dir)),
        },
        v if is_number(v) && to_f64(v) == Some(1.0) => Ok(Bson::Int32(1)),
        v if is_number(v) && to_f64(v) == Some(-1.0) => Ok(Bson::Int32(-1)),
        _ => Err(invalid(dir)),
    }
}

/// mongosh reports this as a MongoInvalidArgumentError (the driver's, with
/// no server code); BadValue is the nearest server code.
fn invalid(v: &Bson) -> Error {
    let shown = match v {
        Bson::String(s) => format!("\"{s}\""),
        other => crate::text::shell::inline(other),
    };
    Error::bad_value(format!("Invalid sort direction: {shown}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::{bson, doc};

    fn norm(v: Bson) -> Option<Document> {
        sort_arg(&v).unwrap_or_else(|e| panic!("{v}: {e:?}"))
    }

    #[test]
    fn driver_forms() {
        assert_eq!(
            norm(bson!({"a": "desc", "b": "ASC"})),
            Some(doc! {"a": -1, "b": 1})
        );
        assert_eq!(
            norm(bson!({"a": "descending", "b": "1"})),
            Some(doc! {"a": -1, "b": 1})
        );
        assert_eq!(norm(bson!("a")), Some(doc! {"a": 1}));
        assert_eq!(norm(bson!(["a", -1])), Some(doc! {"a": -1}));
        assert_eq!(norm(bson!(["a", "desc"])), Some(doc! {"a": -1}));
        assert_eq!(
            norm(bson!([["a", -1], ["b", "asc"]])),
            Some(doc! {"a": -1, "b": 1})
        );
        assert_eq!(norm(bson!(["a", "b"])), Some(doc! {"a": 1, "b": 1}));
        assert_eq!(
            norm(bson!({"a": 1.0, "b": -1_i64, "s": {"$meta": "textScore"}})),
            Some(doc! {"a": 1, "b": -1, "s": {"$meta": "textScore"}})
        );
        assert!(sort_arg(&bson!({"a": 2})).is_err());
        assert!(sort_arg(&bson!({"a": true})).is_err());
        assert!(sort_arg(&bson!({"a": {"x": 1}})).is_err());
        assert_eq!(norm(Bson::Null), None);
        assert!(sort_arg(&bson!({"a": "up"})).is_err());
        assert!(sort_arg(&bson!([1])).is_err());
        assert!(sort_arg(&bson!(5)).is_err());
    }
}
