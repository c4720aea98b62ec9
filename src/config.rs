//! Database configurations in Mongo Playground's two forms:
//! `db = { trades: [...], reviews: [...] }` or a bare array (collection `collection`).
use crate::error::{Error, Result, Source};
use crate::shell::LowerCtx;
use bson::Document;

pub fn parse_database(src: &str, _ctx: &LowerCtx) -> Result<Vec<(String, Vec<Document>)>> {
    if src.trim().is_empty() {
        return Ok(Vec::new());
    }
    Err(
        Error::failed_to_parse("the configuration reader is not written yet")
            .in_source(Source::Database),
    )
}
