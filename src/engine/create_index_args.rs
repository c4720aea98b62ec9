//! The arguments of createIndex and createIndexes, decoded once into
//! [`CreateIndexArgs`]: each key pattern with the options document, as one
//! [`IndexSpec`] (the checks in the same order as before: arguments, key
//! patterns, then each pattern's options).
use super::{Call, Method};
use crate::collation::Collation;
use crate::error::{Error, Result};
use crate::storage::index::spec::IndexSpec;
use crate::text::shell::type_name;
use bson::{Bson, Document};
use std::rc::Rc;

/// A createIndex or createIndexes call, typed: one spec per key pattern
/// (`createIndexes` gives every pattern the same options). The third
/// argument (`commitQuorum`) changes nothing here.
#[derive(Clone, Debug)]
pub(super) struct CreateIndexArgs {
    pub specs: Vec<IndexSpec>,
}

impl CreateIndexArgs {
    /// `default`: the collection's collation, which a spec without its own inherits.
    pub fn decode(
        call: &Call,
        method: Method,
        default: &Option<Rc<Collation>>,
    ) -> Result<CreateIndexArgs> {
        call.max_args(3)?;
        let specs = if method == Method::CreateIndexes {
            let Some(Bson::Array(items)) = call.arg(0).map(|a| &a.value) else {
                return Err(Error::type_mismatch(
                    "createIndexes() needs an array of key patterns",
                ));
            };
            let mut specs = Vec::with_capacity(items.len());
            for item in items {
                let Bson::Document(keys) = item else {
                    return Err(Error::type_mismatch(format!(
                        "createIndexes() needs key pattern objects, got {}",
                        type_name(item)
                    )));
                };
                specs.push(spec(call, keys, default)?);
            }
            specs
        } else {
            vec![spec(call, keys_arg(call)?, default)?]
        };
        Ok(CreateIndexArgs { specs })
    }
}

fn keys_arg(call: &Call) -> Result<&Document> {
    match call.arg(0).map(|a| &a.value) {
        Some(Bson::Document(d)) => Ok(d),
        Some(other) => Err(Error::type_mismatch(format!(
            "{}() needs a key pattern object, got {}",
            call.name,
            type_name(other)
        ))),
        None => Err(Error::bad_value(format!(
            "{}() needs a key pattern, e.g. {{a: 1}}",
            call.name
        ))),
    }
}

/// One key pattern with the call's options document.
fn spec(call: &Call, keys: &Document, default: &Option<Rc<Collation>>) -> Result<IndexSpec> {
    let empty = Document::new();
    let options = call.doc_arg(1, "index options")?.unwrap_or(&empty);
    let mut spec =
        IndexSpec::parse(keys, options).map_err(|e| match call.arg(1).or(call.arg(0)) {
            Some(a) => e.at(a.span),
            None => e,
        })?;
    if !options.contains_key("collation") {
        spec.inherit_collation(default.clone());
    }
    Ok(spec)
}
