//! Collection options: what `createCollection` accepts and what
//! `getCollectionInfos` reports. An option the playground does not implement
//! is refused by name (`CommandNotSupported`), never accepted and ignored.
//! https://www.mongodb.com/docs/manual/reference/command/create/
use super::{stats, Call, Database};
use crate::collation::Collation;
use crate::context::RunCtx;
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Scope};
use crate::query::Filter;
use bson::{Bson, Document};
use std::rc::Rc;

/// `create` fields with no effect on one in-memory database: accepted.
const WITHOUT_EFFECT: &[&str] = &["writeConcern", "comment"];

/// The other fields of the server's `create` command (create.idl): known,
/// not implemented here, refused by name.
const NOT_IMPLEMENTED: &[&str] = &[
    "capped",
    "size",
    "max",
    "autoIndexId",
    "idIndex",
    "storageEngine",
    "validator",
    "validationLevel",
    "validationAction",
    "indexOptionDefaults",
    "viewOn",
    "pipeline",
    "timeseries",
    "expireAfterSeconds",
    "clusteredIndex",
    "changeStreamPreAndPostImages",
    "encryptedFields",
    "recordIdsReplicated",
    "temp",
    "flags",
];

/// Check `createCollection(name, options)`'s options; the collection's
/// default collation, if they give one.
pub fn check_create(options: Option<&Document>) -> Result<Option<Rc<Collation>>> {
    let mut collation = None;
    for (k, v) in options.into_iter().flatten() {
        match k.as_str() {
            "collation" => collation = crate::storage::collation::parse(v)?,
            k if WITHOUT_EFFECT.contains(&k) => {}
            // `capped: false` is what every collection is.
            "capped" if matches!(v, Bson::Boolean(false)) => {}
            k if NOT_IMPLEMENTED.contains(&k) => {
                return Err(Error::not_supported(format!(
                    "the createCollection option '{k}'"
                )))
            }
            k => {
                return Err(Error::location(
                    40415,
                    format!("BSON field 'create.{k}' is an unknown field."),
                ))
            }
        }
    }
    Ok(collation)
}

/// `db.getCollectionInfos(filter, options)`: the entries the filter matches
/// (a query on the entries' fields: `name`, `type`, `options`, `info`),
/// only `name` and `type` with `nameOnly: true`.
pub fn collection_infos(db: &Database, call: &Call, run: &RunCtx) -> Result<Bson> {
    call.max_args(2)?;
    let filter = match call.doc_arg(0, "getCollectionInfos() filter")? {
        Some(f) => Some(Filter::compile(f, &CompileCtx::default())?),
        None => None,
    };
    let mut name_only = false;
    for (k, v) in call
        .doc_arg(1, "getCollectionInfos() options")?
        .into_iter()
        .flatten()
    {
        match k.as_str() {
            // A bool the server also takes as a number (IDL's safeBool).
            "nameOnly" => {
                name_only = !matches!(v, Bson::Boolean(false) | Bson::Null | Bson::Undefined)
                    && v.as_f64() != Some(0.0)
                    && v.as_i32() != Some(0)
                    && v.as_i64() != Some(0)
            }
            // Every collection is visible: there are no users.
            "authorizedCollections" => {}
            other => {
                return Err(Error::location(
                    40415,
                    format!("BSON field 'listCollections.{other}' is an unknown field."),
                ))
            }
        }
    }
    let scope = Scope::new(run);
    let mut out = Vec::new();
    let Bson::Array(infos) = stats::collection_infos(db) else {
        return Ok(Bson::Array(out));
    };
    for info in infos {
        let Bson::Document(d) = info else { continue };
        if let Some(f) = &filter {
            if !f.matches(&d, &scope)? {
                continue;
            }
        }
        let d = if name_only {
            d.into_iter()
                .filter(|(k, _)| k == "name" || k == "type")
                .collect()
        } else {
            d
        };
        out.push(Bson::Document(d));
    }
    Ok(Bson::Array(out))
}
