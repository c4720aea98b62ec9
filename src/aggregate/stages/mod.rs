//! One module per stage or small family of stages.
pub mod group;
pub mod project;
pub mod simple;
pub mod unwind;
pub mod facet;
pub mod lookup;
pub mod output;
