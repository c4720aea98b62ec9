//! `db.<coll>.aggregate(pipeline, options)` and `db.aggregate([...])`.
use super::{Call, Session};
use crate::error::{Error, Result};
use bson::Bson;

pub fn run(_session: &mut Session, _coll: Option<&str>, calls: &[Call]) -> Result<Bson> {
    Err(Error::not_supported("aggregate()").at(calls[0].span))
}
