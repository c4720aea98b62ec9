//! insertOne, insertMany and the legacy insert().
use super::{Command, Database, Method, Session};
use crate::error::{Error, Result};
use crate::storage::validation;
use bson::{Bson, Document};

pub fn run(session: &mut Session, cmd: &Command) -> Result<Bson> {
    let (coll, call) = (cmd.collection, cmd.call);
    let arg = call.arg(0).ok_or_else(|| {
        Error::bad_value(format!("{}() needs a document", call.name)).at(call.span)
    })?;
    let (docs, many) = match (cmd.method, &arg.value) {
        (Method::InsertOne, Bson::Document(d)) => (vec![d.clone()], false),
        (Method::InsertOne, Bson::Array(_)) => {
            return Err(Error::bad_value(
                "insertOne() takes one document, not an array: use insertMany() for several",
            )
            .at(arg.span))
        }
        (Method::InsertMany | Method::Insert, Bson::Array(items)) => {
            if items.is_empty() {
                return Err(empty_batch().at(arg.span));
            }
            (to_documents(items, arg.span)?, true)
        }
        (Method::Insert, Bson::Document(d)) => (vec![d.clone()], false),
        (Method::InsertMany, _) => {
            return Err(Error::bad_value("insertMany() needs an array of documents").at(arg.span))
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
            Some(_) => return Err(Error::type_mismatch("ordered must be a boolean").at(call.span)),
        },
        None => true,
    };
    let bypass = validation::bypass(opts).map_err(|e| e.at(call.span))?;
    let scope = crate::expr::Scope::new(&session.run);
    let namespace = Database::namespace(coll);
    let mut ids = Vec::with_capacity(docs.len());
    let mut first_error = None;
    for doc in docs {
        let doc = validation::prepare(session.db, coll, doc).map_err(|e| e.at(arg.span))?;
        let id = doc.get("_id").cloned().unwrap_or(Bson::Null);
        let inserted = Database::check_insert(&doc)
            .and_then(|()| {
                validation::check(session.db.collection(coll), None, &doc, &scope, bypass)
            })
            .and_then(|()| session.db.collection_mut(coll).insert(&namespace, doc));
        match inserted {
            Ok(()) => ids.push(id),
            Err(e) => {
                // Ordered inserts stop at the first failure; what was inserted stays.
                first_error.get_or_insert(e);
                if ordered {
                    break;
                }
            }
        }
    }
    if let Some(e) = first_error {
        return Err(e.at(arg.span));
    }
    Ok(if many {
        bson::bson!({ "acknowledged": true, "insertedIds": ids_doc(ids) })
    } else {
        bson::bson!({ "acknowledged": true, "insertedId": ids.into_iter().next().unwrap_or(Bson::Null) })
    })
}

fn ids_doc(ids: Vec<Bson>) -> Document {
    ids.into_iter()
        .enumerate()
        .map(|(i, id)| (i.to_string(), id))
        .collect()
}

fn to_documents(items: &[Bson], span: crate::error::Span) -> Result<Vec<Document>> {
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
