//! insertOne, insertMany and the legacy insert().
use super::insert_args::InsertArgs;
use super::{Command, Database, Session};
use crate::error::Result;
use crate::storage::validation;
use bson::{Bson, Document};

pub fn run(session: &mut Session, cmd: &Command) -> Result<Bson> {
    let coll = cmd.collection;
    let InsertArgs {
        docs,
        many,
        ordered,
        bypass,
        span,
    } = InsertArgs::decode(cmd.call, cmd.method)?;
    let scope = crate::expr::Scope::new(&session.run);
    let namespace = Database::namespace(coll);
    let mut ids = Vec::with_capacity(docs.len());
    let mut first_error = None;
    for doc in docs {
        let doc = validation::prepare(session.db, coll, doc).map_err(|e| e.at(span))?;
        let id = doc.get("_id").cloned().unwrap_or(Bson::Null);
        let inserted = Database::check_insert(&doc)
            .and_then(|size| {
                validation::check(session.db.collection(coll), None, &doc, &scope, bypass)?;
                Ok(size)
            })
            .and_then(|size| {
                session
                    .db
                    .collection_mut(coll)
                    .insert_sized(&namespace, doc, size)
            });
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
        return Err(e.at(span));
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
