//! Read methods and cursor chains: find, findOne, countDocuments, distinct...
use super::{Call, Session};
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Scope};
use crate::query::Filter;
use bson::{Bson, Document};

pub fn run(session: &mut Session, coll: &str, calls: &[Call]) -> Result<Bson> {
    let first = &calls[0];
    if let Some(c) = calls.get(1) {
        return Err(Error::not_supported(format!("cursor method {}()", c.name)).at(c.span));
    }
    let filter = match first.doc_arg(0, "filter")? {
        Some(f) => Filter::compile(f, &CompileCtx::default()).map_err(|e| e.at(first.span))?,
        None => Filter::compile(&Document::new(), &CompileCtx::default())?,
    };
    let scope = Scope::new(&session.run);
    let docs = session.db.collection(coll).map(|c| c.docs()).unwrap_or(&[]);
    let mut out = Vec::new();
    for doc in docs {
        if filter.matches(doc, &scope)? {
            out.push(doc);
        }
    }
    match first.name.as_str() {
        "find" => Ok(Bson::Array(
            out.into_iter().map(|d| Bson::Document(d.clone())).collect(),
        )),
        "findOne" => Ok(out
            .first()
            .map_or(Bson::Null, |d| Bson::Document((*d).clone()))),
        "countDocuments" | "count" => Ok(count(out.len())),
        "estimatedDocumentCount" => Ok(count(docs.len())),
        other => Err(Error::not_supported(format!("{other}()")).at(first.span)),
    }
}

/// Counts print as plain numbers: Int32 when they fit.
pub fn count(n: usize) -> Bson {
    i32::try_from(n).map_or(Bson::Int64(n as i64), Bson::Int32)
}
