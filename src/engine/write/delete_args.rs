//! The arguments of deleteOne, deleteMany and the legacy remove(), decoded
//! once into [`DeleteArgs`] (mongosh's checks, in its order). The run and
//! explain() both read them.
use super::super::{Call, Method};
use super::options::{self, Opts};
use crate::context::RunCtx;
use crate::error::{Result, Span};
use bson::{Bson, Document};

/// A delete call, typed.
#[derive(Clone, Debug)]
pub(crate) struct DeleteArgs {
    pub filter: Document,
    /// Where filter errors point.
    pub filter_span: Span,
    /// `hint` and `let` (the others change nothing for a delete).
    pub opts: Opts,
    /// deleteMany, or remove() without `justOne`.
    pub multi: bool,
}

impl DeleteArgs {
    pub fn decode(call: &Call, m: Method, run: &RunCtx) -> Result<DeleteArgs> {
        let method = m.name();
        call.max_args(2)?;
        let filter = options::required_doc(call, 0, method, "filter")?;
        // remove(query, justOne): a boolean, or options whose justOne mongosh
        // reads by truthiness; anything else spreads to no options (deleteMany).
        let (opts_doc, just_one) = match call.arg(1).map(|a| &a.value) {
            Some(Bson::Boolean(b)) if m == Method::Remove => (None, *b),
            Some(Bson::Document(d)) if m == Method::Remove => {
                (Some(d), d.get("justOne").is_some_and(options::truthy))
            }
            Some(_) if m == Method::Remove => (None, false),
            _ => (call.doc_arg(1, "options")?, false),
        };
        let opts = options::parse(opts_doc, run).map_err(|e| e.at(call.span))?;
        Ok(DeleteArgs {
            filter: filter.clone(),
            filter_span: call.arg(0).map_or(call.span, |a| a.span),
            opts,
            multi: m == Method::DeleteMany || (m == Method::Remove && !just_one),
        })
    }
}
