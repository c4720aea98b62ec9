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
use crate::storage::options::{self, Capped, CollectionOptions};
use bson::{Bson, Document};
use std::rc::Rc;

/// `create` fields with no effect on one in-memory database: accepted.
const WITHOUT_EFFECT: &[&str] = &["writeConcern", "comment"];

/// The other fields of the server's `create` command (create.idl): known,
/// not implemented here, refused by name.
const NOT_IMPLEMENTED: &[&str] = &[
    "autoIndexId",
    "idIndex",
    "storageEngine",
    "indexOptionDefaults",
    "viewOn",
    "pipeline",
    "expireAfterSeconds",
    "clusteredIndex",
    "changeStreamPreAndPostImages",
    "encryptedFields",
    "recordIdsReplicated",
    "temp",
    "flags",
];

/// `createCollection(name, options)`'s options, checked and compiled, and the
/// collection's default collation if they give one.
pub fn parse_create(
    options: Option<&Document>,
) -> Result<(CollectionOptions, Option<Rc<Collation>>)> {
    let mut out = CollectionOptions::default();
    let mut collation = None;
    let (mut capped, mut size, mut max) = (false, None, None);
    for (k, v) in options.into_iter().flatten() {
        match k.as_str() {
            k if WITHOUT_EFFECT.contains(&k) => {}
            "collation" => collation = crate::storage::collation::parse(v)?,
            // IDL's safeBool: numbers count too.
            "capped" => capped = truthy(v),
            "size" => size = Some(options::number("create", k, v)?),
            "max" => max = Some(options::number("create", k, v)?),
            "validator" => out.validator = Some(options::parse_validator("create", v)?),
            "validationLevel" => out.level = Some(options::parse_level("create", v)?),
            "validationAction" => out.action = Some(options::parse_action("create", v)?),
            "timeseries" => out.timeseries = Some(options::parse_timeseries(v)?),
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
    if capped {
        let Some(size) = size else {
            return Err(Error::invalid_options(
                "the 'size' field is required when 'capped' is true",
            ));
        };
        if size < 0 {
            return Err(Error::bad_value("size has to be >= 0"));
        }
        out.capped = Some(Capped {
            size: options::capped_size(size),
            max: max.filter(|m| *m > 0),
        });
    } else if let Some(what) = size.map(|_| "size").or(max.map(|_| "max")) {
        return Err(Error::not_supported(format!(
            "the createCollection option '{what}' without 'capped: true'"
        )));
    }
    if out.timeseries.is_some() && (out.capped.is_some() || out.validator.is_some()) {
        let other = if out.capped.is_some() {
            "capped"
        } else {
            "validator"
        };
        return Err(Error::not_supported(format!(
            "a time series collection with '{other}'"
        )));
    }
    Ok((out, collation))
}

/// IDL's safeBool: false, null, undefined and zero are false.
fn truthy(v: &Bson) -> bool {
    !matches!(v, Bson::Boolean(false) | Bson::Null | Bson::Undefined)
        && v.as_f64() != Some(0.0)
        && v.as_i32() != Some(0)
        && v.as_i64() != Some(0)
}

/// `db.runCommand({collMod: name, ...})`: change a collection's validator,
/// validationLevel or validationAction.
/// https://www.mongodb.com/docs/manual/reference/command/collMod/
pub fn coll_mod(db: &mut Database, cmd: &Document) -> Result<Bson> {
    let name = match cmd.get("collMod") {
        Some(Bson::String(s)) => s.clone(),
        Some(other) => {
            return Err(Error::invalid_namespace(format!(
                "collection name has invalid type {}",
                crate::text::shell::type_name(other)
            )))
        }
        None => return Err(Error::internal_error("not a collMod command")),
    };
    let Some(coll) = db.collection(&name) else {
        return Err(Error::namespace_not_found(format!(
            "ns does not exist: {}",
            Database::namespace(&name)
        )));
    };
    let mut opts = coll.options().clone();
    for (k, v) in cmd.iter().skip(1) {
        match k.as_str() {
            k if WITHOUT_EFFECT.contains(&k) => {}
            "validator" => {
                if opts.timeseries.is_some() {
                    return Err(Error::not_supported(
                        "a validator on a time series collection",
                    ));
                }
                // An empty validator removes validation.
                opts.validator = match v {
                    Bson::Document(d) if d.is_empty() => None,
                    _ => Some(options::parse_validator("collMod", v)?),
                };
            }
            "validationLevel" => opts.level = Some(options::parse_level("collMod", v)?),
            "validationAction" => opts.action = Some(options::parse_action("collMod", v)?),
            "index"
            | "hidden"
            | "expireAfterSeconds"
            | "cappedSize"
            | "cappedMax"
            | "timeseries"
            | "viewOn"
            | "pipeline"
            | "changeStreamPreAndPostImages"
            | "timeseriesBucketsMayHaveMixedSchemaData"
            | "prepareUnique"
            | "dryRun" => return Err(Error::not_supported(format!("the collMod option '{k}'"))),
            other => {
                return Err(Error::location(
                    40415,
                    format!("BSON field 'collMod.{other}' is an unknown field."),
                ))
            }
        }
    }
    db.collection_mut(&name).set_options(opts);
    Ok(bson::bson!({ "ok": 1 }))
}

/// `db.runCommand(command)`: the commands the playground runs this way.
pub fn run_command(db: &mut Database, call: &Call) -> Result<Bson> {
    call.max_args(2)?;
    let Some(cmd) = call.doc_arg(0, "runCommand() command")? else {
        return Err(Error::bad_value("runCommand() needs a command document"));
    };
    let Some(name) = cmd.keys().next() else {
        return Err(Error::location(
            40414,
            "no command given: runCommand() needs a command document such as {collMod: 'name'}",
        ));
    };
    match name.as_str() {
        "collMod" => coll_mod(db, cmd),
        other => Err(Error::not_supported(format!(
            "the command '{other}' in db.runCommand()"
        ))),
    }
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
            "nameOnly" => name_only = truthy(v),
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
