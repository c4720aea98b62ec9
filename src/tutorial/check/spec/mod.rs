//! Reading a check's JSON into its shapes by hand (what serde's derive did, as
//! `deny_unknown_fields` structs, without its generated code in the page's wasm).
use super::{malformed, CheckSpec, CollectionSpec, ErrorCheck, WhereSpec};
use crate::error::Result;
use serde_json::{Map, Value};

/// An object whose fields are taken by name; any left over is unknown.
struct Obj(Map<String, Value>);

impl Obj {
    fn new(v: Value, what: &str) -> Result<Obj> {
        match v {
            Value::Object(m) => Ok(Obj(m)),
            _ => Err(malformed(format!("{what}: expected an object"))),
        }
    }

    /// A field that may be absent or null.
    fn opt(&mut self, k: &str) -> Option<Value> {
        self.0.remove(k).filter(|v| !v.is_null())
    }

    fn done(self, what: &str) -> Result<()> {
        match self.0.keys().next() {
            Some(k) => Err(malformed(format!("{what}: unknown field `{k}`"))),
            None => Ok(()),
        }
    }
}

fn usize_of(v: Option<Value>, k: &str) -> Result<Option<usize>> {
    v.map(|v| {
        v.as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| malformed(format!("{k}: expected a count")))
    })
    .transpose()
}

fn string_of(v: Option<Value>, k: &str) -> Result<Option<String>> {
    v.map(|v| match v {
        Value::String(s) => Ok(s),
        _ => Err(malformed(format!("{k}: expected a string"))),
    })
    .transpose()
}

fn array_of(v: Option<Value>, k: &str) -> Result<Option<Vec<Value>>> {
    v.map(|v| match v {
        Value::Array(a) => Ok(a),
        _ => Err(malformed(format!("{k}: expected an array"))),
    })
    .transpose()
}

/// A list of `where` conditions: absent is none, null is an error.
fn wheres(o: &mut Obj, k: &str) -> Result<Vec<WhereSpec>> {
    match o.0.remove(k) {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items.into_iter().map(where_spec).collect(),
        Some(_) => Err(malformed(format!("{k}: expected an array"))),
    }
}

pub(super) fn check(v: Value) -> Result<CheckSpec> {
    let mut o = Obj::new(v, "check")?;
    let spec = CheckSpec {
        // Present (even null) means expected.
        result: o.0.remove("result"),
        results: array_of(o.opt("results"), "results")?,
        result_count: usize_of(o.opt("resultCount"), "resultCount")?,
        result_where: wheres(&mut o, "resultWhere")?,
        result_every: wheres(&mut o, "resultEvery")?,
        result_ids: array_of(o.opt("resultIds"), "resultIds")?,
        collections: match o.0.remove("collections") {
            None => Map::new(),
            Some(Value::Object(m)) => m,
            Some(_) => return Err(malformed("collections: expected an object".to_string())),
        },
        error: o.opt("error").map(error_check).transpose()?,
    };
    o.done("check")?;
    Ok(spec)
}

pub(super) fn collection(v: Value) -> Result<CollectionSpec> {
    let mut o = Obj::new(v, "collection")?;
    let spec = CollectionSpec {
        count: usize_of(o.opt("count"), "count")?,
        docs: array_of(o.opt("docs"), "docs")?,
        wheres: wheres(&mut o, "where")?,
    };
    o.done("collection")?;
    Ok(spec)
}

fn where_spec(v: Value) -> Result<WhereSpec> {
    let mut o = Obj::new(v, "where")?;
    let spec = WhereSpec {
        index: usize_of(o.opt("index"), "index")?,
        result: usize_of(o.opt("result"), "result")?,
        label: string_of(o.opt("label"), "label")?,
        path: string_of(o.0.remove("path"), "path")?
            .ok_or_else(|| malformed("where: missing field `path`"))?,
        equals: o.0.remove("equals"),
        size: usize_of(o.opt("size"), "size")?,
        exists: match o.opt("exists") {
            None => None,
            Some(Value::Bool(b)) => Some(b),
            Some(_) => return Err(malformed("exists: expected a boolean".to_string())),
        },
    };
    o.done("where")?;
    Ok(spec)
}

fn error_check(v: Value) -> Result<ErrorCheck> {
    let mut o = Obj::new(v, "error")?;
    let e = ErrorCheck {
        code: o
            .opt("code")
            .map(|v| {
                v.as_i64()
                    .and_then(|n| i32::try_from(n).ok())
                    .ok_or_else(|| malformed("code: expected an integer".to_string()))
            })
            .transpose()?,
        code_name: string_of(o.opt("codeName"), "codeName")?,
        message_contains: string_of(o.opt("messageContains"), "messageContains")?,
        source: string_of(o.opt("source"), "source")?,
        line: usize_of(o.opt("line"), "line")?,
    };
    o.done("error")?;
    Ok(e)
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;
