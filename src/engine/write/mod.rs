//! Update, replace and delete methods (and their legacy forms), findOneAnd*,
//! findAndModify and bulkWrite.
mod bulk;
mod delete;
mod exec;
mod find_modify;
mod options;
mod update;

use super::{Call, Session};
use crate::error::{Error, Result};
use bson::Bson;

pub fn run(session: &mut Session, coll: &str, call: &Call) -> Result<Bson> {
    match call.name.as_str() {
        "updateOne" | "updateMany" | "replaceOne" | "update" => update::run(session, coll, call),
        "deleteOne" | "deleteMany" | "remove" => delete::run(session, coll, call),
        "findOneAndUpdate" | "findOneAndReplace" | "findOneAndDelete" | "findAndModify" => {
            find_modify::run(session, coll, call)
        }
        "bulkWrite" => bulk::run(session, coll, call),
        _ => Err(Error::not_supported(format!("{}()", call.name)).at(call.span)),
    }
}
