//! What a collection's options demand of each document written to it:
//! its validator (per `validationLevel`, `validationAction` and
//! `bypassDocumentValidation`) and a time series' time field.
//! https://www.mongodb.com/docs/manual/core/schema-validation/
use super::options::{Action, CollectionOptions, Level};
use super::{Collection, Database};
use crate::error::{Error, Result};
use crate::expr::Scope;
use bson::{Bson, Document};

/// Check a document about to be stored in `coll` (`before`: the stored
/// version an update replaces; `None` for inserts and upserts).
pub fn check(
    coll: Option<&Collection>,
    before: Option<&Document>,
    after: &Document,
    scope: &Scope,
    bypass: bool,
) -> Result<()> {
    let Some(opts) = coll.map(Collection::options) else {
        return Ok(());
    };
    check_options(opts, before, after, scope, bypass)
}

pub fn check_options(
    opts: &CollectionOptions,
    before: Option<&Document>,
    after: &Document,
    scope: &Scope,
    bypass: bool,
) -> Result<()> {
    if let Some(ts) = &opts.timeseries {
        if !matches!(after.get(&ts.time_field), Some(Bson::DateTime(_))) {
            return Err(Error::bad_value(format!(
                "'{}' must be present and contain a valid BSON UTC datetime value",
                ts.time_field
            )));
        }
    }
    let Some(v) = &opts.validator else {
        return Ok(());
    };
    if bypass {
        return Ok(());
    }
    match opts.level.unwrap_or_default() {
        Level::Off => return Ok(()),
        // Moderate: an update of a document that was already invalid is not checked.
        Level::Moderate => {
            if let Some(b) = before {
                if !v.filter.matches(b, scope).unwrap_or(false) {
                    return Ok(());
                }
            }
        }
        Level::Strict => {}
    }
    // A validator that fails to evaluate (an `$expr` dividing by zero) is
    // a failed validation; its details say why.
    if v.filter.matches(after, scope).unwrap_or(false) {
        return Ok(());
    }
    // Warn: the server logs the failure and writes the document.
    if opts.action == Some(Action::Warn) {
        return Ok(());
    }
    Err(failure(&v.spec, after, scope))
}

/// Error 121 with its `errInfo` as mongosh prints it.
fn failure(spec: &Document, doc: &Document, scope: &Scope) -> Error {
    let mut info = Document::new();
    info.insert(
        "failingDocumentId",
        doc.get("_id").cloned().unwrap_or(Bson::Null),
    );
    info.insert(
        "details",
        crate::query::validation_error::details(spec, doc, scope),
    );
    Error::document_validation_failure(format!(
        "Document failed validation\nAdditional information: {}",
        crate::text::shell::print(&Bson::Document(info))
    ))
}

/// A document to insert into `coll`, with its `_id` (see
/// `Database::prepare_insert`, `Database::prepare_measurement`).
pub fn prepare(db: &Database, coll: &str, doc: Document) -> Result<Document> {
    match db
        .collection(coll)
        .and_then(|c| c.options().timeseries.as_ref())
    {
        Some(ts) => db.prepare_measurement(doc, &ts.time_field, ts.meta_field.as_deref()),
        None => db.prepare_insert(doc),
    }
}

/// The `bypassDocumentValidation` option of a write method.
pub fn bypass(options: Option<&Document>) -> Result<bool> {
    match options.and_then(|o| o.get("bypassDocumentValidation")) {
        None | Some(Bson::Null | Bson::Undefined) => Ok(false),
        Some(Bson::Boolean(b)) => Ok(*b),
        Some(other) => Err(Error::type_mismatch(format!(
            "BSON field 'bypassDocumentValidation' is the wrong type '{}', expected types '[bool, long, int, decimal, double]'",
            crate::text::shell::type_name(other)
        ))),
    }
}
