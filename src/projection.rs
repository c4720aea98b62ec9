//! find() projections: inclusion/exclusion, `$slice`, `$elemMatch`, positional.
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Scope};
use bson::Document;

#[derive(Clone, Debug)]
pub struct Projection {
    _private: (),
}

impl Projection {
    pub fn compile(_spec: &Document, _ctx: &CompileCtx) -> Result<Projection> {
        Err(Error::not_supported("projections"))
    }

    /// Project one document; `position` is the filter's positional match.
    pub fn apply(
        &self,
        _doc: &Document,
        _position: Option<usize>,
        _scope: &Scope,
    ) -> Result<Document> {
        Err(Error::not_supported("projections"))
    }
}
