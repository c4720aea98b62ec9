//! mqlplay: a MongoDB query playground engine. Plain Rust, tested natively;
//! `wasm` is a thin adapter for the page and `bin/mqlplay` for the terminal.
#![deny(clippy::unwrap_used)]

pub mod error;
pub mod shell;

pub use error::{Error, Result, Span};
