//! The options documents of the write methods, and the scope (`let`
//! variables) they give to filters and updates.
use super::super::Call;
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Expr, Scope};
use crate::text::shell::type_name;
use bson::{Bson, Document};

/// Options shared by the write methods (each method reads the ones it knows).
#[derive(Clone, Debug, Default)]
pub struct Opts {
    pub upsert: bool,
    pub multi: bool,
    pub array_filters: Option<Vec<Bson>>,
    pub sort: Option<Document>,
    pub projection: Option<Document>,
    /// Return the document after the write (findOneAnd*): `returnDocument: 'after'`,
    /// `returnNewDocument: true` or `new: true`.
    pub return_after: bool,
    /// `let` variables, evaluated once.
    pub lets: Vec<(String, Bson)>,
    /// `bypassDocumentValidation`: the collection's validator is not applied.
    pub bypass: bool,
}

fn wrong_type(name: &str, v: &Bson, want: &str) -> Error {
    Error::type_mismatch(format!(
        "BSON field '{name}' is the wrong type '{}', expected type '{want}'",
        type_name(v)
    ))
}

fn bool_opt(d: &Document, name: &str) -> Result<Option<bool>> {
    match d.get(name) {
        None | Some(Bson::Null | Bson::Undefined) => Ok(None),
        Some(Bson::Boolean(b)) => Ok(Some(*b)),
        Some(v) => Err(wrong_type(name, v, "bool")),
    }
}

/// JavaScript truthiness, for the options mongosh reads itself (`multi`,
/// `justOne`, `returnNewDocument`, `new`).
pub fn truthy(v: &Bson) -> bool {
    match v {
        Bson::Boolean(b) => *b,
        Bson::Null | Bson::Undefined => false,
        Bson::Int32(x) => *x != 0,
        Bson::Int64(x) => *x != 0,
        Bson::Double(x) => *x != 0.0 && !x.is_nan(),
        Bson::String(s) => !s.is_empty(),
        _ => true,
    }
}

fn truthy_opt(d: &Document, name: &str) -> Option<bool> {
    d.get(name).map(truthy)
}

fn doc_opt(d: &Document, name: &str) -> Result<Option<Document>> {
    match d.get(name) {
        None | Some(Bson::Null | Bson::Undefined) => Ok(None),
        Some(Bson::Document(x)) => Ok(Some(x.clone())),
        Some(v) => Err(wrong_type(name, v, "object")),
    }
}

/// Parse an options document. `collation` is read by the engine for the
/// whole command (`engine::collation`); `hint`, `writeConcern`, `comment`, `maxTimeMS` and the like are accepted and ignored.
pub fn parse(d: Option<&Document>, run: &crate::context::RunCtx) -> Result<Opts> {
    let mut o = Opts::default();
    let Some(d) = d else {
        return Ok(o);
    };
    o.upsert = bool_opt(d, "upsert")?.unwrap_or(false);
    o.multi = truthy_opt(d, "multi").unwrap_or(false);
    o.bypass = bool_opt(d, "bypassDocumentValidation")?.unwrap_or(false);
    o.array_filters = match d.get("arrayFilters") {
        None | Some(Bson::Null | Bson::Undefined) => None,
        Some(Bson::Array(a)) => Some(a.clone()),
        Some(v) => return Err(wrong_type("arrayFilters", v, "array")),
    };
    o.sort = match d.get("sort") {
        Some(v) => crate::engine::sort_arg::sort_arg(v)?,
        None => None,
    };
    o.projection = match doc_opt(d, "projection")? {
        Some(p) => Some(p),
        None => doc_opt(d, "fields")?,
    };
    // mongosh: returnDocument wins, then returnOriginal, returnNewDocument, new.
    o.return_after = if let Some(v) = d.get("returnDocument") {
        match v {
            Bson::String(s) if s == "after" => true,
            Bson::String(s) if s == "before" => false,
            _ => {
                return Err(Error::bad_value(
                    "returnDocument needs to be either 'after' or 'before'",
                ))
            }
        }
    } else if let Some(b) = truthy_opt(d, "returnOriginal") {
        !b
    } else if let Some(b) = truthy_opt(d, "returnNewDocument") {
        b
    } else {
        truthy_opt(d, "new").unwrap_or(false)
    };
    o.lets = parse_let(Some(d), run)?;
    Ok(o)
}

/// The `let` option of an options document: each variable evaluated once,
/// seeing the ones before it.
pub fn parse_let(
    d: Option<&Document>,
    run: &crate::context::RunCtx,
) -> Result<Vec<(String, Bson)>> {
    let mut out: Vec<(String, Bson)> = Vec::new();
    let Some(lets) = d.map(|d| doc_opt(d, "let")).transpose()?.flatten() else {
        return Ok(out);
    };
    let scope = Scope::new(run);
    let empty = Document::new();
    for (name, value) in &lets {
        let ctx = CompileCtx {
            variables: out.iter().map(|(n, _)| n.clone()).collect(),
        };
        let v = Expr::compile(value, &ctx)?
            .evaluate(&empty, &scope)?
            .unwrap_or(Bson::Undefined);
        out.push((name.clone(), v));
    }
    Ok(out)
}

impl Opts {
    pub fn compile_ctx(&self) -> CompileCtx {
        CompileCtx {
            variables: self.lets.iter().map(|(n, _)| n.clone()).collect(),
        }
    }

    pub fn scope<'r>(&self, run: &'r crate::context::RunCtx) -> Scope<'r> {
        Scope::new(run).with_vars(self.lets.clone())
    }
}

/// The argument at `i` as a document, required (mongosh's assertArgsDefinedType).
pub fn required_doc<'c>(
    call: &'c Call,
    i: usize,
    method: &str,
    what: &str,
) -> Result<&'c Document> {
    match call.arg(i) {
        None
        | Some(super::super::Arg {
            value: Bson::Undefined,
            ..
        }) => Err(Error::bad_value(format!(
            "Missing required argument at position {i} (Collection.{method})"
        ))
        .at(call.span)),
        Some(arg) => match &arg.value {
            Bson::Document(d) => Ok(d),
            other => Err(Error::type_mismatch(format!(
                "{what} must be an object, got {}",
                type_name(other)
            ))
            .at(arg.span)),
        },
    }
}

/// The argument at `i`, required.
pub fn required<'c>(call: &'c Call, i: usize, method: &str) -> Result<&'c super::super::Arg> {
    match call.arg(i) {
        None
        | Some(super::super::Arg {
            value: Bson::Undefined,
            ..
        }) => Err(Error::bad_value(format!(
            "Missing required argument at position {i} (Collection.{method})"
        ))
        .at(call.span)),
        Some(arg) => Ok(arg),
    }
}

/// The Node driver's test for an operator-style update: the first key of the
/// document (of any pipeline stage) starts with `$`.
pub fn has_atomic_operators(v: &Bson) -> bool {
    match v {
        Bson::Array(stages) => stages.iter().any(has_atomic_operators),
        Bson::Document(d) => d.keys().next().is_some_and(|k| k.starts_with('$')),
        _ => false,
    }
}

pub fn requires_operators() -> Error {
    Error::bad_value("Update document requires atomic operators")
}

pub fn forbids_operators() -> Error {
    Error::bad_value("Replacement document must not contain atomic operators")
}
