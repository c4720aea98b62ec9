//! The arguments of updateOne, updateMany, replaceOne and the legacy
//! update(), decoded once into [`UpdateArgs`] (mongosh's checks, in its
//! order). The run and explain() both read them.
use super::super::{Call, Method};
use super::options::{self, Opts};
use super::update::check_update_argument;
use crate::context::RunCtx;
use crate::error::{Result, Span};
use bson::{Bson, Document};

/// An update call, typed.
#[derive(Clone, Debug)]
pub(crate) struct UpdateArgs {
    pub filter: Document,
    /// Where filter errors point.
    pub filter_span: Span,
    /// The update document, pipeline or replacement.
    pub update: Bson,
    pub update_span: Span,
    /// `upsert`, `arrayFilters`, `sort`, `hint`, `let` (and the legacy `multi`).
    pub opts: Opts,
    /// updateMany, or update() with `multi`.
    pub multi: bool,
}

impl UpdateArgs {
    pub fn decode(call: &Call, m: Method, run: &RunCtx) -> Result<UpdateArgs> {
        let method = m.name();
        call.max_args(3)?;
        let filter = options::required_doc(call, 0, method, "filter")?;
        let update = options::required(call, 1, method)?;
        // mongosh spreads the legacy update()'s options: a boolean there (the old
        // shell's `upsert` argument) gives no options at all.
        let opts_doc = match call.arg(2).map(|a| &a.value) {
            Some(v) if m == Method::Update && !matches!(v, Bson::Document(_)) => None,
            _ => call.doc_arg(2, "options")?,
        };
        let opts = options::parse(opts_doc, run).map_err(|e| e.at(call.span))?;
        check_update_argument(m == Method::ReplaceOne, &update.value)
            .map_err(|e| e.at(update.span))?;
        let multi = m == Method::UpdateMany || (m == Method::Update && opts.multi);
        Ok(UpdateArgs {
            filter: filter.clone(),
            filter_span: call.arg(0).map_or(call.span, |a| a.span),
            update: update.value.clone(),
            update_span: update.span,
            opts,
            multi,
        })
    }
}
