//! MongoDB's regular expressions (PCRE) on the `regex` crate: the pattern translated (`syntax`), Unicode case folding
//! (`fold`), and plain-string patterns matched without a regex (`literal`).
//! Shared by query `$regex` and the expression operators (`$regexMatch`,
//! `$regexFind`, `$regexFindAll`), so both accept and refuse the same patterns.
mod escape;
pub mod fold;
pub mod literal;
pub mod syntax;

pub use syntax::{translate, REGEX_SIZE_LIMIT};
