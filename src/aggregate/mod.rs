//! Aggregation pipelines: stages compiled once, then run over documents.
//! `pipeline` holds the stage list and the run loop, `stages/` one module per
//! stage family, `accumulators` what `$group` and friends compute.
pub mod accumulators;
pub mod key;
pub mod operand;
pub mod path;
pub mod pipeline;
mod stage_spec;
pub mod stages;
pub mod window;

pub use pipeline::{Pipeline, Source};
#[cfg(test)]
mod tests;
