//! The aggregation expression language: compiled once from BSON into a tree,
//! then evaluated per document. The one place where expressions live: `$expr`,
//! pipeline stages and pipeline updates all use it.
use crate::context::RunCtx;
use crate::error::{Error, Result};
use bson::{Bson, Document};

/// A compiled expression.
#[derive(Clone, Debug)]
pub struct Expr {
    _private: (),
}

/// Compile-time context: which user variables (`let`, `as`) are in scope.
#[derive(Clone, Debug, Default)]
pub struct CompileCtx {
    pub variables: Vec<String>,
}

/// Evaluation scope: the run context plus variable bindings.
#[derive(Clone, Debug)]
pub struct Scope<'a> {
    pub run: &'a RunCtx,
    pub vars: Vec<(String, Bson)>,
}

impl<'a> Scope<'a> {
    pub fn new(run: &'a RunCtx) -> Scope<'a> {
        Scope {
            run,
            vars: Vec::new(),
        }
    }
}

impl Expr {
    /// Compile an expression from its BSON form.
    pub fn compile(_spec: &Bson, _ctx: &CompileCtx) -> Result<Expr> {
        Err(Error::not_supported("aggregation expressions"))
    }

    /// Evaluate against a document (`$$ROOT`/`$$CURRENT`). `None` means missing.
    pub fn evaluate(&self, _doc: &Document, _scope: &Scope) -> Result<Option<Bson>> {
        Err(Error::not_supported("aggregation expressions"))
    }
}
