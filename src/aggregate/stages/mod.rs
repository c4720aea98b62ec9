//! One module per stage or small family of stages.
pub mod bucket;
pub mod densify;
pub mod facet;
pub mod fill;
pub mod geo_near;
pub mod granularity;
pub mod group;
pub mod group_columns;
pub mod lookup;
pub mod output;
pub mod project;
pub mod redact;
pub mod simple;
pub mod union_with;
pub mod unwind;
pub mod unwind_group;
