//! Update, replace and delete methods (and their legacy forms), findOneAnd*,
//! findAndModify and bulkWrite.
mod bulk;
mod delete;
mod delete_args;
mod exec;
mod find_modify;
mod find_modify_args;
mod options;
mod timeseries;
mod update;
mod update_args;

pub(super) use delete_args::DeleteArgs;
pub(super) use find_modify_args::FindModifyArgs;
pub(super) use update_args::UpdateArgs;

use super::{Command, Method, Session};
use crate::error::{Error, Result};
use bson::Bson;

pub fn run(session: &mut Session, cmd: &Command) -> Result<Bson> {
    let (coll, call) = (cmd.collection, cmd.call);
    match cmd.method {
        Method::UpdateOne | Method::UpdateMany | Method::ReplaceOne | Method::Update => {
            update::run(session, coll, call, cmd.method)
        }
        Method::DeleteOne | Method::DeleteMany | Method::Remove => {
            delete::run(session, coll, call, cmd.method)
        }
        Method::FindOneAndUpdate
        | Method::FindOneAndReplace
        | Method::FindOneAndDelete
        | Method::FindAndModify => find_modify::run(session, coll, call, cmd.method),
        Method::BulkWrite => bulk::run(session, coll, call),
        other => Err(Error::not_supported(format!("{}()", other.name())).at(call.span)),
    }
}
