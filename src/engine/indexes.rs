//! Index methods: `createIndex`, `createIndexes`, `dropIndex`, `dropIndexes`,
//! `getIndexes`, `getIndexKeys`, `hideIndex`, `unhideIndex`.
//! See https://www.mongodb.com/docs/manual/reference/method/js-collection/.
use super::create_index_args::CreateIndexArgs;
use super::{Command, Database, Method, Session};
use crate::error::{Error, Result};
use crate::storage::Collection;
use crate::text::shell::type_name;
use bson::{doc, Bson};

pub fn run(session: &mut Session, cmd: &Command) -> Result<Bson> {
    let (coll, call) = (cmd.collection, cmd.call);
    let ns = Database::namespace(coll);
    match cmd.method {
        Method::CreateIndex => {
            let default = super::collation::of_collection(session, coll);
            let Some(spec) = CreateIndexArgs::decode(call, cmd.method, &default)?
                .specs
                .pop()
            else {
                return Err(Error::bad_value("createIndex() needs a key pattern"));
            };
            let name = spec.name.clone();
            session.db.collection_mut(coll).create_index(&ns, spec)?;
            crate::budget::check_for(crate::budget::INDEX_KEYS)?;
            Ok(Bson::String(name))
        }
        Method::CreateIndexes => {
            let default = super::collation::of_collection(session, coll);
            let specs = CreateIndexArgs::decode(call, cmd.method, &default)?.specs;
            // All or nothing, as one createIndexes command.
            // (createIndexes creates a missing collection even when it then fails.)
            let mut c = match session.db.collection(coll) {
                Some(c) => c.clone(),
                None => {
                    session.db.set_collection(coll, Collection::default());
                    Collection::default()
                }
            };
            let mut names = Vec::with_capacity(specs.len());
            for spec in specs {
                names.push(Bson::String(spec.name.clone()));
                c.create_index(&ns, spec)?;
                crate::budget::check_for(crate::budget::INDEX_KEYS)?;
            }
            session.db.set_collection(coll, c);
            Ok(Bson::Array(names))
        }
        Method::GetIndexes | Method::GetIndexSpecs | Method::GetIndexKeys => {
            call.max_args(1)?;
            let c = session.db.collection(coll).ok_or_else(|| ns_missing(&ns))?;
            Ok(Bson::Array(
                c.indexes()
                    .iter()
                    .map(|i| {
                        Bson::Document(if cmd.method == Method::GetIndexKeys {
                            i.spec.key.clone()
                        } else {
                            i.spec.describe()
                        })
                    })
                    .collect(),
            ))
        }
        Method::DropIndex => {
            call.max_args(1)?;
            if let Some(Bson::String(s)) = call.arg(0).map(|a| &a.value) {
                if s == "*" {
                    return Err(Error::bad_value(
                        "To drop indexes in the collection using '*', use db.collection.dropIndexes().",
                    ));
                }
            }
            let target = match call.arg(0).map(|a| &a.value) {
                Some(v @ (Bson::String(_) | Bson::Document(_))) => v.clone(),
                _ => {
                    return Err(Error::type_mismatch(
                        "dropIndex() needs an index name or key pattern",
                    ))
                }
            };
            drop_indexes(session, coll, &[target])
        }
        Method::DropIndexes => {
            call.max_args(1)?;
            match call.arg(0).map(|a| &a.value) {
                None | Some(Bson::Null | Bson::Undefined) => drop_all(session, coll),
                Some(Bson::String(s)) if s == "*" => drop_all(session, coll),
                Some(v @ (Bson::String(_) | Bson::Document(_))) => {
                    drop_indexes(session, coll, std::slice::from_ref(v))
                }
                Some(Bson::Array(items)) => drop_indexes(session, coll, items),
                Some(other) => Err(Error::type_mismatch(format!(
                    "dropIndexes() needs an index name, a key pattern or an array of names, got {}",
                    type_name(other)
                ))),
            }
        }
        Method::HideIndex | Method::UnhideIndex => {
            call.max_args(1)?;
            let hidden = cmd.method == Method::HideIndex;
            let name = resolve(session, coll, call.arg(0).map(|a| &a.value))?;
            let c = session.db.collection_mut(coll);
            let was = c.indexes_mut().set_hidden(&name, hidden)?;
            Ok(Bson::Document(if was == hidden {
                doc! { "ok": 1 }
            } else {
                doc! { "hidden_old": was, "hidden_new": hidden, "ok": 1 }
            }))
        }
        other => Err(Error::not_supported(format!("{}()", other.name()))),
    }
}

fn ns_missing(ns: &str) -> Error {
    Error::namespace_not_found(format!("ns does not exist: {ns}"))
}

/// An index named or given by key pattern, as its name.
fn resolve(session: &Session, coll: &str, target: Option<&Bson>) -> Result<String> {
    let ns = Database::namespace(coll);
    let c = session
        .db
        .collection(coll)
        .ok_or_else(|| Error::namespace_not_found(format!("ns not found {ns}")))?;
    match target {
        Some(Bson::String(name)) => Ok(name.clone()),
        Some(Bson::Document(keys)) => c.indexes().name_for_keys(keys),
        _ => Err(Error::type_mismatch(
            "an index name or key pattern is needed",
        )),
    }
}

fn drop_indexes(session: &mut Session, coll: &str, targets: &[Bson]) -> Result<Bson> {
    let mut names = Vec::with_capacity(targets.len());
    for t in targets {
        if !matches!(t, Bson::String(_) | Bson::Document(_)) {
            return Err(Error::type_mismatch(format!(
                "dropIndexes() needs index names, got {}",
                type_name(t)
            )));
        }
        names.push(resolve(session, coll, Some(t))?);
    }
    let c = session.db.collection_mut(coll);
    let was = c.indexes().len();
    let mut set = c.indexes().clone();
    for name in &names {
        set.drop_named(name)?;
    }
    *c.indexes_mut() = set;
    Ok(Bson::Document(doc! { "nIndexesWas": count(was), "ok": 1 }))
}

fn drop_all(session: &mut Session, coll: &str) -> Result<Bson> {
    let ns = Database::namespace(coll);
    if session.db.collection(coll).is_none() {
        return Err(Error::namespace_not_found(format!("ns not found {ns}")));
    }
    let c = session.db.collection_mut(coll);
    let was = c.indexes().len();
    c.indexes_mut().drop_all();
    Ok(Bson::Document(doc! {
        "nIndexesWas": count(was),
        "msg": "non-_id indexes dropped for collection",
        "ok": 1,
    }))
}

fn count(n: usize) -> Bson {
    super::read::count(n)
}
