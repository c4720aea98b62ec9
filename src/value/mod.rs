//! What bson lacks and everything needs: MongoDB's total order and equality
//! (`order`) and numbers across Int32/Int64/Double/Decimal128 (`numeric`).
pub mod calendar;
pub mod column;
mod column_dictionary;
pub mod entries;
pub mod identical;
pub mod numeric;
pub mod order;
pub mod path;
pub mod prefetch;

pub mod size;

pub use order::{compare, equal, type_rank, OrdBson};
