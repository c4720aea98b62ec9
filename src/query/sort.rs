//! Sort specifications (`{a: 1, b: -1}`), shared by find, `$sort`, `$push`.
use crate::error::{Error, Result};
use bson::Document;
use std::cmp::Ordering;

#[derive(Clone, Debug)]
pub struct SortSpec {
    pub keys: Vec<(String, bool)>,
}

impl SortSpec {
    pub fn compile(_spec: &Document) -> Result<SortSpec> {
        Err(Error::not_supported("sort"))
    }

    /// Compare two documents by this specification.
    pub fn compare(&self, _a: &Document, _b: &Document) -> Ordering {
        Ordering::Equal
    }
}
