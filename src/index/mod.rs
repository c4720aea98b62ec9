//! The planner: which index (or a collection scan) answers a read, the bounds
//! a filter gives an index's fields, the scan itself, and explain's stage
//! trees. The indexes themselves are storage (`crate::storage::index`).
pub mod bounds;
pub mod collation;
pub mod explain;
pub mod geo_explain;
pub mod parsed;
pub mod plan;
pub mod scan;
pub mod text;
