//! Query filters: compiled once from a filter document, then matched against
//! documents. Also the shared sort specification.
pub mod sort;

use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Scope};
use bson::Document;

/// A compiled filter.
#[derive(Clone, Debug)]
pub struct Filter {
    empty: bool,
}

impl Filter {
    pub fn compile(filter: &Document, _ctx: &CompileCtx) -> Result<Filter> {
        if filter.is_empty() {
            Ok(Filter { empty: true })
        } else {
            Err(Error::not_supported("query filters"))
        }
    }

    pub fn matches(&self, doc: &Document, scope: &Scope) -> Result<bool> {
        Ok(self.matches_at(doc, scope)?.is_some())
    }

    /// Match and report the array position the positional `$` operator would use:
    /// `None` = no match, `Some(None)` = match without a position.
    pub fn matches_at(&self, _doc: &Document, _scope: &Scope) -> Result<Option<Option<usize>>> {
        if self.empty {
            Ok(Some(None))
        } else {
            Err(Error::not_supported("query filters"))
        }
    }

    /// The document an upsert starts from: the filter's equality conditions.
    pub fn upsert_seed(&self) -> Result<Document> {
        Ok(Document::new())
    }
}
