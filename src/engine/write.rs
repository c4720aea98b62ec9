//! Update, replace and delete methods (and their legacy forms).
use super::{Call, Session};
use crate::error::{Error, Result};
use bson::Bson;

pub fn run(_session: &mut Session, _coll: &str, call: &Call) -> Result<Bson> {
    Err(Error::not_supported(format!("{}()", call.name)).at(call.span))
}
