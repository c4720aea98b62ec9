//! `distinct(field, filter, options)`: its arguments decoded once into
//! [`DistinctArgs`], and the distinct values at a path, array elements counted
//! separately, in BSON order. See
//! https://www.mongodb.com/docs/manual/reference/method/db.collection.distinct/.
use super::{check_options, filter_arg};
use crate::engine::{Call, Session};
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Scope};
use crate::index::plan::Executed;
use crate::query::Filter;
use crate::text::shell::type_name;
use crate::value::path::{FieldPath, LeafArrays};
use crate::value::OrdBson;
use bson::{Bson, Document};
use std::collections::BTreeSet;

/// A distinct's arguments, typed.
#[derive(Clone, Debug)]
pub(crate) struct DistinctArgs {
    pub field: String,
    /// The filter as written (explain shows it).
    pub filter_doc: Document,
    pub hint: Option<Bson>,
}

impl DistinctArgs {
    /// Decode `distinct(field, filter, options)`: the compiled filter and the typed arguments.
    pub fn decode(call: &Call) -> Result<(Filter, DistinctArgs)> {
        call.max_args(3)?;
        let field = match call.arg(0).map(|a| &a.value) {
            Some(Bson::String(s)) => s.clone(),
            Some(v) => {
                return Err(Error::type_mismatch(format!(
                    "BSON field 'distinct.key' is the wrong type '{}', expected type 'string'",
                    type_name(v)
                )))
            }
            None => return Err(Error::bad_value("distinct() needs a field name")),
        };
        if field.is_empty() || field.starts_with('$') {
            return Err(Error::bad_value(format!(
                "distinct field name cannot be empty or start with '$': '{field}'"
            )));
        }
        let filter = filter_arg(call, 1, &CompileCtx::default())?;
        let empty = Document::new();
        let opts = call.doc_arg(2, "options")?.unwrap_or(&empty);
        check_options(opts, &["maxTimeMS", "comment", "hint"])?;
        let filter_doc = call.doc_arg(1, "filter")?.unwrap_or(&empty).clone();
        let args = DistinctArgs {
            field,
            filter_doc,
            hint: opts.get("hint").cloned(),
        };
        Ok((filter, args))
    }
}

/// The distinct values and the work done.
pub(super) fn distinct(
    session: &Session,
    coll: &str,
    filter: &Filter,
    args: &DistinctArgs,
) -> Result<(Bson, Executed)> {
    let path = FieldPath::new(&args.field);
    let scope = Scope::new(&session.run);
    let mut seen: BTreeSet<OrdBson> = BTreeSet::new();
    let c = session.db.collection(coll);
    let filter = &crate::index::text::bind(filter, Some(&args.filter_doc), c)?;
    let plan = crate::index::plan::plan(c, filter, None, args.hint.as_ref())?;
    let mut matched = 0;
    let mut scan = plan.scan(c);
    for d in scan.by_ref() {
        if !filter.matches(d, &scope)? {
            continue;
        }
        matched += 1;
        path.visit(d, LeafArrays::TraverseOmitArray, &mut |v, _| {
            if let Some(v) = v {
                seen.insert(OrdBson(v.clone()));
            }
            false
        });
    }
    let stats = scan.stats;
    // The set is ordered by MongoDB's comparison and deduplicated by its equality.
    let values = Bson::Array(seen.into_iter().map(|o| o.0).collect());
    Ok((
        values,
        Executed {
            plan,
            stats,
            matched,
        },
    ))
}
