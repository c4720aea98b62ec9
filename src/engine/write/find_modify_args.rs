//! The arguments of findOneAndUpdate, findOneAndReplace, findOneAndDelete and
//! findAndModify, decoded once into [`FindModifyArgs`] (mongosh's checks, in
//! its order).
use super::super::{Call, Method};
use super::options::{self, Opts};
use super::update::check_update_argument;
use crate::context::RunCtx;
use crate::error::{Error, Result, Span};
use bson::{Bson, Document};

/// A findAndModify-family call, typed.
#[derive(Clone, Debug)]
pub(crate) struct FindModifyArgs {
    /// The filter as written (a positional projection refers to it).
    pub filter: Document,
    /// The update or replacement; `None` removes the document.
    pub update: Option<Bson>,
    /// Where update errors point: the update argument, or the whole call
    /// for findAndModify's spec document.
    pub update_span: Span,
    /// `sort`, `projection`/`fields`, `upsert`, `arrayFilters`, the
    /// returned document (`returnDocument`, `returnOriginal`,
    /// `returnNewDocument`, `new`) and `let`.
    pub opts: Opts,
}

impl FindModifyArgs {
    pub fn decode(call: &Call, m: Method, run: &RunCtx) -> Result<FindModifyArgs> {
        match m {
            Method::FindAndModify => decode_find_and_modify(call, run),
            Method::FindOneAndDelete => {
                call.max_args(2)?;
                let filter = options::required_doc(call, 0, "findOneAndDelete", "filter")?;
                let opts = options::parse(call.doc_arg(1, "options")?, run)
                    .map_err(|e| e.at(call.span))?;
                Ok(FindModifyArgs {
                    filter: filter.clone(),
                    update: None,
                    update_span: call.span,
                    opts,
                })
            }
            m => {
                let name = m.name();
                call.max_args(3)?;
                let filter = options::required_doc(call, 0, name, "filter")?;
                let update = options::required(call, 1, name)?;
                check_update_argument(m == Method::FindOneAndReplace, &update.value)
                    .map_err(|e| e.at(update.span))?;
                let opts = options::parse(call.doc_arg(2, "options")?, run)
                    .map_err(|e| e.at(call.span))?;
                Ok(FindModifyArgs {
                    filter: filter.clone(),
                    update: Some(update.value.clone()),
                    update_span: update.span,
                    opts,
                })
            }
        }
    }
}

/// mongosh's findAndModify: `remove` → findOneAndDelete; an update that is a
/// pipeline or has a `$` key → findOneAndUpdate; otherwise findOneAndReplace.
fn decode_find_and_modify(call: &Call, run: &RunCtx) -> Result<FindModifyArgs> {
    call.max_args(1)?;
    let spec = options::required_doc(call, 0, "findAndModify", "options")?;
    let filter = match spec.get("query") {
        None | Some(Bson::Undefined) => {
            return Err(Error::bad_value("Missing required property: \"query\"").at(call.span))
        }
        Some(Bson::Document(d)) => d.clone(),
        Some(Bson::Null) => Document::new(),
        Some(other) => {
            return Err(Error::type_mismatch(format!(
                "query must be an object, got {}",
                crate::text::shell::type_name(other)
            ))
            .at(call.span))
        }
    };
    let opts = options::parse(Some(spec), run).map_err(|e| e.at(call.span))?;
    let mut args = FindModifyArgs {
        filter,
        update: None,
        update_span: call.span,
        opts,
    };
    if matches!(spec.get("remove"), Some(Bson::Boolean(true))) {
        return Ok(args);
    }
    let update = match spec.get("update") {
        None | Some(Bson::Null | Bson::Undefined | Bson::Boolean(false)) => {
            return Err(
                Error::bad_value("Must specify options.update or options.remove").at(call.span),
            )
        }
        Some(u) => u.clone(),
    };
    let is_update = match &update {
        Bson::Array(_) => true,
        Bson::Document(d) => d.keys().any(|k| k.starts_with('$')),
        _ => false,
    };
    check_update_argument(!is_update, &update).map_err(|e| e.at(call.span))?;
    args.update = Some(update);
    Ok(args)
}
