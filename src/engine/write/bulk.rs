//! bulkWrite: insertOne, updateOne, updateMany, replaceOne, deleteOne and
//! deleteMany in one call, ordered (stop at the first error) or not.
//! https://www.mongodb.com/docs/manual/reference/method/db.collection.bulkWrite/
use super::super::{Call, Database, Session};
use super::exec::{self, Target};
use super::options;
use super::update::check_update_argument;
use crate::error::{Error, Result};
use crate::query::sort::SortSpec;
use crate::query::Filter;
use crate::text::shell::type_name;
use crate::update::Update;
use bson::{Bson, Document};

#[derive(Default)]
struct Totals {
    inserted: usize,
    inserted_ids: Document,
    matched: usize,
    modified: usize,
    deleted: usize,
    upserted: usize,
    upserted_ids: Document,
}

pub fn run(session: &mut Session, coll: &str, call: &Call) -> Result<Bson> {
    call.max_args(2)?;
    let arg = options::required(call, 0, "bulkWrite")?;
    let Bson::Array(ops) = &arg.value else {
        return Err(Error::type_mismatch(format!(
            "bulkWrite() needs an array of operations, got {}",
            type_name(&arg.value)
        ))
        .at(arg.span));
    };
    if ops.is_empty() {
        return Err(crate::engine::insert_args::empty_batch().at(arg.span));
    }
    let bulk_opts = call.doc_arg(1, "options")?;
    // `let` variables are the whole command's: every operation sees them.
    let lets = options::parse_let(bulk_opts, &session.run).map_err(|e| e.at(call.span))?;
    let bypass = crate::storage::validation::bypass(bulk_opts).map_err(|e| e.at(call.span))?;
    let ordered = match bulk_opts.and_then(|o| o.get("ordered")) {
        None | Some(Bson::Null | Bson::Undefined) => true,
        Some(Bson::Boolean(b)) => *b,
        Some(v) => {
            return Err(Error::type_mismatch(format!(
                "ordered must be a boolean, got {}",
                type_name(v)
            ))
            .at(call.span))
        }
    };
    // The driver checks every operation's shape before sending any of them.
    for (i, op) in ops.iter().enumerate() {
        check_op(i, op).map_err(|e| e.at(arg.span))?;
    }
    let mut totals = Totals::default();
    let mut first_error = None;
    for (i, op) in ops.iter().enumerate() {
        if let Err(e) = run_op(session, coll, i, op, &lets, bypass, &mut totals) {
            first_error.get_or_insert(e);
            if ordered {
                break;
            }
        }
    }
    if let Some(e) = first_error {
        return Err(e.at(arg.span));
    }
    let mut d = Document::new();
    d.insert("acknowledged", true);
    d.insert("insertedCount", exec::count(totals.inserted));
    d.insert("insertedIds", totals.inserted_ids);
    d.insert("matchedCount", exec::count(totals.matched));
    d.insert("modifiedCount", exec::count(totals.modified));
    d.insert("deletedCount", exec::count(totals.deleted));
    d.insert("upsertedCount", exec::count(totals.upserted));
    d.insert("upsertedIds", totals.upserted_ids);
    Ok(Bson::Document(d))
}

fn field<'d>(spec: &'d Document, op: &str, name: &str) -> Result<&'d Bson> {
    spec.get(name)
        .ok_or_else(|| Error::bad_value(format!("bulkWrite {op} needs a '{name}' field")))
}

/// The operation's name and arguments, checked as the Node driver does.
fn check_op(i: usize, op: &Bson) -> Result<(&str, &Document)> {
    let Bson::Document(op) = op else {
        return Err(Error::bad_value(format!(
            "bulkWrite operation {i} must be an object, got {}",
            type_name(op)
        )));
    };
    let (name, spec) = match op.iter().next() {
        Some((name, Bson::Document(spec))) if op.len() == 1 => (name.as_str(), spec),
        _ => {
            return Err(Error::bad_value(format!(
                "bulkWrite operation {i} must be one of {{insertOne: ...}}, {{updateOne: ...}}, {{updateMany: ...}}, {{replaceOne: ...}}, {{deleteOne: ...}}, {{deleteMany: ...}}"
            )))
        }
    };
    match name {
        "insertOne" => {
            field(spec, name, "document")?;
        }
        "updateOne" | "updateMany" | "replaceOne" => {
            let replace = name == "replaceOne";
            let update = field(spec, name, if replace { "replacement" } else { "update" })?;
            check_update_argument(replace, update)?;
            filter_of(spec, name)?;
        }
        "deleteOne" | "deleteMany" => {
            filter_of(spec, name)?;
        }
        other => {
            return Err(Error::bad_value(format!(
                "unknown bulkWrite operation {other}; supported: insertOne, updateOne, updateMany, replaceOne, deleteOne, deleteMany"
            )))
        }
    }
    Ok((name, spec))
}

fn run_op(
    session: &mut Session,
    coll: &str,
    i: usize,
    op: &Bson,
    lets: &[(String, Bson)],
    bypass: bool,
    totals: &mut Totals,
) -> Result<()> {
    let op_opts = |spec: &Document, session: &Session| -> Result<options::Opts> {
        let mut opts = options::parse(Some(spec), &session.run)?;
        opts.lets.extend(lets.iter().cloned());
        Ok(opts)
    };
    let (name, spec) = check_op(i, op)?;
    // A model's own collation; otherwise the command's (the collection's default).
    let collation = match spec.get("collation") {
        Some(c) => crate::storage::collation::parse(c)?,
        None => crate::collation::active(),
    };
    let _collation = crate::collation::scoped(collation);
    let key = i.to_string();
    match name {
        "insertOne" => {
            let Bson::Document(doc) = field(spec, name, "document")? else {
                return Err(Error::type_mismatch("insertOne.document must be an object"));
            };
            let doc = crate::storage::validation::prepare(session.db, coll, doc.clone())?;
            let size = Database::check_insert(&doc)?;
            let scope = crate::expr::Scope::new(&session.run);
            crate::storage::validation::check(session.db.collection(coll), None, &doc, &scope, bypass)?;
            let id = doc.get("_id").cloned().unwrap_or(Bson::Null);
            session.db.collection_mut(coll).insert_sized(
                &Database::namespace(coll),
                doc,
                size,
            )?;
            totals.inserted += 1;
            totals.inserted_ids.insert(key, id);
        }
        "updateOne" | "updateMany" | "replaceOne" => {
            let replace = name == "replaceOne";
            let update = field(spec, name, if replace { "replacement" } else { "update" })?;
            check_update_argument(replace, update)?;
            let filter = filter_of(spec, name)?;
            let opts = op_opts(spec, session)?;
            super::timeseries::check_update(
                session.db,
                coll,
                &filter,
                update,
                name == "updateMany",
                opts.upsert,
            )?;
            let ctx = opts.compile_ctx();
            let filter = Filter::compile_find(&filter, &ctx)?;
            let update = Update::compile(update, opts.array_filters.as_deref(), &ctx)?;
            let multi = name == "updateMany";
            // updateOne and replaceOne models take a sort since MongoDB 8.0, as the methods do.
            let sort = match (&opts.sort, multi) {
                (Some(s), false) => Some(SortSpec::compile(s)?),
                _ => None,
            };
            let scope = opts.scope(&session.run);
            let target = Target {
                filter: &filter,
                sort: sort.as_ref(),
                multi,
                command: "update",
                bypass,
            };
            let w = exec::update(session.db, coll, &target, &update, opts.upsert, false, &scope)?;
            totals.matched += w.matched;
            totals.modified += w.modified;
            if let Some(id) = w.upserted {
                totals.upserted += 1;
                totals.upserted_ids.insert(key, id);
            }
        }
        "deleteOne" | "deleteMany" => {
            let filter = filter_of(spec, name)?;
            let opts = op_opts(spec, session)?;
            let filter = Filter::compile_find(&filter, &opts.compile_ctx())?;
            let scope = opts.scope(&session.run);
            let target = Target {
                filter: &filter,
                sort: None,
                multi: name == "deleteMany",
                command: "delete",
                bypass,
            };
            totals.deleted += exec::delete(session.db, coll, &target, &scope)?.len();
        }
        other => {
            return Err(Error::bad_value(format!(
                "unknown bulkWrite operation {other}; supported: insertOne, updateOne, updateMany, replaceOne, deleteOne, deleteMany"
            )))
        }
    }
    Ok(())
}

fn filter_of(spec: &Document, op: &str) -> Result<Document> {
    match field(spec, op, "filter")? {
        Bson::Document(d) => Ok(d.clone()),
        other => Err(Error::type_mismatch(format!(
            "{op}.filter must be an object, got {}",
            type_name(other)
        ))),
    }
}
