//! Literal syntax → `bson::Bson`: object/array literals, shell constructors
//! (`ObjectId()`, `ISODate()`, `NumberLong()`...), variable references.
use super::ast::Node;
use crate::error::{Error, Result};
use bson::Bson;
use std::collections::HashMap;

/// What lowering needs besides the node.
pub struct LowerCtx<'a> {
    /// Values bound by earlier `const/let/var` statements.
    pub vars: &'a HashMap<String, Bson>,
    /// The run's clock: `new Date()`, `ISODate()`, `Date()` read it.
    pub now: bson::DateTime,
    /// Accept Extended JSON v2 wrappers (`{"$oid": ...}`); true for configurations.
    pub extjson: bool,
}

/// Turn a literal node into a BSON value, or explain why it is not one.
pub fn lower(node: &Node, _ctx: &LowerCtx) -> Result<Bson> {
    Err(Error::failed_to_parse("the reader is not written yet").at(node.span))
}
