//! The arguments of insertOne, insertMany and the legacy insert(), decoded
//! once into [`InsertArgs`] (the checks in mongosh's order).
use super::{Call, Method};
use crate::error::{Error, Result, Span};
use crate::storage::validation;
use bson::{Bson, Document};

/// An insert call, typed.
#[derive(Clone, Debug)]
pub(super) struct InsertArgs {
    pub docs: Vec<Document>,
    /// Answer with `insertedIds` (an array was given), not `insertedId`.
    pub many: bool,
    /// `ordered` (default true): stop at the first failure.
    pub ordered: bool,
    /// `bypassDocumentValidation`: the collection's validator is not applied.
    pub bypass: bool,
    /// Where errors about the documents point.
    pub span: Span,
}

impl InsertArgs {
    pub fn decode(call: &Call, method: Method) -> Result<InsertArgs> {
        let arg = call.arg(0).ok_or_else(|| {
            Error::bad_value(format!("{}() needs a document", call.name)).at(call.span)
        })?;
        let (docs, many) =
            match (method, &arg.value) {
                (Method::InsertOne, Bson::Document(d)) => (vec![d.clone()], false),
                (Method::InsertOne, Bson::Array(_)) => return Err(Error::bad_value(
                    "insertOne() takes one document, not an array: use insertMany() for several",
                )
                .at(arg.span)),
                (Method::InsertMany | Method::Insert, Bson::Array(items)) => {
                    if items.is_empty() {
                        return Err(empty_batch().at(arg.span));
                    }
                    (to_documents(items, arg.span)?, true)
                }
                (Method::Insert, Bson::Document(d)) => (vec![d.clone()], false),
                (Method::InsertMany, _) => {
                    return Err(
                        Error::bad_value("insertMany() needs an array of documents").at(arg.span)
                    )
                }
                (m, other) => {
                    return Err(Error::bad_value(format!(
                        "{}() needs a document, got {}",
                        m.name(),
                        crate::text::shell::type_name(other)
                    ))
                    .at(arg.span))
                }
            };
        let opts = call.doc_arg(1, "options")?;
        let ordered = match opts {
            Some(opts) => match opts.get("ordered") {
                None => true,
                Some(Bson::Boolean(b)) => *b,
                Some(_) => {
                    return Err(Error::type_mismatch("ordered must be a boolean").at(call.span))
                }
            },
            None => true,
        };
        let bypass = validation::bypass(opts).map_err(|e| e.at(call.span))?;
        Ok(InsertArgs {
            docs,
            many,
            ordered,
            bypass,
            span: arg.span,
        })
    }
}

fn to_documents(items: &[Bson], span: Span) -> Result<Vec<Document>> {
    items
        .iter()
        .enumerate()
        .map(|(i, item)| match item {
            Bson::Document(d) => Ok(d.clone()),
            other => Err(Error::bad_value(format!(
                "document {i} is not an object but {}",
                crate::text::shell::type_name(other)
            ))
            .at(span)),
        })
        .collect()
}

/// mongosh's driver refuses an empty batch before the server sees it (a
/// MongoInvalidArgumentError, with no server code: BadValue is the nearest).
pub(crate) fn empty_batch() -> Error {
    Error::bad_value("Invalid BulkOperation, Batch cannot be empty")
}
