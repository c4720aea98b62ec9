//! What MongoDB 8.0 lets updates and deletes do to a time series
//! collection. Deletes are arbitrary since 7.0 (featureFlagTimeseriesDeletesSupport),
//! but arbitrary updates are still behind a flag that 8.0 leaves off
//! (featureFlagTimeseriesUpdatesSupport), so updates keep 5.1's rules: many
//! documents at once, no upsert, only the metaField queried and changed, with
//! update operators. Checks and messages follow the server's
//! timeseries_update_delete_util.cpp and its updateRequestCheckFunction.
//! https://www.mongodb.com/docs/manual/core/timeseries/timeseries-limitations/
use crate::error::{Error, Result};
use crate::storage::options::TimeSeries;
use crate::storage::Database;
use bson::{Bson, Document};

fn time_series<'a>(db: &'a Database, coll: &str) -> Option<&'a TimeSeries> {
    db.collection(coll)?.options().timeseries.as_ref()
}

/// An update (`multi`: updateMany; `upsert`) of `coll` with `filter` and `update`.
pub fn check_update(
    db: &Database,
    coll: &str,
    filter: &Document,
    update: &Bson,
    multi: bool,
    upsert: bool,
) -> Result<()> {
    let Some(ts) = time_series(db, coll) else {
        return Ok(());
    };
    if !multi {
        return Err(Error::invalid_options(
            "Cannot perform a non-multi update on a time-series collection",
        ));
    }
    if upsert {
        return Err(Error::invalid_options(
            "Cannot perform an upsert on a time-series collection",
        ));
    }
    let Some(meta) = ts.meta_field.as_deref() else {
        return Err(no_meta());
    };
    for (k, v) in filter {
        query_field(k, v, meta, true, false)?;
    }
    let ops = match update {
        Bson::Array(_) => {
            return Err(Error::invalid_options(
                "Cannot perform an update on a time-series collection using a pipeline update",
            ))
        }
        Bson::Document(d) if !d.keys().next().is_some_and(|k| k.starts_with('$')) => {
            return Err(Error::invalid_options(
                "Cannot perform an update on a time-series collection using a replacement document",
            ))
        }
        Bson::Document(d) => d,
        _ => return Ok(()),
    };
    for (op, fields) in ops {
        let Bson::Document(fields) = fields else {
            continue;
        };
        for (field, value) in fields {
            let renamed_to = (op == "$rename").then(|| value.as_str().unwrap_or_default());
            if !on_meta(field, meta) || renamed_to.is_some_and(|to| !on_meta(to, meta)) {
                return Err(Error::invalid_options(format!(
                    "Cannot perform an update on a time-series collection which updates a field that is not the metaField '{meta}'"
                )));
            }
        }
    }
    Ok(())
}

/// findOneAndDelete/findAndModify's remove: any filter, but no sort.
pub fn check_find_and_delete(db: &Database, coll: &str, sorted: bool) -> Result<()> {
    if sorted && time_series(db, coll).is_some() {
        return Err(Error::invalid_options(
            "Cannot perform a findAndModify with a query and sort on a time-series collection.",
        ));
    }
    Ok(())
}

fn no_meta() -> Error {
    Error::invalid_options(
        "Cannot perform an update on a time-series collection that does not have a metaField",
    )
}

/// Whether a dotted path starts at the metaField.
fn on_meta(path: &str, meta: &str) -> bool {
    path.split('.').next() == Some(meta)
}

/// The server's walk of an update's query: every field name at the top
/// level, or in a document directly inside an array (`$and: [{...}]`),
/// must be on the metaField; `$jsonSchema` may only name it.
fn query_field(name: &str, v: &Bson, meta: &str, top: bool, parent_is_array: bool) -> Result<()> {
    let not_meta = || {
        Error::invalid_options(format!(
            "Cannot perform an update or delete on a time-series collection when querying on a field that is not the metaField '{meta}'"
        ))
    };
    if name == "$jsonSchema" {
        if let Bson::Document(schema) = v {
            if let Some(Bson::Array(required)) = schema.get("required") {
                if required.iter().any(|r| r.as_str() != Some(meta)) {
                    return Err(not_meta());
                }
            }
            if let Some(Bson::Document(props)) = schema.get("properties") {
                if props.keys().any(|p| p != meta) {
                    return Err(not_meta());
                }
            }
        }
        return Ok(());
    }
    if top && !name.starts_with('$') && !on_meta(name, meta) {
        return Err(not_meta());
    }
    let child_top = parent_is_array && matches!(v, Bson::Document(_));
    match v {
        Bson::Document(d) => {
            for (k, c) in d {
                query_field(k, c, meta, child_top, false)?;
            }
        }
        Bson::Array(items) => {
            for c in items {
                query_field("", c, meta, child_top, true)?;
            }
        }
        _ => {}
    }
    Ok(())
}
