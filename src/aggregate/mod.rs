//! Aggregation pipelines: stages compiled once, then run over documents.
use crate::engine::Database;
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Scope};
use bson::{Bson, Document};

#[derive(Clone, Debug)]
pub struct Pipeline {
    _private: (),
}

impl Pipeline {
    pub fn compile(_stages: &[Bson], _ctx: &CompileCtx) -> Result<Pipeline> {
        Err(Error::not_supported("aggregation pipelines"))
    }

    /// Run over `input`; stages that read or write other collections use `db`.
    pub fn run(
        &self,
        _input: Vec<Document>,
        _db: &mut Database,
        _scope: &Scope,
    ) -> Result<Vec<Document>> {
        Err(Error::not_supported("aggregation pipelines"))
    }
}
