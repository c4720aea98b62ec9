//! Updates: operator documents (`{$set: ...}`) and pipelines, compiled once,
//! applied per document.
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Scope};
use bson::{Bson, Document};

#[derive(Clone, Debug)]
pub struct Update {
    _private: (),
}

impl Update {
    /// Compile an update document or pipeline, with optional `arrayFilters`.
    pub fn compile(
        _spec: &Bson,
        _array_filters: Option<&[Bson]>,
        _ctx: &CompileCtx,
    ) -> Result<Update> {
        Err(Error::not_supported("updates"))
    }

    /// Apply to a document in place; returns whether it changed. `position` is
    /// the filter's positional match; `inserting` is true for an upsert's insert.
    pub fn apply(
        &self,
        _doc: &mut Document,
        _position: Option<usize>,
        _inserting: bool,
        _scope: &Scope,
    ) -> Result<bool> {
        Err(Error::not_supported("updates"))
    }
}
