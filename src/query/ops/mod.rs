//! One module per operator family; `filter.rs` dispatches operator names here
//! once, at compile time.
pub(crate) mod array;
pub(crate) mod bitwise;
pub(crate) mod comparison;
pub(crate) mod element;
pub(crate) mod evaluation;
pub(crate) mod json_schema;
pub(crate) mod logical;
